"""The inexact line search BFGS takes its steps with: strong Wolfe conditions, Algorithm 3.5 of
Nocedal and Wright, 'Numerical Optimization' (1999), with its zoom, Algorithm 3.6, choosing each
trial step by cubic, then quadratic interpolation, then bisection. It follows JAX's
`jax._src.scipy.optimize.line_search` step for step (both loops run a fixed body under
`lax.while_loop` and select with `where`, no `cond`), so the steps, counts and status match."""
from __future__ import annotations

from typing import Any, Callable, NamedTuple

from stablejax import dtypes, lax
from stablejax import numpy as jnp
from stablejax.api import value_and_grad
from stablejax.numpy._promotion import promote_dtypes_inexact


def _dot(a: Any, b: Any) -> Any:
  return jnp.dot(a, b, precision=lax.Precision.HIGHEST)


def _cubicmin(a, fa, fpa, b, fb, c, fc):
  """The minimizer of the cubic through (a, fa) with slope fpa, (b, fb) and (c, fc)."""
  dtype = dtypes.result_type(a, fa, fpa, b, fb, c, fc)
  db, dc = b - a, c - a
  denom = (db * dc) ** 2 * (db - dc)
  coefs = jnp.array([[dc ** 2, -db ** 2], [-dc ** 3, db ** 3]], dtype=dtype)
  rhs = jnp.array([fb - fa - fpa * db, fc - fa - fpa * dc], dtype=dtype)
  cubic, quadratic = _dot(coefs, rhs) / denom
  radical = quadratic * quadratic - 3. * cubic * fpa
  return a + (-quadratic + jnp.sqrt(radical)) / (3. * cubic)


def _quadmin(a, fa, fpa, b, fb):
  """The minimizer of the parabola through (a, fa) with slope fpa and (b, fb)."""
  db = b - a
  curvature = (fb - fa - fpa * db) / (db ** 2)
  return a - fpa / (2. * curvature)


def _where(pred: Any, state: NamedTuple, **new: Any) -> NamedTuple:
  """`state` with the fields in `new` replaced where `pred` holds."""
  return state._replace(**{k: jnp.where(pred, v, getattr(state, k)) for k, v in new.items()})


class _Wolfe(NamedTuple):
  """phi(t) = f(x + t p) with its slope and gradient, and the two strong Wolfe tests at the
  start point (phi_0, dphi_0)."""
  phi: Callable
  phi_0: Any
  dphi_0: Any
  c1: float
  c2: float

  def too_high(self, a, phi_a):  # the sufficient-decrease condition fails
    return phi_a > self.phi_0 + self.c1 * a * self.dphi_0

  def flat(self, dphi_a):  # the curvature condition holds
    return jnp.abs(dphi_a) <= -self.c2 * self.dphi_0


class _Bracket(NamedTuple):
  done: Any
  failed: Any
  j: Any
  a_lo: Any
  phi_lo: Any
  dphi_lo: Any
  a_hi: Any
  phi_hi: Any
  dphi_hi: Any
  a_rec: Any   # the previous a_hi or a_lo: the third point of the cubic
  phi_rec: Any
  a_star: Any
  phi_star: Any
  dphi_star: Any
  g_star: Any
  nfev: Any
  ngev: Any


def _zoom_trial(s: _Bracket) -> Any:
  """The next trial step inside the bracket: the cubic's minimizer, else the parabola's, else
  the midpoint, whichever first lies well inside."""
  width = s.a_hi - s.a_lo
  lo, hi = jnp.minimum(s.a_hi, s.a_lo), jnp.maximum(s.a_hi, s.a_lo)
  cubic = _cubicmin(s.a_lo, s.phi_lo, s.dphi_lo, s.a_hi, s.phi_hi, s.a_rec, s.phi_rec)
  use_cubic = (s.j > 0) & (cubic > lo + 0.2 * width) & (cubic < hi - 0.2 * width)
  quad = _quadmin(s.a_lo, s.phi_lo, s.dphi_lo, s.a_hi, s.phi_hi)
  use_quad = ~use_cubic & (quad > lo + 0.1 * width) & (quad < hi - 0.1 * width)
  a_j = jnp.where(use_cubic, cubic, s.a_rec)
  a_j = jnp.where(use_quad, quad, a_j)
  return jnp.where(~use_cubic & ~use_quad, (s.a_lo + s.a_hi) / 2., a_j)


