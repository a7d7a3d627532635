"""The logistic distribution, as jax.scipy.stats.logistic."""
from __future__ import annotations

from typing import Any

from stablejax import lax
from stablejax.scipy.stats._common import exp_of, one_minus, standardize


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
  """Log of the logistic density: -|z| - 2 log1p(exp(-|z|)) - log(scale)."""
  z, scale = standardize("logistic.logpdf", x, loc, scale)
  abs_z = lax.abs(z)
  two = lax.add(lax.log1p(lax.exp(lax.neg(abs_z))), lax.log1p(lax.exp(lax.neg(abs_z))))
  return lax.neg(lax.add(lax.add(abs_z, two), lax.log(scale)))


pdf = exp_of(logpdf)


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
  """The logistic CDF."""
  return lax.logistic(standardize("logistic.cdf", x, loc, scale)[0])


sf = one_minus(cdf)
