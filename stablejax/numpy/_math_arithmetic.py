"""numpy's mathematical functions, arithmetic part: arithmetic operations, rounding, rational
routines (gcd, lcm), handling complex numbers (`angle` is in `_math_transcendental`), floating
point routines, elementwise extrema and the elementwise "miscellaneous" functions (clip, sqrt,
cbrt, square, absolute, sign, heaviside, nan_to_num)."""
from __future__ import annotations

import operator
from typing import Any, Callable

import numpy as np

from stablejax import core, dtypes, lax
from stablejax.numpy._elementwise import (
    all_bool, binary, bool_to_int, named, one_like, ordered, unary, where)
from stablejax.numpy._logic import isinf, isnan, isneginf, isposinf
from stablejax.numpy._promotion import (
    broadcast_shapes, broadcast_to, concrete_int, convert, dtype as dtype_of, dtype,
    ensure_arraylike, filled_like, promote_args, promote_args_inexact, promote_dtypes_inexact,
    promote_shapes, scalar_like, shape, unchanged, weak_scalar_like)


negative = unary("negative", lax.neg, False)
sign = unary("sign", lax.sign, False)
sqrt = unary("sqrt", lax.sqrt, True)
cbrt = unary("cbrt", lax.cbrt, True)

add = binary("add", lax.add, False, lax.bitwise_or)
subtract = binary("subtract", lax.sub, False)
multiply = binary("multiply", lax.mul, False, lax.bitwise_and)
divide = binary("divide", lax.div, True)
true_divide = binary("true_divide", lax.div, True)
maximum = binary("maximum", lax.max, False)
minimum = binary("minimum", lax.min, False)
nextafter = binary("nextafter", lax.nextafter, True)


def _integer_identity(name: str, op: Callable) -> Callable[[Any], Any]:
  """floor and ceil: the identity on integers and booleans."""
  def fn(x: Any, /) -> Any:
    (x,) = ensure_arraylike(name, x)
    return op(x) if dtypes.is_inexact(dtype(x)) else unchanged(x)
  return named(fn, name, f"Elementwise {name}, as numpy.{name} (integers are unchanged).")


def abs_(x: Any) -> Any:
  """|x|: the identity on unsigned integers and booleans."""
  return unchanged(x) if dtype(x).kind in "ub" else lax.abs(x)


abs = absolute = unary("abs", abs_, False)  # noqa: A001
floor = _integer_identity("floor", lax.floor)
ceil = _integer_identity("ceil", lax.ceil)


def round(a: Any, decimals: int = 0, out: None = None) -> Any:  # noqa: A001  (numpy's name)
  """Round half to even to `decimals` places, as numpy.round: `x * 10**decimals` rounded and
  divided back (float16 in float32), complex parts separately; integers are unchanged (and, as
  in JAX, take no negative `decimals`, and bools are refused)."""
  if out is not None:
    raise NotImplementedError("The 'out' argument to jnp.round is not supported.")
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


def square(x: Any, /) -> Any:
  """Elementwise x * x."""
  (x,) = bool_to_int(*ensure_arraylike("square", x))
  return lax.square(x)


def reciprocal(x: Any, /) -> Any:
  """Elementwise 1 / x, in floating point."""
  (x,) = promote_dtypes_inexact(*ensure_arraylike("reciprocal", x))
  return lax.integer_pow(x, -1)


def clip(arr: Any = None, /, min: Any = None, max: Any = None) -> Any:  # noqa: A002
  """Limit `arr` to [min, max]; either bound may be None."""
  if arr is None:
    raise ValueError("No input was provided to the clip function.")
  if any(x is not None and dtypes.is_complex(dtype(x)) for x in (arr, min, max)):
    raise ValueError("Clip received a complex value either through the input or the min/max "
                     "keywords. Complex values have no ordering and cannot be clipped. Please "
                     "convert to a real value or array by taking the real or imaginary "
                     "components via jax.numpy.real/imag respectively.")
  (arr,) = ensure_arraylike("clip", arr)
  if min is not None:
    arr = maximum(min, arr)
  if max is not None:
    arr = minimum(max, arr)
  return unchanged(arr)


