"""numpy's mathematical functions, transcendental part: trigonometric and hyperbolic functions,
exponents and logarithms, and other special functions (i0, sinc). (`unwrap`, built on
differences and sums, is in `_math_miscellaneous`.)"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from stablejax import core, dtypes, lax
from stablejax.custom_derivatives import custom_jvp
from stablejax.numpy._elementwise import binary, constant_like, named, unary, where
from stablejax.numpy._logic import isnan
from stablejax.numpy._math_arithmetic import add, imag, multiply, real
from stablejax.numpy._promotion import (
    dtype, ensure_arraylike, promote_args_inexact, scalar_like, weak_scalar_like)


exp = unary("exp", lax.exp, True)


log = unary("log", lax.log, True)


log1p = unary("log1p", lax.log1p, True)


expm1 = unary("expm1", lax.expm1, True)


sin = unary("sin", lax.sin, True)


cos = unary("cos", lax.cos, True)


tan = unary("tan", lax.tan, True)


tanh = unary("tanh", lax.tanh, True)


arcsin = unary("arcsin", lax.asin, True)


arccos = unary("arccos", lax.acos, True)


arctan = unary("arctan", lax.atan, True)


sinh = unary("sinh", lax.sinh, True)


cosh = unary("cosh", lax.cosh, True)


arcsinh = unary("arcsinh", lax.asinh, True)


arccosh = unary("arccosh", lax.acosh, True)


arctanh = unary("arctanh", lax.atanh, True)


exp2 = unary("exp2", lax.exp2, True)


arctan2 = binary("arctan2", lax.atan2, True)


def _scaled_log(x: Any, scale: Callable[[Any], Any]) -> Any:
  """`scale` applied to log(x), to its real and imaginary parts apart where x is complex."""
  r = lax.log(x)
  if dtypes.is_complex(r.dtype):
    return lax.complex(scale(lax.real(r)), scale(lax.imag(r)))
  return scale(r)


def log2(x: Any, /) -> Any:
  """Elementwise base-2 logarithm."""
  (x,) = promote_args_inexact("log2", x)
  return _scaled_log(x, lambda r: lax.div(r, lax.log(scalar_like(r, 2))))


def log10(x: Any, /) -> Any:
  """Elementwise base-10 logarithm: log(x) times 1/log(10) rounded to x's precision, as JAX."""
  (x,) = promote_args_inexact("log10", x)
  return _scaled_log(x, lambda r: lax.mul(r, scalar_like(r, 0.4342944819032518)))


def _scale(name: str, factor: float) -> Callable[[Any], Any]:
  def fn(x: Any, /) -> Any:
    (x,) = promote_args_inexact(name, x)
    return lax.mul(x, weak_scalar_like(x, factor))
  return named(fn, name, f"Elementwise x * {factor:.6g}, as numpy.{name}.")


deg2rad = radians = _scale("deg2rad", np.pi / 180)


rad2deg = degrees = _scale("rad2deg", 180 / np.pi)


def hypot(x1: Any, x2: Any, /) -> Any:
  """Elementwise sqrt(x1**2 + x2**2), without overflow for large operands."""
  x1, x2 = promote_args_inexact("hypot", x1, x2)
  if dtypes.is_complex(dtype(x1)):
    raise ValueError("jnp.hypot is not well defined for complex-valued inputs; convert them to "
                     "real values first, e.g. with abs(x)")
  x1, x2 = lax.abs(x1), lax.abs(x2)
  inf = lax.bitwise_or(lax.eq(x1, scalar_like(x1, np.inf)), lax.eq(x2, scalar_like(x2, np.inf)))
  big, small = lax.max(x1, x2), lax.min(x1, x2)
  # JAX's formula, and its constants (weak types follow from them: Python scalars are weak)
  is_zero = lax.eq(big, scalar_like(big, 0))
  ratio = lax.div(small, where(is_zero, lax.full_like(big, 1), big))
  out = where(is_zero, big, multiply(big, lax.sqrt(add(
      1.0, lax.mul(ratio, ratio)))))
  return where(inf, constant_like(out, np.inf), out)


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

  rule = custom_jvp(named(value, name, ""))
  rule.defjvp(named(jvp, f"_{name}_jvp", ""))
  return named(lambda x1, x2: rule(*promote_args_inexact(name, x1, x2)), name,
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


def sinc(x: Any, /) -> Any:
  """Elementwise normalized sinc: sin(pi x) / (pi x), 1 at 0."""
  (x,) = promote_args_inexact("sinc", x)
  is_zero = lax.eq(x, weak_scalar_like(x, 0))
  pi_x = lax.mul(weak_scalar_like(x, np.pi), where(is_zero, weak_scalar_like(x, 1), x))
  return where(is_zero, weak_scalar_like(x, 1), lax.div(lax.sin(pi_x), pi_x))


def i0(x: Any) -> Any:
  """Elementwise modified Bessel function of the first kind of order 0."""
  (x,) = promote_args_inexact("i0", x)
  if dtypes.is_complex(dtype(x)):
    raise ValueError("i0 does not support complex-valued inputs")
  return lax.mul(lax.exp(lax.abs(x)), lax.bessel_i0e(x))


asin, acos, atan = arcsin, arccos, arctan


asinh, acosh, atanh = arcsinh, arccosh, arctanh


atan2 = arctan2


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
