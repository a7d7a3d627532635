"""The wrapped Cauchy distribution, as jax.scipy.stats.wrapcauchy."""
from __future__ import annotations

from typing import Any

import numpy as np

from stablejax import lax
from stablejax import numpy as jnp
from stablejax.numpy._promotion import promote_args_inexact, scalar_like
from stablejax.scipy.stats._common import exp_of


def logpdf(x: Any, c: Any) -> Any:
  """log((1 - c^2) / (2 pi (1 + c^2 - 2 c cos x))) on [0, 2 pi]; nan unless 0 < c < 1."""
  x, c = promote_args_inexact("wrapcauchy.logpdf", x, c)
  one = scalar_like(c, 1)
  c2 = lax.mul(c, c)
  denominator = lax.sub(lax.add(one, c2), lax.mul(lax.mul(scalar_like(c, 2), c), lax.cos(x)))
  log_p = lax.sub(lax.sub(lax.log(lax.sub(one, c2)), scalar_like(x, np.log(2 * np.pi))),
                  lax.log(denominator))
  inside = lax.ge(x, scalar_like(x, 0)) & lax.le(x, scalar_like(x, 2 * np.pi))
  log_p = jnp.where(inside, log_p, scalar_like(x, -np.inf))
  valid = lax.gt(c, scalar_like(c, 0)) & lax.lt(c, one)
  return jnp.where(valid, log_p, scalar_like(x, np.nan))


pdf = exp_of(logpdf)
