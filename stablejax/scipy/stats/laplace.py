"""The Laplace distribution, as jax.scipy.stats.laplace."""
from __future__ import annotations

from typing import Any

from stablejax import lax
from stablejax import numpy as jnp
from stablejax.numpy._promotion import scalar_like
from stablejax.scipy.stats._common import exp_of, standardize


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
  """Log of the Laplace density: -|z| - log(2 scale)."""
  z, scale = standardize("laplace.logpdf", x, loc, scale)
  return lax.neg(lax.add(lax.abs(z), lax.log(lax.mul(scalar_like(z, 2), scale))))


pdf = exp_of(logpdf)


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
  """The Laplace CDF."""
  z, _ = standardize("laplace.cdf", x, loc, scale)
  half = scalar_like(z, 0.5)
  return jnp.where(lax.lt(z, scalar_like(z, 0)), lax.mul(half, lax.exp(z)),
                   lax.sub(scalar_like(z, 1), lax.mul(half, lax.exp(lax.neg(z)))))


