"""Elementwise functions: arithmetic, math, comparisons and logic, with broadcasting and JAX's
dtype promotion. Most are generated from the tables below."""
from __future__ import annotations

import operator
from typing import Any, Callable

import numpy as np

from stablejax import core, dtypes, lax
from stablejax.custom_derivatives import custom_jvp
from stablejax.runtime import Array
from stablejax.numpy._promotion import (
    broadcast_shapes, broadcast_to, concrete_int, convert, dtype, ensure_arraylike,
    promote_args, promote_args_inexact, promote_dtypes, promote_dtypes_inexact, promote_shapes,
    scalar_like, shape, unchanged, weak_scalar_like)


def _unary(name: str, op: Callable, inexact: bool) -> Callable[[Any], Any]:
  def fn(x: Any) -> Any:
    if type(x) is Array or isinstance(x, core.Tracer):  # the common case, checked cheaply
      kind = dtypes.kind(x.aval.dtype)
    else:
      (x,) = ensure_arraylike(name, x)
      kind = dtypes.kind(core.get_aval(x).dtype)
    if inexact and kind not in "fc":
      (x,) = promote_dtypes_inexact(x)
    return op(x)
  return _named(fn, name, f"Elementwise {name}, as numpy.{name}.")


def _binary(name: str, op: Callable, inexact: bool) -> Callable[[Any, Any], Any]:
  promote = promote_args_inexact if inexact else promote_args

  def fn(x1: Any, x2: Any) -> Any:
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
  return x if _is_bool(x) else lax.ne(x, constant_like(x, 0))


def _logical(op: Callable) -> Callable:
  return lambda *args: op(*map(_to_bool, args))


def _bool_to_int(*args: Any) -> list:
  """Promoted operands with booleans converted to the default integer type (as JAX's
  promote_args_numeric)."""
  return [convert(x, dtypes.default_int()) if _is_bool(x) else x for x in args]


def _numeric(op: Callable) -> Callable:
  return lambda *args: op(*_bool_to_int(*args))


def _ordered(op: Callable) -> Callable:
  """An order comparison, lexicographic on (real, imag) for complex operands (as JAX)."""
  def cmp(x: Any, y: Any) -> Any:
    if not dtypes.is_complex(dtype(x)):
      return op(x, y)
    return lax.select(lax.eq(lax.real(x), lax.real(y)), op(lax.imag(x), lax.imag(y)),
                      op(lax.real(x), lax.real(y)))
  return cmp


def _right_shift(x: Any, y: Any) -> Any:
  """Logical for unsigned x, arithmetic for signed x."""
  shift = lax.shift_right_logical if dtype(x).kind == "u" else lax.shift_right_arithmetic
  return shift(x, y)


# name -> lax op, and whether integer inputs become floating-point first.
_UNARY = {
    "negative": (lax.neg, False), "sign": (lax.sign, False), "exp": (lax.exp, True),
    "log": (lax.log, True),
    "log1p": (lax.log1p, True), "expm1": (lax.expm1, True), "sin": (lax.sin, True),
    "cos": (lax.cos, True), "tan": (lax.tan, True), "tanh": (lax.tanh, True),
    "sqrt": (lax.sqrt, True),
    "arcsin": (lax.asin, True), "arccos": (lax.acos, True), "arctan": (lax.atan, True),
    "sinh": (lax.sinh, True), "cosh": (lax.cosh, True), "arcsinh": (lax.asinh, True),
    "arccosh": (lax.acosh, True), "arctanh": (lax.atanh, True), "cbrt": (lax.cbrt, True),
    "exp2": (lax.exp2, True),
}

# name -> op on promoted operands, and whether integer inputs become floating-point first.
_BINARY = {
    "add": (_bool_or(lax.add, lax.bitwise_or), False),
    "subtract": (lax.sub, False),
    "multiply": (_bool_or(lax.mul, lax.bitwise_and), False),
    "divide": (lax.div, True), "true_divide": (lax.div, True),
    "maximum": (lax.max, False), "minimum": (lax.min, False),
    "equal": (lax.eq, False), "not_equal": (lax.ne, False),
    "less": (_ordered(lax.lt), False), "less_equal": (_ordered(lax.le), False),
    "greater": (_ordered(lax.gt), False), "greater_equal": (_ordered(lax.ge), False),
    "logical_and": (_logical(lax.bitwise_and), False),
    "logical_or": (_logical(lax.bitwise_or), False),
    "logical_xor": (_logical(lax.bitwise_xor), False),
    "arctan2": (lax.atan2, True), "nextafter": (lax.nextafter, True),
    "bitwise_and": (lax.bitwise_and, False),
    "bitwise_or": (lax.bitwise_or, False),
    "bitwise_xor": (lax.bitwise_xor, False),
    "left_shift": (_numeric(lax.shift_left), False),
    "bitwise_left_shift": (_numeric(lax.shift_left), False),
    "right_shift": (_numeric(_right_shift), False),
    "bitwise_right_shift": (_numeric(_right_shift), False),
}

