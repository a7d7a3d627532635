"""Elementwise primitives: arithmetic, math functions, comparisons, logic, select and casts.

Each primitive sits with its rules: abstract eval and numpy reference (through `primitive_kit`),
JVP, batching and transpose. Lowering rules live in `stablejax.lowering.rules.elementwise`.
The references follow XLA where numpy differs (truncating integer division, saturating
float-to-int casts, NaN-propagating max/min).

The JVP rules in the tables take `(g, ans, *primals, **params)`: the tangent of one operand, the
primal output and the primal operands; each gives that operand's contribution to the output
tangent, which the kit's `defjvp2` broadcasts to the output's shape (as JAX's `ad.defjvp2`).
"""
from __future__ import annotations

import enum
import functools
import operator
import warnings
from typing import Any, Callable

import numpy as np

from stablejax import core, dtypes, lax
from stablejax import simplify_rules as simplify
from stablejax.core import ShapedArray
from stablejax.interpreters import ad, batching, flops
from stablejax.interpreters.ad import Zero
from stablejax.jaxpr import Atom, JaxprEqn, Literal
from stablejax import typed_sharding as typed
from stablejax.lax.primitive_kit import (DTypeClass, any_dtype, binop, bool_or_int_dtypes,
                                         broadcast_elementwise, broadcasting_shape, check_dtype,
                                         const_like, def_reference, defjvp2, float_dtypes,
                                         full_like, linear_ct, naryop_abstract_eval,
                                         numeric_dtypes, ordered_dtypes, real_float_dtypes,
                                         real_numeric_dtypes, signed_numeric_dtypes,
                                         standard_primitive, unop)

ArrayLike = Any  # a tracer, a numpy array or scalar, or a Python scalar
Array = Any      # what a primitive returns: a tracer, or a concrete array when evaluated eagerly
DTypeLike = Any  # anything np.dtype() accepts

__all__ = [
    "abs", "abs_p", "acos", "acos_p", "acosh", "acosh_p", "add", "add_p", "and_p", "asin", "asin_p",
    "asinh", "asinh_p", "atan", "atan2", "atan2_p", "atan_p", "atanh", "atanh_p", "bitwise_and",
    "bitwise_not", "bitwise_or", "cbrt", "cbrt_p", "ceil", "ceil_p", "clamp", "clamp_p", "complex",
    "complex_p", "conj", "conj_p", "convert_element_type", "convert_element_type_p", "cos", "cos_p",
    "cosh", "cosh_p", "div", "div_p", "eq", "eq_p", "eq_to_p", "exp", "exp2", "exp2_p", "exp_p", "expm1",
    "expm1_p", "floor", "floor_p", "ge", "ge_p", "gt", "gt_p", "imag", "imag_p", "integer_pow",
    "integer_pow_p", "is_finite", "is_finite_p", "le", "le_p", "le_to_p", "log", "log1p", "log1p_p", "log_p",
    "logistic", "logistic_p", "lt", "lt_p", "lt_to_p", "max", "max_p", "min", "min_p", "mul", "mul_p", "ne",
    "ne_p", "neg", "neg_p", "nextafter", "nextafter_p", "not_p", "or_p", "pow", "pow_p", "real",
    "real_p", "reciprocal", "rem", "rem_p", "round", "round_p", "RoundingMethod", "rsqrt",
    "rsqrt_p", "select_n", "select_n_p", "sign", "sign_p", "sin", "sin_p", "sinh", "sinh_p", "sqrt",
    "sqrt_p", "square", "square_p", "sub", "sub_p", "tan", "tan_p", "tanh", "tanh_p",
]


class RoundingMethod(enum.IntEnum):
  """How `round` rounds halfway values."""
  AWAY_FROM_ZERO = 0
  TO_NEAREST_EVEN = 1


# ----------------------------------------------------------------------------------------------
# Public functions (JAX's signatures)

def add(x: ArrayLike, y: ArrayLike) -> Array:
  """Elementwise addition: x + y."""
  return add_p.bind(x, y)


def sub(x: ArrayLike, y: ArrayLike) -> Array:
  """Elementwise subtraction: x - y."""
  return sub_p.bind(x, y)


def mul(x: ArrayLike, y: ArrayLike, *, out_dtype: Any = None) -> Array:
  """Elementwise multiplication: x * y; with `out_dtype`, of the operands converted to it (their
  dtypes may then differ)."""
  if out_dtype is None:
    return mul_p.bind(x, y)
  return mul_p.bind(x, y, out_dtype=dtypes.canonicalize(out_dtype))


def div(x: ArrayLike, y: ArrayLike) -> Array:
  """Elementwise division: x / y (integer division rounds toward zero)."""
  return div_p.bind(x, y)


def rem(x: ArrayLike, y: ArrayLike) -> Array:
  """Elementwise remainder of x / y rounded toward zero; it has the sign of x (C's fmod)."""
  return rem_p.bind(x, y)


def pow(x: ArrayLike, y: ArrayLike) -> Array:
  """Elementwise power x ** y: x is inexact, y of x's dtype or an integer dtype."""
  return pow_p.bind(x, y)


def max(x: ArrayLike, y: ArrayLike) -> Array:
  """Elementwise maximum, propagating NaNs."""
  return max_p.bind(x, y)


def min(x: ArrayLike, y: ArrayLike) -> Array:
  """Elementwise minimum, propagating NaNs."""
  return min_p.bind(x, y)


def neg(x: ArrayLike) -> Array:
  """Elementwise negation: -x."""
  return neg_p.bind(x)


def abs(x: ArrayLike) -> Array:
  """Elementwise absolute value (real-valued for complex x)."""
  return abs_p.bind(x)


def sign(x: ArrayLike) -> Array:
  """Elementwise sign: -1, 0 or 1 (x / |x| for complex x; NaN and -0.0 are kept)."""
  return sign_p.bind(x)


def floor(x: ArrayLike) -> Array:
  """Elementwise floor."""
  return floor_p.bind(x)


def ceil(x: ArrayLike) -> Array:
  """Elementwise ceiling."""
  return ceil_p.bind(x)


