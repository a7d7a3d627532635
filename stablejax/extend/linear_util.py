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


def _curry(f: Callable) -> Callable:
  """JAX's `curry`: `_curry(f)(*args)` is `partial(f, *args)`, so `@transformation` decorates
  a generator, `gen(fun, *static)` applies it, and `transformation(gen, fun)()` does too."""
  return functools.partial(functools.partial, f)


def _wrap(gen: Callable, fun: WrappedFun, *gen_static_args: Any) -> WrappedFun:
  return fun.wrap(lambda call: functools.partial(gen, call, *gen_static_args))


def _wrap_with_aux(gen: Callable, fun: WrappedFun, *gen_static_args: Any,
                   use_eq_store: bool = False) -> tuple[WrappedFun, Callable[[], Any]]:
  del use_eq_store
  store = _Store()
  return _wrap(gen, fun, store, *gen_static_args), lambda: store.val


def _run_generator(gen: Callable, f: Callable, *args: Any, **kwargs: Any) -> Any:
  """Run an old-style transformation: `gen` yields the arguments to call `f` with, is sent
  `f`'s result, and yields its own."""
  gen_inst = gen(*args, **kwargs)
  args_, kwargs_ = next(gen_inst)
  return gen_inst.send(f(*args_, **kwargs_))


def _run_generator_with_aux(gen: Callable, f: Callable, store: _Store, *args: Any,
                            **kwargs: Any) -> Any:
  ans, aux = _run_generator(gen, f, *args, **kwargs)
  store.store(aux)
  return ans


# `fun` under `gen(f, *gen_static_args, *args, **kwargs)`, where `f` calls what `fun` ran.
transformation2 = _curry(_wrap)
# ... with `gen(f, store, *gen_static_args, *args, **kwargs)` storing an auxiliary output; gives
# `(fun, thunk)`, the thunk reading the output once the function has been called.
transformation_with_aux2 = _curry(_wrap_with_aux)
# The generator forms: `gen(*gen_static_args, *args, **kwargs)` yields `(args, kwargs)` to call
# the wrapped function with, is sent its result, and yields the result (`(result, aux)`).
transformation = _curry(lambda gen, fun, *static: _wrap(
    functools.partial(_run_generator, gen), fun, *static))
transformation_with_aux = _curry(lambda gen, fun, *static: _wrap_with_aux(
    functools.partial(_run_generator_with_aux, gen), fun, *static))


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