UNARY = {name: _unary(name, op, inexact) for name, (op, inexact) in _UNARY.items()}
BINARY = {name: _binary(name, op, inexact) for name, (op, inexact) in _BINARY.items()}


def _integer_identity(name: str, op: Callable) -> Callable[[Any], Any]:
  """floor and ceil: the identity on integers and booleans."""
  def fn(x: Any) -> Any:
    (x,) = ensure_arraylike(name, x)
    return op(x) if dtypes.is_inexact(dtype(x)) else unchanged(x)
  return _named(fn, name, f"Elementwise {name}, as numpy.{name} (integers are unchanged).")


def _abs(x: Any) -> Any:
  """|x|: the identity on unsigned integers and booleans."""
  return unchanged(x) if dtype(x).kind in "ub" else lax.abs(x)


UNARY["abs"] = UNARY["absolute"] = _unary("abs", _abs, False)
UNARY["floor"] = _integer_identity("floor", lax.floor)
UNARY["ceil"] = _integer_identity("ceil", lax.ceil)


def round(a: Any, decimals: int = 0) -> Any:  # noqa: A001  (numpy's name)
  """Round half to even to `decimals` places, as numpy.round: `x * 10**decimals` rounded and
  divided back (float16 in float32), complex parts separately; integers are unchanged (and, as
  in JAX, take no negative `decimals`, and bools are refused)."""
  (a,) = ensure_arraylike("round", a)
  decimals = concrete_int(decimals, "the decimals argument of round")
  dt = dtype(a)
  if dt == np.bool_:
    raise ValueError("round of bool values is not supported (as in JAX): cast them first")
  if not dtypes.is_inexact(dt):
    if decimals < 0:
      raise NotImplementedError("round of integers with decimals < 0 is not supported (as in "
                                "JAX)")
    return unchanged(a)
  if decimals > np.log10(dtypes.finfo(dt).max):
    return a  # rounding beyond the dtype's precision changes nothing
  if dtypes.is_complex(dt):
    return lax.complex(_round_real(lax.real(a), decimals), _round_real(lax.imag(a), decimals))
  return _round_real(a, decimals)


def _round_real(x: Any, decimals: int) -> Any:
  if decimals == 0:
    return lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN)
  aval = core.get_aval(x)
  if aval.dtype == dtypes.float16:
    x = convert(x, dtypes.float32)
  factor = float(10 ** decimals) if aval.weak_type else scalar_like(x, 10 ** decimals)
  out = lax.div(lax.round(lax.mul(x, factor), lax.RoundingMethod.TO_NEAREST_EVEN), factor)
  return convert(out, aval.dtype) if aval.dtype == dtypes.float16 else out


def square(x: Any) -> Any:
  """Elementwise x * x."""
  (x,) = _bool_to_int(*ensure_arraylike("square", x))
  return lax.square(x)


def reciprocal(x: Any) -> Any:
  """Elementwise 1 / x, in floating point."""
  (x,) = promote_dtypes_inexact(*ensure_arraylike("reciprocal", x))
  return lax.integer_pow(x, -1)


def logical_not(x: Any) -> Any:
  """Elementwise logical negation (nonzero is True)."""
  (x,) = ensure_arraylike("logical_not", x)
  return lax.bitwise_not(_to_bool(x))


def bitwise_count(x: Any) -> Any:
  """Elementwise number of set bits of |x|, as uint8 (numpy.bitwise_count)."""
  (x,) = _bool_to_int(*ensure_arraylike("bitwise_count", x))
  return convert(lax.population_count(_abs(x)), np.dtype(np.uint8))


