"""numpy's array manipulation routines, second part: changing the number of dimensions
(atleast_nd, broadcasting), joining by stacking, splitting, tiling, adding and removing elements,
rearranging elements (flips, rolls, rotations). (`pad`, a section of its own in numpy, is in
`_padding`.)"""
from __future__ import annotations

import operator
from typing import Any, Sequence

import numpy as np

from stablejax import core, dtypes, lax
from stablejax.lax.sharding import apply_out_sharding
from stablejax.numpy._axes import canonicalize_axes
from stablejax.numpy._creation import array, asarray, zeros
from stablejax.numpy._manipulation_shape import concatenate, moveaxis, ravel, reshape, transpose
from stablejax.numpy._promotion import (
    broadcast_shapes as _broadcast_shapes, broadcast_to as _broadcast_to, concrete_int, convert,
    dtype, ensure_arraylike, shape)
from stablejax.shape_poly import canonicalize_dim
from stablejax.util import canonicalize_axis, prod

Axis = int | Sequence[int] | None


def _index_tuple(x: Any) -> tuple[int, ...]:
  """An int or a sequence of ints as a tuple of ints (TypeError for traced values)."""
  return (operator.index(x),) if np.ndim(x) == 0 else tuple(operator.index(i) for i in x)


def _shape_tuple(x: Any) -> tuple[Any, ...]:
  """A dimension or a sequence of them (ints or symbolic) as a tuple."""
  return tuple(map(canonicalize_dim, (x,) if np.ndim(x) == 0 else x))


def _as_array(name: str, x: Any) -> Any:
  """`x`, checked, as an array (so that no-op results are arrays too, as in JAX)."""
  (x,) = ensure_arraylike(name, x)
  return array(x)


def _axis_slice(x: Any, start: int, stop: int, axis: int) -> Any:
  return lax.slice_in_dim(x, start, stop, axis=axis)


# ----------------------------------------------------------------------------------------------
# Flips, rotations, rolls


def flip(m: Any, axis: Axis = None) -> Any:
  """`m` with the order of elements reversed along `axis` (all axes when None)."""
  m = _as_array("flip", m)
  ndim = len(shape(m))
  axes = tuple(range(ndim)) if axis is None else canonicalize_axes("flip", axis, ndim)
  return lax.rev(m, axes) if axes else m


def fliplr(m: Any) -> Any:
  """`m` reversed along axis 1."""
  (m,) = ensure_arraylike("fliplr", m)
  if len(shape(m)) < 2:
    raise ValueError(f"fliplr requires an array of at least 2 dimensions, got shape {shape(m)}")
  return flip(m, 1)


def flipud(m: Any) -> Any:
  """`m` reversed along axis 0."""
  (m,) = ensure_arraylike("flipud", m)
  if len(shape(m)) < 1:
    raise ValueError("flipud requires an array of at least 1 dimension, got a scalar")
  return flip(m, 0)


def rot90(m: Any, k: int = 1, axes: tuple[int, int] = (0, 1)) -> Any:
  """`m` rotated by 90 degrees `k` times in the plane of `axes`."""
  m = _as_array("rot90", m)
  ndim = len(shape(m))
  if ndim < 2:
    raise ValueError(f"rot90 requires its first argument to have ndim at least two, but got "
                     f"first argument of shape {shape(m)}, which has ndim {ndim}")
  ax1, ax2 = (canonicalize_axis(a, ndim) for a in axes)
  if ax1 == ax2:
    raise ValueError("Axes must be different")
  k = operator.index(k) % 4
  if k == 0:
    return m
  if k == 2:
    return flip(flip(m, ax1), ax2)
  perm = list(range(ndim))
  perm[ax1], perm[ax2] = perm[ax2], perm[ax1]
  return transpose(flip(m, ax2), perm) if k == 1 else flip(transpose(m, perm), ax2)


