"""Special functions: the error function family, log-gamma and its derivatives, the regularized
incomplete gamma functions and the exponentially scaled Bessel functions.

Each primitive sits with its rules (abstract eval, JVP, batching, numpy reference); the
references use scipy.special. Lowering rules live in `stablejax.lowering.rules.special`: chlo
ops where JAX uses them, and a series / continued fraction written with lax ops for `igamma`,
`igammac` and `igamma_grad_a` (`stablejax.lax.special_impl`).
"""
from __future__ import annotations

from typing import Any, Callable

import functools
import importlib

import numpy as np

from stablejax import core, dtypes, lax
from stablejax.lax.elementwise import (abs, add, bitwise_and, bitwise_not, bitwise_or,
                                       convert_element_type, div, eq, exp, floor, ge, gt, le, log,
                                       log1p, lt, mul, ne, neg, rem, select_n, sign, sub)
from stablejax.lax.primitive_kit import (binop, broadcast_elementwise, broadcasting_shape,
                                         const_like, full_like, naryop, real_float_dtypes, unop)
from stablejax.tree_util import tree_map

ArrayLike = Any  # a tracer, a numpy array or scalar, or a Python scalar
Array = Any      # what a primitive returns: a tracer, or a concrete array when evaluated eagerly

__all__ = [
    "bessel_i0e", "bessel_i0e_p", "bessel_i1e", "bessel_i1e_p", "betainc", "digamma", "digamma_p",
    "erf", "erf_inv", "erf_inv_p", "erf_p", "erfc", "erfc_p", "igamma", "igamma_grad_a",
    "igamma_grad_a_p", "igamma_p", "igammac", "igammac_p", "lgamma", "lgamma_p", "polygamma",
    "polygamma_p", "random_gamma_grad", "regularized_incomplete_beta_p", "zeta", "zeta_p",
]


def erf(x: ArrayLike) -> Array:
  """Elementwise error function."""
  return erf_p.bind(x)


def erfc(x: ArrayLike) -> Array:
  """Elementwise complementary error function: 1 - erf(x)."""
  return erfc_p.bind(x)


def erf_inv(x: ArrayLike) -> Array:
  """Elementwise inverse error function."""
  return erf_inv_p.bind(x)


def lgamma(x: ArrayLike) -> Array:
  """Elementwise log of the absolute value of the gamma function."""
  return lgamma_p.bind(x)


def digamma(x: ArrayLike) -> Array:
  """Elementwise digamma: the derivative of lgamma."""
  return digamma_p.bind(x)


def polygamma(m: ArrayLike, x: ArrayLike) -> Array:
  """Elementwise polygamma: the m-th derivative of digamma."""
  return polygamma_p.bind(m, x)


def zeta(x: ArrayLike, q: ArrayLike) -> Array:
  """Elementwise Hurwitz zeta function: sum over n >= 0 of (n + q) ** -x."""
  return zeta_p.bind(x, q)


def igamma(a: ArrayLike, x: ArrayLike) -> Array:
  """Elementwise regularized lower incomplete gamma function P(a, x)."""
  return igamma_p.bind(a, x)


def igammac(a: ArrayLike, x: ArrayLike) -> Array:
  """Elementwise regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)."""
  return igammac_p.bind(a, x)


def igamma_grad_a(a: ArrayLike, x: ArrayLike) -> Array:
  """Elementwise derivative of igamma(a, x) with respect to a."""
  return igamma_grad_a_p.bind(a, x)


def betainc(a: ArrayLike, b: ArrayLike, x: ArrayLike) -> Array:
  """Elementwise regularized incomplete beta function I_x(a, b)."""
  return regularized_incomplete_beta_p.bind(a, b, x)


def bessel_i0e(x: ArrayLike) -> Array:
  """Elementwise exponentially scaled modified Bessel function of order 0: exp(-|x|) i0(x)."""
  return bessel_i0e_p.bind(x)