def invert(x: Any) -> Any:
  """Elementwise bitwise negation of integers and booleans (the ~ operator)."""
  (x,) = ensure_arraylike("invert", x)
  return lax.bitwise_not(x)


def where(condition: Any, x: Any = None, y: Any = None) -> Any:
  """Elementwise `x` where `condition` else `y`, broadcasting all three."""
  if x is None or y is None:  # (the public jnp.where also has the one-argument form)
    raise ValueError("where: both x and y must be given")
  condition, x, y = ensure_arraylike("where", condition, x, y)
  condition = _to_bool(condition)
  x, y = promote_dtypes(x, y)
  operands = [x, y] if not shape(condition) else [condition, x, y]
  out_shape = broadcast_shapes("where", *map(shape, operands))
  if 0 in out_shape:  # nothing to select: x, as in JAX (so only x's derivative is taken)
    return broadcast_to(x, out_shape)
  if shape(condition):
    condition = broadcast_to(condition, out_shape)
  return lax.select_n(condition, broadcast_to(y, out_shape), broadcast_to(x, out_shape))


def clip(arr: Any, min: Any = None, max: Any = None) -> Any:  # noqa: A002  (numpy's names)
  """Limit `arr` to [min, max]; either bound may be None."""
  if any(x is not None and dtypes.is_complex(dtype(x)) for x in (arr, min, max)):
    raise ValueError("Clip received a complex value either through the input or the min/max "
                     "keywords. Complex values have no ordering and cannot be clipped. Please "
                     "convert to a real value or array by taking the real or imaginary "
                     "components via jax.numpy.real/imag respectively.")
  (arr,) = ensure_arraylike("clip", arr)
  if min is not None:
    arr = BINARY["maximum"](min, arr)
  if max is not None:
    arr = BINARY["minimum"](max, arr)
  return unchanged(arr)


def floor_divide(x1: Any, x2: Any) -> Any:
  """Elementwise floor(x1 / x2), as numpy.floor_divide."""
  x1, x2 = _bool_to_int(*promote_args("floor_divide", x1, x2))
  kind = dtypes.kind(dtype(x1))
  if kind == "u":
    return lax.div(x1, x2)
  if kind == "i":
    quotient = lax.div(x1, x2)
    select = lax.bitwise_and(lax.ne(lax.sign(x1), lax.sign(x2)),
                             lax.ne(lax.rem(x1, x2), scalar_like(x1, 0)))
    return where(select, lax.sub(quotient, _one_like(quotient)), quotient)
  if kind == "f":
    return _float_floor_divide(x1, x2)
  raise TypeError(f"floor_divide does not support {dtype(x1)} inputs")


def _float_floor_divide(x1: Any, x2: Any) -> Any:
  """CPython's float floor division (floatobject.c), as JAX computes it."""
  mod = lax.rem(x1, x2)
  corrected = where(lax.eq(x2, scalar_like(x2, 0)), x1, lax.sub(x1, mod))
  div = lax.div(corrected, x2)
  ind = lax.bitwise_and(lax.ne(mod, scalar_like(mod, 0)), lax.ne(lax.sign(x2), lax.sign(mod)))
  div = lax.select_n(ind, div, BINARY["subtract"](div, 1.0))  # (weak 1.0 keeps a weak type)
  return lax.round(div, lax.RoundingMethod.AWAY_FROM_ZERO)


def _one_like(x: Any) -> Any:
  """A rank-0 one of x's type, weak type included (JAX's `lax._one`; a literal when traced)."""
  aval = core.get_aval(x)
  return lax.convert_element_type(1, aval.dtype, weak_type=aval.weak_type)


def remainder(x1: Any, x2: Any) -> Any:
  """Elementwise remainder with the sign of the divisor, as numpy.remainder."""
  x1, x2 = _bool_to_int(*promote_args("remainder", x1, x2))
  if dtypes.is_complex(dtype(x1)):
    raise TypeError(f"remainder does not support {dtype(x1)} inputs")
  zero = scalar_like(x1, 0)
  if dtypes.is_integer(dtype(x2)):
    x2 = where(lax.eq(x2, zero), lax.full_like(x2, 1), x2)
  trunc_mod = lax.rem(x1, x2)
  trunc_mod_not_zero = lax.ne(trunc_mod, zero)
  do_plus = lax.bitwise_and(lax.ne(lax.lt(trunc_mod, zero), lax.lt(x2, zero)),
                            trunc_mod_not_zero)
  return lax.select_n(do_plus, trunc_mod, lax.add(trunc_mod, x2))