def round(x: ArrayLike,
          rounding_method: RoundingMethod | int = RoundingMethod.AWAY_FROM_ZERO) -> Array:
  """Elementwise rounding to the nearest integer, halfway values as `rounding_method` says."""
  return round_p.bind(x, rounding_method=RoundingMethod(rounding_method))


def exp(x: ArrayLike) -> Array:
  """Elementwise exponential: e ** x."""
  return exp_p.bind(x)


def log(x: ArrayLike) -> Array:
  """Elementwise natural logarithm."""
  return log_p.bind(x)


def log1p(x: ArrayLike) -> Array:
  """Elementwise log(1 + x), accurate for small x."""
  return log1p_p.bind(x)


def expm1(x: ArrayLike) -> Array:
  """Elementwise exp(x) - 1, accurate for small x."""
  return expm1_p.bind(x)


def sin(x: ArrayLike) -> Array:
  """Elementwise sine."""
  return sin_p.bind(x)


def cos(x: ArrayLike) -> Array:
  """Elementwise cosine."""
  return cos_p.bind(x)


def tan(x: ArrayLike) -> Array:
  """Elementwise tangent."""
  return tan_p.bind(x)


def tanh(x: ArrayLike) -> Array:
  """Elementwise hyperbolic tangent."""
  return tanh_p.bind(x)


def logistic(x: ArrayLike) -> Array:
  """Elementwise logistic sigmoid: 1 / (1 + exp(-x))."""
  return logistic_p.bind(x)


def sqrt(x: ArrayLike) -> Array:
  """Elementwise square root."""
  return sqrt_p.bind(x)


def rsqrt(x: ArrayLike) -> Array:
  """Elementwise reciprocal square root: 1 / sqrt(x)."""
  return rsqrt_p.bind(x)


def exp2(x: ArrayLike) -> Array:
  """Elementwise base-2 exponential: 2 ** x."""
  return exp2_p.bind(x)


def cbrt(x: ArrayLike) -> Array:
  """Elementwise cube root."""
  return cbrt_p.bind(x)


def square(x: ArrayLike) -> Array:
  """Elementwise square: x * x."""
  return square_p.bind(x)


def reciprocal(x: ArrayLike) -> Array:
  """Elementwise reciprocal: 1 / x."""
  return integer_pow(x, -1)


def asin(x: ArrayLike) -> Array:
  """Elementwise arc sine."""
  return asin_p.bind(x)


def acos(x: ArrayLike) -> Array:
  """Elementwise arc cosine."""
  return acos_p.bind(x)


def atan(x: ArrayLike) -> Array:
  """Elementwise arc tangent."""
  return atan_p.bind(x)


def atan2(x: ArrayLike, y: ArrayLike) -> Array:
  """Elementwise arc tangent of x / y, in the quadrant of the point (y, x)."""
  return atan2_p.bind(x, y)


def sinh(x: ArrayLike) -> Array:
  """Elementwise hyperbolic sine."""
  return sinh_p.bind(x)


def cosh(x: ArrayLike) -> Array:
  """Elementwise hyperbolic cosine."""
  return cosh_p.bind(x)


def asinh(x: ArrayLike) -> Array:
  """Elementwise inverse hyperbolic sine."""
  return asinh_p.bind(x)


def acosh(x: ArrayLike) -> Array:
  """Elementwise inverse hyperbolic cosine."""
  return acosh_p.bind(x)


def atanh(x: ArrayLike) -> Array:
  """Elementwise inverse hyperbolic tangent."""
  return atanh_p.bind(x)


def real(x: ArrayLike) -> Array:
  """Elementwise real part of a complex array."""
  return real_p.bind(x)


def imag(x: ArrayLike) -> Array:
  """Elementwise imaginary part of a complex array."""
  return imag_p.bind(x)


def conj(x: ArrayLike) -> Array:
  """Elementwise complex conjugate (a complex array, also for real x)."""
  return conj_p.bind(x, input_dtype=core.get_aval(x).dtype)


def complex(x: ArrayLike, y: ArrayLike) -> Array:
  """Elementwise x + i y from float32 or float64 parts."""
  return complex_p.bind(x, y)


def is_finite(x: ArrayLike) -> Array:
  """Elementwise test for a finite value: neither infinite nor NaN (a bool array)."""
  return is_finite_p.bind(x)


def nextafter(x1: ArrayLike, x2: ArrayLike) -> Array:
  """Elementwise next representable value after x1 in the direction of x2."""
  return nextafter_p.bind(x1, x2)


def integer_pow(x: ArrayLike, y: int) -> Array:
  """Elementwise power x ** y for a static integer y (negative only for inexact x)."""
  return integer_pow_p.bind(x, y=operator.index(y))


def eq(x: ArrayLike, y: ArrayLike) -> Array:
  """Elementwise x == y (a bool array)."""
  return eq_p.bind(x, y)


def ne(x: ArrayLike, y: ArrayLike) -> Array:
  """Elementwise x != y (a bool array)."""
  return ne_p.bind(x, y)


def lt(x: ArrayLike, y: ArrayLike) -> Array:
  """Elementwise x < y (a bool array)."""
  return lt_p.bind(x, y)


def le(x: ArrayLike, y: ArrayLike) -> Array:
  """Elementwise x <= y (a bool array)."""
  return le_p.bind(x, y)


def gt(x: ArrayLike, y: ArrayLike) -> Array:
  """Elementwise x > y (a bool array)."""
  return gt_p.bind(x, y)


def ge(x: ArrayLike, y: ArrayLike) -> Array:
  """Elementwise x >= y (a bool array)."""
  return ge_p.bind(x, y)


def bitwise_and(x: ArrayLike, y: ArrayLike) -> Array:
  """Elementwise AND of booleans or integers (primitive `and`)."""
  return and_p.bind(x, y)


def bitwise_or(x: ArrayLike, y: ArrayLike) -> Array:
  """Elementwise OR of booleans or integers (primitive `or`)."""
  return or_p.bind(x, y)


