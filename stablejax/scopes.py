"""`named_scope` and `named_call`: names added to the name stack of what is traced inside them,
seen in jaxprs' source info and in the locations of lowered modules
(`jit(f).lower(x).as_text(debug_info=True)`), as JAX's."""
from __future__ import annotations

import contextlib
import functools
from typing import Callable, Iterator, TypeVar

from stablejax import core

F = TypeVar("F", bound=Callable)


@contextlib.contextmanager
def named_scope(name: str) -> Iterator[None]:
  """Context manager (and decorator) adding `name` to the name stack of the operations traced
  inside it."""
  if not isinstance(name, str):
    raise TypeError("named_scope name argument must be a string.")
  with core.extend_name_stack(name):
    yield


def named_call(fun: F, *, name: str | None = None) -> F:
  """`fun` traced under a `named_scope` named `name` (default: its `__name__`)."""
  scope_name = fun.__name__ if name is None else name

  @functools.wraps(fun)
  def named(*args, **kwargs):
    with named_scope(scope_name):
      return fun(*args, **kwargs)

  return named  # type: ignore[return-value]
