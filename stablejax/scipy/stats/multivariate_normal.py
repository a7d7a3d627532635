"""The multivariate normal distribution, as jax.scipy.stats.multivariate_normal (the last axis of
x and mean is the event; cov is a matrix, or a scalar variance)."""
from __future__ import annotations

from typing import Any

import numpy as np

from stablejax import numpy as jnp
from stablejax.lax import linalg as lax_linalg
from stablejax.numpy._promotion import promote_dtypes_inexact
from stablejax.scipy.stats._common import exp_of


def logpdf(x: Any, mean: Any, cov: Any, allow_singular: None = None) -> Any:
  """-(x - mean)^T cov^-1 (x - mean) / 2 - log det(2 pi cov) / 2, through the Cholesky factor
  of cov."""
  if allow_singular is not None:
    raise NotImplementedError("allow_singular argument of multivariate_normal.logpdf")
  x, mean, cov = promote_dtypes_inexact(x, mean, cov)
  log_2pi = np.log(2 * np.pi)
  if not jnp.shape(mean):
    return -0.5 * jnp.square(x - mean) / cov - 0.5 * (log_2pi + jnp.log(cov))
  n = jnp.shape(mean)[-1]
  if not jnp.shape(cov):
    y = x - mean
    return -0.5 * jnp.einsum("...i,...i->...", y, y) / cov - n / 2 * (log_2pi + jnp.log(cov))
  if jnp.ndim(cov) < 2 or jnp.shape(cov)[-2:] != (n, n):
    raise ValueError("multivariate_normal.logpdf got incompatible shapes")
  factor = lax_linalg.cholesky(cov)
  def whiten(factor, d):  # factor^-1 d
    return lax_linalg.triangular_solve(factor, d, lower=True, transpose_a=True)
  y = jnp.vectorize(whiten, signature="(n,n),(n)->(n)")(factor, x - mean)
  log_det = jnp.sum(jnp.log(jnp.diagonal(factor, axis1=-1, axis2=-2)), axis=-1)
  return -0.5 * jnp.einsum("...i,...i->...", y, y) - n / 2 * log_2pi - log_det


pdf = exp_of(logpdf)
__all__ = ["logpdf", "pdf"]