def bitwise_not(x: ArrayLike) -> Array:
  """Elementwise NOT of booleans or integers (primitive `not`)."""
  return not_p.bind(x)


def select_n(which: ArrayLike, *cases: ArrayLike) -> Array:
  """Elementwise `cases[which]`: `which` is bool (at most 2 cases) or integer, scalar or of the
  cases' shape."""
  if not cases:
    raise ValueError("select_n() must have at least one case")
  return select_n_p.bind(which, *cases)


def clamp(min: ArrayLike, x: ArrayLike, max: ArrayLike) -> Array:
  """Elementwise min(max(x, min), max); `min` and `max` are scalars or of x's shape."""
  return clamp_p.bind(min, x, max)


def convert_element_type(operand: ArrayLike, new_dtype: DTypeLike, *,
                         weak_type: bool = False, warn_on_complex_to_real_cast: bool = True
                         ) -> Array:
  """Elementwise cast to `new_dtype` (64-bit types narrow to 32 bits unless x64 is enabled);
  complex to real keeps the real part, with numpy's ComplexWarning unless told not to."""
  # `weak_type` (not in jax.lax's signature; JAX's internal `_convert_element_type` has it) is
  # for stablejax.numpy's promotion. A numpy value or Python scalar is converted eagerly with
  # numpy, so promoting constants stages nothing; a rank-0 one converted to a weak type becomes
  # the Python scalar of that dtype (Python scalars are what is weakly typed). Tracers and
  # device arrays already of the requested type are returned as they are.
  aval = core.get_aval(operand)
  new_dtype = dtypes.canonicalize(new_dtype)
  weak_type = bool(weak_type)
  if dtypes.is_complex(aval.dtype) and not dtypes.is_complex(new_dtype):
    if warn_on_complex_to_real_cast:
      warnings.warn("Casting complex values to real discards the imaginary part",
                    np.exceptions.ComplexWarning, stacklevel=2)
    operand = operand.real if dtypes.is_python_scalar(operand) else operand
  if isinstance(operand, (np.ndarray, np.generic)) or dtypes.is_python_scalar(operand):
    _check_convertible(aval.dtype, new_dtype)
    dtypes.check_python_int(operand)
    if dtypes.is_python_scalar(operand) and dtypes.is_inexact(new_dtype):
      out = np.asarray(operand, new_dtype)  # exact: numpy's cast is XLA's here
    else:
      out = _convert(np.asarray(operand), new_dtype)
    if weak_type and out.ndim == 0 and dtypes.python_scalar_dtype(out.item()) == new_dtype \
        and dtypes.kind(new_dtype) != "b":  # (a Python bool is not weakly typed)
      return out.item()
    if weak_type:  # numpy has no weak types: the cast of the constant is staged, as in JAX
      src = np.asarray(operand)
      src = src if dtypes.canonicalize(src.dtype) == src.dtype else out
      return convert_element_type_p.bind(src, new_dtype=new_dtype, weak_type=True)
    return out
  if aval.dtype == new_dtype and aval.weak_type == weak_type:
    return operand
  return convert_element_type_p.bind(operand, new_dtype=new_dtype, weak_type=weak_type)


# ----------------------------------------------------------------------------------------------
# Helpers for the rules

def _select(pred: ArrayLike, on_true: ArrayLike, on_false: ArrayLike) -> Array:
  return select_n(pred, on_false, on_true)


def _replace_zero(x: ArrayLike) -> Array:
  """x with its zeros replaced by ones (to keep a derivative's unused branch finite)."""
  return _select(eq(x, const_like(x, 0)), full_like(x, 1), x)


def _to_bool(dtype: np.dtype) -> np.dtype:
  return dtypes.bool_


def _real_dtype(dtype: np.dtype) -> np.dtype:
  return dtypes.finfo(dtype).dtype if dtypes.is_complex(dtype) else dtype


# ----------------------------------------------------------------------------------------------
# Arithmetic

def _linear_binop_jvp(op: Callable, y_tangent: Callable, primals, tangents):
  """JVP of add and sub: `op` applied to the tangents, a lone tangent broadcast as needed."""
  ans = op(*primals)
  xt, yt = tangents
  if type(xt) is Zero and type(yt) is Zero:
    return ans, Zero.from_primal_value(ans)
  if type(xt) is Zero:
    return ans, broadcast_elementwise(y_tangent(yt), core.get_aval(ans).shape)
  if type(yt) is Zero:
    return ans, broadcast_elementwise(xt, core.get_aval(ans).shape)
  return ans, op(xt, yt)


add_p = binop("add", numeric_dtypes, np.add)
ad.primitive_jvps[add_p] = functools.partial(_linear_binop_jvp, add, lambda t: t)
ad.primitive_transposes[add_p] = lambda ct, x, y: [linear_ct(x, ct), linear_ct(y, ct)]
def_reference(ad.add_jaxvals_p, np.add)  # the only primitive outside lax: the sum of tangents
# Eagerly add_any is `add`, as JAX's (weak only where both operands are), where its abstract
# eval keeps the first operand's weak type: eager and jitted gradients differ as in JAX.
ad.add_jaxvals_p.def_impl(add)

sub_p = binop("sub", numeric_dtypes, np.subtract)
ad.primitive_jvps[sub_p] = functools.partial(_linear_binop_jvp, sub, neg)
ad.primitive_transposes[sub_p] = lambda ct, x, y: [linear_ct(x, ct), linear_ct(y, ct, neg)]


def _mul_transpose(ct, x, y, out_dtype=None):
  """(With `out_dtype`, each cotangent in its operand's dtype, as JAX.)"""
  if ad.is_undefined_primal(x) and ad.is_undefined_primal(y):
    raise ValueError("mul can only be transposed with respect to one operand; the other must "
                     f"be a constant (got {x} and {y})")
  dtype_of = lambda v: None if out_dtype is None else v.aval.dtype  # noqa: E731
  return [linear_ct(x, ct, lambda c: mul(c, y, out_dtype=dtype_of(x))),
          linear_ct(y, ct, lambda c: mul(x, c, out_dtype=dtype_of(y)))]


