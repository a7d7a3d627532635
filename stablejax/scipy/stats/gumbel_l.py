"""The left-skewed Gumbel distribution, as jax.scipy.stats.gumbel_l."""
from __future__ import annotations

from typing import Any

from stablejax import lax
from stablejax.scipy.stats._common import exp_of, gumbel_args, gumbel_ppf, log1mexp


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
  """-log scale + z - exp(z); nan for scale <= 0."""
  z, scale, where_ok = gumbel_args("gumbel_l.logpdf", x, loc, scale)
  return where_ok(lax.sub(lax.sub(z, lax.exp(z)), lax.log(scale)))


def logcdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
  """log(1 - exp(-exp(z))); nan for scale <= 0."""
  z, _, where_ok = gumbel_args("gumbel_l.logcdf", x, loc, scale)
  return where_ok(log1mexp(lax.exp(z)))


def logsf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
  """-exp(z); nan for scale <= 0."""
  z, _, where_ok = gumbel_args("gumbel_l.logsf", x, loc, scale)
  return where_ok(lax.neg(lax.exp(z)))


def ppf(p: Any, loc: Any = 0, scale: Any = 1) -> Any:
  """loc + scale log(-log(1 - p)); nan outside (0, 1)."""
  return gumbel_ppf("gumbel_l.ppf", p, loc, scale, right=False)


pdf = exp_of(logpdf)
cdf = exp_of(logcdf)
sf = exp_of(logsf)
