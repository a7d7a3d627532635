"""Reference implementations of the elementwise primitives, with XLA's semantics where numpy's
differ (truncating integer division, saturating float-to-int casts, NaN-propagating max/min)."""
from __future__ import annotations

import functools
from typing import Callable

import numpy as np

from stablejax.lax_reference import reference


def _quiet(fn: Callable) -> Callable:
  """`fn` with numpy's floating-point warnings off: inf and NaN results are the semantics."""
  @functools.wraps(fn)
  def quiet(*args, **params):
    with np.errstate(all="ignore"):
      return fn(*args, **params)
  return quiet


_NUMPY_UFUNCS = {
    "add": np.add, "add_any": np.add, "sub": np.subtract, "mul": np.multiply,
    "neg": np.negative, "max": np.maximum, "min": np.minimum, "abs": np.abs,
    "floor": np.floor, "ceil": np.ceil, "exp": np.exp, "log": np.log, "log1p": np.log1p,
    "expm1": np.expm1, "sin": np.sin, "cos": np.cos, "tan": np.tan, "tanh": np.tanh,
    "sqrt": np.sqrt, "eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
    "gt": np.greater, "ge": np.greater_equal, "and": np.bitwise_and, "or": np.bitwise_or,
    "not": np.invert,
}
for _name, _ufunc in _NUMPY_UFUNCS.items():
  reference(_name)(_quiet(_ufunc))
del _name, _ufunc


def _int_div_rem(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
  """XLA's integer division (rounding toward zero) and remainder (the dividend's sign), with
  x / 0 = -1 (all bits set), x % 0 = x, and INT_MIN / -1 = INT_MIN (wrapping)."""
  zero = y == 0
  minus_one = (y == -1) if x.dtype.kind == "i" else False
  safe_y = np.where(zero | minus_one, 1, y).astype(y.dtype)
  rem = np.fmod(x, safe_y)
  quot = (x - rem) // safe_y  # exact: x - rem is a multiple of safe_y
  all_ones = ~np.zeros((), x.dtype)
  quot = np.where(zero, all_ones, np.where(minus_one, np.negative(x), quot))
  rem = np.where(zero, x, np.where(minus_one, 0, rem))
  return quot.astype(x.dtype), rem.astype(x.dtype)


@reference("div")
@_quiet
def _div(x, y):
  return _int_div_rem(x, y)[0] if x.dtype.kind in "iu" else np.divide(x, y)


@reference("rem")
@_quiet
def _rem(x, y):
  return _int_div_rem(x, y)[1] if x.dtype.kind in "iu" else np.fmod(x, y)


@reference("sign")
@_quiet
def _sign(x):
  return np.where(x == 0, x, np.sign(x))  # keeps the sign of -0.0, as XLA does


@reference("round")
def _round(x, *, rounding_method):
  if rounding_method == 1:  # to nearest even
    return np.rint(x)
  trunc = np.trunc(x)  # away from zero: x - trunc(x) is exact, so halves are detected exactly
  with np.errstate(invalid="ignore"):
    return np.where(np.abs(x - trunc) >= 0.5, trunc + np.sign(x), trunc)


@reference("logistic")
@_quiet
def _logistic(x):
  return 1 / (1 + np.exp(-x))


@reference("rsqrt")
@_quiet
def _rsqrt(x):
  return 1 / np.sqrt(x)


@reference("pow")
@_quiet
def _pow(x, y):
  return np.power(x, y.astype(x.dtype))  # an integer exponent is converted, as XLA's lowering does


@reference("integer_pow")
@_quiet
def _integer_pow(x, *, y):
  return np.power(x, np.asarray(y, x.dtype))


@reference("select_n")
def _select_n(which, *cases):
  out = cases[0]
  for i, case in enumerate(cases[1:], 1):  # an out-of-range `which` clamps to the first/last
    out = np.where(which >= i, case, out)
  return out


@reference("clamp")
@_quiet
def _clamp(lo, x, hi):
  return np.minimum(np.maximum(x, lo), hi)


def _float_to_int(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
  """XLA's float-to-integer conversion: truncate, saturate out-of-range values, NaN -> 0."""
  info = np.iinfo(dtype)
  x = x.astype(np.float64)
  lo, hi = float(info.min), float(info.max) + 1.0  # powers of two: exact in float64
  in_range = (x >= lo) & (x < hi)
  out = np.trunc(np.where(in_range, x, 0)).astype(dtype)
  out = np.where(x >= hi, dtype.type(info.max), out)
  return np.where(x < lo, dtype.type(info.min), out)


@reference("convert_element_type")
@_quiet
def convert_element_type(x, *, new_dtype, weak_type):
  new_dtype = np.dtype(new_dtype)
  if x.dtype.kind == "c" and new_dtype.kind != "c":
    x = x.real  # XLA converts the real part
  if x.dtype.kind == "f" and new_dtype.kind in "iu":
    return _float_to_int(x, new_dtype)
  return x.astype(new_dtype)
