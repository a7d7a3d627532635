"""The normal distribution, as jax.scipy.stats.norm."""
from __future__ import annotations

from typing import Any

import numpy as np

from stablejax import lax
from stablejax.numpy._promotion import promote_args_inexact, scalar_like
from stablejax.scipy import special
from stablejax.scipy.stats._common import exp_of, standardize


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
  """Log of the normal density, in JAX's expression order (so values and gradients agree to the
  bit): -(log(2 pi scale^2) + (x - loc)^2 / scale^2) / 2."""
  x, loc, scale = promote_args_inexact("norm.logpdf", x, loc, scale)
  scale_sqrd = lax.square(scale)
  log_normalizer = lax.log(lax.mul(scalar_like(x, 2 * np.pi), scale_sqrd))
  quadratic = lax.div(lax.square(lax.sub(x, loc)), scale_sqrd)
  return lax.div(lax.add(log_normalizer, quadratic), scalar_like(x, -2))


pdf = exp_of(logpdf)


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
  """The normal CDF."""
  return special.ndtr(standardize("norm.cdf", x, loc, scale)[0])


def logcdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
  """Log of the normal CDF."""
  return special.log_ndtr(standardize("norm.logcdf", x, loc, scale)[0])


def sf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
  """The normal survival function 1 - cdf, accurate in the upper tail."""
  return special.ndtr(lax.neg(standardize("norm.sf", x, loc, scale)[0]))


def logsf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
  """Log of the normal survival function."""
  return special.log_ndtr(lax.neg(standardize("norm.logsf", x, loc, scale)[0]))


def ppf(q: Any, loc: Any = 0, scale: Any = 1) -> Any:
  """The inverse of the normal CDF."""
  q, loc, scale = promote_args_inexact("norm.ppf", q, loc, scale)
  return lax.add(lax.mul(special.ndtri(q), scale), loc)
