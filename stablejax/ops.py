"""`stablejax.ops`: the segment reductions of `jax.ops` (`segment_sum`, `segment_prod`,
`segment_max`, `segment_min`): data reduced by segment id into `num_segments` rows."""
from __future__ import annotations

from typing import Any

import numpy as np

from stablejax import core, dtypes
from stablejax import numpy as jnp

__all__ = ["segment_max", "segment_min", "segment_prod", "segment_sum"]


def _identity(kind: str, dtype: np.dtype) -> Any:
  """The reduction's value for an empty segment."""
  if kind == "add":
    return 0
  if kind == "multiply":
    return 1
  if dtypes.is_inexact(dtype):
    return -np.inf if kind == "max" else np.inf
  if dtype == np.bool_:
    return kind != "max"
  info = np.iinfo(dtype)
  return info.min if kind == "max" else info.max


def _segment_reduce(name: str, kind: str, data: Any, segment_ids: Any, num_segments: int | None,
                    indices_are_sorted: bool, unique_indices: bool, bucket_size: int | None,
                    mode: Any) -> Any:
  data, segment_ids = jnp.asarray(data), jnp.asarray(segment_ids)
  if dtypes.kind(segment_ids.dtype) not in "iu":
    raise TypeError(f"{name}: segment_ids must be integers, got {segment_ids.dtype}")
  if num_segments is None:
    num_segments = int(core.concrete_or_error(
        jnp.max(segment_ids), f"{name}: num_segments must be given under a transformation")) + 1
  num_segments = int(num_segments)
  if num_segments < 0:
    raise ValueError(f"{name}: num_segments must be non-negative, got {num_segments}")
  out = jnp.full((num_segments,) + data.shape[1:], _identity(kind, data.dtype), data.dtype)
  del bucket_size  # (a way to split the work; the result is the same)
  return getattr(out.at[segment_ids], kind)(
      data, indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
      mode="drop" if mode is None else mode)


def segment_sum(data: Any, segment_ids: Any, num_segments: int | None = None,
                indices_are_sorted: bool = False, unique_indices: bool = False,
                bucket_size: int | None = None, mode: Any = None) -> Any:
  """The sum of the rows of `data` with each segment id (ids out of range are dropped)."""
  return _segment_reduce("segment_sum", "add", data, segment_ids, num_segments,
                         indices_are_sorted, unique_indices, bucket_size, mode)


def segment_prod(data: Any, segment_ids: Any, num_segments: int | None = None,
                 indices_are_sorted: bool = False, unique_indices: bool = False,
                 bucket_size: int | None = None, mode: Any = None) -> Any:
  """The product of the rows of `data` with each segment id (1 for an empty segment)."""
  return _segment_reduce("segment_prod", "multiply", data, segment_ids, num_segments,
                         indices_are_sorted, unique_indices, bucket_size, mode)


def segment_max(data: Any, segment_ids: Any, num_segments: int | None = None,
                indices_are_sorted: bool = False, unique_indices: bool = False,
                bucket_size: int | None = None, mode: Any = None) -> Any:
  """The maximum of the rows of `data` with each segment id (-inf for an empty segment)."""
  return _segment_reduce("segment_max", "max", data, segment_ids, num_segments,
                         indices_are_sorted, unique_indices, bucket_size, mode)


def segment_min(data: Any, segment_ids: Any, num_segments: int | None = None,
                indices_are_sorted: bool = False, unique_indices: bool = False,
                bucket_size: int | None = None, mode: Any = None) -> Any:
  """The minimum of the rows of `data` with each segment id (+inf for an empty segment)."""
  return _segment_reduce("segment_min", "min", data, segment_ids, num_segments,
                         indices_are_sorted, unique_indices, bucket_size, mode)