_mul_same_dtypes = naryop_abstract_eval("mul", [numeric_dtypes, numeric_dtypes])


def _mul_abstract_eval(x: ShapedArray, y: ShapedArray, *, out_dtype=None) -> ShapedArray:
  """JAX's: with `out_dtype`, numeric operands of any dtypes and that result dtype."""
  if out_dtype is None:
    return _mul_same_dtypes(x, y)
  for i, aval in enumerate((x, y)):
    check_dtype("mul", numeric_dtypes, aval, f"operand {i}")
  return ShapedArray(broadcasting_shape("mul", x, y), np.dtype(out_dtype),
                     x.weak_type and y.weak_type)


def _mul_reference(x: np.ndarray, y: np.ndarray, out_dtype=None) -> np.ndarray:
  if out_dtype is not None:
    x, y = x.astype(out_dtype), y.astype(out_dtype)
  return np.multiply(x, y)


mul_p = binop("mul", numeric_dtypes, _mul_reference,
              lambda g, ans, x, y, out_dtype=None: mul(g, y, out_dtype=out_dtype),
              lambda g, ans, x, y, out_dtype=None: mul(x, g, out_dtype=out_dtype),
              abstract_eval=_mul_abstract_eval)
ad.primitive_transposes[mul_p] = _mul_transpose


def _div_transpose(ct, x, y):
  if ad.is_undefined_primal(y):
    raise ValueError(f"div is not linear in its divisor and cannot be transposed with respect "
                     f"to it (got {x} / {y})")
  return [linear_ct(x, ct, lambda c: div(c, y)), None]


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


def _div_reference(x: np.ndarray, y: np.ndarray) -> np.ndarray:
  return _int_div_rem(x, y)[0] if x.dtype.kind in "iu" else np.divide(x, y)


def _rem_reference(x: np.ndarray, y: np.ndarray) -> np.ndarray:
  return _int_div_rem(x, y)[1] if x.dtype.kind in "iu" else np.fmod(x, y)


div_p = binop("div", numeric_dtypes, _div_reference,
              lambda g, ans, x, y: div(g, y),
              lambda g, ans, x, y: mul(mul(neg(g), x), integer_pow(y, -2)))
ad.primitive_transposes[div_p] = _div_transpose

rem_p = binop("rem", real_numeric_dtypes, _rem_reference,
              lambda g, ans, x, y: g,
              lambda g, ans, x, y: mul(neg(g), mul(sign(div(x, y)), floor(abs(div(x, y))))))


def _balanced_eq(x: Array, z: Array, y: Array) -> Array:
  """1 where x == z != y, 0.5 where x == z == y, else 0: max/min split the tangent at ties
  (the constants of z's type, weak type included, as JAX's)."""
  full = lambda v: full_like(z, v)
  return div(_select(eq(x, z), full(1), full(0)), _select(eq(y, z), full(2), full(1)))


max_p = binop("max", any_dtype, np.maximum,
              lambda g, ans, x, y: mul(g, _balanced_eq(x, ans, y)),
              lambda g, ans, x, y: mul(g, _balanced_eq(y, ans, x)))
min_p = binop("min", any_dtype, np.minimum,
              lambda g, ans, x, y: mul(g, _balanced_eq(x, ans, y)),
              lambda g, ans, x, y: mul(g, _balanced_eq(y, ans, x)))


def _pow_abstract_eval(x: ShapedArray, y: ShapedArray) -> ShapedArray:
  check_dtype("pow", float_dtypes, x, "operand 0")
  check_dtype("pow", numeric_dtypes, y, "operand 1")
  if dtypes.is_inexact(y.dtype) and x.dtype != y.dtype:
    raise TypeError("the first argument to pow must have an inexact dtype (float or complex), "
                    "and the second argument must have an inexact or integer dtype, and two "
                    f"inexact dtypes must match, but got {x.dtype} and {y.dtype} respectively")
  return ShapedArray(broadcasting_shape("pow", x, y), x.dtype, x.weak_type and y.weak_type)


def _pow_jvp_x(g, ans, x, y):
  # (in the result type, strongly typed as in JAX: pow's tangents are never weak)
  integer_y = not dtypes.is_inexact(core.get_aval(y).dtype)
  x, y = convert_element_type(x, ans.dtype), convert_element_type(y, ans.dtype)
  if not integer_y:
    return mul(g, mul(y, pow(x, sub(y, const_like(y, 1)))))
  # An integer exponent: d/dx x**0 is 0 (not 0 * x**-1, which is NaN at x = 0).
  y = broadcast_elementwise(y, core.get_aval(ans).shape)
  jac = _select(eq(y, const_like(y, 0)), full_like(y, 0),
                mul(_replace_zero(y), pow(x, sub(y, const_like(y, 1)))))
  return mul(g, jac)


def _pow_jvp_y(g, ans, x, y):
  return convert_element_type(mul(g, mul(log(_replace_zero(x)), ans)), ans.dtype)


def _pow_reference(x: np.ndarray, y: np.ndarray) -> np.ndarray:
  return np.power(x, y.astype(x.dtype))  # an integer exponent is converted, as XLA's lowering does


pow_p = binop("pow", float_dtypes, _pow_reference, _pow_jvp_x, _pow_jvp_y,
              abstract_eval=_pow_abstract_eval)


def _neg_transpose(ct, x):
  return [linear_ct(x, ct, neg)]


neg_p = unop("neg", numeric_dtypes, np.negative)
ad.deflinear2(neg_p, _neg_transpose)


def _abs_jvp(g, ans, x):
  dtype = core.get_aval(x).dtype
  if dtypes.is_complex(dtype):  # d|x| = Re(conj(x) dx) / |x|
    return real(mul(g, div(conj(x), _replace_zero(convert_element_type(ans, dtype)))))
  return _select(ge(x, const_like(x, 0)), g, neg(g))


abs_p = unop("abs", signed_numeric_dtypes, np.abs, _abs_jvp, result_dtype=_real_dtype)


