"""The multinomial distribution, as jax.scipy.stats.multinomial."""
from __future__ import annotations

from typing import Any

import numpy as np

from stablejax import dtypes, lax
from stablejax import numpy as jnp
from stablejax.numpy._promotion import (dtype, promote_args, promote_args_inexact,
                                         scalar_like)
from stablejax.scipy import special
from stablejax.scipy.stats._common import exp_of


def logpmf(x: Any, n: Any, p: Any) -> Any:
  """lgamma(n + 1) + sum(x log p - lgamma(x + 1)) over the last axis; -inf unless the counts
  (all of `x`) sum to n."""
  (p,) = promote_args_inexact("multinomial.logpmf", p)
  x, n = promote_args("multinomial.logpmf", x, n)
  if not dtypes.is_integer(dtype(x)):
    raise ValueError(f"x and n must be of integer type; got x.dtype={dtype(x)}, "
                     f"n.dtype={dtype(n)}")
  x, n = (lax.convert_element_type(v, dtype(p)) for v in (x, n))
  one = scalar_like(p, 1)
  terms = lax.sub(special.xlogy(x, p), lax.lgamma(lax.add(x, one)))
  log_p = lax.add(lax.lgamma(lax.add(n, one)), jnp.sum(terms, axis=-1))
  return jnp.where(lax.eq(jnp.sum(x), n), log_p, scalar_like(p, -np.inf))


pmf = exp_of(logpmf)