def bessel_i1e(x: ArrayLike) -> Array:
  """Elementwise exponentially scaled modified Bessel function of order 1: exp(-|x|) i1(x)."""
  return bessel_i1e_p.bind(x)


# ----------------------------------------------------------------------------------------------
# The error functions

def _scipy(name: str) -> Callable[..., np.ndarray]:
  """The reference `scipy.special.<name>`, imported when a test first calls it (scipy is a test
  dependency, through jax, not a dependency of stablejax)."""
  def reference(*args: np.ndarray) -> np.ndarray:
    out = getattr(importlib.import_module("scipy.special"), name)(*args)
    return np.asarray(out, args[-1].dtype)
  return reference


_TWO_OVER_SQRT_PI = 2. / np.sqrt(np.pi)

erf_p = unop("erf", real_float_dtypes, _scipy("erf"),
              lambda g, ans, x: mul(const_like(x, _TWO_OVER_SQRT_PI), mul(g, exp(neg(mul(x, x))))))
erfc_p = unop("erfc", real_float_dtypes, _scipy("erfc"),
               lambda g, ans, x: mul(const_like(x, -_TWO_OVER_SQRT_PI),
                                     mul(g, exp(neg(mul(x, x))))))
erf_inv_p = unop("erf_inv", real_float_dtypes, _scipy("erfinv"),
                  lambda g, ans, x: mul(const_like(x, np.sqrt(np.pi) / 2.),
                                        mul(g, exp(mul(ans, ans)))))


# ----------------------------------------------------------------------------------------------
# Gamma and zeta functions

def _no_derivative(name: str, operand: str) -> Callable:
  """A JVP rule for an operand `name` is not differentiable in (JAX defines none either)."""
  def rule(g, ans, *args):
    raise ValueError(f"{name} gradient with respect to {operand} is not supported")
  return rule


lgamma_p = unop("lgamma", real_float_dtypes, _scipy("gammaln"),
                 lambda g, ans, x: mul(g, digamma(x)))
digamma_p = unop("digamma", real_float_dtypes, _scipy("digamma"),
                  lambda g, ans, x: mul(g, polygamma(const_like(x, 1), x)))
polygamma_p = binop("polygamma", real_float_dtypes,
                     _scipy("polygamma"),
                     _no_derivative("polygamma", "m"),
                     lambda g, ans, m, x: mul(g, polygamma(add(m, const_like(m, 1)), x)))
zeta_p = binop("zeta", real_float_dtypes, _scipy("zeta"), _no_derivative("zeta", "x"),
                lambda g, ans, x, q: mul(g, neg(mul(x, zeta(add(x, const_like(x, 1)), q)))))


def _igamma_grad_a_reference(a: np.ndarray, x: np.ndarray) -> np.ndarray:
  """d/da P(a, x) by a central difference in float64 (the reference is only a test oracle)."""
  a64, x64 = a.astype(np.float64), x.astype(np.float64)
  h = 1e-6 * np.maximum(1., np.abs(a64))
  gammainc = _scipy("gammainc")
  return (gammainc(a64 + h, x64) - gammainc(a64 - h, x64)) / (2 * h)


def _igamma_jvp_x(g, ans, a, x):
  """d/dx P(a, x) = x ** (a - 1) exp(-x) / Gamma(a)."""
  return mul(g, exp(sub(sub(mul(sub(a, const_like(a, 1)), log(x)), x), lgamma(a))))


igamma_grad_a_p = binop("igamma_grad_a", real_float_dtypes, _igamma_grad_a_reference,
                         _no_derivative("igamma_grad_a", "a"),
                         _no_derivative("igamma_grad_a", "x"))
igamma_p = binop("igamma", real_float_dtypes, _scipy("gammainc"),
                  lambda g, ans, a, x: mul(g, igamma_grad_a(a, x)), _igamma_jvp_x)
igammac_p = binop("igammac", real_float_dtypes, _scipy("gammaincc"),
                   lambda g, ans, a, x: neg(mul(g, igamma_grad_a(a, x))),
                   lambda g, ans, a, x: neg(_igamma_jvp_x(g, ans, a, x)))


