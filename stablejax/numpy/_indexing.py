"""numpy indexing `x[idx]` and the indexed updates `x.at[idx]`, as JAX stages them.

Basic indices (ints, static slices, None, `...`, traced integer scalars) become lax.slice, rev
and dynamic_slice; integer-array and boolean-mask indices become one lax.gather, and indexed
updates one lax.scatter, built from the same description of the index (`_Indexer`).
"""
from __future__ import annotations

import operator
import warnings
from typing import Any, Callable, NamedTuple, Sequence

import numpy as np

from stablejax import core, dtypes, lax
from stablejax.errors import NonConcreteBooleanIndexError
from stablejax.indexing import Slice
from stablejax.lax.slicing import GatherDimensionNumbers, GatherScatterMode, ScatterDimensionNumbers
from stablejax.numpy import _math_arithmetic
from stablejax.numpy._axes import expand_axes, squeeze_if_needed
from stablejax.numpy._promotion import (
    broadcast_shapes, broadcast_to, convert, dtype, promote_dtypes, result_type, shape)
from stablejax.shape_poly import is_symbolic_dim, max_dim, min_dim, slice_count, slice_indices


_NON_TUPLE_SEQUENCE = ("Using a non-tuple sequence for multidimensional indexing is not "
                       "allowed; use `arr[array(seq)]` instead of `arr[seq]`. See "
                       "https://github.com/jax-ml/jax/issues/4564 for more information.")


# ----------------------------------------------------------------------------------------------
# Classifying index entries

def _static_int(i: Any) -> int | None:
  """A concrete integer scalar index as a Python int, else None."""
  if isinstance(i, (bool, np.bool_)):
    return None
  if isinstance(i, (int, np.integer)):
    return operator.index(i)
  if (isinstance(i, np.ndarray) or (core.is_concrete(i) and not dtypes.is_python_scalar(i))) \
      and np.ndim(i) == 0 and core.get_aval(i).dtype.kind in "iu":
    return int(np.asarray(i))
  return None


def _kind(i: Any) -> str:
  if i is None:
    return "none"
  if i is Ellipsis:
    return "ellipsis"
  if isinstance(i, slice):
    return "slice"
  if isinstance(i, Slice):
    return "dslice"
  if isinstance(i, (bool, np.bool_)):
    return "scalar_bool"
  if _static_int(i) is not None:
    return "int"
  if is_symbolic_dim(i):  # (as JAX: a dimension is not an index; `lax` ops take one)
    raise IndexError(f"only integers, slices (`:`), ellipsis (`...`), newaxis (`None`) and "
                     f"integer or boolean arrays are valid indices. Got {i}")
  if not (isinstance(i, (core.Tracer, np.ndarray)) or core.is_concrete(i)):
    raise TypeError(f"Indexer must be an integer, slice, None, Ellipsis, or an integer or "
                    f"boolean array; got {i!r} of type {type(i).__name__}")
  aval = core.get_aval(i)
  if aval.dtype == dtypes.bool_:
    return "scalar_bool" if aval.ndim == 0 else "bool"
  if aval.dtype.kind not in "iu":
    raise TypeError(f"Indexer must have integer or boolean type, got indexer with type "
                    f"{aval.dtype}")
  return "dynamic" if aval.ndim == 0 else "array"


def _entries(idx: Any) -> list[tuple[str, Any]]:
  """The index as a list of (kind, value), sequences inside a tuple made arrays."""
  if not isinstance(idx, tuple):
    if isinstance(idx, (list, tuple)):
      raise TypeError(_NON_TUPLE_SEQUENCE)
    idx = (idx,)
  out = []
  for i in idx:
    if isinstance(i, (list, tuple)):
      i = np.asarray(i) if len(i) else np.zeros((0,), dtypes.int32)
    out.append((_kind(i), i))
  return out


def _consumed(kind: str, value: Any) -> int:
  """How many axes of the operand an entry indexes."""
  if kind in ("none", "ellipsis", "scalar_bool"):
    return 0
  return np.ndim(value) if kind == "bool" else 1


def _is_advanced(kind: str) -> bool:
  return kind in ("int", "dynamic", "array", "bool", "scalar_bool")