def floor_divide(x1: Any, x2: Any, /) -> Any:
  """Elementwise floor(x1 / x2), as numpy.floor_divide."""
  x1, x2 = bool_to_int(*promote_args("floor_divide", x1, x2))
  kind = dtypes.kind(dtype(x1))
  if kind == "u":
    return lax.div(x1, x2)
  if kind == "i":
    quotient = lax.div(x1, x2)
    select = lax.bitwise_and(lax.ne(lax.sign(x1), lax.sign(x2)),
                             lax.ne(lax.rem(x1, x2), scalar_like(x1, 0)))
    return where(select, lax.sub(quotient, one_like(quotient)), quotient)
  if kind == "f":
    return _float_floor_divide(x1, x2)
  raise TypeError(f"floor_divide does not support {dtype(x1)} inputs")


def _float_floor_divide(x1: Any, x2: Any) -> Any:
  """CPython's float floor division (floatobject.c), as JAX computes it."""
  mod = lax.rem(x1, x2)
  corrected = where(lax.eq(x2, scalar_like(x2, 0)), x1, lax.sub(x1, mod))
  div = lax.div(corrected, x2)
  ind = lax.bitwise_and(lax.ne(mod, scalar_like(mod, 0)), lax.ne(lax.sign(x2), lax.sign(mod)))
  div = lax.select_n(ind, div, subtract(div, 1.0))  # (weak 1.0 keeps a weak type)
  return lax.round(div, lax.RoundingMethod.AWAY_FROM_ZERO)


def remainder(x1: Any, x2: Any, /) -> Any:
  """Elementwise remainder with the sign of the divisor, as numpy.remainder."""
  x1, x2 = bool_to_int(*promote_args("remainder", x1, x2))
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


mod = remainder


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


def power(x1: Any, x2: Any, /) -> Any:
  """Elementwise x1 ** x2; a concrete integer exponent uses lax.integer_pow."""
  x1, x2 = ensure_arraylike("power", x1, x2)
  y = _concrete_int(x2)
  if y is not None:
    (x1,) = bool_to_int(x1)
    return lax.integer_pow(x1, y)
  x1, x2 = promote_shapes("power", x1, x2)  # before the dtypes, as JAX's (XLA fuses alike)
  if dtypes.is_inexact(dtype(x1)) and dtypes.is_integer(dtype(x2)):
    return lax.pow(x1, x2)  # keeps x differentiable at 0
  x1, x2 = bool_to_int(*promote_args("power", x1, x2))
  if dtypes.is_integer(dtype(x1)):
    return _pow_int_int(x1, x2)
  return lax.pow(x1, x2)


pow = power  # noqa: A001  (numpy's name)


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
# Complex numbers, floating point routines, elementwise extrema, gcd and lcm


def real(val: Any, /) -> Any:
  """The real part (the value itself for real arrays)."""
  (val,) = ensure_arraylike("real", val)
  return lax.real(val) if dtypes.is_complex(dtype(val)) else unchanged(val)


def imag(val: Any, /) -> Any:
  """The imaginary part (zeros for real arrays)."""
  (val,) = ensure_arraylike("imag", val)
  if dtypes.is_complex(dtype(val)):
    return lax.imag(val)
  return filled_like(val, 0)


def conjugate(x: Any, /) -> Any:
  """Elementwise complex conjugate (the value itself for real arrays)."""
  (x,) = ensure_arraylike("conjugate", x)
  return lax.conj(x) if dtypes.is_complex(dtype(x)) else unchanged(x)


conj = conjugate


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


def signbit(x: Any, /) -> Any:
  """Elementwise test for a set sign bit (true for -0.0 and negative NaNs)."""
  (x,) = ensure_arraylike("signbit", x)
  dt = dtype(x)
  if dt.kind in "iu":
    return lax.lt(x, scalar_like(x, 0))
  if dt.kind == "b":
    return all_bool(x, False)
  if dtypes.kind(dt) != "f":
    raise ValueError(f"jnp.signbit is not well defined for {dt}")
  as_int = lax.bitcast_convert_type(x, np.dtype(f"int{dt.itemsize * 8}"))
  return lax.lt(as_int, scalar_like(as_int, 0))