def _betainc_jvp_x(g, ans, a, b, x):
  """d/dx I_x(a, b) = x ** (a - 1) (1 - x) ** (b - 1) / B(a, b)."""
  log_beta = sub(add(lgamma(a), lgamma(b)), lgamma(add(a, b)))
  one = const_like(x, 1)
  return mul(g, exp(sub(add(mul(sub(b, one), log1p(neg(x))), mul(sub(a, one), log(x))),
                        log_beta)))


def _no_betainc_derivative(g, ans, a, b, x):
  raise ValueError("Betainc gradient with respect to a and b not supported.")


regularized_incomplete_beta_p = naryop(
    "regularized_incomplete_beta", [real_float_dtypes] * 3, _scipy("betainc"),
    _no_betainc_derivative, _no_betainc_derivative, _betainc_jvp_x)


# ----------------------------------------------------------------------------------------------
# Bessel functions

def _bessel_i1e_jvp(g, ans, x):
  """d/dx i1e(x) = i0e(x) - i1e(x) (sign(x) + 1/x); 1/2 at 0."""
  eps = dtypes.finfo(core.get_aval(x).dtype).eps
  tiny = lt(abs(x), const_like(x, eps))
  safe_x = select_n(tiny, x, full_like(x, eps))
  dy = sub(bessel_i0e(safe_x), mul(ans, add(sign(safe_x), div(const_like(x, 1), safe_x))))
  return mul(g, select_n(tiny, dy, full_like(x, 0.5)))


bessel_i0e_p = unop("bessel_i0e", real_float_dtypes, _scipy("i0e"),
                     lambda g, ans, x: mul(g, sub(bessel_i1e(x), mul(sign(x), ans))))
bessel_i1e_p = unop("bessel_i1e", real_float_dtypes, _scipy("i1e"), _bessel_i1e_jvp)


# ----------------------------------------------------------------------------------------------
# The incomplete gamma functions written with lax ops: what `igamma`, `igammac` and
# `igamma_grad_a` lower to (with `lower_fun`), and `random_gamma_grad`. P(a, x) is a power series
# for x < 1 or x <= a, and 1 - Q(a, x) otherwise, Q a continued fraction (Cephes' igam/igamc);
# both carry their derivative in `a` along. Each runs as one `while_loop` over all elements,
# the converged elements frozen, as XLA's math library (and so JAX) does.

VALUE, DERIVATIVE, SAMPLE_DERIVATIVE = "value", "derivative", "sample_derivative"


def _any(pred: Array) -> Array:
  return lax.reduce_max(pred, tuple(range(core.get_aval(pred).ndim)))


def _where(pred: Array, on_true: Array, on_false: Array) -> Array:
  return select_n(pred, on_false, on_true)


def _freeze(enabled: Array, new: Any, old: Any) -> Any:
  """The loop state (a tree): the elements still iterating take `new`, the others keep `old`."""
  return tree_map(lambda n, o: _where(enabled, n, o), new, old)


def _converged_test(mode: str, enabled: Array, value_err: Array, deriv_err: Array) -> Array:
  """Whether an element keeps iterating: its relative change of the value (or, in the
  derivative modes, of the derivative) still exceeds machine epsilon."""
  err = value_err if mode == VALUE else deriv_err
  return bitwise_and(enabled, gt(err, const_like(err, dtypes.finfo(core.get_aval(err).dtype).eps)))


