"""The Dirichlet distribution, as jax.scipy.stats.dirichlet (x's first axis is the simplex)."""
from __future__ import annotations

from typing import Any

import numpy as np

from stablejax import lax
from stablejax import numpy as jnp
from stablejax.numpy._promotion import promote_dtypes_inexact, scalar_like
from stablejax.scipy import special
from stablejax.scipy.stats._common import exp_of


def logpdf(x: Any, alpha: Any) -> Any:
  """sum (alpha - 1) log x - log B(alpha) on the simplex, -inf off it; x may omit its last
  entry (1 - the others)."""
  x, alpha = promote_dtypes_inexact(jnp.asarray(x), jnp.asarray(alpha))
  if alpha.ndim != 1:
    raise ValueError(f"`alpha` must be one-dimensional; got alpha.shape={alpha.shape}")
  if x.shape[0] not in (alpha.shape[0], alpha.shape[0] - 1):
    raise ValueError("`x` must have either the same number of entries as `alpha` or one entry "
                     f"fewer; got x.shape={x.shape}, alpha.shape={alpha.shape}")
  one = scalar_like(x, 1)
  if x.shape[0] != alpha.shape[0]:
    x = jnp.concatenate([x, lax.sub(one, jnp.sum(x, axis=0, keepdims=True))], axis=0)
  log_norm = lax.sub(jnp.sum(lax.lgamma(alpha)), lax.lgamma(jnp.sum(alpha)))
  alpha = lax.broadcast_in_dim(alpha, alpha.shape + (1,) * (x.ndim - 1), (0,))
  log_p = lax.sub(jnp.sum(special.xlogy(lax.sub(alpha, one), x), axis=0), log_norm)
  on_simplex = (jnp.all(lax.gt(x, scalar_like(x, 0)), axis=0)
                & lax.lt(lax.abs(lax.sub(jnp.sum(x, axis=0), one)), scalar_like(x, 1e-6)))
  return jnp.where(on_simplex, log_p, scalar_like(x, -np.inf))


pdf = exp_of(logpdf)