def _round_reference(x: np.ndarray, *, rounding_method: RoundingMethod) -> np.ndarray:
  if rounding_method == RoundingMethod.TO_NEAREST_EVEN:
    return np.rint(x)
  trunc = np.trunc(x)  # away from zero: x - trunc(x) is exact, so halves are detected exactly
  return np.where(np.abs(x - trunc) >= 0.5, trunc + np.sign(x), trunc)


# sign keeps the sign of -0.0, as XLA does
sign_p = unop("sign", numeric_dtypes, lambda x: np.where(x == 0, x, np.sign(x)))
floor_p = unop("floor", real_float_dtypes, np.floor)
ceil_p = unop("ceil", real_float_dtypes, np.ceil)
round_p = unop("round", real_float_dtypes, _round_reference)


def _integer_pow_abstract_eval(x: ShapedArray, *, y: int) -> ShapedArray:
  if y < 0 and dtypes.is_integer(x.dtype):
    raise TypeError(f"Integers cannot be raised to negative powers, got "
                    f"integer_pow({x.str_short()}, {y})")
  return _integer_pow_eval(x)


def _integer_pow_jvp(g, ans, x, *, y):
  if y == 0:
    return full_like(g, 0)
  if y == 1:
    return g
  if y == 2:
    return mul(g, mul(const_like(x, 2), x))
  return mul(g, mul(const_like(x, y), integer_pow(x, y - 1)))


_integer_pow_eval = naryop_abstract_eval("integer_pow", [numeric_dtypes])
integer_pow_p = unop("integer_pow", numeric_dtypes,
                     lambda x, *, y: np.power(x, np.asarray(y, x.dtype)), _integer_pow_jvp,
                     abstract_eval=_integer_pow_abstract_eval)


# ----------------------------------------------------------------------------------------------
# Transcendental functions (float and complex); each row: name, dtypes, numpy reference, JVP
# rule (g, ans, x)

exp_p = unop("exp", float_dtypes, np.exp, lambda g, ans, x: mul(g, ans))
log_p = unop("log", float_dtypes, np.log, lambda g, ans, x: div(g, x))
log1p_p = unop("log1p", float_dtypes, np.log1p,
               lambda g, ans, x: div(g, add(x, full_like(x, 1, shape=()))))
expm1_p = unop("expm1", float_dtypes, np.expm1,
               lambda g, ans, x: mul(g, add(ans, full_like(ans, 1, shape=()))))
sin_p = unop("sin", float_dtypes, np.sin, lambda g, ans, x: mul(g, cos(x)))
cos_p = unop("cos", float_dtypes, np.cos, lambda g, ans, x: neg(mul(g, sin(x))))
tan_p = unop("tan", float_dtypes, np.tan,
             lambda g, ans, x: mul(g, add(const_like(x, 1), mul(ans, ans))))
tanh_p = unop("tanh", float_dtypes, np.tanh,
              lambda g, ans, x: mul(add(g, mul(g, ans)),
                                     sub(full_like(x, 1, shape=()), ans)))
logistic_p = unop("logistic", float_dtypes, lambda x: 1 / (1 + np.exp(-x)),
                  lambda g, ans, x: mul(g, mul(ans, sub(full_like(ans, 1, shape=()), ans))))
sqrt_p = unop("sqrt", float_dtypes, np.sqrt, lambda g, ans, x: mul(g, div(const_like(x, 0.5), ans)))
rsqrt_p = unop("rsqrt", float_dtypes, lambda x: 1 / np.sqrt(x),
               lambda g, ans, x: mul(g, mul(const_like(x, -0.5), div(ans, x))))
exp2_p = unop("exp2", float_dtypes, np.exp2,
              lambda g, ans, x: mul(const_like(x, np.log(2)), mul(g, ans)))
cbrt_p = unop("cbrt", real_float_dtypes, np.cbrt,
              lambda g, ans, x: mul(g, mul(const_like(x, 1 / 3), integer_pow(ans, -2))))
square_p = unop("square", numeric_dtypes, np.square,
                lambda g, ans, x: mul(g, mul(const_like(x, 2), x)))
asin_p = unop("asin", float_dtypes, np.arcsin,
              lambda g, ans, x: mul(g, rsqrt(sub(const_like(x, 1), square(x)))))
acos_p = unop("acos", float_dtypes, np.arccos,
              lambda g, ans, x: mul(g, neg(rsqrt(sub(const_like(x, 1), square(x))))))
atan_p = unop("atan", float_dtypes, np.arctan,
              lambda g, ans, x: div(g, add(const_like(x, 1), square(x))))
sinh_p = unop("sinh", float_dtypes, np.sinh, lambda g, ans, x: mul(g, cosh(x)))
cosh_p = unop("cosh", float_dtypes, np.cosh, lambda g, ans, x: mul(g, sinh(x)))
asinh_p = unop("asinh", float_dtypes, np.arcsinh,
               lambda g, ans, x: mul(g, rsqrt(add(square(x), full_like(x, 1, shape=())))))
acosh_p = unop("acosh", float_dtypes, np.arccosh,
               lambda g, ans, x: mul(g, rsqrt(sub(square(x), full_like(x, 1, shape=())))))
atanh_p = unop("atanh", float_dtypes, np.arctanh,
               lambda g, ans, x: mul(reciprocal(add(full_like(x, 1, shape=()), x)),
                                      div(g, sub(full_like(x, 1, shape=()), x))))


def _atan2_jvp(numerator: Callable) -> Callable:
  """The JVP rule of atan2(x, y) in one operand: g * numerator(x, y) / (x**2 + y**2)."""
  return lambda g, ans, x, y: mul(g, div(numerator(x, y), add(square(x), square(y))))


def _atan2_reference(x: np.ndarray, y: np.ndarray) -> np.ndarray:
  """numpy's arctan2; for complex operands (which numpy lacks), -i log((y + ix) / sqrt(x² + y²))."""
  if not dtypes.is_complex(x.dtype):
    return np.arctan2(x, y)
  return (-1j * np.log((y + 1j * x) / np.sqrt(x * x + y * y))).astype(x.dtype)