def roll(a: Any, shift: Any, axis: Axis = None) -> Any:
  """`a` with its elements shifted cyclically by `shift` along `axis` (flattened when None)."""
  a = _as_array("roll", a)
  if axis is None:
    return reshape(roll(ravel(a), shift, 0), shape(a))
  axes = tuple(canonicalize_axis(ax, len(shape(a))) for ax in _index_tuple(axis))
  try:
    shifts = _index_tuple(shift)
  except TypeError:
    return _roll_dynamic(a, shift, axes)
  try:
    pairs = zip(*np.broadcast_arrays(axes, shifts))
  except ValueError:
    raise ValueError(f"roll: shift {shift} and axis {axis} must have matching lengths") from None
  for ax, s in pairs:
    size = shape(a)[ax]
    if size:
      i = int(-s) % size
      a = concatenate([_axis_slice(a, i, size, ax), _axis_slice(a, 0, i, ax)], ax)
  return a


def _roll_dynamic(a: Any, shift: Any, axes: tuple[int, ...]) -> Any:
  """roll by traced shifts: a dynamic window of `a` concatenated with itself."""
  (shift,) = ensure_arraylike("roll", shift)
  if not dtypes.is_integer(dtype(shift)):
    raise TypeError(f"roll: shift must be an integer, got dtype {dtype(shift)}")
  try:
    (n,) = _broadcast_shapes("roll", shape(shift), (len(axes),))
  except ValueError:
    raise ValueError("'shift' and 'axis' arguments to roll must be scalars or 1D arrays") from None
  shift = _broadcast_to(convert(shift, np.dtype(np.int32)), (n,))
  for j, ax in enumerate(np.broadcast_to(axes, (n,))):
    size = np.int32(shape(a)[ax])
    s = lax.reshape(lax.slice_in_dim(shift, j, j + 1), ())
    s = lax.rem(lax.add(lax.rem(s, max(size, 1)), size), max(size, 1))
    starts = [np.int32(0)] * len(shape(a))
    starts[ax] = lax.sub(size, s)
    a = lax.dynamic_slice(lax.concatenate([a, a], int(ax)), starts, shape(a))
  return a


# ----------------------------------------------------------------------------------------------
# Repeat, tile, resize


def _gather_static(a: Any, indices: np.ndarray, axis: int) -> Any:
  """`a` indexed along `axis` by concrete in-range `indices`: slices of runs of consecutive
  indices and broadcasts of repeated ones, joined by one concatenate."""
  runs: list[list[int]] = []  # [start, stop, count]: a[start:stop] taken count times
  for i in map(int, indices):
    last = runs[-1] if runs else None
    if last and last[1] - last[0] == 1 and last[0] == i:
      last[2] += 1
    elif last and last[2] == 1 and last[1] == i:
      last[1] += 1
    else:
      runs.append([i, i + 1, 1])
  a_shape = shape(a)
  pieces = []
  for start, stop, count in runs:
    piece = _axis_slice(a, start, stop, axis)
    if count > 1:
      out_shape = a_shape[:axis] + (count,) + a_shape[axis + 1:]
      piece = lax.broadcast_in_dim(piece, out_shape, tuple(range(len(a_shape))))
    pieces.append(piece)
  if not pieces:
    return _axis_slice(a, 0, 0, axis)
  return pieces[0] if len(pieces) == 1 else lax.concatenate(pieces, axis)


def repeat(a: Any, repeats: Any, axis: int | None = None, *,
           total_repeat_length: int | None = None, out_sharding: Any = None) -> Any:
  """Each element of `a` repeated `repeats` times along `axis` (flattened when None)."""
  del out_sharding
  a, repeats = ensure_arraylike("repeat", a, repeats)
  if axis is None:
    a, axis = ravel(a), 0
  a_shape = shape(a)
  axis = canonicalize_axis(operator.index(axis), max(len(a_shape), 1))
  repeats = np.asarray(core.concrete_or_error(
      repeats, "the `repeats` of jnp.repeat (the total number of repeats must be static)"))
  if not a_shape:
    if repeats.size != 1:
      raise ValueError("`repeat` with a scalar parameter `a` is only implemented for scalar "
                       "values of the parameter `repeats`.")
    n = int(repeats.reshape(())) if total_repeat_length is None else total_repeat_length
    return lax.broadcast_in_dim(a, (n,), ())
  if np.ndim(repeats) == 0 and total_repeat_length is None:
    r = operator.index(repeats[()])
    wide = a_shape[:axis + 1] + (r,) + a_shape[axis + 1:]
    out = lax.broadcast_in_dim(a, wide, tuple(i for i in range(len(wide)) if i != axis + 1))
    return lax.reshape(out, a_shape[:axis] + (a_shape[axis] * r,) + a_shape[axis + 1:])
  try:
    repeats = np.broadcast_to(np.ravel(repeats), (a_shape[axis],))
  except ValueError:
    raise ValueError(f"repeat: repeats of shape {np.shape(repeats)} do not match axis {axis} "
                     f"of size {a_shape[axis]}") from None
  if (repeats < 0).any():
    raise ValueError(f"repeat: repeats may not contain negative values, got {repeats}")
  indices = np.repeat(np.arange(a_shape[axis]), repeats)
  if total_repeat_length is not None:
    indices = indices[:total_repeat_length]
    fill = np.full(total_repeat_length - len(indices), a_shape[axis] - 1)
    indices = np.concatenate([indices, fill])
  return _gather_static(a, indices, axis)


