"""Summary statistics of jax.scipy.stats that are not distributions: `sem`, `mode`,
`rankdata`."""
from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from stablejax import dtypes, lax
from stablejax import numpy as jnp
from stablejax.api import vmap
from stablejax.numpy._promotion import dtype, ensure_arraylike, promote_args_inexact
from stablejax.util import canonicalize_axis


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


class ModeResult(NamedTuple):
  """The most common value along an axis and how many times it occurs."""
  mode: Any
  count: Any


def _mode_of_column(x: Any) -> tuple[Any, Any]:
  """The smallest of the most frequent values of a 1-d `x`, and its count."""
  if x.size == 0:
    return (jnp.array(np.nan, dtypes.default_float()), jnp.array(0, dtypes.default_float()))
  values, counts = jnp.unique(x, return_counts=True, size=x.size)
  return values[jnp.argmax(counts)], jnp.max(counts)


def mode(a: Any, axis: int | None = 0, nan_policy: str = "propagate",
         keepdims: bool = False) -> ModeResult:
  """The most common value along `axis` (the whole array if None), with its count."""
  (x,) = ensure_arraylike("mode", a)
  x = jnp.atleast_1d(x)
  _check_nan_policy("mode", nan_policy)
  if axis is None:
    out_shape = (1,) * x.ndim if keepdims else ()
    x, axis = jnp.ravel(x), 0
  else:
    axis = canonicalize_axis(axis, x.ndim)
    out_shape = tuple(1 if i == axis else n for i, n in enumerate(x.shape) if keepdims or i != axis)
  x = jnp.moveaxis(x, axis, 0)
  values, counts = vmap(_mode_of_column, in_axes=1)(jnp.reshape(x, (x.shape[0], -1)))
  return ModeResult(jnp.reshape(values, out_shape), jnp.reshape(counts, out_shape))


def _check_nan_policy(name: str, nan_policy: str) -> None:
  """Only "propagate": JAX cannot see nans at trace time to "raise", nor drop them to "omit"."""
  if nan_policy not in ("propagate", "omit", "raise"):
    raise ValueError(f"Illegal nan_policy value {nan_policy!r}; expected one of "
                     "{'propagate', 'omit', 'raise'}")
  if nan_policy != "propagate":
    raise NotImplementedError(f"{name}: nan_policy={nan_policy!r} is not implemented")


_RANK_METHODS = ("average", "min", "max", "dense", "ordinal")


def _ranks(a: Any, method: str) -> Any:
  """The ranks of a 1-d `a` (no nans) by `method`, as the default float dtype."""
  out_dtype = dtypes.default_float()
  ordered, order = lax.sort_key_val(a, jnp.arange(a.size))
  position = jnp.zeros_like(order).at[order].set(jnp.arange(a.size, dtype=order.dtype))
  if method == "ordinal":
    return jnp.asarray(position + 1, out_dtype)
  first = jnp.concatenate([jnp.array([True]), ordered[1:] != ordered[:-1]])
  dense = jnp.cumsum(first)[position]
  if method == "dense":
    return jnp.asarray(dense, out_dtype)
  # starts[k]: how many elements rank below the k-th distinct value (the size at the end).
  starts = jnp.asarray(jnp.nonzero(first, size=a.size + 1, fill_value=a.size)[0], out_dtype)
  if method == "max":
    return starts[dense]
  if method == "min":
    return starts[dense - 1] + 1
  return .5 * (starts[dense] + starts[dense - 1] + 1)


def rankdata(a: Any, method: str = "average", *, axis: int | None = None,
             nan_policy: str = "propagate") -> Any:
  """Ranks from 1 of the data (flattened, or along `axis`), ties broken by `method`
  ("average", "min", "max", "dense", "ordinal"); all nan if there is a nan."""
  (a,) = ensure_arraylike("rankdata", a)
  _check_nan_policy("rankdata", nan_policy)
  if method not in _RANK_METHODS:
    raise ValueError(f"unknown method '{method}'")
  if axis is not None:
    return jnp.apply_along_axis(rankdata, axis, a, method)
  a = jnp.ravel(a)
  return lax.cond(jnp.any(jnp.isnan(a)),
                  lambda v: jnp.full_like(v, np.nan, dtypes.default_float()),
                  lambda v: _ranks(v, method), a)
