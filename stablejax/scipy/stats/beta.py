"""The beta distribution, as jax.scipy.stats.beta."""
from __future__ import annotations

from typing import Any

import numpy as np

from stablejax import lax
from stablejax import numpy as jnp
from stablejax.numpy._promotion import promote_args_inexact, scalar_like
from stablejax.scipy import special
from stablejax.scipy.stats._common import exp_of, log_of


def logpdf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
  """Log of the beta density on [loc, loc + scale]; nan for non-positive a, b or scale."""
  x, a, b, loc, scale = promote_args_inexact("beta.logpdf", x, a, b, loc, scale)
  one, zero = scalar_like(x, 1), scalar_like(x, 0)
  y = lax.div(lax.sub(x, loc), scale)
  log_kernel = lax.add(special.xlogy(lax.sub(a, one), y),
                       special.xlog1py(lax.sub(b, one), lax.neg(y)))
  log_p = lax.sub(lax.sub(log_kernel, special.betaln(a, b)), lax.log(scale))
  outside = lax.gt(x, lax.add(loc, scale)) | lax.lt(x, loc)
  log_p = jnp.where(outside, scalar_like(x, -np.inf), log_p)
  invalid = lax.le(a, zero) | lax.le(b, zero) | lax.le(scale, zero)
  return jnp.where(invalid, scalar_like(x, np.nan), log_p)


def _unit(name: str, x: Any, a: Any, b: Any, loc: Any, scale: Any) -> list:
  x, a, b, loc, scale = promote_args_inexact(name, x, a, b, loc, scale)
  y = lax.clamp(scalar_like(x, 0), lax.div(lax.sub(x, loc), scale), scalar_like(x, 1))
  return [a, b, y]


def cdf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
  """I_y(a, b), y = (x - loc) / scale clamped to [0, 1]."""
  return lax.betainc(*_unit("beta.cdf", x, a, b, loc, scale))


def sf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
  """I_{1-y}(b, a), y = (x - loc) / scale clamped to [0, 1]."""
  a, b, y = _unit("beta.sf", x, a, b, loc, scale)
  return lax.betainc(b, a, lax.sub(scalar_like(y, 1), y))


pdf = exp_of(logpdf)
logcdf = log_of(cdf)
logsf = log_of(sf)
