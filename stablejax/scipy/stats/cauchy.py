"""The Cauchy distribution, as jax.scipy.stats.cauchy."""
from __future__ import annotations

from typing import Any

import numpy as np

from stablejax import lax
from stablejax.numpy._promotion import scalar_like
from stablejax.scipy.stats._common import exp_of, standardize


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
  """Log of the Cauchy density: -log(pi scale (1 + z**2))."""
  z, scale = standardize("cauchy.logpdf", x, loc, scale)
  return lax.neg(lax.add(lax.log(lax.mul(scalar_like(z, np.pi), scale)),
                         lax.log1p(lax.mul(z, z))))


pdf = exp_of(logpdf)
