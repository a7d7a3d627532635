"""The chi-squared distribution, as jax.scipy.stats.chi2."""
from __future__ import annotations

from typing import Any

import numpy as np

from stablejax import lax
from stablejax import numpy as jnp
from stablejax.numpy._promotion import promote_args_inexact, scalar_like
from stablejax.scipy.stats._common import exp_of, log_of


def logpdf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
  """Log of the chi-squared density with `df` degrees of freedom; -inf below loc."""
  x, df, loc, scale = promote_args_inexact("chi2.logpdf", x, df, loc, scale)
  half, one = scalar_like(x, 0.5), scalar_like(x, 1)
  y = lax.div(lax.sub(x, loc), scale)
  half_df = lax.mul(df, half)
  kernel = lax.sub(lax.mul(lax.sub(half_df, one), lax.log(y)), lax.mul(y, half))
  log_norm = lax.add(lax.add(lax.lgamma(half_df), lax.mul(half_df, scalar_like(x, np.log(2)))),
                     lax.log(scale))
  return jnp.where(lax.lt(x, loc), scalar_like(x, -np.inf), lax.sub(kernel, log_norm))


def _half_y(name: str, x: Any, df: Any, loc: Any, scale: Any) -> tuple[Any, Any]:
  x, df, loc, scale = promote_args_inexact(name, x, df, loc, scale)
  y = lax.div(lax.sub(x, loc), lax.mul(scale, scalar_like(scale, 2)))
  return lax.div(df, scalar_like(df, 2)), lax.max(y, scalar_like(y, 0))


def cdf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
  """P(df / 2, (x - loc) / (2 scale)), clamped at 0."""
  return lax.igamma(*_half_y("chi2.cdf", x, df, loc, scale))


def sf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
  """Q(df / 2, (x - loc) / (2 scale)), clamped at 0."""
  return lax.igammac(*_half_y("chi2.sf", x, df, loc, scale))


pdf = exp_of(logpdf)
logcdf = log_of(cdf)
logsf = log_of(sf)
