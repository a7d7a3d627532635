"""The negative binomial distribution, as jax.scipy.stats.nbinom."""
from __future__ import annotations

from typing import Any

import numpy as np

from stablejax import lax
from stablejax import numpy as jnp
from stablejax.numpy._promotion import promote_args_inexact, scalar_like
from stablejax.scipy import special
from stablejax.scipy.stats._common import exp_of


def logpmf(k: Any, n: Any, p: Any, loc: Any = 0) -> Any:
  """lgamma(y + n) - lgamma(n) - lgamma(y + 1) + n log p + y log(1 - p), y = k - loc; -inf
  below loc."""
  k, n, p, loc = promote_args_inexact("nbinom.logpmf", k, n, p, loc)
  y = lax.sub(k, loc)
  one = scalar_like(y, 1)
  log_comb = lax.sub(lax.sub(lax.lgamma(lax.add(y, n)), lax.lgamma(n)),
                     lax.lgamma(lax.add(y, one)))
  log_kernel = lax.add(special.xlogy(n, p), special.xlogy(y, lax.sub(one, p)))
  return jnp.where(lax.lt(k, loc), scalar_like(y, -np.inf), lax.add(log_comb, log_kernel))


pmf = exp_of(logpmf)