atan2_p = binop("atan2", float_dtypes, _atan2_reference, _atan2_jvp(lambda x, y: y),
                _atan2_jvp(lambda x, y: neg(x)))


def _jvp_not_implemented(name: str) -> Callable:
  """A JVP rule for an operand `name` has no derivative in (as in JAX, whose error it raises)."""
  def rule(g, ans, *args, **params):
    raise NotImplementedError(f"Differentiation rule for '{name}' not implemented")
  return rule


nextafter_p = binop("nextafter", real_float_dtypes, np.nextafter,
                    _jvp_not_implemented("nextafter"), _jvp_not_implemented("nextafter"))


# ----------------------------------------------------------------------------------------------
# Complex numbers: real, imag, conj and complex are linear (over the reals)

complex_dtypes = DTypeClass("c", "complex")


def _complex_dtype(dtype: np.dtype) -> np.dtype:
  return np.result_type(dtype, np.complex64)


def _complex_abstract_eval(x: ShapedArray, y: ShapedArray) -> ShapedArray:
  for i, aval in enumerate((x, y)):
    if aval.dtype not in (np.float32, np.float64):
      raise TypeError(f"complex does not accept dtype {aval.dtype} (operand {i} of type "
                      f"{aval.str_short()}); it accepts float32 and float64")
  return _complex_eval(x, y)


def _complex_reference(x: np.ndarray, y: np.ndarray) -> np.ndarray:
  out = np.empty(np.broadcast_shapes(x.shape, y.shape), _complex_dtype(x.dtype))
  out.real, out.imag = x, y  # not x + 1j * y, which makes NaNs of infinities
  return out


def _conj_abstract_eval(x: ShapedArray, *, input_dtype) -> ShapedArray:
  check_dtype("conj", float_dtypes, x)
  return ShapedArray(x.shape, _complex_dtype(x.dtype), x.weak_type)


def _conj_transpose(ct, x, *, input_dtype):
  return [conj(ct) if dtypes.is_complex(input_dtype) else real(ct)]


_complex_eval = naryop_abstract_eval("complex", [real_float_dtypes] * 2, _complex_dtype)
real_p = unop("real", complex_dtypes, np.real, result_dtype=_real_dtype)
ad.deflinear2(real_p, lambda ct, x: [complex(ct, const_like(ct, 0))])
imag_p = unop("imag", complex_dtypes, np.imag, result_dtype=_real_dtype)
ad.deflinear2(imag_p, lambda ct, x: [complex(const_like(ct, 0), neg(ct))])
complex_p = binop("complex", real_float_dtypes, _complex_reference,
                  abstract_eval=_complex_abstract_eval)
ad.deflinear2(complex_p, lambda ct, x, y: [linear_ct(x, ct, real),
                                           linear_ct(y, ct, lambda c: imag(neg(c)))])
conj_p = unop("conj", float_dtypes, lambda x, *, input_dtype: np.conj(x),
              abstract_eval=_conj_abstract_eval)
ad.deflinear2(conj_p, _conj_transpose)


# ----------------------------------------------------------------------------------------------
# Comparisons and logic (zero tangents)


eq_p = binop("eq", any_dtype, np.equal, result_dtype=_to_bool)
ne_p = binop("ne", any_dtype, np.not_equal, result_dtype=_to_bool)
lt_p = binop("lt", ordered_dtypes, np.less, result_dtype=_to_bool)
le_p = binop("le", ordered_dtypes, np.less_equal, result_dtype=_to_bool)
gt_p = binop("gt", ordered_dtypes, np.greater, result_dtype=_to_bool)
ge_p = binop("ge", ordered_dtypes, np.greater_equal, result_dtype=_to_bool)


def _total_order_key(x: np.ndarray) -> np.ndarray:
  """Integers ordered as IEEE 754's totalOrder orders the floats `x` (-NaN < -inf < -0 < +0 <
  inf < NaN); other dtypes are their own key."""
  if dtypes.kind(x.dtype) != "f":
    return x
  bits = x.view(np.dtype(f"int{8 * x.dtype.itemsize}"))
  return np.where(bits < 0, bits ^ np.iinfo(bits.dtype).max, bits)