def _advanced_contiguous(entries: list) -> bool:
  """Whether the advanced (array and integer) indices are adjacent in the index, which keeps
  their result axes in place (numpy's rule)."""
  where = [n for n, (k, _) in enumerate(entries) if _is_advanced(k) and k != "scalar_bool"]
  return not where or where[-1] - where[0] == len(where) - 1


def _expand_ellipsis(entries: list, ndim: int) -> list:
  n_ellipsis = sum(k == "ellipsis" for k, _ in entries)
  if n_ellipsis > 1:
    raise IndexError("an index can only have a single ellipsis ('...')")
  consumed = sum(_consumed(k, v) for k, v in entries)
  if consumed > ndim:
    raise IndexError(f"Too many indices: {ndim}-dimensional array indexed with {consumed} "
                     "regular indices.")
  fill = [("slice", slice(None))] * (ndim - consumed)
  if not n_ellipsis:
    return entries + fill
  at = [k for k, _ in entries].index("ellipsis")
  return entries[:at] + fill + entries[at + 1:]


def _expand_bools(x: Any, entries: list) -> tuple[Any, list, list[int]]:
  """Scalar booleans become a new size-1 operand axis indexed by [True] or [False]; boolean
  masks become integer arrays of the positions of their True elements (as JAX)."""
  out, new_axes, axis = [], [], 0
  for kind, i in entries:
    if kind == "scalar_bool":
      new_axes.append(axis)
      kind, i = "bool", np.array([bool(np.asarray(i))])
    if kind == "bool":
      out.extend(("array", a) for a in _mask_positions(i, shape(x), axis, new_axes))
    else:
      out.append((kind, i))
    axis += 1 if kind == "bool" else _consumed(kind, i)
  if new_axes:
    x = lax.expand_dims(x, new_axes)
  return x, out, new_axes


def _mask_positions(mask: Any, x_shape: Sequence[int], axis: int, new_axes: list[int]
                    ) -> tuple[np.ndarray, ...]:
  if isinstance(mask, core.Tracer):
    raise NonConcreteBooleanIndexError(
        f"Array boolean indices must be concrete; got {mask.aval.str_short()}")
  mask = np.asarray(mask)
  if mask.ndim == 1 and new_axes and new_axes[-1] == axis:
    return (np.nonzero(mask)[0].astype(np.int32),)
  shape_now = list(x_shape)
  for a in new_axes:
    shape_now.insert(a, 1)
  expected = tuple(shape_now[axis:axis + mask.ndim])
  if mask.shape != expected:
    raise IndexError(f"boolean index did not match shape of indexed array in index {axis}: "
                     f"got {mask.shape}, expected {expected}")
  return tuple(p.astype(np.int32) for p in np.nonzero(mask))


def _take_dslices(x: Any, entries: list) -> tuple[Any, list]:
  """Take each `ds` entry's elements on its axis first, leaving a full slice there: a unit
  stride takes a window (a negative start counts from the end; the window is clamped into the
  axis, as dynamic_slice), another stride the elements at start + k * stride, each clamped."""
  axis, out = 0, []
  for kind, i in entries:
    if kind == "dslice":
      x = _take_dslice(x, axis, i)
      kind, i = "slice", slice(None)
    out.append((kind, i))
    axis += _consumed(kind, i)
  return x, out


def _take_dslice(x: Any, axis: int, s: Slice) -> Any:
  n = shape(x)[axis]
  if s.is_dynamic_size:
    raise TypeError(f"indexing with a jax.ds of traced size is not supported: {s}")
  start = s.start if s.is_dynamic_start else operator.index(s.start)
  if s.stride == 1:
    if isinstance(start, int):
      start = start + n if start < 0 else start
    else:
      start = lax.select(lax.lt(start, lax.full_like(start, 0)),
                         lax.add(start, lax.full_like(start, n)), start)
    return lax.dynamic_slice_in_dim(x, start, s.size, axis)
  index_dtype = dtypes.int32 if isinstance(start, int) else dtype(start)
  positions = lax.add(lax.convert_element_type(start, index_dtype),
                      lax.mul(lax.iota(index_dtype, s.size),
                              lax.full((s.size,), s.stride, index_dtype)))
  positions = lax.clamp(lax.full_like(positions, 0), positions, lax.full_like(positions, n - 1))
  return rewriting_take(x, (slice(None),) * axis + (positions,))