def _igamma_series(ax: Array, x: Array, a: Array, enabled: Array, mode: str) -> Array:
  """P(a, x) = ax / a * sum_n x**n / ((a+1)...(a+n)), or its derivative (`mode`)."""
  one, zero = full_like(a, 1), full_like(a, 0)

  def body(state):
    enabled, r, c, total, dc_da, dtotal_da = state
    r = add(r, const_like(r, 1))
    dc_da = sub(mul(dc_da, div(x, r)), div(mul(c, x), mul(r, r)))
    dtotal_da = add(dtotal_da, dc_da)
    c = mul(c, div(x, r))
    total = add(total, c)
    keep = _converged_test(mode, enabled, div(c, total), abs(div(dc_da, dtotal_da)))
    return (keep, *_freeze(enabled, (r, c, total, dc_da, dtotal_da), state[1:]))

  _, _, _, total, _, dtotal_da = lax.while_loop(lambda s: _any(s[0]), body,
                                                (enabled, a, one, one, zero, zero))
  if mode == VALUE:
    return div(mul(total, ax), a)
  dlogax_da = sub(log(x), digamma(add(a, const_like(a, 1))))
  dfactor = add(mul(total, dlogax_da), dtotal_da)
  if mode == DERIVATIVE:
    return div(mul(ax, dfactor), a)
  return neg(div(mul(dfactor, x), a))


def _igammac_continued_fraction(ax: Array, x: Array, a: Array, enabled: Array,
                                mode: str) -> Array:
  """Q(a, x) = ax * (the continued fraction), or its derivative (`mode`); at most 2000 steps."""
  eps = const_like(x, dtypes.finfo(core.get_aval(x).dtype).eps)
  y = sub(const_like(a, 1), a)
  z = add(add(x, y), const_like(x, 1))
  p = (add(x, const_like(x, 1)), full_like(x, 1))   # p_{k-1}, p_{k-2}
  q = (mul(z, x), x)
  dp = (full_like(x, 0), full_like(x, 0))      # their derivatives in a
  dq = (neg(x), full_like(x, 0))
  frac = div(p[0], q[0])
  dfrac = div(sub(dp[0], mul(frac, dq[0])), q[0])

  def body(state):
    enabled, c, frac, y, z, p, q, dp, dq, dfrac = state
    c = add(c, const_like(c, 1))
    y, z = add(y, const_like(y, 1)), add(z, const_like(z, 2))
    yc = mul(y, c)
    pk = sub(mul(p[0], z), mul(p[1], yc))
    qk = sub(mul(q[0], z), mul(q[1], yc))
    dpk = add(sub(sub(mul(dp[0], z), p[0]), mul(dp[1], yc)), mul(p[1], c))
    dqk = add(sub(sub(mul(dq[0], z), q[0]), mul(dq[1], yc)), mul(q[1], c))
    nonzero = ne(qk, const_like(qk, 0))
    ratio = div(pk, qk)
    step = _where(nonzero, abs(div(sub(frac, ratio), ratio)), full_like(ratio, 1))
    new_frac = _where(nonzero, ratio, frac)
    new_dfrac = _where(nonzero, div(sub(dpk, mul(new_frac, dqk)), qk), dfrac)
    dstep = _where(nonzero, abs(sub(new_dfrac, dfrac)), full_like(dfrac, 1))
    rescale = gt(abs(pk), div(const_like(pk, 1), eps))  # keep p and q in range

    def shift(new, prev):
      return tuple(_where(rescale, mul(v, eps), v) for v in (new, prev[0]))

    keep = _converged_test(mode, enabled, step, dstep)
    new = (new_frac, y, z, shift(pk, p), shift(qk, q), shift(dpk, dp), shift(dqk, dq),
           new_dfrac)
    old = (frac, state[3], state[4], p, q, dp, dq, dfrac)
    return (keep, c, *_freeze(enabled, new, old))

  def cond(state):
    return bitwise_and(lt(state[1], const_like(state[1], 2000)), _any(state[0]))

  state = lax.while_loop(cond, body, (enabled, const_like(x, 0), frac, y, z, p, q, dp, dq, dfrac))
  frac, dfrac = state[2], state[9]
  if mode == VALUE:
    return mul(frac, ax)
  dfactor = add(mul(frac, sub(log(x), digamma(a))), dfrac)
  if mode == DERIVATIVE:
    return mul(ax, dfactor)
  return neg(mul(dfactor, x))


