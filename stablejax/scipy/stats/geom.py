"""The geometric distribution, as jax.scipy.stats.geom."""
from __future__ import annotations

from typing import Any

import numpy as np

from stablejax import lax
from stablejax import numpy as jnp
from stablejax.numpy._promotion import promote_args_inexact, scalar_like
from stablejax.scipy import special
from stablejax.scipy.stats._common import exp_of


def logpmf(k: Any, p: Any, loc: Any = 0) -> Any:
  """(k - 1) log(1 - p) + log p for k >= 1 (k - loc); -inf elsewhere."""
  k, p, loc = promote_args_inexact("geom.logpmf", k, p, loc)
  x = lax.sub(k, loc)
  log_p = lax.add(special.xlog1py(lax.sub(x, scalar_like(x, 1)), lax.neg(p)), lax.log(p))
  return jnp.where(lax.le(x, scalar_like(x, 0)), scalar_like(x, -np.inf), log_p)


pmf = exp_of(logpmf)