def _zoom_step(wolfe: _Wolfe, s: _Bracket) -> _Bracket:
  width = s.a_hi - s.a_lo
  threshold = jnp.where(dtypes.finfo(width.dtype).bits < 64, 1e-5, 1e-10)
  s = s._replace(failed=s.failed | (width <= threshold))
  a_j = _zoom_trial(s)
  phi_j, dphi_j, g_j = wolfe.phi(a_j)
  phi_j, dphi_j = phi_j.astype(s.phi_lo.dtype), dphi_j.astype(s.dphi_lo.dtype)
  g_j = g_j.astype(s.g_star.dtype)
  s = s._replace(nfev=s.nfev + 1, ngev=s.ngev + 1)
  to_hi = wolfe.too_high(a_j, phi_j) | (phi_j >= s.phi_lo)
  found = wolfe.flat(dphi_j) & ~to_hi
  flip = (dphi_j * (s.a_hi - s.a_lo) >= 0.) & ~to_hi & ~found
  to_lo = ~to_hi & ~found
  s = _where(to_hi, s, a_hi=a_j, phi_hi=phi_j, dphi_hi=dphi_j, a_rec=s.a_hi, phi_rec=s.phi_hi)
  s = _where(found, s._replace(done=found | s.done), a_star=a_j, phi_star=phi_j,
             dphi_star=dphi_j, g_star=g_j)
  s = _where(flip, s, a_hi=s.a_lo, phi_hi=s.phi_lo, dphi_hi=s.dphi_lo, a_rec=s.a_hi,
             phi_rec=s.phi_hi)
  s = _where(to_lo & ~flip, s, a_rec=s.a_lo, phi_rec=s.phi_lo)
  s = _where(to_lo, s, a_lo=a_j, phi_lo=phi_j, dphi_lo=dphi_j)
  # at most 30 trials (SciPy allows 10; in float32 more are needed)
  return s._replace(j=s.j + 1, failed=s.failed | (s.j + 1 >= 30))


def _zoom(wolfe: _Wolfe, lo: tuple, hi: tuple, g_0: Any, skip: Any) -> _Bracket:
  """Zoom into the bracket between `lo` and `hi` (each (a, phi, dphi)) until a step satisfies
  both Wolfe conditions; nothing when `skip`."""
  s = _Bracket(False, False, 0, *lo, *hi, (lo[0] + hi[0]) / 2., (lo[1] + hi[1]) / 2., 1., lo[1],
               lo[2], g_0, 0, 0)
  return lax.while_loop(lambda s: ~s.done & ~skip & ~s.failed,
                        lambda s: _zoom_step(wolfe, s), s)


class _Search(NamedTuple):
  done: Any
  failed: Any
  i: Any
  a_prev: Any
  phi_prev: Any
  dphi_prev: Any
  nfev: Any
  ngev: Any
  a_star: Any
  phi_star: Any
  dphi_star: Any
  g_star: Any


class LineSearchResults(NamedTuple):
  """The step `a_k` along the direction, f and its gradient there, the counts, and `status`
  (0: found; 1: zoom failed; 3: `maxiter` trials)."""
  failed: Any
  nit: Any
  nfev: Any
  ngev: Any
  k: Any
  a_k: Any
  f_k: Any
  g_k: Any
  status: Any