def copysign(x1: Any, x2: Any, /) -> Any:
  """Elementwise magnitude of x1 with the sign of x2."""
  x1, x2 = promote_args_inexact("copysign", x1, x2)
  if dtypes.is_complex(dtype(x1)):
    raise TypeError("copysign does not support complex-valued inputs")
  return where(signbit(x2), lax.neg(lax.abs(x1)), lax.abs(x1))


def heaviside(x1: Any, x2: Any, /) -> Any:
  """Elementwise step function: 0 for x1 < 0, x2 at 0, 1 for x1 > 0."""
  x1, x2 = promote_args_inexact("heaviside", x1, x2)
  zero, one = weak_scalar_like(x1, 0), weak_scalar_like(x1, 1)
  return where(lax.lt(x1, zero), zero, where(lax.eq(x1, zero), x2, where(isnan(x1), x1, one)))


def _nan_ignoring(name: str, pick_first: Callable) -> Callable[[Any, Any], Any]:
  """fmax and fmin: x1 where `pick_first(x1, x2)` or x2 is NaN, else x2."""
  def fn(x1: Any, x2: Any) -> Any:
    x1, x2 = promote_args(name, x1, x2)
    return where(lax.bitwise_or(pick_first(x1, x2), isnan(x2)), x1, x2)
  return named(fn, name, f"Elementwise {name} ignoring NaNs, as numpy.{name}.")


fmax = _nan_ignoring("fmax", ordered(lax.gt))
fmin = _nan_ignoring("fmin", ordered(lax.lt))


def fmod(x1: Any, x2: Any, /) -> Any:
  """Elementwise remainder with the sign of the dividend (C's fmod); x % 0 is 0 for integers
  (for bools it is x, XLA's remainder, as in JAX)."""
  x1, x2 = promote_args("fmod", x1, x2)
  integers = dtypes.is_integer(dtype(x2))
  x1, x2 = bool_to_int(x1, x2)
  if integers:
    x2 = where(lax.eq(x2, scalar_like(x2, 0)), lax.full_like(x2, 1), x2)
  return lax.rem(x1, x2)


def trunc(x: Any) -> Any:
  """Elementwise rounding toward zero (integers are unchanged)."""
  (x,) = ensure_arraylike("trunc", x)
  if not dtypes.is_inexact(dtype(x)):
    return unchanged(x)
  return where(lax.lt(x, scalar_like(x, 0)), lax.ceil(x), lax.floor(x))


def rint(x: Any, /) -> Any:
  """Elementwise rounding to the nearest integer, halves to even, in floating point."""
  (x,) = ensure_arraylike("rint", x)
  if not dtypes.is_inexact(dtype(x)):  # (a strong default float, as JAX)
    return unchanged(lax.convert_element_type(x, dtypes.default_float()))
  if dtypes.is_complex(dtype(x)):
    return lax.complex(rint(lax.real(x)), rint(lax.imag(x)))
  return lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN)


def positive(x: Any, /) -> Any:
  """Elementwise +x."""
  (x,) = ensure_arraylike("positive", x)
  return unchanged(x)


def float_power(x1: Any, x2: Any, /) -> Any:
  """Elementwise x1 ** x2 in floating point."""
  return lax.pow(*promote_args_inexact("float_power", x1, x2))


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

  return lax.while_loop(cond, body, (abs_(x1), abs_(x2)))[0]


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
  return where(zero, weak_scalar_like(divisor, 0), lax.mul(abs_(lax.div(x1, safe)), abs_(x2)))


around = round


def fabs(x: Any, /) -> Any:
  """|x| in floating point; complex inputs are an error."""
  (x,) = promote_args_inexact("fabs", x)
  if dtype_of(x).kind == "c":
    raise TypeError("ufunc 'fabs' does not support complex dtypes")
  return lax.abs(x)


def divmod(x1: Any, x2: Any, /) -> tuple[Any, Any]:  # noqa: A001  (numpy's name)
  """(floor_divide(x1, x2), remainder(x1, x2))."""
  x1, x2 = promote_args("divmod", x1, x2)
  if dtype_of(x1) == dtypes.bool_:
    x1, x2 = (convert(v, dtypes.default_int()) for v in (x1, x2))
  return floor_divide(x1, x2), remainder(x1, x2)


