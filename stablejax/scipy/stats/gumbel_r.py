"""The right-skewed Gumbel distribution, as jax.scipy.stats.gumbel_r."""
from __future__ import annotations

from typing import Any

from stablejax import lax
from stablejax.scipy.stats._common import exp_of, gumbel_args, gumbel_ppf, log1mexp


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
  """-log scale - z - exp(-z); nan for scale <= 0."""
  z, scale, where_ok = gumbel_args("gumbel_r.logpdf", x, loc, scale)
  return where_ok(lax.sub(lax.neg(lax.log(scale)), lax.add(z, lax.exp(lax.neg(z)))))


def logcdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
  """-exp(-z); nan for scale <= 0."""
  z, _, where_ok = gumbel_args("gumbel_r.logcdf", x, loc, scale)
  return where_ok(lax.neg(lax.exp(lax.neg(z))))


def logsf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
  """log(1 - exp(-exp(-z))); nan for scale <= 0."""
  z, _, where_ok = gumbel_args("gumbel_r.logsf", x, loc, scale)
  return where_ok(log1mexp(lax.exp(lax.neg(z))))


def ppf(p: Any, loc: Any = 0, scale: Any = 1) -> Any:
  """loc - scale log(-log p); nan outside (0, 1)."""
  return gumbel_ppf("gumbel_r.ppf", p, loc, scale, right=True)


pdf = exp_of(logpdf)
cdf = exp_of(logcdf)
sf = exp_of(logsf)