def _prepare(x: Any, idx: Any, take_dslices: bool = True) -> tuple[Any, list, bool, list[int]]:
  """(operand with scalar-bool axes added, entries over its axes, whether the advanced
  indices are contiguous, the added axes)."""
  entries = _entries(idx)
  contiguous = _advanced_contiguous(entries)
  entries = _expand_ellipsis(entries, len(shape(x)))
  if any(k == "dslice" for k, _ in entries):
    if not take_dslices:
      raise NotImplementedError("indexed updates `x.at[...]` with a jax.ds index are not "
                                "supported; use lax.dynamic_update_slice")
    x, entries = _take_dslices(x, entries)
  x, entries, bool_axes = _expand_bools(x, entries)
  return x, entries, contiguous, bool_axes


# ----------------------------------------------------------------------------------------------
# x[idx]

def getitem(x: Any, idx: Any) -> Any:
  """`x[idx]`, as JAX computes it."""
  return rewriting_take(x, idx)


def rewriting_take(x: Any, idx: Any, *, indices_are_sorted: bool = False,
                   unique_indices: bool = False, mode: str | GatherScatterMode | None = None,
                   fill_value: Any = None) -> Any:
  """`x[idx]` with the gather options of `x.at[idx].get`."""
  x, entries, contiguous, _ = _prepare(x, idx)
  if mode is None and all(k != "array" for k, _ in entries):
    return _basic_index(x, entries)
  indexer = _gather_indexer(shape(x), entries, contiguous)
  if 0 in indexer.out_shape:
    return lax.full_like(x, 0, shape=indexer.out_shape)
  y = lax.gather(x, indexer.indices, indexer.dnums, indexer.slice_sizes,
                 indices_are_sorted=indices_are_sorted or indexer.unique,
                 unique_indices=unique_indices or indexer.unique, mode=mode,
                 fill_value=fill_value)
  return expand_axes(y, indexer.new_axes) if indexer.new_axes else y


def _slice_bounds(s: slice, size: int) -> tuple[int, int, int]:
  """(first, count, step) of a static slice on an axis of `size`."""
  for v in (s.start, s.stop, s.step):
    if v is not None and not is_symbolic_dim(v) and _static_int(v) is None:
      raise TypeError(f"slice bounds must be static integers or None, got {s} (use "
                      "lax.dynamic_slice for traced starts)")
  start, stop, step = slice_indices(s, size)
  return start, slice_count(start, stop, step), step


def _forward_slice(s: slice, size: int) -> tuple[int, int, int]:
  """(start, limit, step) of lax.slice taking the elements of `s` in increasing order, as JAX
  does; a negative step means the result is then reversed."""
  start, n, step = _slice_bounds(s, size)
  if step > 0:
    return start, max_dim(start, slice_indices(s, size)[1]), step
  return (start + (n - 1) * step, start + 1, step) if n else (0, 0, 1)


def _clamped_int(i: Any, axis: int, size: int) -> int:
  """A static integer index, negative ones from the end, clamped into the axis (as JAX)."""
  if size == 0:
    raise IndexError(f"index is out of bounds for axis {axis} with size 0")
  i = _static_int(i)
  return min_dim(max_dim(i + size if i < 0 else i, 0), size - 1)


def _basic_index(x: Any, entries: list) -> Any:
  """Static slices (reversed for negative steps), then a dynamic_slice for traced integers."""
  x_shape = shape(x)
  starts, limits, strides, rev_axes, squeezed, new_axes, dynamic = [], [], [], [], [], [], {}
  out_pos = 0
  for kind, i in entries:
    axis = len(starts)
    if kind == "none":
      new_axes.append(out_pos)
      out_pos += 1
      continue
    lo, hi, step = 0, x_shape[axis], 1
    if kind == "slice":
      lo, hi, step = _forward_slice(i, x_shape[axis])
      if step < 0:
        rev_axes.append(axis)
        step = -step
      out_pos += 1
    elif kind == "int":
      lo = _clamped_int(i, axis, x_shape[axis])
      hi = lo + 1
      squeezed.append(axis)
    else:
      if x_shape[axis] == 0:
        raise IndexError(f"index is out of bounds for axis {axis} with size 0")
      dynamic[axis] = i
      squeezed.append(axis)
    starts.append(lo)
    limits.append(hi)
    strides.append(step)
  if (starts, limits) != ([0] * len(x_shape), list(x_shape)) or any(s != 1 for s in strides):
    x = lax.slice(x, starts, limits, None if all(s == 1 for s in strides) else strides)
  if rev_axes:
    x = lax.rev(x, rev_axes)
  if dynamic:
    x = _dynamic_slice_ints(x, dynamic)
  return _finish(x, squeezed, new_axes)


