"""Student's t distribution, as jax.scipy.stats.t."""
from __future__ import annotations

from typing import Any

import numpy as np

from stablejax import lax
from stablejax.numpy._promotion import promote_args_inexact, scalar_like
from stablejax.scipy.stats._common import exp_of


def logpdf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
  """Log of the t density with `df` degrees of freedom."""
  x, df, loc, scale = promote_args_inexact("t.logpdf", x, df, loc, scale)
  half = scalar_like(x, 0.5)
  z = lax.div(lax.sub(x, loc), scale)
  half_df_plus = lax.mul(half, lax.add(df, scalar_like(df, 1)))
  log_norm = lax.add(lax.sub(lax.lgamma(lax.mul(half, df)), lax.lgamma(half_df_plus)),
                     lax.add(lax.mul(half, lax.log(lax.mul(scalar_like(df, np.pi), df))),
                             lax.log(scale)))
  return lax.sub(lax.neg(lax.mul(half_df_plus, lax.log1p(lax.div(lax.mul(z, z), df)))),
                 log_norm)


pdf = exp_of(logpdf)