def _any_of(*preds: Array) -> Array:
  return functools.reduce(bitwise_or, preds)


def _log_ax(a: Array, x: Array) -> tuple[Array, Array]:
  """exp(a log x - x - lgamma(a)), the factor of both expansions, and whether it underflows."""
  log_ax = sub(sub(mul(a, log(x)), x), lgamma(a))
  underflow = lt(log_ax, const_like(log_ax, -np.log(dtypes.finfo(core.get_aval(a).dtype).max)))
  return exp(log_ax), underflow


def _is_nan(x: Array) -> Array:
  return ne(x, x)


def _igamma_value(a: Array, x: Array, complement: bool) -> Array:
  """P(a, x), or Q(a, x) if `complement`, for broadcast operands of one float dtype."""
  a_is_zero, x_is_zero = eq(a, const_like(a, 0)), eq(x, const_like(x, 0))
  x_is_inf = eq(x, const_like(x, np.inf))
  domain_error = _any_of(lt(x, const_like(x, 0)), lt(a, const_like(a, 0)),
                         bitwise_and(a_is_zero, x_is_zero), _is_nan(a), _is_nan(x))
  ax, underflow = _log_ax(a, x)
  one = full_like(a, 1)
  if complement:
    use_series = bitwise_or(lt(x, const_like(x, 1)), lt(x, a))
    enabled = bitwise_not(_any_of(domain_error, underflow, x_is_inf, a_is_zero))
    out = _where(use_series,
                 sub(one, _igamma_series(ax, x, a, bitwise_and(enabled, use_series), VALUE)),
                 _igammac_continued_fraction(ax, x, a,
                                             bitwise_and(enabled, bitwise_not(use_series)),
                                             VALUE))
    out = _where(bitwise_or(x_is_inf, a_is_zero), full_like(a, 0), out)
  else:
    use_fraction = bitwise_and(ge(x, const_like(x, 1)), gt(x, a))
    enabled = bitwise_not(_any_of(x_is_zero, domain_error, underflow, x_is_inf))
    out = _where(use_fraction,
                 sub(one, _igammac_continued_fraction(ax, x, a,
                                                      bitwise_and(enabled, use_fraction), VALUE)),
                 _igamma_series(ax, x, a, bitwise_and(enabled, bitwise_not(use_fraction)),
                                VALUE))
    out = _where(x_is_zero, full_like(a, 0), out)
    out = _where(x_is_inf, one, out)
  return _where(domain_error, full_like(a, np.nan), out)


def _igamma_derivative(a: Array, x: Array, mode: str) -> Array:
  """d/da P(a, x) (DERIVATIVE), or the derivative of a Gamma(a, 1) sample x in a
  (SAMPLE_DERIVATIVE), for broadcast operands of one float dtype."""
  x_is_zero = eq(x, const_like(x, 0))
  domain_error = _any_of(lt(x, const_like(x, 0)), le(a, const_like(a, 0)), _is_nan(a), _is_nan(x))
  use_fraction = bitwise_and(gt(x, const_like(x, 1)), gt(x, a))
  ax, underflow = _log_ax(a, x)
  enabled = bitwise_not(_any_of(x_is_zero, domain_error, underflow))
  out = _where(use_fraction,
               neg(_igammac_continued_fraction(ax, x, a, bitwise_and(enabled, use_fraction),
                                               mode)),
               _igamma_series(ax, x, a, bitwise_and(enabled, bitwise_not(use_fraction)), mode))
  out = _where(x_is_zero, full_like(a, 0), out)
  return _where(domain_error, full_like(a, np.nan), out)


def _in_float32_at_least(name: str, fn: Callable[..., Array]) -> Callable[..., Array]:
  """`fn` on operands broadcast to one shape, computed in float32 for 16-bit floats."""
  def wrapped(*args: Array) -> Array:
    avals = [core.get_aval(x) for x in args]
    shape = broadcasting_shape(name, *avals)
    args = [broadcast_elementwise(x, shape) for x in args]
    dtype = avals[0].dtype
    if dtypes.finfo(dtype).bits >= 32:
      return fn(*args)
    out = fn(*(convert_element_type(x, np.float32) for x in args))
    return convert_element_type(out, dtype)
  return wrapped