def _dynamic_slice_ints(x: Any, dynamic: dict[int, Any]) -> Any:
  """Take index `dynamic[axis]` (a traced integer) on those axes, keeping them as size 1."""
  x_shape = shape(x)
  traced = [i for i in dynamic.values() if isinstance(i, core.Tracer)]
  to_int32 = len({core.get_aval(i).dtype for i in dynamic.values()}) > 1 or len(traced) > 1
  starts = [(convert(dynamic[a], dtypes.int32) if to_int32 else dynamic[a]) if a in dynamic
            else 0 for a in range(len(x_shape))]
  sizes = [1 if a in dynamic else n for a, n in enumerate(x_shape)]
  return lax.dynamic_slice(x, starts, sizes)


def _finish(x: Any, squeezed: list[int], new_axes: list[int]) -> Any:
  x = squeeze_if_needed(x, squeezed)
  return expand_axes(x, new_axes) if new_axes else x


# ----------------------------------------------------------------------------------------------
# The gather/scatter description of an index

class _Indexer(NamedTuple):
  indices: Any                  # int32 [*batch, number of indexed axes]
  dnums: GatherDimensionNumbers
  slice_sizes: tuple[int, ...]
  y_shape: tuple[int, ...]      # the gather's result (no None axes)
  out_shape: tuple[int, ...]    # the result of x[idx]
  new_axes: tuple[int, ...]     # the None axes in out_shape
  unique: bool                  # no integer arrays: the indices are sorted and unique


def _index_vector_part(i: Any, size: int) -> Any:
  """An integer index as int32 with negative indices counted from the end of the axis."""
  if isinstance(i, (int, np.integer, np.ndarray)):
    i = np.asarray(i).astype(np.int64)
    if not is_symbolic_dim(size):
      return np.where(i < 0, i + size, i).astype(np.int32)
    if (i >= 0).all():
      return i.astype(np.int32)
    i = i.astype(np.int32)  # negative indices into a symbolic axis: counted from its end below
  unsigned = core.get_aval(i).dtype.kind == "u"
  i = convert(i, dtypes.int32)
  if unsigned:  # never counted from the end, even when int32 wraps it negative (as JAX)
    return i
  size = lax.dimension_as_scalar(size, np.int32)
  return lax.select_n(lax.lt(i, np.int32(0)), i, lax.add(i, size))


def _gather_order(x_shape: Sequence[int], entries: list, contiguous: bool
                  ) -> tuple[list, list]:
  """(the output's items in order: `("none",)`-like new axes, slices and one `("group",)` of
  the advanced indices, in place if contiguous, else first (numpy's rule); the advanced
  indices `("adv", axis, index)`)."""
  items, axis = [], 0
  for kind, i in entries:
    if kind == "none":
      items.append(("none", None, None))
      continue
    if kind in ("int", "dynamic") and x_shape[axis] == 0:
      raise IndexError(f"index is out of bounds for axis {axis} with size 0")
    items.append((kind if kind == "slice" else "adv", axis, i))
    axis += 1
  advanced = [it for it in items if it[0] == "adv"]
  basic = [it for it in items if it[0] != "adv"]
  first = next((n for n, it in enumerate(items) if it[0] == "adv"), 0)
  if contiguous:
    order = [it for it in items[:first] if it[0] != "adv"] + [("group",)] + \
        [it for it in items[first:] if it[0] != "adv"]
  else:
    order = [("group",)] + basic
  return order, advanced


