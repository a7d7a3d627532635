"""The beta-binomial distribution, as jax.scipy.stats.betabinom."""
from __future__ import annotations

from typing import Any

import numpy as np

from stablejax import lax
from stablejax import numpy as jnp
from stablejax.numpy._promotion import promote_args_inexact, scalar_like
from stablejax.scipy import special
from stablejax.scipy.stats._common import exp_of


def logpmf(k: Any, n: Any, a: Any, b: Any, loc: Any = 0) -> Any:
  """log C(n, y) + log B(y + a, n - y + b) - log B(a, b), y = floor(k) - loc; -inf outside
  [0, n], nan for n < 0 or non-positive a, b."""
  k, n, a, b, loc = promote_args_inexact("betabinom.logpmf", k, n, a, b, loc)
  y = lax.sub(lax.floor(k), loc)
  one, zero = scalar_like(y, 1), scalar_like(y, 0)
  n_minus_y = lax.sub(n, y)
  log_comb = lax.neg(lax.add(lax.log1p(n), special.betaln(lax.add(n_minus_y, one),
                                                          lax.add(y, one))))
  log_betas = lax.sub(special.betaln(lax.add(y, a), lax.add(n_minus_y, b)), special.betaln(a, b))
  log_p = jnp.where(lax.eq(y, zero) & lax.eq(n, zero), zero, lax.add(log_comb, log_betas))
  outside = lax.lt(y, lax.neg(loc)) | lax.gt(y, n) | lax.le(lax.add(y, a), zero)
  log_p = jnp.where(outside, scalar_like(y, -np.inf), log_p)
  invalid = lax.lt(n, zero) | lax.le(a, zero) | lax.le(b, zero)
  return jnp.where(invalid, scalar_like(y, np.nan), log_p)


pmf = exp_of(logpmf)