def _concrete_int(x: Any) -> int | None:
  """`x` as a Python int if it is a concrete integer scalar (a tracer of one included, as
  JAX's `is_concrete`: the primal of a jvp), else None."""
  if isinstance(x, core.Tracer):
    x = x.to_concrete_value()
  if (x is None or dtypes.is_python_scalar(x) and not isinstance(x, int)
      or np.ndim(x) != 0):
    return None
  try:
    return operator.index(x)
  except (TypeError, ValueError):  # not an integer; or an array of more than one element
    return None


def power(x1: Any, x2: Any) -> Any:
  """Elementwise x1 ** x2; a concrete integer exponent uses lax.integer_pow."""
  x1, x2 = ensure_arraylike("power", x1, x2)
  y = _concrete_int(x2)
  if y is not None:
    (x1,) = _bool_to_int(x1)
    return lax.integer_pow(x1, y)
  x1, x2 = promote_shapes("power", x1, x2)  # before the dtypes, as JAX's (XLA fuses alike)
  if dtypes.is_inexact(dtype(x1)) and dtypes.is_integer(dtype(x2)):
    return lax.pow(x1, x2)  # keeps x differentiable at 0
  x1, x2 = _bool_to_int(*promote_args("power", x1, x2))
  if dtypes.is_integer(dtype(x1)):
    return _pow_int_int(x1, x2)
  return lax.pow(x1, x2)


def _pow_int_int(x1: Any, x2: Any) -> Any:
  """Integer power by unrolled binary exponentiation (6 bits: more would overflow), as JAX's
  (a negative exponent gives what JAX's gives: it is shifted as unsigned)."""
  zero, one = scalar_like(x2, 0), scalar_like(x2, 1)
  acc = where(lax.bitwise_and(lax.eq(x1, zero), lax.ne(x2, zero)), zero, one)
  for _ in range(6):
    acc = where(lax.bitwise_and(x2, one), lax.mul(acc, x1), acc)
    x1 = lax.mul(x1, x1)
    x2 = lax.shift_right_logical(x2, one)
  return acc


# ----------------------------------------------------------------------------------------------
# The math long tail (as jax.numpy)

def _inexact(name: str, *args: Any) -> list:
  """The operands checked, promoted to one inexact dtype and broadcast."""
  return promote_args_inexact(name, *args)


def log2(x: Any) -> Any:
  """Elementwise base-2 logarithm."""
  (x,) = _inexact("log2", x)
  return lax.div(lax.log(x), lax.log(scalar_like(x, 2)))


def log10(x: Any) -> Any:
  """Elementwise base-10 logarithm."""
  (x,) = _inexact("log10", x)
  return lax.div(lax.log(x), lax.log(scalar_like(x, 10)))


def _scale(name: str, factor: float) -> Callable[[Any], Any]:
  def fn(x: Any) -> Any:
    (x,) = _inexact(name, x)
    return lax.mul(x, weak_scalar_like(x, factor))
  return _named(fn, name, f"Elementwise x * {factor:.6g}, as numpy.{name}.")


deg2rad = radians = _scale("deg2rad", np.pi / 180)
rad2deg = degrees = _scale("rad2deg", 180 / np.pi)


def hypot(x1: Any, x2: Any) -> Any:
  """Elementwise sqrt(x1**2 + x2**2), without overflow for large operands."""
  x1, x2 = _inexact("hypot", x1, x2)
  if dtypes.is_complex(dtype(x1)):
    raise ValueError("jnp.hypot is not well defined for complex-valued inputs; convert them to "
                     "real values first, e.g. with abs(x)")
  x1, x2 = lax.abs(x1), lax.abs(x2)
  inf = lax.bitwise_or(lax.eq(x1, scalar_like(x1, np.inf)), lax.eq(x2, scalar_like(x2, np.inf)))
  big, small = lax.max(x1, x2), lax.min(x1, x2)
  # JAX's formula, and its constants (weak types follow from them: Python scalars are weak)
  is_zero = lax.eq(big, scalar_like(big, 0))
  ratio = lax.div(small, where(is_zero, lax.full_like(big, 1), big))
  out = where(is_zero, big, BINARY["multiply"](big, lax.sqrt(BINARY["add"](
      1.0, lax.mul(ratio, ratio)))))
  return where(inf, constant_like(out, np.inf), out)