def _gather_indexer(x_shape: Sequence[int], entries: list, contiguous: bool) -> _Indexer:
  """Slices are windows (offset axes) or, with steps, index arrays of their own batch axis;
  the advanced indices broadcast together to one group of batch axes (`_gather_order`)."""
  order, advanced = _gather_order(x_shape, entries, contiguous)
  group_shape = broadcast_shapes("indexing", *(np.shape(i) if not isinstance(i, core.Tracer)
                                                else i.aval.shape for _, _, i in advanced))
  parts, batch, offset_dims, collapsed, new_axes, y_shape, out_shape = [], [], [], [], [], [], []
  slice_sizes = list(x_shape)
  for item in order:
    if item[0] == "none":
      new_axes.append(len(out_shape))
      out_shape.append(1)
      continue
    if item[0] == "group":
      b0 = len(batch)
      batch.extend(group_shape)
      for _, a, i in advanced:
        nd = len(core.get_aval(i).shape) if isinstance(i, core.Tracer) else np.ndim(i)
        parts.append((a, _index_vector_part(i, x_shape[a]),
                      tuple(range(b0 + len(group_shape) - nd, b0 + len(group_shape)))))
        collapsed.append(a)
        slice_sizes[a] = 1
      y_shape.extend(group_shape)
      out_shape.extend(group_shape)
      continue
    _, a, s = item
    start, n, step = _slice_bounds(s, x_shape[a])
    if step == 1 or n <= 1:
      offset_dims.append(len(y_shape))
      slice_sizes[a] = n
      if n != x_shape[a]:
        parts.append((a, np.int32(start if n else 0), ()))
    else:
      parts.append((a, np.arange(start, start + n * step, step, dtype=np.int32), (len(batch),)))
      batch.append(n)
      collapsed.append(a)
      slice_sizes[a] = 1
    y_shape.append(n)
    out_shape.append(n)
  indices = _stack_index_parts(parts, tuple(batch))
  dnums = GatherDimensionNumbers(tuple(offset_dims), tuple(sorted(collapsed)),
                                 tuple(a for a, _, _ in parts))
  return _Indexer(indices, dnums, tuple(slice_sizes), tuple(y_shape), tuple(out_shape),
                  tuple(new_axes), not advanced or all(k != "array" for k, _ in entries))


def _stack_index_parts(parts: list, batch: tuple[int, ...]) -> Any:
  """The index vectors: each part broadcast over the batch axes, stacked on a last axis."""
  if not parts:
    return np.zeros(batch + (0,), np.int32)
  columns = [lax.broadcast_in_dim(p, batch + (1,), dims) for _, p, dims in parts]
  return lax.concatenate(columns, len(batch)) if len(columns) > 1 else columns[0]


# ----------------------------------------------------------------------------------------------
# x.at[idx]

def scatter_update(x: Any, idx: Any, values: Any, scatter: Callable, *,
                   indices_are_sorted: bool = False, unique_indices: bool = False,
                   mode: str | GatherScatterMode | None = None) -> Any:
  """`x` with `values` combined into `x[idx]` by the lax scatter function `scatter`, computed
  in the dtype both promote to and cast back to x's type (as JAX does: `int_array.at[i].mul(0.5)`
  halves, then truncates)."""
  _warn_if_unsafe(values, x)
  aval = core.get_aval(x)
  operand, entries, contiguous, bool_axes = _prepare(x, idx, take_dslices=False)
  indexer = _gather_indexer(shape(operand), entries, contiguous)
  if 0 in indexer.y_shape:
    return x
  operand, values = promote_dtypes(operand, values)
  updates = squeeze_if_needed(broadcast_to(values, indexer.out_shape), indexer.new_axes)
  dnums = ScatterDimensionNumbers(indexer.dnums.offset_dims, indexer.dnums.collapsed_slice_dims,
                                  indexer.dnums.start_index_map)
  out = scatter(operand, indexer.indices, updates, dnums,
                indices_are_sorted=indices_are_sorted or indexer.unique,
                unique_indices=unique_indices or indexer.unique, mode=mode)
  return convert(squeeze_if_needed(out, bool_axes), aval.dtype, aval.weak_type)


