"""The Pareto distribution, as jax.scipy.stats.pareto."""
from __future__ import annotations

from typing import Any

import numpy as np

from stablejax import lax
from stablejax import numpy as jnp
from stablejax.numpy._promotion import promote_args_inexact, scalar_like
from stablejax.scipy.stats._common import exp_of


def _scaled(name: str, x: Any, b: Any, loc: Any, scale: Any) -> tuple:
  """(x - loc) / scale, b, scale, and whether x lies below the support (x < loc + scale)."""
  x, b, loc, scale = promote_args_inexact(name, x, b, loc, scale)
  return lax.div(lax.sub(x, loc), scale), b, scale, lax.lt(x, lax.add(loc, scale))


def logpdf(x: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
  """log(b / scale) - (b + 1) log y; -inf below the support."""
  y, b, scale, below = _scaled("pareto.logpdf", x, b, loc, scale)
  log_p = lax.neg(lax.add(lax.log(lax.div(scale, b)),
                          lax.mul(lax.add(b, scalar_like(b, 1)), lax.log(y))))
  return jnp.where(below, scalar_like(y, -np.inf), log_p)


def cdf(x: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
  """1 - y ** -b; 0 below the support."""
  y, b, _, below = _scaled("pareto.cdf", x, b, loc, scale)
  return jnp.where(below, scalar_like(y, 0), lax.sub(scalar_like(y, 1), lax.pow(y, lax.neg(b))))


def logcdf(x: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
  """log1p(-y ** -b); -inf below the support."""
  y, b, _, below = _scaled("pareto.logcdf", x, b, loc, scale)
  return jnp.where(below, scalar_like(y, -np.inf), lax.log1p(lax.neg(lax.pow(y, lax.neg(b)))))


def logsf(x: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
  """-b log y; 0 below the support."""
  y, b, _, below = _scaled("pareto.logsf", x, b, loc, scale)
  return jnp.where(below, scalar_like(y, 0), lax.neg(lax.mul(b, lax.log(y))))


def ppf(q: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
  """loc + scale (1 - q) ** (-1 / b); nan outside [0, 1]."""
  q, b, loc, scale = promote_args_inexact("pareto.ppf", q, b, loc, scale)
  one = scalar_like(q, 1)
  value = lax.add(loc, lax.mul(scale, lax.pow(lax.sub(one, q), lax.neg(lax.div(one, b)))))
  invalid = jnp.isnan(q) | lax.lt(q, scalar_like(q, 0)) | lax.gt(q, one)
  return jnp.where(invalid, scalar_like(q, np.nan), value)


pdf = exp_of(logpdf)
sf = exp_of(logsf)