def constant_like(x: Any, value: Any) -> Any:
  """`value` as a constant of x's dtype, weakly typed only where `x` is a weakly typed scalar
  (JAX's `lax._const`)."""
  aval = core.get_aval(x)
  if aval.weak_type and not aval.ndim:
    return lax.convert_element_type(value, aval.dtype, weak_type=True)
  return scalar_like(x, value)


def _logaddexp(name: str, exp: Callable, base: float) -> Callable[[Any, Any], Any]:
  """log(exp(x1) + exp(x2)) in base e or 2, as JAX's `lax.logaddexp`: max + log1p(exp(-|x1 -
  x2|)), x1 + x2 where x1 - x2 is NaN (equal infinities, NaNs); for complex operands the
  imaginary part wrapped into [-pi, pi] / ln(base). JAX's custom JVP: the tangents weighted by
  exp(x - out), +inf read as 0 there (so ties split evenly)."""
  def log1p(amax: Any, y: Any) -> Any:
    return lax.log1p(y) if base == np.e else lax.mul(weak_scalar_like(amax, 1 / np.log(base)),
                                                     lax.log1p(y))

  def value(x1: Any, x2: Any) -> Any:
    amax = lax.max(x1, x2)
    if dtypes.is_complex(dtype(x1)):
      delta = lax.sub(lax.add(x1, x2), lax.mul(amax, weak_scalar_like(amax, 2)))
      out = lax.add(amax, log1p(amax, exp(delta)))
      return lax.complex(lax.real(out), _wrap_between(lax.imag(out), np.pi / np.log(base)))
    delta = lax.sub(x1, x2)
    out = lax.add(amax, log1p(amax, exp(lax.neg(lax.abs(delta)))))
    return lax.select(isnan(delta), lax.add(x1, x2), out)

  def jvp(primals: tuple, tangents: tuple) -> tuple:
    (x1, x2), (t1, t2) = primals, tangents
    out = rule(x1, x2)
    weight = lambda x: exp(lax.sub(_no_inf(x), _no_inf(out)))  # noqa: E731
    return out, lax.add(lax.mul(t1, weight(x1)), lax.mul(t2, weight(x2)))

  rule = custom_jvp(_named(value, name, ""))
  rule.defjvp(_named(jvp, f"_{name}_jvp", ""))
  return _named(lambda x1, x2: rule(*_inexact(name, x1, x2)), name,
                f"Elementwise {name} with broadcasting, as numpy.{name}.")


def _no_inf(x: Any) -> Any:
  """x with 0 where its (real part) is +inf."""
  re = lax.real(x) if dtypes.is_complex(dtype(x)) else x
  return where(lax.eq(re, weak_scalar_like(re, np.inf)), lax.full_like(x, 0), x)


def _wrap_between(x: Any, a: float) -> Any:
  """x wrapped into [-a, a)."""
  two_a = weak_scalar_like(x, 2 * a)
  rem = lax.rem(lax.add(x, weak_scalar_like(x, a)), two_a)
  rem = where(lax.lt(rem, weak_scalar_like(x, 0)), lax.add(rem, two_a), rem)
  return lax.sub(rem, weak_scalar_like(x, a))


logaddexp = _logaddexp("logaddexp", lax.exp, np.e)
logaddexp2 = _logaddexp("logaddexp2", lax.exp2, 2.0)


def real(val: Any) -> Any:
  """The real part (the value itself for real arrays)."""
  (val,) = ensure_arraylike("real", val)
  return lax.real(val) if dtypes.is_complex(dtype(val)) else unchanged(val)


def imag(val: Any) -> Any:
  """The imaginary part (zeros for real arrays)."""
  (val,) = ensure_arraylike("imag", val)
  if dtypes.is_complex(dtype(val)):
    return lax.imag(val)
  return lax.full_like(val, 0)


def conjugate(x: Any) -> Any:
  """Elementwise complex conjugate (the value itself for real arrays)."""
  (x,) = ensure_arraylike("conjugate", x)
  return lax.conj(x) if dtypes.is_complex(dtype(x)) else unchanged(x)


conj = conjugate


