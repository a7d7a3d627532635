"""`jax.extend.linear_util`: wrapped functions and the transformations stacked on them, over
`stablejax.linear_util.WrappedFun` (a transformation wraps the function it is called with)."""
from __future__ import annotations

import functools
from typing import Any, Callable

from stablejax.linear_util import WrappedFun, wrap_init

__all__ = ["StoreException", "WrappedFun", "merge_linear_aux", "transformation",
           "transformation2", "transformation_with_aux", "transformation_with_aux2",
           "wrap_init"]


class StoreException(Exception):
  """An auxiliary output read before it was stored, or stored twice."""


class _Store:
  """Where a transformation leaves its auxiliary output, for the thunk to read once called."""
  __slots__ = ("_val", "_full")

  def __init__(self):
    self._full = False

  def store(self, val: Any) -> None:
    if self._full:
      raise StoreException("Store occupied")
    self._val, self._full = val, True

  @property
  def val(self) -> Any:
    if not self._full:
      raise StoreException("Store empty")
    return self._val


def _curried(transform: Callable) -> Callable:
  """`transform(gen, fun, *args)` also usable as a decorator of `gen` (JAX's `@curry`)."""
  @functools.wraps(transform)
  def curried(gen: Callable, *rest: Any, **kwargs: Any) -> Any:
    if rest:
      return transform(gen, *rest, **kwargs)
    return functools.partial(transform, gen, **kwargs)
  return curried


@_curried
def transformation2(gen: Callable, fun: WrappedFun, *gen_static_args: Any) -> WrappedFun:
  """`fun` under `gen(f, *gen_static_args, *args, **kwargs)`, where `f` calls what it wraps."""
  return fun.wrap(lambda call: functools.partial(gen, call, *gen_static_args))


@_curried
def transformation_with_aux2(gen: Callable, fun: WrappedFun, *gen_static_args: Any,
                             use_eq_store: bool = False
                             ) -> tuple[WrappedFun, Callable[[], Any]]:
  """`transformation2` whose `gen(f, store, *gen_static_args, *args, **kwargs)` also stores an
  auxiliary output; the thunk returned reads it once the function has been called."""
  del use_eq_store
  store = _Store()
  return (fun.wrap(lambda call: functools.partial(gen, call, store, *gen_static_args)),
          lambda: store.val)


def _run_generator(gen: Callable, f: Callable, *args: Any, **kwargs: Any) -> Any:
  """Run an old-style transformation: `gen` yields the arguments to call `f` with and is sent
  `f`'s result, and yields its own."""
  gen_inst = gen(*args, **kwargs)
  args_, kwargs_ = next(gen_inst)
  return gen_inst.send(f(*args_, **kwargs_))


@_curried
def transformation(gen: Callable, fun: WrappedFun, *gen_static_args: Any) -> WrappedFun:
  """The generator form of `transformation2` (JAX's older interface)."""
  return transformation2(functools.partial(_run_generator, gen), fun, *gen_static_args)


@_curried
def transformation_with_aux(gen: Callable, fun: WrappedFun, *gen_static_args: Any
                            ) -> tuple[WrappedFun, Callable[[], Any]]:
  """The generator form of `transformation_with_aux2`: `gen` yields `(result, aux)`."""
  def gen2(f: Callable, store: _Store, *args: Any, **kwargs: Any) -> Any:
    ans, aux = _run_generator(gen, f, *args, **kwargs)
    store.store(aux)
    return ans
  return transformation_with_aux2(gen2, fun, *gen_static_args)


def merge_linear_aux(aux1: Callable[[], Any], aux2: Callable[[], Any]) -> tuple[bool, Any]:
  """Of two auxiliary-output thunks exactly one of which was stored: (whether it was the
  first, its value)."""
  try:
    out1 = aux1()
  except StoreException:
    try:
      return False, aux2()
    except StoreException:
      raise StoreException("neither store occupied") from None
  try:
    aux2()
  except StoreException:
    return True, out1
  raise StoreException("both stores occupied")
