"""The Bernoulli distribution, as jax.scipy.stats.bernoulli."""
from __future__ import annotations

from typing import Any

import numpy as np

from stablejax import lax
from stablejax import numpy as jnp
from stablejax.numpy._promotion import promote_args_inexact, scalar_like
from stablejax.scipy import special
from stablejax.scipy.stats._common import exp_of


def logpmf(k: Any, p: Any, loc: Any = 0) -> Any:
  """log P(k) = k log p + (1 - k) log(1 - p) for k in {0, 1}, -inf elsewhere."""
  k, p, loc = promote_args_inexact("bernoulli.logpmf", k, p, loc)
  k = lax.sub(k, loc)
  one = scalar_like(k, 1)
  log_p = lax.add(special.xlogy(k, p), special.xlog1py(lax.sub(one, k), lax.neg(p)))
  outside = lax.bitwise_and(lax.ne(k, scalar_like(k, 0)), lax.ne(k, one))
  return jnp.where(outside, scalar_like(k, -np.inf), log_p)


pmf = exp_of(logpmf)