def angle(z: Any, deg: bool = False) -> Any:
  """Elementwise angle of a complex number (0 or pi for real numbers), in radians or degrees."""
  (z,) = ensure_arraylike("angle", z)
  re, im = real(z), imag(z)
  z_aval = core.get_aval(z)
  if not dtypes.is_inexact(z_aval.dtype) or (dtypes.kind(z_aval.dtype) == "f" and
                                             not z_aval.shape):
    # as JAX: real inputs that are integers or scalars compute in the default float, strongly
    re, im = (lax.convert_element_type(v, dtypes.default_float()) for v in (re, im))
  out = lax.atan2(im, re)
  return rad2deg(out) if deg else out


def _all_bool(x: Any, value: bool) -> Any:
  """An Array of `value` shaped like `x` (a strong bool, as JAX's isinf/isfinite of integers)."""
  return unchanged(lax.full_like(x, value, dtype=np.bool_))


def isnan(x: Any) -> Any:
  """Elementwise test for NaN."""
  (x,) = ensure_arraylike("isnan", x)
  return lax.ne(x, x)  # (as JAX: for integers too, so a weak type carries over)


def isinf(x: Any) -> Any:
  """Elementwise test for positive or negative infinity."""
  (x,) = ensure_arraylike("isinf", x)
  if dtypes.is_complex(dtype(x)):
    return lax.bitwise_or(isinf(lax.real(x)), isinf(lax.imag(x)))
  if dtypes.is_inexact(dtype(x)):
    return lax.eq(lax.abs(x), scalar_like(x, np.inf))
  return _all_bool(x, False)


def isfinite(x: Any) -> Any:
  """Elementwise test for a finite value (neither infinite nor NaN)."""
  (x,) = ensure_arraylike("isfinite", x)
  if dtypes.is_complex(dtype(x)):
    return lax.bitwise_and(lax.is_finite(lax.real(x)), lax.is_finite(lax.imag(x)))
  if dtypes.is_inexact(dtype(x)):
    return lax.is_finite(x)
  return _all_bool(x, True)


def _is_signed_inf(name: str, value: float) -> Callable[[Any], Any]:
  def fn(x: Any) -> Any:
    (x,) = ensure_arraylike(name, x)
    if dtypes.is_complex(dtype(x)):
      raise ValueError(f"jnp.{name} is not well defined for complex-valued inputs")
    if not dtypes.is_inexact(dtype(x)):
      return _all_bool(x, False)
    return lax.eq(x, scalar_like(x, value))
  return _named(fn, name, f"Elementwise test for {value}, as numpy.{name}.")


isposinf = _is_signed_inf("isposinf", np.inf)
isneginf = _is_signed_inf("isneginf", -np.inf)


def nan_to_num(x: Any, copy: bool = True, nan: Any = 0.0, posinf: Any = None,
               neginf: Any = None) -> Any:
  """`x` with NaN, +inf and -inf replaced by `nan`, `posinf` (default: the largest finite
  value) and `neginf` (default: the most negative finite value)."""
  (x,) = ensure_arraylike("nan_to_num", x)
  dt = dtype(x)
  if dtypes.is_complex(dt):
    return lax.complex(nan_to_num(lax.real(x), nan=nan, posinf=posinf, neginf=neginf),
                       nan_to_num(lax.imag(x), nan=nan, posinf=posinf, neginf=neginf))
  if not dtypes.is_inexact(dt):
    return unchanged(x)
  info = dtypes.finfo(dt)
  posinf = info.max if posinf is None else posinf
  neginf = info.min if neginf is None else neginf
  x = where(isnan(x), scalar_like(x, nan), x)
  x = where(isposinf(x), scalar_like(x, posinf), x)
  return where(isneginf(x), scalar_like(x, neginf), x)


def signbit(x: Any) -> Any:
  """Elementwise test for a set sign bit (true for -0.0 and negative NaNs)."""
  (x,) = ensure_arraylike("signbit", x)
  dt = dtype(x)
  if dt.kind in "iu":
    return lax.lt(x, scalar_like(x, 0))
  if dt.kind == "b":
    return _all_bool(x, False)
  if dtypes.kind(dt) != "f":
    raise ValueError(f"jnp.signbit is not well defined for {dt}")
  as_int = lax.bitcast_convert_type(x, np.dtype(f"int{dt.itemsize * 8}"))
  return lax.lt(as_int, scalar_like(as_int, 0))


