"""The generalized normal distribution, as jax.scipy.stats.gennorm."""
from __future__ import annotations

from typing import Any

from stablejax import lax
from stablejax.numpy._promotion import promote_args_inexact, scalar_like
from stablejax.scipy.stats._common import exp_of


def logpdf(x: Any, beta: Any) -> Any:
  """log(beta / 2) - lgamma(1 / beta) - |x| ** beta."""
  x, beta = promote_args_inexact("gennorm.logpdf", x, beta)
  return lax.sub(lax.sub(lax.log(lax.mul(scalar_like(beta, 0.5), beta)),
                         lax.lgamma(lax.div(scalar_like(beta, 1), beta))),
                 lax.pow(lax.abs(x), beta))


def cdf(x: Any, beta: Any) -> Any:
  """(1 + sign(x) P(1 / beta, |x| ** beta)) / 2."""
  x, beta = promote_args_inexact("gennorm.cdf", x, beta)
  tail = lax.igamma(lax.div(scalar_like(beta, 1), beta), lax.pow(lax.abs(x), beta))
  return lax.mul(scalar_like(x, 0.5), lax.add(scalar_like(x, 1), lax.mul(lax.sign(x), tail)))


pdf = exp_of(logpdf)
