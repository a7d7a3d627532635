"""Elementwise functions: arithmetic, math, comparisons and logic, with broadcasting and JAX's
dtype promotion. Most are generated from the tables below."""
from __future__ import annotations

import operator
from typing import Any, Callable

import numpy as np

from stablejax import core, dtypes, lax
from stablejax.runtime import Array
from stablejax.numpy._promotion import (
    broadcast_shapes, broadcast_to, convert, dtype, ensure_arraylike, promote_args,
    promote_args_inexact, promote_dtypes, promote_dtypes_inexact, promote_shapes, scalar_like,
    shape)


def _unary(name: str, op: Callable, inexact: bool) -> Callable[[Any], Any]:
  def fn(x: Any) -> Any:
    if type(x) is Array or isinstance(x, core.Tracer):  # the common case, checked cheaply
      kind = x.aval.dtype.kind
    else:
      (x,) = ensure_arraylike(name, x)
      kind = core.get_aval(x).dtype.kind
    if inexact and kind not in "fc":
      (x,) = promote_dtypes_inexact(x)
    return op(x)
  return _named(fn, name, f"Elementwise {name}, as numpy.{name}.")


def _binary(name: str, op: Callable, inexact: bool) -> Callable[[Any, Any], Any]:
  def fn(x1: Any, x2: Any) -> Any:
    promote = promote_args_inexact if inexact else promote_args
    return op(*promote(name, x1, x2))
  return _named(fn, name, f"Elementwise {name} with broadcasting, as numpy.{name}.")


def _named(fn: Callable, name: str, doc: str) -> Callable:
  fn.__name__ = fn.__qualname__ = name
  fn.__doc__ = doc
  return fn


def _is_bool(x: Any) -> bool:
  return dtype(x) == dtypes.bool_


def _bool_or(numeric_op: Callable, bool_op: Callable) -> Callable:
  """An op that acts as a logical op on booleans (numpy's add and multiply of bools)."""
  return lambda x, y: (bool_op if _is_bool(x) else numeric_op)(x, y)


def _to_bool(x: Any) -> Any:
  return x if _is_bool(x) else lax.ne(x, scalar_like(x, 0))


def _logical(op: Callable) -> Callable:
  return lambda *args: op(*map(_to_bool, args))


def _xor(x: Any, y: Any) -> Any:
  """(x | y) & ~(x & y): lax has no xor primitive yet."""
  return lax.bitwise_and(lax.bitwise_or(x, y), lax.bitwise_not(lax.bitwise_and(x, y)))


# name -> lax op, and whether integer inputs become floating-point first.
_UNARY = {
    "negative": (lax.neg, False), "sign": (lax.sign, False), "exp": (lax.exp, True),
    "log": (lax.log, True),
    "log1p": (lax.log1p, True), "expm1": (lax.expm1, True), "sin": (lax.sin, True),
    "cos": (lax.cos, True), "tan": (lax.tan, True), "tanh": (lax.tanh, True),
    "sqrt": (lax.sqrt, True),
}

# name -> op on promoted operands, and whether integer inputs become floating-point first.
_BINARY = {
    "add": (_bool_or(lax.add, lax.bitwise_or), False),
    "subtract": (lax.sub, False),
    "multiply": (_bool_or(lax.mul, lax.bitwise_and), False),
    "divide": (lax.div, True), "true_divide": (lax.div, True),
    "maximum": (lax.max, False), "minimum": (lax.min, False),
    "equal": (lax.eq, False), "not_equal": (lax.ne, False),
    "less": (lax.lt, False), "less_equal": (lax.le, False),
    "greater": (lax.gt, False), "greater_equal": (lax.ge, False),
    "logical_and": (_logical(lax.bitwise_and), False),
    "logical_or": (_logical(lax.bitwise_or), False),
    "logical_xor": (_logical(_xor), False),
    "bitwise_and": (lax.bitwise_and, False),
    "bitwise_or": (lax.bitwise_or, False),
    "bitwise_xor": (_xor, False),
}

