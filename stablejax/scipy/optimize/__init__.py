"""`jax.scipy.optimize`: `minimize` with BFGS, as JAX's (the same steps, so the same iterates,
counts and status)."""
from __future__ import annotations

from typing import Any, Callable, Mapping, NamedTuple

from stablejax import numpy as jnp
from stablejax.scipy.optimize._bfgs import minimize_bfgs

__all__ = ["OptimizeResults", "minimize"]


class OptimizeResults(NamedTuple):
  """The result of `minimize`: the solution `x`, `success`, the solver's `status` (0:
  converged; 1: max BFGS iterations; 3: zoom failed; 4: saddle point; 5: max line-search
  iterations; -1: undefined), f and its gradient there, the inverse-Hessian estimate, the
  evaluation counts and the iterations."""
  x: Any
  success: Any
  status: Any
  fun: Any
  jac: Any
  hess_inv: Any
  nfev: Any
  njev: Any
  nit: Any


def minimize(fun: Callable, x0: Any, args: tuple = (), *, method: str, tol: float | None = None,
             options: Mapping[str, Any] | None = None) -> OptimizeResults:
  """Minimize `fun(x, *args)`, a real scalar of the 1-D array `x`, from `x0` with `method`
  ("BFGS"); `options` are the solver's (`maxiter`, `norm`, `gtol`, `line_search_maxiter`).
  `tol` is accepted and unused, as in JAX."""
  del tol
  if not isinstance(args, tuple):
    raise TypeError(f"args argument to jax.scipy.optimize.minimize must be a tuple, got {args}")
  if method.lower() != "bfgs":
    raise ValueError(f"Method {method} not recognized (stablejax's minimize has BFGS only; "
                     "JAX's experimental L-BFGS is not there)")
  res = minimize_bfgs(lambda x: fun(x, *args), x0, **(options or {}))
  return OptimizeResults(x=res.x_k, success=res.converged & jnp.logical_not(res.failed),
                         status=res.status, fun=res.f_k, jac=res.g_k, hess_inv=res.H_k,
                         nfev=res.nfev, njev=res.ngev, nit=res.k)
