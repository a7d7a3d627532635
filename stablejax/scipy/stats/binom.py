"""The binomial distribution, as jax.scipy.stats.binom."""
from __future__ import annotations

from typing import Any

import numpy as np

from stablejax import lax
from stablejax import numpy as jnp
from stablejax.numpy._promotion import promote_args_inexact, scalar_like
from stablejax.scipy import special
from stablejax.scipy.stats._common import exp_of


def logpmf(k: Any, n: Any, p: Any, loc: Any = 0) -> Any:
  """log C(n, y) + y log p + (n - y) log(1 - p), y = k - loc in [0, n]; -inf outside."""
  k, n, p, loc = promote_args_inexact("binom.logpmf", k, n, p, loc)
  y = lax.sub(k, loc)
  one, zero = scalar_like(y, 1), scalar_like(y, 0)
  log_comb = lax.sub(lax.lgamma(lax.add(n, one)),
                     lax.add(lax.lgamma(lax.add(y, one)), lax.lgamma(lax.add(lax.sub(n, y), one))))
  log_kernel = lax.add(special.xlogy(y, p), special.xlog1py(lax.sub(n, y), lax.neg(p)))
  certain = (lax.eq(y, zero) & lax.eq(n, zero)) | lax.eq(log_kernel, zero)
  log_p = jnp.where(certain, zero, lax.add(log_comb, log_kernel))
  inside = lax.ge(k, loc) & lax.lt(k, lax.add(lax.add(loc, n), one))
  return jnp.where(inside, log_p, scalar_like(y, -np.inf))


pmf = exp_of(logpmf)
