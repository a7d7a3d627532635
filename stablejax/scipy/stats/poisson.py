"""The Poisson distribution, as jax.scipy.stats.poisson."""
from __future__ import annotations

from typing import Any

import numpy as np

from stablejax import lax
from stablejax import numpy as jnp
from stablejax.numpy._promotion import promote_args_inexact, scalar_like
from stablejax.scipy import special
from stablejax.scipy.stats._common import exp_of


def logpmf(k: Any, mu: Any, loc: Any = 0) -> Any:
  """log P(k) = k log mu - mu - lgamma(k + 1) for integers k >= 0, -inf elsewhere."""
  k, mu, loc = promote_args_inexact("poisson.logpmf", k, mu, loc)
  x = lax.sub(k, loc)
  log_p = lax.sub(lax.sub(special.xlogy(x, mu), mu), lax.lgamma(lax.add(x, scalar_like(x, 1))))
  outside = lax.bitwise_or(lax.lt(x, scalar_like(x, 0)), lax.ne(lax.round(x), x))
  return jnp.where(outside, scalar_like(x, -np.inf), log_p)


pmf = exp_of(logpmf)