def _search_step(wolfe: _Wolfe, start: Any, gfk: Any, s: _Search) -> _Search:
  a_i = jnp.where(s.i == 1, start, s.a_prev * 2.)
  phi_i, dphi_i, g_i = wolfe.phi(a_i)
  s = s._replace(nfev=s.nfev + 1, ngev=s.ngev + 1)
  zoom_up = wolfe.too_high(a_i, phi_i) | ((phi_i >= s.phi_prev) & (s.i > 1))
  found = wolfe.flat(dphi_i) & ~zoom_up
  zoom_down = (dphi_i >= 0.) & ~zoom_up & ~found
  prev, here = (s.a_prev, s.phi_prev, s.dphi_prev), (a_i, phi_i, dphi_i)
  z_up, z_down = _zoom(wolfe, prev, here, gfk, ~zoom_up), _zoom(wolfe, here, prev, gfk, ~zoom_down)
  s = s._replace(nfev=s.nfev + z_up.nfev + z_down.nfev, ngev=s.ngev + z_up.ngev + z_down.ngev)
  for zoom_when, z in ((zoom_up, z_up), (zoom_down, z_down)):
    s = _where(zoom_when, s._replace(done=zoom_when | s.done,
                                     failed=(zoom_when & z.failed) | s.failed),
               a_star=z.a_star, phi_star=z.phi_star, dphi_star=z.dphi_star, g_star=z.g_star)
  s = _where(found, s._replace(done=found | s.done), a_star=a_i, phi_star=phi_i,
             dphi_star=dphi_i, g_star=g_i)
  return s._replace(i=s.i + 1, a_prev=a_i, phi_prev=phi_i, dphi_prev=dphi_i)


def line_search(f: Callable, xk: Any, pk: Any, old_fval: Any = None, old_old_fval: Any = None,
                gfk: Any = None, c1: float = 1e-4, c2: float = 0.9, maxiter: int = 20
                ) -> LineSearchResults:
  """A step along the descent direction `pk` from `xk` satisfying the strong Wolfe conditions
  with constants `c1`, `c2`; `old_fval` and `gfk` are f and its gradient at `xk` (computed when
  not given), `old_old_fval` f at the previous point (it sets the first trial step)."""
  xk, pk = promote_dtypes_inexact(xk, pk)

  def phi(t):
    value, grad = value_and_grad(f)(xk + jnp.array(t, dtype=pk.dtype) * pk)
    return value, jnp.real(_dot(grad, pk)), grad

  fresh = old_fval is None or gfk is None
  if fresh:
    phi_0, dphi_0, gfk = phi(0)
  else:
    phi_0, dphi_0 = old_fval, jnp.real(_dot(gfk, pk))
  start = 1
  if old_old_fval is not None:
    candidate = 1.01 * 2 * (phi_0 - old_old_fval) / dphi_0
    start = jnp.where(candidate > 1, 1.0, candidate)
  wolfe = _Wolfe(phi, phi_0, dphi_0, c1, c2)
  s = _Search(jnp.array(False), jnp.array(False), 1, 0., phi_0, dphi_0, int(fresh), int(fresh),
              0., phi_0, dphi_0, gfk)
  s = lax.while_loop(lambda s: ~s.done & (s.i <= maxiter) & ~s.failed,
                     lambda s: _search_step(wolfe, start, gfk, s), s)
  status = jnp.where(s.failed, jnp.array(1), jnp.where(s.i > maxiter, jnp.array(3), jnp.array(0)))
  # a floor on the step below 64 bits, lest a zero direction stall the minimizer
  a_k = jnp.asarray(s.a_star)
  a_k = jnp.where((dtypes.finfo(a_k.dtype).bits != 64) & (jnp.abs(a_k) < 1e-8),
                  jnp.sign(a_k) * 1e-8, a_k)
  return LineSearchResults(failed=s.failed | ~s.done, nit=s.i - 1, nfev=s.nfev, ngev=s.ngev,
                           k=s.i, a_k=a_k, f_k=s.phi_star, g_k=s.g_star, status=status)