UNARY = {name: _unary(name, op, inexact) for name, (op, inexact) in _UNARY.items()}
BINARY = {name: _binary(name, op, inexact) for name, (op, inexact) in _BINARY.items()}


def _integer_identity(name: str, op: Callable) -> Callable[[Any], Any]:
  """floor and ceil: the identity on integers and booleans."""
  def fn(x: Any) -> Any:
    (x,) = ensure_arraylike(name, x)
    return op(x) if dtypes.is_inexact(dtype(x)) else x
  return _named(fn, name, f"Elementwise {name}, as numpy.{name} (integers are unchanged).")


def _abs(x: Any) -> Any:
  """|x|: the identity on unsigned integers and booleans."""
  return x if dtype(x).kind in "ub" else lax.abs(x)


UNARY["abs"] = UNARY["absolute"] = _unary("abs", _abs, False)
UNARY["floor"] = _integer_identity("floor", lax.floor)
UNARY["ceil"] = _integer_identity("ceil", lax.ceil)


def round(a: Any, decimals: int = 0) -> Any:  # noqa: A001  (numpy's name)
  """Round half to even, as numpy.round (only decimals=0)."""
  if decimals != 0:
    raise NotImplementedError(f"round: only decimals=0 is supported, got decimals={decimals}")
  (a,) = ensure_arraylike("round", a)
  if not dtypes.is_inexact(dtype(a)):
    return a
  return lax.round(a, lax.RoundingMethod.TO_NEAREST_EVEN)


def square(x: Any) -> Any:
  """Elementwise x * x (integer_pow: lax has no square primitive)."""
  (x,) = ensure_arraylike("square", x)
  return lax.integer_pow(x, 2)


def reciprocal(x: Any) -> Any:
  """Elementwise 1 / x, in floating point."""
  (x,) = promote_dtypes_inexact(*ensure_arraylike("reciprocal", x))
  return lax.integer_pow(x, -1)


def logical_not(x: Any) -> Any:
  """Elementwise logical negation (nonzero is True)."""
  (x,) = ensure_arraylike("logical_not", x)
  return lax.bitwise_not(_to_bool(x))


def invert(x: Any) -> Any:
  """Elementwise bitwise negation of integers and booleans (the ~ operator)."""
  (x,) = ensure_arraylike("invert", x)
  return lax.bitwise_not(x)


def where(condition: Any, x: Any = None, y: Any = None) -> Any:
  """Elementwise `x` where `condition` else `y`, broadcasting all three."""
  if x is None or y is None:
    raise ValueError("where: both x and y must be given (the one-argument form, nonzero, "
                     "is not supported)")
  condition, x, y = ensure_arraylike("where", condition, x, y)
  condition = _to_bool(condition)
  x, y = promote_dtypes(x, y)
  operands = [x, y] if not shape(condition) else [condition, x, y]
  out_shape = broadcast_shapes("where", *map(shape, operands))
  if shape(condition):
    condition = broadcast_to(condition, out_shape)
  return lax.select_n(condition, broadcast_to(y, out_shape), broadcast_to(x, out_shape))


def clip(arr: Any, min: Any = None, max: Any = None) -> Any:  # noqa: A002  (numpy's names)
  """Limit `arr` to [min, max]; either bound may be None."""
  if min is not None:
    arr = BINARY["maximum"](min, arr)
  if max is not None:
    arr = BINARY["minimum"](max, arr)
  return arr


def floor_divide(x1: Any, x2: Any) -> Any:
  """Elementwise floor(x1 / x2), as numpy.floor_divide."""
  x1, x2 = promote_args("floor_divide", x1, x2)
  kind = dtype(x1).kind
  if kind == "u":
    return lax.div(x1, x2)
  if kind == "i":
    quotient = lax.div(x1, x2)
    select = lax.bitwise_and(lax.ne(lax.sign(x1), lax.sign(x2)),
                             lax.ne(lax.rem(x1, x2), scalar_like(x1, 0)))
    return where(select, lax.sub(quotient, scalar_like(x1, 1)), quotient)
  if kind == "f":
    return _float_floor_divide(x1, x2)
  raise TypeError(f"floor_divide does not support {dtype(x1)} inputs")


