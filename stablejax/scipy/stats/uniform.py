"""The uniform distribution on [loc, loc + scale], as jax.scipy.stats.uniform."""
from __future__ import annotations

from typing import Any

import numpy as np

from stablejax import lax
from stablejax import numpy as jnp
from stablejax.numpy._promotion import promote_args_inexact, scalar_like
from stablejax.scipy.stats._common import exp_of


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
  """Log of the uniform density: -log(scale) inside the support, -inf outside."""
  x, loc, scale = promote_args_inexact("uniform.logpdf", x, loc, scale)
  outside = lax.bitwise_or(lax.lt(x, loc), lax.gt(x, lax.add(loc, scale)))
  return jnp.where(outside, scalar_like(x, -np.inf), lax.neg(lax.log(scale)))


pdf = exp_of(logpdf)


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
  """The uniform CDF."""
  x, loc, scale = promote_args_inexact("uniform.cdf", x, loc, scale)
  return jnp.clip(lax.div(lax.sub(x, loc), scale), 0, 1)