def copysign(x1: Any, x2: Any) -> Any:
  """Elementwise magnitude of x1 with the sign of x2."""
  x1, x2 = _inexact("copysign", x1, x2)
  if dtypes.is_complex(dtype(x1)):
    raise TypeError("copysign does not support complex-valued inputs")
  return where(signbit(x2), lax.neg(lax.abs(x1)), lax.abs(x1))


def sinc(x: Any) -> Any:
  """Elementwise normalized sinc: sin(pi x) / (pi x), 1 at 0."""
  (x,) = _inexact("sinc", x)
  is_zero = lax.eq(x, weak_scalar_like(x, 0))
  pi_x = lax.mul(weak_scalar_like(x, np.pi), where(is_zero, weak_scalar_like(x, 1), x))
  return where(is_zero, weak_scalar_like(x, 1), lax.div(lax.sin(pi_x), pi_x))


def heaviside(x1: Any, x2: Any) -> Any:
  """Elementwise step function: 0 for x1 < 0, x2 at 0, 1 for x1 > 0."""
  x1, x2 = _inexact("heaviside", x1, x2)
  zero, one = weak_scalar_like(x1, 0), weak_scalar_like(x1, 1)
  return where(lax.lt(x1, zero), zero, where(lax.eq(x1, zero), x2, where(isnan(x1), x1, one)))


def _nan_ignoring(name: str, pick_first: Callable) -> Callable[[Any, Any], Any]:
  """fmax and fmin: x1 where `pick_first(x1, x2)` or x2 is NaN, else x2."""
  def fn(x1: Any, x2: Any) -> Any:
    x1, x2 = promote_args(name, x1, x2)
    return where(lax.bitwise_or(pick_first(x1, x2), isnan(x2)), x1, x2)
  return _named(fn, name, f"Elementwise {name} ignoring NaNs, as numpy.{name}.")


fmax = _nan_ignoring("fmax", _ordered(lax.gt))
fmin = _nan_ignoring("fmin", _ordered(lax.lt))


def fmod(x1: Any, x2: Any) -> Any:
  """Elementwise remainder with the sign of the dividend (C's fmod); x % 0 is 0 for integers
  (for bools it is x, XLA's remainder, as in JAX)."""
  x1, x2 = promote_args("fmod", x1, x2)
  integers = dtypes.is_integer(dtype(x2))
  x1, x2 = _bool_to_int(x1, x2)
  if integers:
    x2 = where(lax.eq(x2, scalar_like(x2, 0)), lax.full_like(x2, 1), x2)
  return lax.rem(x1, x2)


def trunc(x: Any) -> Any:
  """Elementwise rounding toward zero (integers are unchanged)."""
  (x,) = ensure_arraylike("trunc", x)
  if not dtypes.is_inexact(dtype(x)):
    return unchanged(x)
  return where(lax.lt(x, scalar_like(x, 0)), lax.ceil(x), lax.floor(x))


def rint(x: Any) -> Any:
  """Elementwise rounding to the nearest integer, halves to even, in floating point."""
  (x,) = ensure_arraylike("rint", x)
  if not dtypes.is_inexact(dtype(x)):  # (a strong default float, as JAX)
    return unchanged(lax.convert_element_type(x, dtypes.default_float()))
  if dtypes.is_complex(dtype(x)):
    return lax.complex(rint(lax.real(x)), rint(lax.imag(x)))
  return lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN)


def positive(x: Any) -> Any:
  """Elementwise +x."""
  (x,) = ensure_arraylike("positive", x)
  return unchanged(x)


def float_power(x1: Any, x2: Any) -> Any:
  """Elementwise x1 ** x2 in floating point."""
  return lax.pow(*_inexact("float_power", x1, x2))


def i0(x: Any) -> Any:
  """Elementwise modified Bessel function of the first kind of order 0."""
  (x,) = _inexact("i0", x)
  if dtypes.is_complex(dtype(x)):
    raise ValueError("i0 does not support complex-valued inputs")
  return lax.mul(lax.exp(lax.abs(x)), lax.bessel_i0e(x))


def _integers(name: str, *args: Any) -> list:
  args = promote_args(name, *args)
  if not dtypes.is_integer(dtype(args[0])):
    raise ValueError(f"Arguments to jax.numpy.{name} must be integers, got "
                     f"{', '.join(str(dtype(a)) for a in args)}")
  return args


