"""Basic indexing `x[idx]`: ints, slices, None and `...` become lax.slice (static indices) or
lax.dynamic_slice (traced integer scalars), then squeeze and broadcast_in_dim, as JAX stages it."""
from __future__ import annotations

import operator
from typing import Any

import numpy as np

from stablejax import core, dtypes, lax
from stablejax.numpy._promotion import convert, shape
from stablejax.numpy._shape import expand_axes, squeeze_if_needed


def _static_int(i: Any) -> int | None:
  """A concrete integer index as a Python int, else None."""
  if isinstance(i, (bool, np.bool_)):
    return None
  if isinstance(i, (int, np.integer)) or (isinstance(i, np.ndarray) and i.ndim == 0 and
                                          i.dtype.kind in "iu"):
    return operator.index(i)
  return None


def _is_dynamic_int(i: Any) -> bool:
  if not isinstance(i, core.Tracer):
    return False
  if i.ndim or i.dtype.kind not in "iu":
    raise TypeError(f"indices must be integers, slices, None or ..., got a traced value of type "
                    f"{i.aval.str_short()} (array and boolean indexing are not supported)")
  return True


def _classify(i: Any) -> str:
  if i is None:
    return "none"
  if i is Ellipsis:
    return "ellipsis"
  if isinstance(i, slice):
    return "slice"
  if _static_int(i) is not None:
    return "int"
  if _is_dynamic_int(i):
    return "dynamic"
  raise TypeError(f"indices must be integers, slices, None, ... or traced integer scalars; got "
                  f"{i!r} of type {type(i).__name__} (array and boolean indexing are not "
                  "supported)")


def _expand_ellipsis(idx: tuple, ndim: int) -> list[tuple[str, Any]]:
  kinds = [(_classify(i), i) for i in idx]
  n_ellipsis = sum(k == "ellipsis" for k, _ in kinds)
  if n_ellipsis > 1:
    raise IndexError("an index can only have a single ellipsis ('...')")
  consumed = sum(k not in ("none", "ellipsis") for k, _ in kinds)
  if consumed > ndim:
    raise IndexError(f"too many indices for array: array is {ndim}-dimensional, but {consumed} "
                     "were indexed")
  fill = [("slice", slice(None))] * (ndim - consumed)
  if not n_ellipsis:
    return kinds + fill
  at = [k for k, _ in kinds].index("ellipsis")
  return kinds[:at] + fill + kinds[at + 1:]


def getitem(x: Any, idx: Any) -> Any:
  """`x[idx]` for basic indices."""
  x_shape = shape(x)
  entries = _expand_ellipsis(idx if isinstance(idx, tuple) else (idx,), len(x_shape))
  if any(k == "dynamic" for k, _ in entries):
    return _dynamic_index(x, x_shape, entries)
  return _static_index(x, x_shape, entries)


def _slice_bounds(s: slice, size: int) -> tuple[int, int, int]:
  for v in (s.start, s.stop, s.step):
    if v is not None and _static_int(v) is None:
      raise TypeError(f"slice bounds must be static integers or None, got {s} (use "
                      "lax.dynamic_slice for traced starts)")
  start, stop, step = s.indices(size)
  if step < 0:
    raise NotImplementedError(f"slices with negative steps ({s}) are not supported yet: lax "
                              "has no rev primitive")
  return start, max(start, stop), step


def _int_start(i: Any, axis: int, size: int) -> int:
  i = _static_int(i)
  if not -size <= i < size:
    raise IndexError(f"index {i} is out of bounds for axis {axis} with size {size}")
  return i + size if i < 0 else i


def _static_index(x: Any, x_shape: tuple, entries: list) -> Any:
  starts, limits, strides, squeezed, new_axes = [], [], [], [], []
  for kind, i in entries:
    axis = len(starts)
    if kind == "none":
      new_axes.append(axis - len(squeezed) + len(new_axes))
    elif kind == "int":
      start = _int_start(i, axis, x_shape[axis])
      starts.append(start)
      limits.append(start + 1)
      strides.append(1)
      squeezed.append(axis)
    else:
      start, limit, step = _slice_bounds(i, x_shape[axis])
      starts.append(start)
      limits.append(limit)
      strides.append(step)
  if any(strides[a] != 1 or (starts[a], limits[a]) != (0, n) for a, n in enumerate(x_shape)):
    x = lax.slice(x, starts, limits, None if all(s == 1 for s in strides) else strides)
  return _finish(x, squeezed, new_axes)


def _finish(x: Any, squeezed: list[int], new_axes: list[int]) -> Any:
  x = squeeze_if_needed(x, squeezed)
  return expand_axes(x, new_axes) if new_axes else x


def _dynamic_index(x: Any, x_shape: tuple, entries: list) -> Any:
  starts, sizes, squeezed, new_axes = [], [], [], []
  for kind, i in entries:
    axis = len(starts)
    if kind == "none":
      new_axes.append(axis - len(squeezed) + len(new_axes))
    elif kind in ("int", "dynamic"):
      if x_shape[axis] == 0:
        raise IndexError(f"index is out of bounds for axis {axis} with size 0")
      starts.append(i if kind == "dynamic" else _int_start(i, axis, x_shape[axis]))
      sizes.append(1)
      squeezed.append(axis)
    else:
      start, limit, step = _slice_bounds(i, x_shape[axis])
      if step != 1:
        raise TypeError(f"only unit-step slices can be combined with traced indices, got {i}")
      starts.append(start)
      sizes.append(limit - start)
  if len(starts) > 1:  # dynamic_slice needs one index dtype
    starts = [convert(s, dtypes.int32) if isinstance(s, core.Tracer) else s for s in starts]
  x = lax.dynamic_slice(x, starts, sizes)
  return _finish(x, squeezed, new_axes)