igamma_impl = _in_float32_at_least(
    "igamma", lambda a, x: _igamma_value(a, x, complement=False))
igammac_impl = _in_float32_at_least(
    "igammac", lambda a, x: _igamma_value(a, x, complement=True))
igamma_grad_a_impl = _in_float32_at_least(
    "igamma_grad_a", lambda a, x: _igamma_derivative(a, x, DERIVATIVE))
_random_gamma_grad = _in_float32_at_least(
    "random_gamma_grad", lambda a, x: _igamma_derivative(a, x, SAMPLE_DERIVATIVE))


def random_gamma_grad(a: ArrayLike, x: ArrayLike) -> Array:
  """Elementwise derivative of a sample x of Gamma(a, 1) with respect to a."""
  return _random_gamma_grad(a, x)


# ----------------------------------------------------------------------------------------------
# bessel_i0e written with lax ops (lowered with `lower_fun`): the power series of i0 times
# exp(-|x|), folded into its first term so nothing overflows, for |x| <= 30; beyond, Hankel's
# asymptotic expansion, whose terms are below float64's epsilon after 20.

_I0E_SERIES_TERMS = 64
_I0E_ASYMPTOTIC_FROM = 30.
_I0E_ASYMPTOTIC = np.cumprod([1.] + [(2 * k - 1) ** 2 / (8 * k) for k in range(1, 21)])


def _i0e_series(x: Array) -> Array:
  """sum_k exp(-x) (x / 2) ** 2k / (k!) ** 2 for x >= 0."""
  quarter_x2 = mul(const_like(x, 0.25), mul(x, x))

  def body(k, state):
    term, total = state
    k = convert_element_type(k, core.get_aval(x).dtype)
    term = div(mul(term, quarter_x2), mul(k, k))
    return term, add(total, term)

  first = exp(neg(x))
  return lax.fori_loop(1, _I0E_SERIES_TERMS, body, (first, first))[1]


def _i0e_asymptotic(x: Array) -> Array:
  """(2 pi x) ** -1/2 sum_k c_k x ** -k, c_k = ((2k - 1)!!) ** 2 / (k! 8 ** k), for large x."""
  inv_x = div(const_like(x, 1), x)
  total = full_like(x, _I0E_ASYMPTOTIC[-1])
  for c in _I0E_ASYMPTOTIC[-2::-1]:
    total = add(mul(total, inv_x), const_like(x, c))
  return mul(total, lax.rsqrt(mul(const_like(x, 2 * np.pi), x)))


def _bessel_i0e_value(x: Array) -> Array:
  x = abs(x)
  large = gt(x, const_like(x, _I0E_ASYMPTOTIC_FROM))
  return _where(large, _i0e_asymptotic(_where(large, x, full_like(x, 1))),
                _i0e_series(_where(large, full_like(x, 0), x)))


bessel_i0e_impl = _in_float32_at_least("bessel_i0e", _bessel_i0e_value)


# ----------------------------------------------------------------------------------------------
# The regularized incomplete beta function written with lax ops (lowered with `lower_fun`, as
# JAX does): the continued fraction of DLMF 8.17.22 by the modified Lentz method, on the side of
# the symmetry I_x(a, b) = 1 - I_{1-x}(b, a) where it converges fast (DLMF 8.17.E4). All
# elements iterate together until every one has converged.