def _gcd(x1: Any, x2: Any) -> Any:
  """Euclid's algorithm on |x1|, |x2|, all elements in one while_loop."""
  def body(state):
    a, b = state
    nonzero = lax.ne(b, scalar_like(b, 0))
    safe_b = where(nonzero, b, weak_scalar_like(b, 1))
    a, b = where(nonzero, b, a), where(nonzero, lax.rem(a, safe_b), weak_scalar_like(b, 0))
    swap = lax.lt(a, b)  # the larger first, as JAX's (and both then share one weak type)
    return where(swap, b, a), where(swap, a, b)

  def cond(state):
    b = state[1]
    return lax.reduce_or(lax.ne(b, scalar_like(b, 0)), tuple(range(len(shape(b)))))

  return lax.while_loop(cond, body, (_abs(x1), _abs(x2)))[0]


def gcd(x1: Any, x2: Any) -> Any:
  """Elementwise greatest common divisor of |x1| and |x2|."""
  x1, x2 = _integers("gcd", x1, x2)
  out_shape = broadcast_shapes("gcd", shape(x1), shape(x2))
  return _gcd(broadcast_to(x1, out_shape), broadcast_to(x2, out_shape))


def lcm(x1: Any, x2: Any) -> Any:
  """Elementwise least common multiple of |x1| and |x2|."""
  x1, x2 = _integers("lcm", x1, x2)
  divisor = gcd(x1, x2)
  zero = lax.eq(divisor, scalar_like(divisor, 0))
  safe = where(zero, weak_scalar_like(divisor, 1), divisor)
  return where(zero, weak_scalar_like(divisor, 0), lax.mul(_abs(lax.div(x1, safe)), _abs(x2)))


# ----------------------------------------------------------------------------------------------
# Comparing arrays

def _reduce_all(x: Any) -> Any:
  """Whether every element is True, strongly typed (as JAX's jnp.all)."""
  return convert(lax.reduce_and(x, tuple(range(len(shape(x))))), dtypes.bool_)


def isclose(a: Any, b: Any, rtol: Any = 1e-05, atol: Any = 1e-08,
            equal_nan: bool = False) -> Any:
  """Elementwise a == b or, for finite b, |a - b| <= atol + rtol |b|, in floating point (so
  integers too, as JAX's)."""
  a, b = _inexact("isclose", a, b)
  rtol, atol = (convert(x, dtype(lax.abs(a))) for x in ensure_arraylike("isclose", rtol, atol))
  close = lax.le(lax.abs(lax.sub(a, b)), lax.add(atol, lax.mul(rtol, lax.abs(b))))
  out = lax.bitwise_or(lax.eq(a, b), lax.bitwise_and(isfinite(b), close))
  if equal_nan:
    out = lax.bitwise_or(out, lax.bitwise_and(isnan(a), isnan(b)))
  return out


def allclose(a: Any, b: Any, rtol: Any = 1e-05, atol: Any = 1e-08,
             equal_nan: bool = False) -> Any:
  """Whether every element of `a` is close to `b` (`isclose`)."""
  return _reduce_all(isclose(a, b, rtol, atol, equal_nan))


def array_equal(a1: Any, a2: Any, equal_nan: bool = False) -> Any:
  """Whether `a1` and `a2` have the same shape and elements."""
  a1, a2 = ensure_arraylike("array_equal", a1, a2)
  if shape(a1) != shape(a2):
    return unchanged(np.bool_(False))
  a1, a2 = promote_dtypes(a1, a2)
  equal = lax.eq(a1, a2)
  if equal_nan:
    equal = lax.bitwise_or(equal, lax.bitwise_and(isnan(a1), isnan(a2)))
  return _reduce_all(equal)


def array_equiv(a1: Any, a2: Any) -> Any:
  """Whether `a1` and `a2` broadcast to one shape and are equal elementwise."""
  a1, a2 = ensure_arraylike("array_equiv", a1, a2)
  try:
    out_shape = broadcast_shapes("array_equiv", shape(a1), shape(a2))
  except ValueError:
    return unchanged(np.bool_(False))
  a1, a2 = promote_dtypes(a1, a2)
  return _reduce_all(lax.eq(broadcast_to(a1, out_shape), broadcast_to(a2, out_shape)))
