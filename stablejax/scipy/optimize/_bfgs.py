"""BFGS, Algorithm 6.1 of Nocedal and Wright, 'Numerical Optimization' (1999): quasi-Newton
steps along -H g with the strong-Wolfe line search, H the inverse-Hessian estimate updated from
each step and change of gradient, as JAX's `jax._src.scipy.optimize.bfgs`."""
from __future__ import annotations

from typing import Any, Callable, NamedTuple

import numpy as np

from stablejax import lax
from stablejax import numpy as jnp
from stablejax.api import value_and_grad
from stablejax.scipy.optimize._line_search import line_search


class BFGSResults(NamedTuple):
  """The state of BFGS: `converged` (the gradient's norm fell below `gtol`), `failed` (a line
  search failed), `k` iterations, the evaluation counts, the point `x_k` with f, gradient and
  inverse-Hessian estimate there, and `status` (0: converged; 1: `maxiter`; 2 + the line
  search's status: it failed; -1: otherwise)."""
  converged: Any
  failed: Any
  k: Any
  nfev: Any
  ngev: Any
  nhev: Any
  x_k: Any
  f_k: Any
  g_k: Any
  H_k: Any
  old_old_fval: Any
  status: Any
  line_search_status: Any


def _dot(a: Any, b: Any) -> Any:
  return jnp.dot(a, b, precision=lax.Precision.HIGHEST)


def _step(fun: Callable, norm: Any, gtol: float, line_search_maxiter: int, s: BFGSResults
          ) -> BFGSResults:
  p_k = -_dot(s.H_k, s.g_k)
  ls = line_search(fun, s.x_k, p_k, old_fval=s.f_k, old_old_fval=s.old_old_fval, gfk=s.g_k,
                   maxiter=line_search_maxiter)
  s_k = ls.a_k * p_k
  y_k = ls.g_k - s.g_k
  rho_k = jnp.reciprocal(_dot(y_k, s_k))
  w = jnp.eye(s_k.shape[0], dtype=rho_k.dtype) - rho_k * (s_k[:, np.newaxis] * y_k[np.newaxis, :])
  h_kp1 = (jnp.einsum("ij,jk,lk", w, s.H_k, w, precision=lax.Precision.HIGHEST)
           + rho_k * s_k[:, np.newaxis] * s_k[np.newaxis, :])
  return s._replace(
      nfev=s.nfev + ls.nfev, ngev=s.ngev + ls.ngev, failed=ls.failed,
      line_search_status=ls.status, converged=jnp.linalg.norm(ls.g_k, ord=norm) < gtol,
      k=s.k + 1, x_k=s.x_k + s_k, f_k=ls.f_k, g_k=ls.g_k,
      H_k=jnp.where(jnp.isfinite(rho_k), h_kp1, s.H_k), old_old_fval=s.f_k)


def minimize_bfgs(fun: Callable, x0: Any, maxiter: int | None = None, norm: Any = np.inf,
                  gtol: float = 1e-5, line_search_maxiter: int = 10) -> BFGSResults:
  """Minimize `fun` (a real scalar of the flat array `x0`'s shape) with BFGS from `x0`, until
  the `norm`-norm of the gradient is below `gtol` or `maxiter` iterations (200 per element of
  `x0` by default)."""
  if maxiter is None:
    maxiter = np.size(x0) * 200
  x0 = jnp.asarray(x0)
  if x0.ndim != 1:
    raise ValueError(f"minimize (BFGS): x0 must be a 1-D array, got shape {x0.shape}")
  f_0, g_0 = value_and_grad(fun)(x0)
  s = BFGSResults(
      converged=jnp.linalg.norm(g_0, ord=norm) < gtol, failed=False, k=0, nfev=1, ngev=1,
      nhev=0, x_k=x0, f_k=f_0, g_k=g_0, H_k=jnp.eye(x0.shape[0], dtype=x0.dtype),
      old_old_fval=f_0 + jnp.linalg.norm(g_0) / 2, status=0, line_search_status=0)
  s = lax.while_loop(lambda s: ~s.converged & ~s.failed & (s.k < maxiter),
                     lambda s: _step(fun, norm, gtol, line_search_maxiter, s), s)
  status = jnp.where(s.converged, 0, jnp.where(
      s.k == maxiter, 1, jnp.where(s.failed, 2 + s.line_search_status, -1)))
  return s._replace(status=status)
