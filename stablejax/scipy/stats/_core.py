"""Summary statistics of jax.scipy.stats that are not distributions: `sem`."""
from __future__ import annotations

from typing import Any

import numpy as np

from stablejax import lax
from stablejax import numpy as jnp
from stablejax.numpy._promotion import dtype, promote_args_inexact


def sem(a: Any, axis: int | None = 0, ddof: int = 1, nan_policy: str = "propagate", *,
        keepdims: bool = False) -> Any:
  """The standard error of the mean along `axis` (nan_policy "propagate" or "omit")."""
  (b,) = promote_args_inexact("sem", a)
  if nan_policy == "propagate":
    size = int(np.prod(b.shape)) if axis is None else b.shape[axis]
    return lax.div(jnp.std(b, axis, ddof=ddof, keepdims=keepdims),
                   jnp.sqrt(jnp.asarray(size, dtype(b))))
  if nan_policy == "omit":
    count = jnp.sum(jnp.logical_not(jnp.isnan(b)), axis, keepdims=keepdims)
    return lax.div(jnp.nanstd(b, axis, ddof=ddof, keepdims=keepdims),
                   lax.convert_element_type(jnp.sqrt(count), dtype(b)))
  raise ValueError(f"{nan_policy} is not supported")
