"""The gamma distribution, as jax.scipy.stats.gamma."""
from __future__ import annotations

from typing import Any

import numpy as np

from stablejax import lax
from stablejax import numpy as jnp
from stablejax.numpy._promotion import promote_args_inexact, scalar_like
from stablejax.scipy import special
from stablejax.scipy.stats._common import exp_of, log_of


def logpdf(x: Any, a: Any, loc: Any = 0, scale: Any = 1) -> Any:
  """(a - 1) log y - y - lgamma(a) - log scale, y = (x - loc) / scale; -inf below loc."""
  x, a, loc, scale = promote_args_inexact("gamma.logpdf", x, a, loc, scale)
  inside = lax.ge(x, loc)
  y = jnp.where(inside, lax.div(lax.sub(x, loc), scale), scalar_like(x, 1))
  log_p = lax.sub(lax.sub(special.xlogy(lax.sub(a, scalar_like(a, 1)), y), y),
                  lax.add(lax.lgamma(a), lax.log(scale)))
  return jnp.where(inside, log_p, scalar_like(x, -np.inf))


def cdf(x: Any, a: Any, loc: Any = 0, scale: Any = 1) -> Any:
  """The regularized lower incomplete gamma function of (x - loc) / scale, clamped at 0."""
  x, a, loc, scale = promote_args_inexact("gamma.cdf", x, a, loc, scale)
  y = lax.max(lax.div(lax.sub(x, loc), scale), scalar_like(x, 0))
  return lax.igamma(a, y)


def sf(x: Any, a: Any, loc: Any = 0, scale: Any = 1) -> Any:
  """The regularized upper incomplete gamma function of (x - loc) / scale; 1 below loc."""
  x, a, loc, scale = promote_args_inexact("gamma.sf", x, a, loc, scale)
  y = lax.div(lax.sub(x, loc), scale)
  return jnp.where(lax.lt(y, scalar_like(y, 0)), scalar_like(y, 1), lax.igammac(a, y))


pdf = exp_of(logpdf)
logcdf = log_of(cdf)
logsf = log_of(sf)