def modf(x: Any, /, out: None = None) -> tuple[Any, Any]:
  """(fractional part, integral part) of `x`, both with the sign of `x`."""
  if out is not None:
    raise NotImplementedError("The 'out' argument to jnp.modf is not supported.")
  (x,) = promote_args_inexact("modf", x)
  whole = lax.select_n(lax.ge(x, scalar_like(x, 0)), lax.ceil(x), lax.floor(x))
  return lax.sub(x, whole), whole


def _uint_of(dt: np.dtype) -> np.dtype:
  return np.dtype(f"uint{dt.itemsize * 8}")


def frexp(x: Any, /) -> tuple[Any, Any]:
  """(mantissa in [0.5, 1), int32 exponent) with x = mantissa * 2**exponent."""
  (x,) = promote_args_inexact("frexp", x)
  dt = dtype_of(x)
  if dt.kind == "c":
    raise TypeError("frexp does not support complex-valued inputs")
  info = dtypes.finfo(dt)
  subnormal = lax.lt(lax.abs(x), scalar_like(x, info.tiny))
  scaled = where(subnormal, lax.mul(x, scalar_like(x, 2.0 ** info.nmant)), x)
  bits = lax.bitcast_convert_type(scaled, _uint_of(dt))
  ut = bits.dtype
  mask = (1 << info.nexp) - 1
  bias = -int(info.minexp) + 1
  raw = lax.bitwise_and(lax.shift_right_logical(bits, np.asarray(info.nmant, ut)),
                        np.asarray(mask, ut))
  exp = lax.sub(convert(raw, np.dtype(np.int32)), np.int32(bias - 1))
  exp = lax.sub(exp, where(subnormal, np.int32(info.nmant), np.int32(0)))
  mant_bits = lax.bitwise_or(
      lax.bitwise_and(bits, np.asarray(~(mask << info.nmant) & ((1 << 8 * dt.itemsize) - 1), ut)),
      np.asarray((bias - 1) << info.nmant, ut))
  mant = lax.bitcast_convert_type(mant_bits, dt)
  special = lax.bitwise_or(lax.bitwise_or(isinf(x), isnan(x)), lax.eq(x, scalar_like(x, 0)))
  return where(special, x, mant), where(special, np.int32(0), exp)


def ldexp(x1: Any, x2: Any, /) -> Any:
  """x1 * 2**x2, for floating (or integer) x1 and integer x2."""
  x1, x2 = ensure_arraylike("ldexp", x1, x2)
  if dtype_of(x1).kind == "c" or dtypes.kind(dtype_of(x2)) in "fc":
    raise ValueError(f"ldexp not supported for input types {(dtype_of(x1), dtype_of(x2))}")
  (x1,) = promote_dtypes_inexact(x1)
  out_shape = broadcast_shapes("ldexp", shape(x1), shape(x2))
  x1, x2 = broadcast_to(x1, out_shape), broadcast_to(x2, out_shape)
  m, e = frexp(x1)
  e = lax.add(convert(e, dtype_of(x1)), convert(x2, dtype_of(x1)))
  pos = lax.gt(e, scalar_like(e, 0))
  m = where(pos, lax.mul(m, scalar_like(m, 2)), m)
  e = where(pos, lax.sub(e, scalar_like(e, 1)), e)
  y = lax.mul(m, lax.pow(scalar_like(m, 2), e))  # exact, where exp2 rounds in bfloat16
  return where(lax.bitwise_or(isinf(x1), lax.eq(x1, scalar_like(x1, 0))), x1, y)


def spacing(x: Any, /) -> Any:
  """The distance from `x` to the next representable number away from zero."""
  (x,) = promote_args_inexact("spacing", x)
  if dtype_of(x).kind == "c":
    raise ValueError("jnp.spacing is not defined for complex inputs.")
  inf = scalar_like(x, np.inf)
  if dtype_of(x) == dtypes.float16:
    return lax.sub(lax.nextafter(x, lax.full_like(x, inf)), x)
  result = lax.sub(lax.nextafter(x, copysign(inf, x)), x)
  tiny = scalar_like(x, dtypes.finfo(dtype_of(x)).smallest_subnormal)
  return where(lax.eq(result, scalar_like(x, 0)), copysign(tiny, x), result)
