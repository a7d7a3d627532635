"""Wrapped functions (`jax.extend.linear_util`'s `WrappedFun`, `wrap_init`): a function with
the transformations applied to it, called by `call_wrapped` (what `api_util` works on)."""
from __future__ import annotations

from typing import Any, Callable


class WrappedFun:
  """`f` (the original function) and `call`, what calling it runs (f under the wrappers
  added by `wrap`), with its `params` and `debug_info`."""

  def __init__(self, f: Callable, call: Callable, params: tuple, debug_info: Any):
    self.f = f
    self._call = call
    self.params = params
    self.debug_info = debug_info

  @property
  def __name__(self) -> str:
    return getattr(self.f, "__name__", "<unnamed wrapped function>")

  def wrap(self, wrapper: Callable[[Callable], Callable]) -> WrappedFun:
    """A WrappedFun calling `wrapper(the current call)`."""
    return WrappedFun(self.f, wrapper(self._call), self.params, self.debug_info)

  def call_wrapped(self, *args: Any, **kwargs: Any) -> Any:
    return self._call(*args, **dict(self.params), **kwargs)

  def __repr__(self) -> str:
    return f"Wrapped function: {self.__name__}"


def wrap_init(f: Callable, params: dict | None = None, *, debug_info: Any = None) -> WrappedFun:
  """`f` as a WrappedFun; `params` are passed to it as keyword arguments."""
  return WrappedFun(f, f, tuple(sorted((params or {}).items())), debug_info)
