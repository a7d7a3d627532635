"""How jax.numpy builds its elementwise functions (infrastructure, no numpy section): the
unary and binary wrappers with JAX's dtype promotion and broadcasting (jitted on concrete
values, as JAX's are: `eager_jit`), the boolean helpers, the
constants shaped like an operand, and the three-operand `where` the sections select with."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from stablejax import core, dtypes, lax
from stablejax.jit import eager_jit
from stablejax.numpy._promotion import (
    broadcast_shapes, broadcast_to, convert, dtype, ensure_arraylike, promote_args,
    promote_args_inexact, promote_dtypes, promote_dtypes_inexact, scalar_like, shape, unchanged)
from stablejax.runtime import Array


def unary(name: str, op: Callable, inexact: bool) -> Callable[[Any], Any]:
  def fn(x: Any, /) -> Any:
    if type(x) is Array or isinstance(x, core.Tracer):  # the common case, checked cheaply
      kind = dtypes.kind(x.aval.dtype)
    else:
      (x,) = ensure_arraylike(name, x)
      kind = dtypes.kind(core.get_aval(x).dtype)
    if inexact and kind not in "fc":
      (x,) = promote_dtypes_inexact(x)
    return op(x)
  return eager_jit(named(fn, name, f"Elementwise {name}, as numpy.{name}."))


def binary(name: str, op: Callable, inexact: bool, bool_op: Callable | None = None
           ) -> Callable[[Any, Any], Any]:
  """`bool_op`: the op on boolean operands, where it is not `op` (numpy's add and multiply of
  booleans are a logical or and and)."""
  promote = promote_args_inexact if inexact else promote_args

  def fn(x1: Any, x2: Any, /) -> Any:
    x1, x2 = promote(name, x1, x2)
    if bool_op is not None and dtype(x1) == dtypes.bool_:
      return bool_op(x1, x2)
    return op(x1, x2)
  return eager_jit(named(fn, name, f"Elementwise {name} with broadcasting, as numpy.{name}."))


def named(fn: Callable, name: str, doc: str) -> Callable:
  fn.__name__ = fn.__qualname__ = name
  fn.__doc__ = doc
  return fn


def is_bool(x: Any) -> bool:
  return dtype(x) == dtypes.bool_


def to_bool(x: Any) -> Any:
  return x if is_bool(x) else lax.ne(x, constant_like(x, 0))


def logical(op: Callable) -> Callable:
  return lambda *args: op(*map(to_bool, args))


def bool_to_int(*args: Any) -> list:
  """Promoted operands with booleans converted to the default integer type (as JAX's
  promote_args_numeric)."""
  return [convert(x, dtypes.default_int()) if is_bool(x) else x for x in args]


def numeric(op: Callable) -> Callable:
  return lambda *args: op(*bool_to_int(*args))


def ordered(op: Callable) -> Callable:
  """An order comparison, lexicographic on (real, imag) for complex operands (as JAX)."""
  def cmp(x: Any, y: Any) -> Any:
    if not dtypes.is_complex(dtype(x)):
      return op(x, y)
    return lax.select(lax.eq(lax.real(x), lax.real(y)), op(lax.imag(x), lax.imag(y)),
                      op(lax.real(x), lax.real(y)))
  return cmp


def where(condition: Any, x: Any = None, y: Any = None) -> Any:
  """Elementwise `x` where `condition` else `y`, broadcasting all three."""
  if x is None or y is None:  # (the public jnp.where also has the one-argument form)
    raise ValueError("where: both x and y must be given")
  condition, x, y = ensure_arraylike("where", condition, x, y)
  condition = to_bool(condition)
  x, y = promote_dtypes(x, y)
  operands = [x, y] if not shape(condition) else [condition, x, y]
  out_shape = broadcast_shapes("where", *map(shape, operands))
  if 0 in out_shape:  # nothing to select: x, as in JAX (so only x's derivative is taken)
    return broadcast_to(x, out_shape)
  if shape(condition):
    condition = broadcast_to(condition, out_shape)
  return lax.select_n(condition, broadcast_to(y, out_shape), broadcast_to(x, out_shape))


def one_like(x: Any) -> Any:
  """A rank-0 one of x's type, weak type included (JAX's `lax._one`; a literal when traced)."""
  aval = core.get_aval(x)
  return lax.convert_element_type(1, aval.dtype, weak_type=aval.weak_type)


def constant_like(x: Any, value: Any) -> Any:
  """`value` as a constant of x's dtype, weakly typed only where `x` is a weakly typed scalar
  (JAX's `lax._const`)."""
  aval = core.get_aval(x)
  if aval.weak_type and not aval.ndim:
    return lax.convert_element_type(value, aval.dtype, weak_type=True)
  return scalar_like(x, value)


def all_bool(x: Any, value: bool) -> Any:
  """An Array of `value` shaped like `x` (a strong bool, as JAX's isinf/isfinite of integers)."""
  return unchanged(lax.full_like(x, value, dtype=np.bool_))