def _betainc_numerator(n: Array, a: Array, b: Array, x: Array) -> Array:
  """The n-th partial numerator d_n (n >= 1; d_1 = 1)."""
  one, two = const_like(a, 1), const_like(a, 2)
  m = floor(div(sub(n, one), two))
  even = eq(rem(n, two), const_like(n, 0))
  a2m = add(a, mul(two, m))
  zero_term = neg(div(mul(add(a, b), x), add(a, one)))
  even_term = neg(div(mul(mul(add(a, m), add(add(a, b), m)), x), mul(a2m, add(a2m, one))))
  even_term = _where(eq(m, const_like(m, 0)), zero_term, even_term)
  odd_term = div(mul(mul(m, sub(b, m)), x), mul(sub(a2m, one), a2m))
  return _where(eq(n, one), full_like(x, 1), _where(even, even_term, odd_term))


def _betainc_continued_fraction(a: Array, b: Array, x: Array) -> Array:
  dtype = core.get_aval(x).dtype
  tiny = const_like(x, dtypes.finfo(dtype).eps / 2)
  max_steps = 200 if dtype == np.float32 else 600

  def clamp(v):
    return _where(lt(abs(v), tiny), full_like(v, tiny), v)

  def body(state):
    n, _, c, d, h = state
    numerator = _betainc_numerator(broadcast_elementwise(n, core.get_aval(x).shape), a, b, x)
    c = clamp(add(const_like(x, 1), div(numerator, c)))
    d = div(const_like(x, 1), clamp(add(const_like(x, 1), mul(numerator, d))))
    delta = mul(c, d)
    unconverged = _any(ge(abs(sub(delta, const_like(delta, 1))), tiny))
    return add(n, const_like(n, 1)), unconverged, c, d, mul(h, delta)

  def cond(state):
    return bitwise_and(lt(state[0], const_like(state[0], max_steps)), state[1])

  h = full_like(x, tiny)
  init = (np.asarray(1, dtype), np.asarray(True), h, full_like(x, 0), h)
  return lax.while_loop(cond, body, init)[4]


def _betainc_value(a: Array, b: Array, x: Array) -> Array:
  """I_x(a, b) for broadcast operands of one float dtype, with scipy's edge values."""
  zero, one, inf = const_like(a, 0), const_like(a, 1), const_like(a, np.inf)
  a_is_zero = bitwise_or(eq(a, zero), eq(b, inf))
  b_is_zero = bitwise_or(eq(b, zero), eq(a, inf))
  x_is_zero, x_is_one = eq(x, zero), eq(x, one)
  result_is_zero = bitwise_or(bitwise_and(b_is_zero, bitwise_not(x_is_one)),
                              bitwise_and(a_is_zero, x_is_zero))
  result_is_one = bitwise_or(bitwise_and(a_is_zero, bitwise_not(x_is_zero)),
                             bitwise_and(b_is_zero, x_is_one))
  result_is_nan = _any_of(lt(a, zero), lt(b, zero), lt(x, zero), gt(x, one),
                          bitwise_and(a_is_zero, b_is_zero), _is_nan(a), _is_nan(b), _is_nan(x))
  direct = lt(x, div(add(a, one), add(add(a, b), const_like(a, 2))))
  a, b = _where(direct, a, b), _where(direct, b, a)
  x = _where(direct, x, sub(one, x))
  fraction = _betainc_continued_fraction(a, b, x)
  log_beta_without_a = sub(lgamma(b), lgamma(add(a, b)))
  small_a = lt(a, const_like(a, dtypes.finfo(core.get_aval(a).dtype).tiny * 2))
  factor = _where(small_a, exp(sub(mul(log1p(neg(x)), b), log_beta_without_a)),
                  div(exp(sub(add(mul(log(x), a), mul(log1p(neg(x)), b)),
                              add(lgamma(a), log_beta_without_a))), a))
  out = mul(fraction, factor)
  out = _where(direct, out, sub(one, out))
  out = _where(result_is_zero, full_like(out, 0), out)
  out = _where(result_is_one, full_like(out, 1), out)
  return _where(result_is_nan, full_like(out, np.nan), out)


regularized_incomplete_beta_impl = _in_float32_at_least("regularized_incomplete_beta",
                                                        _betainc_value)
