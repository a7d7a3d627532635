"""The von Mises distribution, as jax.scipy.stats.vonmises."""
from __future__ import annotations

from typing import Any

import numpy as np

from stablejax import lax
from stablejax import numpy as jnp
from stablejax.numpy._promotion import promote_args_inexact, scalar_like
from stablejax.scipy.stats._common import exp_of


def logpdf(x: Any, kappa: Any) -> Any:
  """kappa (cos x - 1) - log(2 pi i0e(kappa)); nan for kappa <= 0."""
  x, kappa = promote_args_inexact("vonmises.logpdf", x, kappa)
  log_norm = lax.log(lax.mul(scalar_like(kappa, 2 * np.pi), lax.bessel_i0e(kappa)))
  log_p = lax.sub(lax.mul(kappa, lax.sub(lax.cos(x), scalar_like(x, 1))), log_norm)
  return jnp.where(lax.gt(kappa, scalar_like(kappa, 0)), log_p, scalar_like(x, np.nan))


pdf = exp_of(logpdf)