class _IndexUpdateRef:
  """`x.at[idx]`: the indexed update methods (set, add, ...) and get, as in JAX."""
  __slots__ = ("array", "index")

  def __init__(self, array: Any, index: Any):
    self.array = array
    self.index = index

  def __repr__(self) -> str:
    return f"_IndexUpdateRef({self.array!r}, {self.index!r})"

  def get(self, *, indices_are_sorted: bool = False, unique_indices: bool = False,
          mode: str | GatherScatterMode | None = None, fill_value: Any = None) -> Any:
    """`x[idx]`, with gather's options."""
    return rewriting_take(self.array, self.index, indices_are_sorted=indices_are_sorted,
                          unique_indices=unique_indices, mode=mode, fill_value=fill_value)

  def _update(self, values: Any, scatter: Callable, **kwargs: Any) -> Any:
    return scatter_update(self.array, self.index, values, scatter, **kwargs)

  def set(self, values: Any, **kwargs: Any) -> Any:
    """`x[idx] = values`."""
    return self._update(values, lax.scatter, **kwargs)

  def add(self, values: Any, **kwargs: Any) -> Any:
    """`x[idx] += values`."""
    return self._update(values, lax.scatter_add, **kwargs)

  def subtract(self, values: Any, **kwargs: Any) -> Any:
    """`x[idx] -= values`."""
    return self._update(values, _scatter_sub, **kwargs)

  def multiply(self, values: Any, **kwargs: Any) -> Any:
    """`x[idx] *= values`."""
    return self._update(values, lax.scatter_mul, **kwargs)

  mul = multiply

  def divide(self, values: Any, **kwargs: Any) -> Any:
    """`x[idx] /= values`."""
    ones = lax.full_like(self.array, 1)
    return _math_arithmetic.true_divide(self.array, scatter_update(ones, self.index, values,
                                                                   lax.scatter_mul, **kwargs))

  def power(self, values: Any, **kwargs: Any) -> Any:
    """`x[idx] **= values`."""
    ones = lax.full_like(self.array, 1)
    return _math_arithmetic.power(self.array, scatter_update(ones, self.index, values,
                                                             lax.scatter_mul, **kwargs))

  def min(self, values: Any, **kwargs: Any) -> Any:  # noqa: A003
    """`x[idx] = minimum(x[idx], values)`."""
    return self._update(values, lax.scatter_min, **kwargs)

  def max(self, values: Any, **kwargs: Any) -> Any:  # noqa: A003
    """`x[idx] = maximum(x[idx], values)`."""
    return self._update(values, lax.scatter_max, **kwargs)

  def apply(self, func: Callable[[Any], Any], **kwargs: Any) -> Any:
    """`x[idx] = func(x[idx])`, `func` applied once per occurrence of a repeated index (as
    XLA's scatter and JAX)."""
    def scatter_apply(operand: Any, indices: Any, updates: Any, dnums: Any, **kw: Any) -> Any:
      return lax.scatter_apply(operand, indices, func, dnums,
                               update_shape=core.get_aval(updates).shape, **kw)
    return self._update(np.zeros((), dtype(self.array)), scatter_apply, **kwargs)


def _warn_if_unsafe(values: Any, x: Any) -> None:
  """A FutureWarning (as JAX's) where promoting `values` with `x` would change x's dtype."""
  if result_type(values, x)[0] != dtype(x):
    warnings.warn(f"scatter inputs have incompatible types: cannot safely cast value from "
                  f"dtype={dtype(values)} to dtype={dtype(x)} with standard dtype promotion. "
                  "In future JAX releases this will result in an error.", FutureWarning,
                  stacklevel=4)


def _scatter_sub(operand: Any, indices: Any, updates: Any, dnums: Any, **kwargs: Any) -> Any:
  return lax.scatter_add(operand, indices, lax.neg(updates), dnums, **kwargs)


class _IndexUpdateHelper:
  """The `x.at` property: `x.at[idx]` is an `_IndexUpdateRef`."""
  __slots__ = ("array",)

  def __init__(self, array: Any):
    self.array = array

  def __getitem__(self, index: Any) -> _IndexUpdateRef:
    return _IndexUpdateRef(self.array, index)

  def __repr__(self) -> str:
    return f"_IndexUpdateHelper({self.array!r})"

