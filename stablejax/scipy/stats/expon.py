"""The exponential distribution, as jax.scipy.stats.expon."""
from __future__ import annotations

from typing import Any

import numpy as np

from stablejax import lax
from stablejax import numpy as jnp
from stablejax.numpy._promotion import scalar_like
from stablejax.scipy.stats._common import exp_of, standardize


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
  """Log of the exponential density: -z - log(scale) for z = (x - loc) / scale >= 0."""
  z, scale = standardize("expon.logpdf", x, loc, scale)
  return jnp.where(lax.lt(z, scalar_like(z, 0)), scalar_like(z, -np.inf),
                   lax.neg(lax.add(z, lax.log(scale))))


pdf = exp_of(logpdf)


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
  """The exponential CDF."""
  z, _ = standardize("expon.cdf", x, loc, scale)
  return jnp.where(lax.lt(z, scalar_like(z, 0)), scalar_like(z, 0), lax.neg(lax.expm1(lax.neg(z))))