def tile(A: Any, reps: int | Sequence[int]) -> Any:  # noqa: N803  (numpy's name)
  """`A` repeated `reps` times along each axis (leading axes added as needed)."""
  A = _as_array("tile", A)  # noqa: N806
  reps = _index_tuple(reps)
  a_shape = shape(A)
  ndim = max(len(reps), len(a_shape))
  reps = (1,) * (ndim - len(reps)) + reps
  a_shape = (1,) * (ndim - len(a_shape)) + a_shape
  if all(r == 1 for r in reps):
    return reshape(A, a_shape) if shape(A) != a_shape else A
  wide = tuple(d for pair in zip(reps, a_shape) for d in pair)
  out = lax.broadcast_in_dim(reshape(A, a_shape), wide, tuple(range(1, 2 * ndim, 2)))
  return lax.reshape(out, tuple(r * d for r, d in zip(reps, a_shape)))


def resize(a: Any, new_shape: int | Sequence[int]) -> Any:
  """`a` flattened, repeated cyclically to the size of `new_shape`, and reshaped to it."""
  (a,) = ensure_arraylike("resize", a)
  new_shape = _index_tuple(new_shape)
  if any(d < 0 for d in new_shape):
    raise ValueError("All elements of `new_shape` must be non-negative")
  flat = ravel(a)
  size, new_size = prod(shape(a)), prod(new_shape)
  if size == 0 or new_size == 0:
    return zeros(new_shape, dtype(a))
  flat = tile(flat, -(-new_size // size))
  return reshape(_axis_slice(flat, 0, new_size, 0), new_shape)


# ----------------------------------------------------------------------------------------------
# Splitting


def _split(name: str, ary: Any, indices_or_sections: Any, axis: int) -> list:
  (ary,) = ensure_arraylike(name, ary)
  axis = canonicalize_axis(operator.index(axis), len(shape(ary)))
  size = shape(ary)[axis]
  if np.ndim(indices_or_sections) > 0:
    bounds = [0, *(concrete_int(i, f"{name} indices")
                   for i in indices_or_sections), size]
    pairs = list(zip(bounds[:-1], bounds[1:]))
    if any(hi < lo for lo, hi in pairs):
      raise ValueError(f"Sizes passed to split must be nonnegative, got split indices "
                       f"{bounds[1:-1]} for an axis of size {size}")
  else:
    sections = concrete_int(indices_or_sections, f"{name} sections")
    if sections <= 0:
      raise ValueError(f"{name}: number of sections must be larger than 0, got {sections}")
    part, rest = divmod(size, sections)
    if rest and name != "array_split":
      raise ValueError(f"array split does not result in an equal division: rest is {rest}")
    sizes = [part + 1] * rest + [part] * (sections - rest)
    ends = np.cumsum([0] + sizes)
    pairs = list(zip(ends[:-1], ends[1:]))
  return [_axis_slice(ary, int(lo), int(hi), axis) for lo, hi in pairs]


def split(ary: Any, indices_or_sections: Any, axis: int = 0) -> list:
  """`ary` split along `axis` into equal sections, or at the given indices."""
  return _split("split", ary, indices_or_sections, axis)


def array_split(ary: Any, indices_or_sections: Any, axis: int = 0) -> list:
  """Like `split`, allowing sections of unequal size."""
  return _split("array_split", ary, indices_or_sections, axis)


def vsplit(ary: Any, indices_or_sections: Any) -> list:
  """`split` along axis 0."""
  return _split("vsplit", ary, indices_or_sections, 0)


def hsplit(ary: Any, indices_or_sections: Any) -> list:
  """`split` along axis 1 (axis 0 for 1-D arrays)."""
  (ary,) = ensure_arraylike("hsplit", ary)
  return _split("hsplit", ary, indices_or_sections, 1 if len(shape(ary)) > 1 else 0)


def dsplit(ary: Any, indices_or_sections: Any) -> list:
  """`split` along axis 2 of an array of rank at least 3."""
  (ary,) = ensure_arraylike("dsplit", ary)
  if len(shape(ary)) < 3:
    raise ValueError(f"dsplit only works on arrays of 3 or more dimensions, got shape "
                     f"{shape(ary)}")
  return _split("dsplit", ary, indices_or_sections, 2)


def unstack(x: Any, /, *, axis: int = 0) -> tuple:
  """The slices of `x` along `axis`, as a tuple."""
  (x,) = ensure_arraylike("unstack", x)
  if not shape(x):
    raise ValueError("Unstack requires arrays with rank > 0, however a scalar array was passed.")
  axis = canonicalize_axis(axis, len(shape(x)))
  return tuple(lax.squeeze(_axis_slice(x, i, i + 1, axis), (axis,))
               for i in range(shape(x)[axis]))


# ----------------------------------------------------------------------------------------------
# Stacking and rank promotion


def _atleast(x: Any, n: int, where: str) -> Any:
  """`x` (an array, after `array`) with size-1 axes added to rank `n`: leading ones, or as numpy
  places them for atleast_3d ('3d')."""
  x = array(x, copy=False)
  x_shape = shape(x)
  if len(x_shape) >= n:
    return x
  if where == "3d" and len(x_shape) == 1:
    return reshape(x, (1, x_shape[0], 1))
  if where == "3d" and len(x_shape) == 2:
    return reshape(x, x_shape + (1,))
  return reshape(x, (1,) * (n - len(x_shape)) + x_shape)


def _atleast_nd(name: str, n: int, arys: tuple) -> Any:
  ensure_arraylike(name, *arys)
  out = [_atleast(x, n, "3d" if n == 3 else "lead") for x in arys]
  return out[0] if len(out) == 1 else out


def atleast_1d(*arys: Any) -> Any:
  """Each input as an array of rank at least 1 (one array for one input, else a list)."""
  return _atleast_nd("atleast_1d", 1, arys)


def atleast_2d(*arys: Any) -> Any:
  """Each input as an array of rank at least 2 (leading axes added)."""
  return _atleast_nd("atleast_2d", 2, arys)


def atleast_3d(*arys: Any) -> Any:
  """Each input as an array of rank at least 3 ((N,) -> (1, N, 1), (M, N) -> (M, N, 1))."""
  return _atleast_nd("atleast_3d", 3, arys)


def _arrays(name: str, tup: Any) -> list:
  """The arrays of a sequence, or the slices of an array along axis 0."""
  if not isinstance(tup, (list, tuple)):
    if isinstance(tup, (bool, int, float, complex, np.generic)):  # as numpy: not iterable
      raise TypeError(f"{name} needs a sequence of arrays or an array, got {type(tup).__name__}")
    (tup,) = ensure_arraylike(name, tup)
    return list(unstack(tup))
  if not tup:
    raise ValueError(f"{name} needs a non-empty sequence of arrays")
  return ensure_arraylike(name, *tup)


def vstack(tup: Any, dtype: Any = None) -> Any:  # noqa: A002
  """Arrays (made at least 2-D) joined along axis 0."""
  return concatenate([_atleast(x, 2, "lead") for x in _arrays("vstack", tup)], 0, dtype)


def hstack(tup: Any, dtype: Any = None) -> Any:  # noqa: A002
  """Arrays (made at least 1-D) joined along axis 1 (axis 0 for 1-D arrays)."""
  arrays = [_atleast(x, 1, "lead") for x in _arrays("hstack", tup)]
  return concatenate(arrays, 0 if len(shape(arrays[0])) == 1 else 1, dtype)


def dstack(tup: Any, dtype: Any = None) -> Any:  # noqa: A002
  """Arrays (made at least 3-D) joined along axis 2."""
  return concatenate([_atleast(x, 3, "3d") for x in _arrays("dstack", tup)], 2, dtype)


def column_stack(tup: Any) -> Any:
  """1-D arrays as columns (2-D arrays as they are) joined along axis 1."""
  arrays = [x if len(shape(x)) >= 2 else reshape(x, (-1, 1)) if shape(x) else reshape(x, (1, 1))
            for x in _arrays("column_stack", tup)]
  return concatenate(arrays, 1)


def block(arrays: Any) -> Any:
  """An array assembled from nested lists of blocks (the innermost lists join along the last
  axis)."""
  return _block(arrays)[0]


def _block(xs: Any) -> tuple[Any, int]:
  if isinstance(xs, tuple):
    raise ValueError(f"jax.numpy.block does not allow tuples, got {xs}")
  if not isinstance(xs, list):
    (x,) = ensure_arraylike("block", xs)
    return array(x, copy=False), 1
  if not xs:
    raise ValueError("jax.numpy.block does not allow empty list arguments")
  blocks, depths = zip(*(_block(x) for x in xs))
  if len(set(depths)) != 1:
    raise ValueError("Mismatched list depths in jax.numpy.block")
  rank = max(depths[0], *(len(shape(b)) for b in blocks))
  return concatenate([_atleast(b, rank, "lead") for b in blocks], -depths[0]), depths[0] + 1


# ----------------------------------------------------------------------------------------------
# Broadcasting


def broadcast_shapes(*shapes: int | Sequence[int]) -> tuple[int, ...]:
  """The shape that arrays of `shapes` broadcast to."""
  if not shapes:
    return ()
  shapes = [_shape_tuple(s) for s in shapes]
  try:
    return _broadcast_shapes("broadcast_shapes", *shapes)
  except ValueError:
    raise ValueError(f"Incompatible shapes for broadcasting: shapes={shapes}") from None


def broadcast_to(array: Any, shape: int | Sequence[int], *,  # noqa: A002  (numpy's names)
                 out_sharding: Any = None) -> Any:
  """`array` broadcast to `shape`."""
  (array,) = ensure_arraylike("broadcast_to", array)
  target = _shape_tuple(shape)
  a_shape = core.get_aval(array).shape
  if len(a_shape) > len(target) or _broadcast_or_none(a_shape, target) != target:
    raise ValueError(f"Incompatible shapes for broadcasting: {a_shape} and requested shape "
                     f"{target}")
  return apply_out_sharding(_broadcast_to(array, target), out_sharding, "jnp.broadcast_to")


def _broadcast_or_none(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...] | None:
  try:
    return _broadcast_shapes("broadcast_to", a, b)
  except ValueError:
    return None


def broadcast_arrays(*args: Any) -> list:
  """The arguments broadcast to their common shape."""
  args = ensure_arraylike("broadcast_arrays", *args)
  target = _broadcast_shapes("broadcast_arrays", *(shape(x) for x in args))
  return [_broadcast_to(array(x, copy=False), target) for x in args]


# ----------------------------------------------------------------------------------------------
# append, insert, delete


def append(arr: Any, values: Any, axis: int | None = None) -> Any:
  """`values` joined to the end of `arr` along `axis` (both flattened when None)."""
  arr, values = ensure_arraylike("append", arr, values)
  if axis is None:
    return concatenate([ravel(arr), ravel(values)], 0)
  return concatenate([arr, values], axis)


def _static_indices(name: str, obj: Any, size: int) -> np.ndarray:
  """Concrete indices (a slice, an int, an int sequence or a boolean mask) into an axis of
  `size`, as non-negative ints; IndexError when out of range."""
  if isinstance(obj, slice):
    return np.arange(size)[obj]
  obj = np.asarray(core.concrete_or_error(obj, f"{name}: the indices must be static"))
  if obj.dtype == np.bool_:
    if obj.shape != (size,):
      raise ValueError(f"{name}: boolean mask of shape {obj.shape} does not match an axis of "
                       f"size {size}")
    return np.flatnonzero(obj)
  if obj.size and not np.issubdtype(obj.dtype, np.integer):
    raise IndexError(f"{name}: indices must be integers, got dtype {obj.dtype}")
  obj = obj.astype(np.int64)
  bad = (obj < -size) | (obj >= size)
  if bad.any():
    raise IndexError(f"index {obj[bad].flat[0]} is out of bounds for axis with size {size}")
  return np.where(obj < 0, obj + size, obj)


def delete(arr: Any, obj: Any, axis: int | None = None, *,
           assume_unique_indices: bool = False) -> Any:
  """`arr` without the entries at static indices `obj` along `axis` (flattened when None)."""
  del assume_unique_indices
  (arr,) = ensure_arraylike("delete", arr)
  if axis is None:
    arr, axis = ravel(arr), 0
  axis = canonicalize_axis(axis, len(shape(arr)))
  size = shape(arr)[axis]
  keep = np.setdiff1d(np.arange(size), _static_indices("delete", obj, size))
  return _gather_static(arr, keep, axis)


def insert(arr: Any, obj: Any, values: Any, axis: int | None = None) -> Any:
  """`arr` with `values` inserted before static indices `obj` along `axis` (flattened when
  None); indices are clipped to the axis."""
  arr, _, values = ensure_arraylike("insert", arr, 0 if isinstance(obj, slice) else obj, values)
  if axis is None:
    arr, axis = ravel(arr), 0
  ndim = len(shape(arr))
  axis = canonicalize_axis(axis, ndim)
  size = shape(arr)[axis]
  if isinstance(obj, slice):
    indices = np.arange(size)[obj]
  else:
    indices = np.asarray(core.concrete_or_error(obj, "insert: the indices must be static"))
  if indices.ndim > 1:
    raise ValueError(f"jnp.insert(): obj must be a slice, a one-dimensional array, or a scalar; "
                     f"got {obj}")
  if indices.size and not np.issubdtype(indices.dtype, np.integer):
    raise ValueError(f"jnp.insert(): index array must be integer typed; got {obj}")
  values = _atleast(convert(values, dtype(arr), core.get_aval(arr).weak_type), ndim, "lead")
  if indices.size == 1:
    values = moveaxis(values, 0, axis) if indices.ndim == 0 else values
    indices = np.full(shape(values)[axis], indices.ravel()[0])
  (n_new,) = _broadcast_shapes("insert", indices.shape, (shape(values)[axis],))
  indices = np.clip(np.where(indices < 0, indices + size, indices), 0, size).astype(np.int64)
  values = _broadcast_to(values, shape(arr)[:axis] + (n_new,) + shape(arr)[axis + 1:])
  new_at = np.broadcast_to(indices, (n_new,)).copy()
  order = np.argsort(new_at, kind="stable")
  new_at[order] += np.arange(n_new)
  source = np.full(size + n_new, -1)
  source[new_at] = size + np.arange(n_new)
  source[source < 0] = np.arange(size)
  return _gather_static(concatenate([arr, values], axis), source, axis)


def trim_zeros(filt: Any, trim: str = "fb", axis: Any = None) -> Any:
  """`filt` without its leading ('f') and trailing ('b') all-zero slices (concrete `filt`)."""
  filt = asarray(*ensure_arraylike("trim_zeros", filt))
  if isinstance(filt, core.Tracer):
    raise core.ConcretizationTypeError(
        "trim_zeros: Error arose in the `filt` argument of trim_zeros(): it must be concrete")
  value = np.asarray(filt)
  ndim = value.ndim
  axes = range(ndim) if axis is None else [
      canonicalize_axis(a, ndim) for a in (axis if isinstance(axis, Sequence) else (axis,))]
  index = [slice(None)] * ndim
  trim = trim.lower()
  for ax in axes:
    mask = value.any(axis=tuple(i for i in range(ndim) if i != ax))
    if not mask.any():
      index[ax] = slice(0, 0)
      continue
    start = int(mask.argmax()) if "f" in trim else None
    stop = value.shape[ax] - int(mask[::-1].argmax()) if "b" in trim else None
    index[ax] = slice(start, stop)
  return filt[tuple(index)]