def _total_order(compare: Callable) -> Callable:
  """The numpy reference of a totally ordered comparison (complex: part by part, for eq)."""
  def reference(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    if dtypes.kind(x.dtype) == "c":
      return reference(x.real, y.real) & reference(x.imag, y.imag)
    return compare(_total_order_key(x), _total_order_key(y))
  return reference


# As eq, le, lt, comparing floats by IEEE 754's totalOrder (as JAX's eq_to, le_to, lt_to).
eq_to_p = binop("eq_to", any_dtype, _total_order(np.equal), result_dtype=_to_bool)
le_to_p = binop("le_to", ordered_dtypes, _total_order(np.less_equal), result_dtype=_to_bool)
lt_to_p = binop("lt_to", ordered_dtypes, _total_order(np.less), result_dtype=_to_bool)
and_p = binop("and", bool_or_int_dtypes, np.bitwise_and)
or_p = binop("or", bool_or_int_dtypes, np.bitwise_or)
not_p = unop("not", bool_or_int_dtypes, np.invert)
is_finite_p = unop("is_finite", real_float_dtypes, np.isfinite, result_dtype=_to_bool)

for _prim in (sign_p, floor_p, ceil_p, round_p, eq_p, ne_p, lt_p, le_p, gt_p, ge_p, eq_to_p,
              le_to_p, lt_to_p, and_p, or_p, not_p, is_finite_p):
  ad.defjvp_zero(_prim)
del _prim


# ----------------------------------------------------------------------------------------------
# select_n

def _select_n_abstract_eval(which: ShapedArray, *cases: ShapedArray) -> ShapedArray:
  if not cases:
    raise TypeError("select_n requires at least one case")
  if which.dtype.kind not in "biu":
    raise TypeError(f"select_n `which` must be boolean or integer, got {which.str_short()}")
  if which.dtype == dtypes.bool_ and len(cases) > 2:
    raise TypeError(f"select_n with a boolean `which` takes at most 2 cases, got {len(cases)}")
  case = cases[0]
  if any(c.shape != case.shape for c in cases):
    raise TypeError("select_n cases must have the same shapes, got "
                    f"{', '.join(str(c.shape) for c in cases)}")
  if any(c.dtype != case.dtype for c in cases):
    raise TypeError("select_n cases must have the same dtypes, got "
                    f"{', '.join(str(c.dtype) for c in cases)}")
  if which.shape and which.shape != case.shape:
    raise TypeError("select_n `which` must be scalar or have the same shape as the cases, got "
                    f"`which` shape {which.shape} and case shape {case.shape}")
  return ShapedArray(case.shape, case.dtype, all(c.weak_type for c in cases))


def _select_n_jvp(primals, tangents):
  which, *cases = primals
  ans = select_n(which, *cases)
  case_tangents = tangents[1:]
  nonzero = [t for t in case_tangents if type(t) is not Zero]
  if not nonzero:
    return ans, Zero.from_primal_value(ans)
  zeros = full_like(nonzero[0], 0)  # made even when unused, as JAX does (so jaxprs match)
  return ans, select_n(which, *(zeros if type(t) is Zero else t for t in case_tangents))


def _select_n_transpose(ct, which, *cases):
  if ad.is_undefined_primal(which):
    raise ValueError("select_n is not linear in `which` and cannot be transposed with respect "
                     "to it")
  zeros = None if type(ct) is Zero else full_like(ct, 0)  # (keeps a weak type, as JAX)

  def one_hot(i: int) -> Callable[[Array], Array]:  # ct where case i was chosen, else 0
    return lambda c: select_n(which, *(c if j == i else zeros for j in range(len(cases))))

  return [None] + [linear_ct(case, ct, one_hot(i)) for i, case in enumerate(cases)]


def _per_example_ndim(x: Any, d: int | None) -> int:
  return core.get_aval(x).ndim - (d is not None)


def _select_n_batcher(axis_data, args, dims):
  which, *cases = args
  which_dim, *case_dims = dims
  size = axis_data.size
  which_ndim, case_ndim = _per_example_ndim(which, which_dim), _per_example_ndim(cases[0],
                                                                                 case_dims[0])
  scalar_which = which_dim is None and which_ndim == 0  # may stay an unbatched scalar
  if len(set(case_dims)) == 1 and case_dims[0] is not None and (
      scalar_which or which_dim == case_dims[0] and which_ndim == case_ndim):
    return select_n(which, *cases), case_dims[0]
  cases = [batching.bdim_at_front(c, d, size) for c, d in zip(cases, case_dims)]
  if not scalar_which:
    which = batching.bdim_at_front(which, which_dim, size)
    if which_ndim < case_ndim:  # a scalar `which` per example: give it the cases' shape
      which = lax.broadcast_in_dim(which, core.get_aval(cases[0]).shape, (0,))
  return select_n(which, *cases), 0


def _select_n_reference(which: np.ndarray, *cases: np.ndarray) -> np.ndarray:
  out = cases[0]
  for i, case in enumerate(cases[1:], 1):  # an out-of-range `which` clamps to the first/last
    out = np.where(which >= i, case, out)
  return out


select_n_p = standard_primitive("select_n", _select_n_abstract_eval)
def_reference(select_n_p, _select_n_reference)
ad.primitive_jvps[select_n_p] = _select_n_jvp
ad.primitive_transposes[select_n_p] = _select_n_transpose
batching.fancy_primitive_batchers[select_n_p] = _select_n_batcher


# ----------------------------------------------------------------------------------------------
# clamp

def _clamp_abstract_eval(lo: ShapedArray, x: ShapedArray, hi: ShapedArray) -> ShapedArray:
  for name, bound in (("min", lo), ("max", hi)):
    if bound.shape and bound.shape != x.shape:
      raise TypeError(f"clamp requires {name}.shape == x.shape or {name}.shape == (), got "
                      f"{name}.shape={bound.shape}, x.shape={x.shape}")
  return _clamp_eval(lo, x, hi)


def _clamp_tangent(pred: Array, g: Array, x: Array) -> Array:
  """`g` (broadcast to x's shape) where `pred`, else 0."""
  return _select(pred, broadcast_elementwise(g, core.get_aval(x).shape), full_like(x, 0))


def _clamp_batcher(axis_data, args, dims):
  lo, x, hi = args
  lo_dim, x_dim, hi_dim = dims
  size = axis_data.size
  x_ndim = _per_example_ndim(x, x_dim)

  def as_is(bound, d):  # usable with x as it is: an unbatched scalar, or batched like x
    ndim = _per_example_ndim(bound, d)
    return d is None and ndim == 0 or d == x_dim and ndim == x_ndim

  if x_dim is not None and as_is(lo, lo_dim) and as_is(hi, hi_dim):
    return clamp(lo, x, hi), x_dim
  x = batching.bdim_at_front(x, x_dim, size)

  def at_front(bound, d):
    ndim = _per_example_ndim(bound, d)
    if d is None and ndim == 0:
      return bound
    bound = batching.bdim_at_front(bound, d, size)
    if ndim < x_ndim:  # a scalar bound per example: give it x's shape
      bound = lax.broadcast_in_dim(bound, core.get_aval(x).shape, (0,))
    return bound

  return clamp(at_front(lo, lo_dim), x, at_front(hi, hi_dim)), 0


_clamp_eval = naryop_abstract_eval("clamp", [any_dtype] * 3)
clamp_p = standard_primitive("clamp", _clamp_abstract_eval)
def_reference(clamp_p, lambda lo, x, hi: np.minimum(np.maximum(x, lo), hi))
defjvp2(clamp_p,
         lambda g, ans, lo, x, hi: _clamp_tangent(bitwise_and(gt(lo, x), lt(lo, hi)), g, x),
         lambda g, ans, lo, x, hi: _clamp_tangent(bitwise_and(gt(x, lo), lt(x, hi)), g, x),
         lambda g, ans, lo, x, hi: _clamp_tangent(lt(hi, x), g, x))
batching.fancy_primitive_batchers[clamp_p] = _clamp_batcher


# ----------------------------------------------------------------------------------------------
# convert_element_type

def _convert_element_type_abstract_eval(x: ShapedArray, *, new_dtype, weak_type) -> ShapedArray:
  _check_convertible(x.dtype, new_dtype)
  return ShapedArray(x.shape, new_dtype, weak_type)


def _check_convertible(dtype: Any, new_dtype: Any) -> None:
  """An extended dtype (PRNG keys) converts only to itself, as in JAX: a key's bits are not its
  values (`random.key_data` and `random.wrap_key_data` convert)."""
  if dtype != new_dtype and (isinstance(dtype, dtypes.ExtendedDType)
                             or isinstance(new_dtype, dtypes.ExtendedDType)):
    raise ValueError(f"Cannot convert_element_type from {dtype} to {new_dtype}")


def _convert_element_type_jvp(primals, tangents, *, new_dtype, weak_type):
  (x,), (t,) = primals, tangents
  ans = convert_element_type_p.bind(x, new_dtype=new_dtype, weak_type=weak_type)
  if type(t) is Zero or not dtypes.is_inexact(new_dtype):
    return ans, Zero.from_primal_value(ans)
  return ans, convert_element_type_p.bind(t, new_dtype=new_dtype, weak_type=weak_type)


def _convert_element_type_transpose(ct, x, *, new_dtype, weak_type):
  aval = x.aval
  if not dtypes.is_inexact(aval.dtype):
    return [Zero(ad.tangent_aval(aval))]
  return [linear_ct(x, ct, lambda c: convert_element_type_p.bind(
      c, new_dtype=aval.dtype, weak_type=aval.weak_type))]


def _float_to_int(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
  """XLA's float-to-integer conversion: truncate, saturate out-of-range values, NaN -> 0."""
  info = np.iinfo(dtype)
  x = x.astype(np.float64)
  lo, hi = float(info.min), float(info.max) + 1.0  # powers of two: exact in float64
  in_range = (x >= lo) & (x < hi)
  out = np.trunc(np.where(in_range, x, 0)).astype(dtype)
  out = np.where(x >= hi, dtype.type(info.max), out)
  return np.where(x < lo, dtype.type(info.min), out)


def _convert(x: np.ndarray, new_dtype: np.dtype) -> np.ndarray:
  """`x` converted to `new_dtype` as XLA converts (the real part of complex values, saturating
  float-to-int): the reference, and how `convert_element_type` converts host values."""
  new_dtype = np.dtype(new_dtype)
  if x.dtype.kind == "c" and new_dtype.kind != "c":
    x = x.real
  with np.errstate(all="ignore"):
    if dtypes.kind(x.dtype) == "f" and new_dtype.kind in "iu":
      return _float_to_int(x, new_dtype)
    return x.astype(new_dtype)


convert_element_type_p = standard_primitive("convert_element_type",
                                            _convert_element_type_abstract_eval)
def_reference(convert_element_type_p,
              lambda x, *, new_dtype, weak_type: _convert(x, new_dtype))
ad.primitive_jvps[convert_element_type_p] = _convert_element_type_jvp
ad.primitive_transposes[convert_element_type_p] = _convert_element_type_transpose
batching.defvectorized(convert_element_type_p)

# ----------------------------------------------------------------------------------------------
# FLOPS (conventions: stablejax.flops)

def _convert_flops(avals_in, avals_out, **_) -> float:
  return 0 if avals_in[0].dtype == avals_out[0].dtype else avals_out[0].size


def _integer_pow_flops(avals_in, avals_out, *, y: int) -> float:
  """Square-and-multiply: floor(log2 |y|) squarings and popcount(|y|) - 1 multiplies, and a
  division for negative `y`."""
  n = -y if y < 0 else y  # (`abs` here is lax.abs)
  muls = 0 if n == 0 else n.bit_length() - 1 + bin(n).count("1") - 1
  return avals_out[0].size * (muls + (y < 0))


# (the primitives built with `unop`/`binop` count 1 per output element already)
flops.flops_rules[clamp_p] = flops.out_size
flops.flops_rules[select_n_p] = flops.out_size
flops.flops_rules[ad.add_jaxvals_p] = flops.out_size
flops.flops_rules[convert_element_type_p] = _convert_flops
flops.flops_rules[integer_pow_p] = _integer_pow_flops

# ----------------------------------------------------------------------------------------------
# Algebraic simplification (applied by stablejax.passes.simplify)

def _neg_simplify(eqn: JaxprEqn, producer: simplify.Producer) -> Atom | None:
  inner = producer(eqn.invars[0])
  if inner is not None and inner.primitive is neg_p and simplify.same_type(inner.invars[0], eqn):
    return inner.invars[0]
  return None


def _select_n_simplify(eqn: JaxprEqn, producer: simplify.Producer) -> Atom | None:
  which, *cases = eqn.invars
  if type(which) is not Literal or np.shape(which.val) != ():
    return None
  i = int(np.asarray(which.val))
  if 0 <= i < len(cases) and simplify.same_type(cases[i], eqn):
    return cases[i]
  return None


simplify.simplify_rules[mul_p] = simplify.identity_element(1, commutes=True)
simplify.simplify_rules[add_p] = simplify.identity_element(0, commutes=True)
simplify.simplify_rules[sub_p] = simplify.identity_element(0, commutes=False)
simplify.simplify_rules[neg_p] = _neg_simplify
simplify.simplify_rules[convert_element_type_p] = simplify.same_type_rule
simplify.simplify_rules[select_n_p] = _select_n_simplify

# ----------------------------------------------------------------------------------------------
# Sharding in types (stablejax.typed_sharding); `naryop` gives the unary and binary primitives
# theirs

typed.sharding_rules[select_n_p] = typed.elementwise_rule("select_n")
typed.sharding_rules[clamp_p] = typed.elementwise_rule("clamp")
typed.sharding_rules[convert_element_type_p] = typed.same_rule