def _float_floor_divide(x1: Any, x2: Any) -> Any:
  """CPython's float floor division (floatobject.c), as JAX computes it."""
  mod = lax.rem(x1, x2)
  corrected = where(lax.eq(x2, scalar_like(x2, 0)), x1, lax.sub(x1, mod))
  div = lax.div(corrected, x2)
  ind = lax.bitwise_and(lax.ne(mod, scalar_like(mod, 0)), lax.ne(lax.sign(x2), lax.sign(mod)))
  div = lax.select_n(ind, div, lax.sub(div, scalar_like(div, 1)))
  return lax.round(div, lax.RoundingMethod.AWAY_FROM_ZERO)


def remainder(x1: Any, x2: Any) -> Any:
  """Elementwise remainder with the sign of the divisor, as numpy.remainder."""
  x1, x2 = promote_args("remainder", x1, x2)
  if dtypes.is_bool(dtype(x1)) or dtypes.is_complex(dtype(x1)):
    raise TypeError(f"remainder does not support {dtype(x1)} inputs")
  zero = scalar_like(x1, 0)
  if dtypes.is_integer(dtype(x2)):
    x2 = where(lax.eq(x2, zero), scalar_like(x2, 1), x2)
  trunc_mod = lax.rem(x1, x2)
  trunc_mod_not_zero = lax.ne(trunc_mod, zero)
  do_plus = lax.bitwise_and(lax.ne(lax.lt(trunc_mod, zero), lax.lt(x2, zero)),
                            trunc_mod_not_zero)
  return lax.select_n(do_plus, trunc_mod, lax.add(trunc_mod, x2))


def _concrete_int(x: Any) -> int | None:
  """`x` as a Python int if it is a concrete integer scalar, else None."""
  if isinstance(x, core.Tracer) or dtypes.is_python_scalar(x) and not isinstance(x, int):
    return None
  try:
    return operator.index(x)
  except TypeError:
    return None


def power(x1: Any, x2: Any) -> Any:
  """Elementwise x1 ** x2; a concrete integer exponent uses lax.integer_pow."""
  x1, x2 = ensure_arraylike("power", x1, x2)
  y = _concrete_int(x2)
  if y is not None:
    return lax.integer_pow(x1, y)
  if dtypes.is_inexact(dtype(x1)) and dtypes.is_integer(dtype(x2)):
    return lax.pow(*promote_shapes("power", x1, x2))  # keeps x differentiable at 0
  x1, x2 = promote_args("power", x1, x2)
  if dtypes.is_integer(dtype(x1)):
    return _pow_int_int(x1, x2)
  return lax.pow(x1, x2)


def _pow_int_int(x1: Any, x2: Any) -> Any:
  """Integer power by unrolled binary exponentiation (6 bits: more would overflow)."""
  zero, one = scalar_like(x2, 0), scalar_like(x2, 1)
  acc = where(lax.bitwise_and(lax.eq(x1, zero), lax.ne(x2, zero)), zero, one)
  for _ in range(6):
    acc = where(lax.bitwise_and(x2, one), lax.mul(acc, x1), acc)
    x1 = lax.mul(x1, x1)
    x2 = lax.div(x2, scalar_like(x2, 2))  # a right shift, for non-negative exponents
  return acc


def convert_dtype(x: Any, new_dtype: Any) -> Any:
  """`x` converted to `new_dtype` (canonicalized), as `x.astype`."""
  (x,) = ensure_arraylike("astype", x)
  return convert(x, dtypes.canonicalize(np.dtype(new_dtype)))
