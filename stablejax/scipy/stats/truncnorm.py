"""The normal distribution truncated to [a, b] (in standard units), as
jax.scipy.stats.truncnorm."""
from __future__ import annotations

from typing import Any

import numpy as np

from stablejax import lax
from stablejax import numpy as jnp
from stablejax.numpy._promotion import promote_args_inexact
from stablejax.scipy import special
from stablejax.scipy.stats import norm
from stablejax.scipy.stats._common import exp_of


def _log_sub_exp(x: Any, y: Any) -> Any:
  """log(exp(x) - exp(y)), stably."""
  return special.logsumexp(jnp.stack([x, y]), b=jnp.stack([jnp.ones_like(x), -jnp.ones_like(y)]),
                           axis=0)


def _log_gauss_mass(a: Any, b: Any) -> Any:
  """log(ndtr(b) - ndtr(a)): in log space in the tails (the right tail mirrored onto the left
  one, where log_ndtr is accurate), as log1p of the two outer masses across the centre."""
  a, b = jnp.broadcast_arrays(jnp.asarray(a), jnp.asarray(b))
  left, right = b <= 0, a > 0
  a_tail, b_tail = jnp.where(right, -b, a), jnp.where(right, -a, b)
  tail = _log_sub_exp(special.log_ndtr(b_tail), special.log_ndtr(a_tail))
  central = jnp.log1p(-special.ndtr(a) - special.ndtr(-b))
  return jnp.where(left | right, tail, central)


def logpdf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
  """Log of the truncated normal density: -inf outside [a, b], nan where a >= b."""
  x, a, b, loc, scale = promote_args_inexact("truncnorm.logpdf", x, a, b, loc, scale)
  value = norm.logpdf(x, loc, scale) - _log_gauss_mass(a, b)
  z = (x - loc) / scale
  value = jnp.where((z < a) | (z > b), -np.inf, value)
  return jnp.where(a >= b, np.nan, value)


pdf = exp_of(logpdf)


def logcdf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
  """Log of the truncated normal CDF (by the survival function where the CDF is near 1)."""
  x, a, b, loc, scale = promote_args_inexact("truncnorm.logcdf", x, a, b, loc, scale)
  x, a, b = jnp.broadcast_arrays(x, a, b)
  z = lax.div(lax.sub(x, loc), scale)
  total = _log_gauss_mass(a, b)
  below, above = _log_gauss_mass(a, z) - total, _log_gauss_mass(z, b) - total
  value = jnp.select([z >= b, z <= a, below > -0.1, z > a],
                     [0, -np.inf, jnp.log1p(-jnp.exp(above)), below])
  return jnp.where(a >= b, np.nan, value)


cdf = exp_of(logcdf)


def logsf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
  """Log of the truncated normal survival function: the CDF of the mirrored distribution."""
  x, a, b, loc, scale = promote_args_inexact("truncnorm.logsf", x, a, b, loc, scale)
  return logcdf(-x, -b, -a, -loc, scale)


sf = exp_of(logsf)
