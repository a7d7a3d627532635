"""numpy's array manipulation routines, first part: changing array shape (reshape, ravel),
transpose-like operations, expand_dims and squeeze, and joining along an axis (concatenate,
concat, stack): the ones array creation builds on."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from stablejax import core, dtypes, lax
from stablejax.lax.sharding import apply_out_sharding
from stablejax.numpy._axes import (
    canonicalize_axes, expand_axes, squeeze_if_needed, transpose_if_needed)
from stablejax.numpy._promotion import (
    convert, ensure_arraylike, promote_dtypes, shape, unchanged)
from stablejax.runtime import Array
from stablejax.errors import InconclusiveDimensionOperation
from stablejax.shape_poly import canonicalize_dim, is_constant_dim, is_symbolic_dim
from stablejax.util import canonicalize_axis, prod


_shape_of = shape


def _resolve_shape(size: int, old: tuple[int, ...], newshape: Sequence[int]) -> tuple[int, ...]:
  """`newshape` with its one -1 entry computed from the size."""
  newshape = tuple(canonicalize_dim(d, "reshape new shape") for d in newshape)
  known = prod(d for d in newshape if d != -1)
  if newshape.count(-1) > 1 or any(d < -1 for d in newshape):
    raise ValueError(f"cannot reshape array of shape {old} into shape {newshape}: at most one "
                     "dimension may be -1 and the others must be non-negative")
  if -1 in newshape:
    if is_symbolic_dim(size) and (not known or is_symbolic_dim(size % known)):
      raise InconclusiveDimensionOperation(
          f"Cannot divide evenly the sizes of shapes {old} and {newshape}: the remainder "
          f"{size % known if known else size} should be 0")
    if known and size % known == 0:
      newshape = tuple(size // known if d == -1 else d for d in newshape)
  # (a TypeError, as JAX's; a symbolic size is not checked here, as in JAX)
  if is_constant_dim(size) and (-1 in newshape or prod(newshape) != size):
    raise TypeError(f"cannot reshape array of shape {old} (size {size}) into shape "
                    f"{newshape}")
  return newshape


def reshape(a: Any, shape: Any, order: str = "C", *, copy: bool | None = None,
            out_sharding: Any = None) -> Any:
  """`a` with a new shape of the same size (one entry may be -1), in C (row-major) or F
  (column-major) `order`. (`copy` makes no difference: arrays are immutable, as in JAX.)"""
  del copy
  if out_sharding is None and isinstance(a, (np.ndarray, np.generic)):
    return a.reshape(shape, order=order)  # (a numpy array stays one, as in JAX)
  return apply_out_sharding(_reshape(a, shape, order), out_sharding, "jnp.reshape")


def reshape_method(a: Any, *args: Any, order: str = "C", out_sharding: Any = None) -> Any:
  """Array.reshape: the new shape as one argument, `x.reshape((2, 3))`, or several,
  `x.reshape(2, 3)`."""
  if not args:
    raise TypeError("reshape: the new shape is missing")
  return reshape(a, args[0] if len(args) == 1 else args, order, out_sharding=out_sharding)


def _reshape(a: Any, newshape: Any, order: str) -> Any:
  (a,) = ensure_arraylike("reshape", a)
  old = _shape_of(a)
  newshape = _resolve_shape(prod(old), old, (newshape,) if np.ndim(newshape) == 0 else newshape)
  if order == "F":
    return transpose(_reshape(transpose(a), newshape[::-1], "C"))
  if order == "A":
    raise NotImplementedError("np.reshape order=A is not implemented.")
  if order != "C":
    raise ValueError(f"Unexpected value for 'order' argument: {order}.")
  return a if newshape == old and old else lax.reshape(a, newshape)


def ravel(a: Any, order: str = "C", *, out_sharding: Any = None) -> Any:
  """`a` flattened to one dimension (in C or F order)."""
  (a,) = ensure_arraylike("ravel", a)
  if order == "K":
    raise NotImplementedError("Ravel not implemented for order='K'.")
  out = _reshape(a, (prod(_shape_of(a)),), order)
  return unchanged(apply_out_sharding(out, out_sharding, "jnp.ravel"))


def transpose(a: Any, axes: Sequence[int] | None = None) -> Any:
  """`a` with its axes permuted (reversed when `axes` is None)."""
  (a,) = ensure_arraylike("transpose", a)
  ndim = len(shape(a))
  if axes is None:
    return transpose_if_needed(a, range(ndim - 1, -1, -1))
  perm = canonicalize_axes("transpose", axes, ndim)
  if len(perm) != ndim:
    raise ValueError(f"transpose: axes {tuple(axes)} don't match an array of rank {ndim}")
  return transpose_if_needed(a, perm)


def swapaxes(a: Any, axis1: int, axis2: int) -> Any:
  """`a` with two axes exchanged."""
  (a,) = ensure_arraylike("swapaxes", a)
  ndim = len(shape(a))
  perm = list(range(ndim))
  i, j = canonicalize_axis(axis1, ndim), canonicalize_axis(axis2, ndim)
  perm[i], perm[j] = perm[j], perm[i]
  return transpose_if_needed(a, perm)


def moveaxis(a: Any, source: int | Sequence[int], destination: int | Sequence[int]) -> Any:
  """`a` with axes `source` moved to positions `destination`, the others kept in order."""
  (a,) = ensure_arraylike("moveaxis", a)
  ndim = len(shape(a))
  src = canonicalize_axes("moveaxis", source, ndim)
  dst = canonicalize_axes("moveaxis", destination, ndim)
  if len(src) != len(dst):
    raise ValueError(f"moveaxis: source {source} and destination {destination} must have the "
                     "same number of elements")
  perm = [i for i in range(ndim) if i not in src]
  for d, s in sorted(zip(dst, src)):
    perm.insert(d, s)
  return transpose_if_needed(a, perm)


def rollaxis(a: Any, axis: int, start: int = 0) -> Any:
  """`a` with `axis` moved to lie before position `start`."""
  (a,) = ensure_arraylike("rollaxis", a)
  ndim = len(shape(a))
  axis = canonicalize_axis(axis, ndim)
  if not -ndim <= start <= ndim:
    raise ValueError(f"start={start} must satisfy {-ndim}<=start<={ndim}")
  start = start + ndim if start < 0 else start
  return moveaxis(a, axis, start - 1 if start > axis else start)


def permute_dims(a: Any, /, axes: tuple[int, ...]) -> Any:
  """`transpose` (the array API name)."""
  return transpose(a, axes)


def matrix_transpose(x: Any, /) -> Any:
  """`x` with its last two axes swapped."""
  (x,) = ensure_arraylike("matrix_transpose", x)
  ndim = len(shape(x))
  if ndim < 2:
    raise ValueError(f"x must be at least two-dimensional for matrix_transpose; got ndim={ndim}")
  return transpose_if_needed(x, (*range(ndim - 2), ndim - 1, ndim - 2))


def expand_dims(a: Any, axis: int | Sequence[int]) -> Any:
  """`a` with size-1 axes inserted at positions `axis` of the result."""
  (a,) = ensure_arraylike("expand_dims", a)
  n_new = 1 if np.ndim(axis) == 0 else len(axis)
  axes = canonicalize_axes("expand_dims", axis, len(shape(a)) + n_new)
  return expand_axes(a, axes)


def squeeze(a: Any, axis: int | Sequence[int] | None = None) -> Any:
  """`a` without its size-1 axes (all of them, or those in `axis`)."""
  (a,) = ensure_arraylike("squeeze", a)
  a_shape = shape(a)
  if axis is None:
    return squeeze_if_needed(a, [i for i, d in enumerate(a_shape) if d == 1])
  axes = canonicalize_axes("squeeze", axis, len(a_shape))
  for i in axes:
    if a_shape[i] != 1:
      raise ValueError(f"cannot select an axis to squeeze out which has size not equal to "
                       f"one: axis {i} of an array of shape {a_shape}")
  return squeeze_if_needed(a, sorted(axes))


def concatenate(arrays: Sequence[Any], axis: int | None = 0, dtype: Any = None) -> Any:
  """Join arrays along an existing axis (all axes flattened when `axis` is None), in `dtype`
  when given (else their promoted dtype)."""
  arrays = ensure_arraylike("concatenate", *_sequence("concatenate", arrays))
  if axis is None:
    arrays, axis = [ravel(x) for x in arrays], 0
  shapes = [shape(x) for x in arrays]
  if any(not s for s in shapes):
    raise ValueError("Zero-dimensional arrays cannot be concatenated.")
  axis = canonicalize_axis(axis, len(shapes[0]))
  _check_concat_shapes(shapes, axis)
  arrays = _in_dtype(arrays, dtype)
  return arrays[0] if len(arrays) == 1 else lax.concatenate(arrays, axis)


def _in_dtype(arrays: Sequence[Any], dt: Any) -> list:
  """The arrays in the requested dtype `dt` (strongly typed), or promoted to one when None."""
  if dt is None:
    return promote_dtypes(*arrays)
  dt = dtypes.canonicalize(np.dtype(dt))
  return [convert(x, dt) for x in arrays]


def concat(arrays: Sequence[Any], /, *, axis: int | None = 0) -> Any:
  """`concatenate` (the array API name)."""
  return concatenate(arrays, axis)


def _sequence(name: str, arrays: Any) -> list:
  if not isinstance(arrays, (list, tuple)):
    raise TypeError(f"{name} needs a list or tuple of arrays, got {type(arrays).__name__}")
  if not arrays:
    raise ValueError(f"{name} needs at least one array, got an empty {type(arrays).__name__}")
  return list(arrays)


def _check_concat_shapes(shapes: list[tuple[int, ...]], axis: int) -> None:
  def without_axis(s):
    return s[:axis] + s[axis + 1:] if len(s) == len(shapes[0]) else None
  if len({without_axis(s) for s in shapes}) != 1:  # (a TypeError, as JAX's)
    raise TypeError(f"concatenate: all input array dimensions except axis {axis} must match "
                    f"exactly, got shapes {', '.join(map(str, shapes))}")


def stack(arrays: Sequence[Any], axis: int = 0, out: None = None, dtype: Any = None) -> Any:
  """Join arrays of one shape along a new axis (an array: its subarrays along axis 0), in
  `dtype` when given (else their promoted dtype)."""
  if out is not None:
    raise NotImplementedError("The 'out' argument to jnp.stack is not supported.")
  if isinstance(arrays, (np.ndarray, Array, core.Tracer)):
    ndim = len(shape(arrays))
    if ndim == 0 or shape(arrays)[0] == 0:
      raise ValueError("Need at least one array to stack.")
    (arrays,) = _in_dtype(ensure_arraylike("stack", arrays), dtype)
    return moveaxis(arrays, 0, canonicalize_axis(axis, ndim))
  arrays = ensure_arraylike("stack", *_sequence("stack", arrays))
  shapes = {shape(x) for x in arrays}
  if len(shapes) != 1:
    raise ValueError(f"stack: all input arrays must have the same shape, got "
                     f"{', '.join(str(shape(x)) for x in arrays)}")
  axis = canonicalize_axis(axis, len(shape(arrays[0])) + 1)
  arrays = _in_dtype(arrays, dtype)  # before the new axis, as JAX's (XLA then fuses alike)
  return concatenate([expand_axes(x, (axis,)) for x in arrays], axis)
