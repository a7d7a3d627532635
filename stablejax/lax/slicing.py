"""Gather and scatter: XLA's general indexed reads and writes, with JAX's dimension numbers and
out-of-bounds modes, and the `*_in_dim` slicing helpers.

Each primitive sits with its rules: abstract eval and numpy reference (through `primitive_kit`),
JVP, transpose (gather and scatter-add are linear) and batching (through batching dimensions).
Lowering rules live in `stablejax.lowering.rules.slicing`.
"""
from __future__ import annotations

import enum
import functools
from typing import Any, Callable, NamedTuple, Sequence

import numpy as np

from stablejax import core, dtypes, lax
from stablejax.core import ShapedArray
from stablejax.interpreters import ad, batching, flops
from stablejax.interpreters.batching import not_mapped
from stablejax.lax.primitive_kit import (DTypeClass, any_dtype, check_dtype, def_reference,
                                         full_like, numeric_dtypes, standard_primitive)
from stablejax.shape_poly import canonicalize_dim, min_dim
from stablejax.util import canonicalize_axis

__all__ = [
    "dynamic_index_in_dim", "dynamic_slice_in_dim", "dynamic_update_index_in_dim",
    "dynamic_update_slice_in_dim", "gather", "gather_p", "GatherDimensionNumbers",
    "GatherScatterMode", "index_in_dim", "index_take", "scatter", "scatter_add", "scatter_add_p",
    "scatter_max", "scatter_max_p", "scatter_min", "scatter_min_p", "scatter_mul", "scatter_mul_p",
    "scatter_p", "ScatterDimensionNumbers", "scatter_apply", "scatter_sub", "scatter_sub_p",
]


class GatherScatterMode(enum.Enum):
  """What gather and scatter do with out-of-bounds indices: clamp them (CLIP), return the fill
  value / drop the update (FILL_OR_DROP), or assume there are none (PROMISE_IN_BOUNDS)."""
  CLIP = enum.auto()
  FILL_OR_DROP = enum.auto()
  PROMISE_IN_BOUNDS = enum.auto()

  def __repr__(self) -> str:
    return f"GatherScatterMode.{self.name}"

  @staticmethod
  def from_any(s: str | GatherScatterMode | None) -> GatherScatterMode:
    """The mode named by `s` ("clip", "fill", "drop", "promise_in_bounds"; None is fill)."""
    if isinstance(s, GatherScatterMode):
      return s
    modes = {"clip": GatherScatterMode.CLIP, None: GatherScatterMode.FILL_OR_DROP,
             "fill": GatherScatterMode.FILL_OR_DROP, "drop": GatherScatterMode.FILL_OR_DROP,
             "promise_in_bounds": GatherScatterMode.PROMISE_IN_BOUNDS}
    if not isinstance(s, (str, type(None))) or s not in modes:
      raise ValueError(f'Unknown gather mode "{s}"')
    return modes[s]


class GatherDimensionNumbers(NamedTuple):
  """How gather maps index vectors to operand windows (the last axis of the indices holds the
  index vectors)."""
  offset_dims: tuple[int, ...]
  collapsed_slice_dims: tuple[int, ...]
  start_index_map: tuple[int, ...]
  operand_batching_dims: tuple[int, ...] = ()
  start_indices_batching_dims: tuple[int, ...] = ()


class ScatterDimensionNumbers(NamedTuple):
  """How scatter maps index vectors to operand windows written by the updates."""
  update_window_dims: tuple[int, ...]
  inserted_window_dims: tuple[int, ...]
  scatter_dims_to_operand_dims: tuple[int, ...]
  operand_batching_dims: tuple[int, ...] = ()
  scatter_indices_batching_dims: tuple[int, ...] = ()


def _tuples(dnums: NamedTuple, cls: type) -> NamedTuple:
  """Dimension numbers with every field a tuple of Python ints (hashable params)."""
  if not isinstance(dnums, tuple):
    raise TypeError(f"dimension_numbers must be a {cls.__name__}, got {dnums!r}")
  return cls(*(tuple(int(d) for d in field) for field in dnums))


def _fill_value_default(dtype: np.dtype) -> Any:
  """The value FILL_OR_DROP gathers return out of bounds when none is given (as JAX)."""
  if dtypes.kind(dtype) in "fc":
    return np.nan
  if dtype.kind == "i":
    return int(np.iinfo(dtype).min)
  if dtype.kind == "u":
    return int(np.iinfo(dtype).max)
  return True


def _check_sorted_axes(name: str, what: str, dims: Sequence[int], bound: int) -> None:
  if list(dims) != sorted(set(dims)) or any(not 0 <= d < bound for d in dims):
    raise TypeError(f"{name}: {what} {tuple(dims)} must be sorted distinct axes in [0, {bound})")


def _check_indices_aval(name: str, indices: ShapedArray, n_index: int) -> None:
  if indices.dtype.kind not in "iu":
    raise TypeError(f"{name}: indices must have an integer type, got {indices.str_short()}")
  if indices.ndim < 1 or indices.shape[-1] != n_index:
    raise TypeError(f"{name}: the last axis of the indices {indices.str_short()} holds the index "
                    f"vectors and must have size {n_index}, the number of indexed operand axes")


def _check_batching(name: str, operand: ShapedArray, indices: ShapedArray,
                    operand_dims: Sequence[int], index_dims: Sequence[int]) -> None:
  if len(operand_dims) != len(index_dims):
    raise TypeError(f"{name}: operand_batching_dims {tuple(operand_dims)} and the indices' "
                    f"batching dims {tuple(index_dims)} must have the same length")
  if any(not 0 <= d < indices.ndim - 1 for d in index_dims):
    raise TypeError(f"{name}: the indices' batching dims {tuple(index_dims)} must be axes of the "
                    f"indices {indices.str_short()} other than the last")
  if any(operand.shape[o] != indices.shape[i] for o, i in zip(operand_dims, index_dims)):
    raise TypeError(f"{name}: operand batching dims {tuple(operand_dims)} of "
                    f"{operand.str_short()} and index batching dims {tuple(index_dims)} of "
                    f"{indices.str_short()} must have equal sizes")


# ----------------------------------------------------------------------------------------------
# gather

def gather(operand: Any, start_indices: Any, dimension_numbers: GatherDimensionNumbers,
           slice_sizes: Sequence[int], *, unique_indices: bool = False,
           indices_are_sorted: bool = False, mode: str | GatherScatterMode | None = None,
           fill_value: Any = None) -> Any:
  """XLA's gather: for each index vector in `start_indices` (last axis), the window of
  `slice_sizes` of `operand` starting there."""
  mode = GatherScatterMode.PROMISE_IN_BOUNDS if mode is None else GatherScatterMode.from_any(mode)
  if mode is GatherScatterMode.FILL_OR_DROP:
    dtype = core.get_aval(operand).dtype
    fill_value = _fill_value_default(dtype) if fill_value is None else _python_scalar(fill_value)
  else:
    fill_value = None
  return gather_p.bind(operand, start_indices,
                       dimension_numbers=_tuples(dimension_numbers, GatherDimensionNumbers),
                       slice_sizes=tuple(canonicalize_dim(s, "slice size") for s in slice_sizes),
                       indices_are_sorted=bool(indices_are_sorted),
                       unique_indices=bool(unique_indices), mode=mode, fill_value=fill_value)


def _python_scalar(x: Any) -> Any:
  """A concrete scalar as a hashable Python scalar."""
  return np.asarray(core.concrete_or_error(x, "gather fill_value")).item()


def _gather_shape(operand: ShapedArray, indices: ShapedArray, dnums: GatherDimensionNumbers,
                  slice_sizes: Sequence[int]) -> tuple[int, ...]:
  name = "gather"
  _check_indices_aval(name, indices, len(dnums.start_index_map))
  if len(slice_sizes) != operand.ndim:
    raise TypeError(f"gather: slice_sizes {tuple(slice_sizes)} must have one size per axis of "
                    f"the operand {operand.str_short()}")
  # (not checked for empty indices, as in JAX: a vmapped gather of an empty batch from an
  # empty axis takes 1 of 0 elements, and gathers nothing)
  if 0 not in indices.shape and any(not 0 <= s <= n
                                    for s, n in zip(slice_sizes, operand.shape)):
    raise TypeError(f"gather: slice_sizes {tuple(slice_sizes)} must lie between 0 and the "
                    f"operand's shape {operand.shape}")
  removed = dnums.collapsed_slice_dims + dnums.operand_batching_dims
  _check_sorted_axes(name, "collapsed_slice_dims", dnums.collapsed_slice_dims, operand.ndim)
  _check_sorted_axes(name, "operand_batching_dims", dnums.operand_batching_dims, operand.ndim)
  if len(set(removed)) != len(removed) or any(slice_sizes[d] > 1 for d in removed):
    raise TypeError(f"gather: collapsed_slice_dims {dnums.collapsed_slice_dims} and "
                    f"operand_batching_dims {dnums.operand_batching_dims} must be disjoint axes "
                    f"with slice size at most 1 (slice_sizes {tuple(slice_sizes)})")
  if any(not 0 <= d < operand.ndim for d in dnums.start_index_map) or \
      len(set(dnums.start_index_map)) != len(dnums.start_index_map) or \
      set(dnums.start_index_map) & set(dnums.operand_batching_dims):
    raise TypeError(f"gather: start_index_map {dnums.start_index_map} must be distinct operand "
                    f"axes, not batching axes, of {operand.str_short()}")
  _check_batching(name, operand, indices, dnums.operand_batching_dims,
                  dnums.start_indices_batching_dims)
  window = [s for d, s in enumerate(slice_sizes) if d not in removed]
  out_rank = indices.ndim - 1 + len(window)
  _check_sorted_axes(name, "offset_dims", dnums.offset_dims, max(out_rank, 1))
  if len(dnums.offset_dims) != len(window):
    raise TypeError(f"gather: offset_dims {dnums.offset_dims} must have one entry per operand "
                    f"axis that is neither collapsed nor batching ({len(window)} of them)")
  return _interleave(out_rank, dnums.offset_dims, window, indices.shape[:-1])


def _interleave(rank: int, at: Sequence[int], placed: Sequence[int], rest: Sequence[int]
                ) -> tuple[int, ...]:
  """A shape of `rank` with `placed` at positions `at` and `rest` in order elsewhere."""
  placed, rest = iter(placed), iter(rest)
  return tuple(next(placed) if i in at else next(rest) for i in range(rank))


def _gather_abstract_eval(operand: ShapedArray, indices: ShapedArray, *, dimension_numbers,
                          slice_sizes, indices_are_sorted, unique_indices, mode, fill_value):
  shape = _gather_shape(operand, indices, dimension_numbers, slice_sizes)
  return ShapedArray(shape, operand.dtype, operand.weak_type)


def _gather_jvp(primals, tangents, *, fill_value, **params):
  operand, indices = primals
  out = gather_p.bind(operand, indices, fill_value=fill_value, **params)
  t = tangents[0]
  if type(t) is ad.Zero:
    return out, ad.Zero.from_primal_value(out)
  zero_fill = None if fill_value is None else 0
  return out, gather_p.bind(t, indices, fill_value=zero_fill, **params)


def _scatter_dnums_of(dnums: GatherDimensionNumbers) -> ScatterDimensionNumbers:
  return ScatterDimensionNumbers(dnums.offset_dims, dnums.collapsed_slice_dims,
                                 dnums.start_index_map, dnums.operand_batching_dims,
                                 dnums.start_indices_batching_dims)


def _gather_dnums_of(dnums: ScatterDimensionNumbers) -> GatherDimensionNumbers:
  return GatherDimensionNumbers(dnums.update_window_dims, dnums.inserted_window_dims,
                                dnums.scatter_dims_to_operand_dims, dnums.operand_batching_dims,
                                dnums.scatter_indices_batching_dims)


def _gather_transpose(ct, operand, indices, *, dimension_numbers, slice_sizes,
                      indices_are_sorted, unique_indices, mode, fill_value):
  if ad.is_undefined_primal(indices):
    raise TypeError("gather is not linear in its indices")
  aval = operand.aval
  zeros = lax.full(aval.shape, 0, aval.dtype)
  return [scatter_add_p.bind(zeros, indices, ct,
                             dimension_numbers=_scatter_dnums_of(dimension_numbers),
                             indices_are_sorted=indices_are_sorted,
                             unique_indices=unique_indices, mode=mode), None]


def _shift(dims: Sequence[int], by: int = 1) -> tuple[int, ...]:
  return tuple(d + by for d in dims)


def _gather_batcher(axis_data, args, dims, *, dimension_numbers, slice_sizes, **params):
  """A batched operand gets a leading offset axis of full size; batched indices a leading batch
  axis; both batched become a batching dimension pair."""
  (operand, indices), (od, idx_d) = args, dims
  dn = dimension_numbers
  size = axis_data.size
  if idx_d is not_mapped:
    operand = batching.moveaxis(operand, od, 0)
    dn = GatherDimensionNumbers((0,) + _shift(dn.offset_dims), _shift(dn.collapsed_slice_dims),
                                _shift(dn.start_index_map), _shift(dn.operand_batching_dims),
                                dn.start_indices_batching_dims)
    return gather_p.bind(operand, indices, dimension_numbers=dn,
                         slice_sizes=(size,) + tuple(slice_sizes), **params), 0
  indices = batching.moveaxis(indices, idx_d, 0)
  if od is not_mapped:
    dn = dn._replace(offset_dims=_shift(dn.offset_dims),
                     start_indices_batching_dims=_shift(dn.start_indices_batching_dims))
    return gather_p.bind(operand, indices, dimension_numbers=dn, slice_sizes=slice_sizes,
                         **params), 0
  operand = batching.moveaxis(operand, od, 0)
  dn = GatherDimensionNumbers(_shift(dn.offset_dims), _shift(dn.collapsed_slice_dims),
                              _shift(dn.start_index_map), (0,) + _shift(dn.operand_batching_dims),
                              (0,) + _shift(dn.start_indices_batching_dims))
  return gather_p.bind(operand, indices, dimension_numbers=dn,  # (an empty batch: size 0)
                       slice_sizes=(min_dim(size, 1),) + tuple(slice_sizes), **params), 0


def _window_starts(operand_shape: Sequence[int], index: np.ndarray, batch: tuple,
                   index_map: Sequence[int], operand_bdims: Sequence[int],
                   index_bdims: Sequence[int]) -> list[int]:
  """The start of one window in the operand: the index vector on the mapped axes, the batch
  position on the batching axes, 0 elsewhere."""
  start = [0] * len(operand_shape)
  for k, d in enumerate(index_map):
    start[d] = int(index[k])
  for o, i in zip(operand_bdims, index_bdims):
    start[o] = batch[i]
  return start


def _in_bounds(start: Sequence[int], sizes: Sequence[int], shape: Sequence[int],
               axes: Sequence[int]) -> bool:
  return all(0 <= start[d] <= shape[d] - sizes[d] for d in axes)


def _clamp(start: Sequence[int], sizes: Sequence[int], shape: Sequence[int]) -> list[int]:
  return [int(np.clip(s, 0, n - k)) for s, k, n in zip(start, sizes, shape)]


def _window(start: Sequence[int], sizes: Sequence[int]) -> tuple:
  return tuple(slice(s, s + k) for s, k in zip(start, sizes))


def _gather_reference(operand: np.ndarray, indices: np.ndarray, *, dimension_numbers,
                      slice_sizes, mode, fill_value, **_) -> np.ndarray:
  dn = dimension_numbers
  removed = dn.collapsed_slice_dims + dn.operand_batching_dims
  window = [s for d, s in enumerate(slice_sizes) if d not in removed]
  batch_shape = indices.shape[:-1]
  out = np.empty(batch_shape + tuple(window), operand.dtype)
  for b in np.ndindex(*batch_shape):
    start = _window_starts(operand.shape, indices[b], b, dn.start_index_map,
                           dn.operand_batching_dims, dn.start_indices_batching_dims)
    if mode is GatherScatterMode.FILL_OR_DROP and not _in_bounds(
        start, slice_sizes, operand.shape, dn.start_index_map):
      out[b] = fill_value
      continue
    out[b] = operand[_window(_clamp(start, slice_sizes, operand.shape), slice_sizes)].reshape(
        window)
  nb = len(batch_shape)
  return np.moveaxis(out, list(range(nb, nb + len(window))), list(dn.offset_dims))


gather_p = standard_primitive("gather", _gather_abstract_eval)
def_reference(gather_p, _gather_reference)
ad.primitive_jvps[gather_p] = _gather_jvp
ad.primitive_transposes[gather_p] = ad.zero_ct_aware(_gather_transpose)
batching.fancy_primitive_batchers[gather_p] = _gather_batcher


# ----------------------------------------------------------------------------------------------
# scatter, scatter-add, scatter-mul, scatter-min, scatter-max

def scatter_window_sizes(operand_shape: Sequence[int], updates_shape: Sequence[int],
                          dnums: ScatterDimensionNumbers) -> tuple[int, ...]:
  """The operand-shaped size of each update window (1 on inserted and batching axes, 0 where
  such an axis is empty)."""
  window = iter(updates_shape[d] for d in dnums.update_window_dims)
  removed = dnums.inserted_window_dims + dnums.operand_batching_dims
  return tuple(min_dim(n, 1) if d in removed else next(window, 0)
               for d, n in enumerate(operand_shape))


def _scatter_abstract_eval(name: str, accepted: DTypeClass) -> Callable:
  def abstract_eval(operand: ShapedArray, indices: ShapedArray, updates: ShapedArray, *,
                    dimension_numbers, indices_are_sorted, unique_indices, mode):
    dn = dimension_numbers
    check_dtype(name, accepted, operand)
    _check_indices_aval(name, indices, len(dn.scatter_dims_to_operand_dims))
    if operand.dtype != updates.dtype:
      raise TypeError(f"{name}: operand and updates must have one dtype, got "
                      f"{operand.str_short()} and {updates.str_short()}")
    _check_sorted_axes(name, "update_window_dims", dn.update_window_dims, max(updates.ndim, 1))
    _check_sorted_axes(name, "inserted_window_dims", dn.inserted_window_dims, operand.ndim)
    _check_sorted_axes(name, "operand_batching_dims", dn.operand_batching_dims, operand.ndim)
    removed = dn.inserted_window_dims + dn.operand_batching_dims
    if len(dn.update_window_dims) + len(set(removed)) != operand.ndim or \
        len(set(removed)) != len(removed):
      raise TypeError(f"{name}: update_window_dims {dn.update_window_dims}, inserted_window_dims "
                      f"{dn.inserted_window_dims} and operand_batching_dims "
                      f"{dn.operand_batching_dims} must account for each axis of the operand "
                      f"{operand.str_short()} once")
    if any(not 0 <= d < operand.ndim for d in dn.scatter_dims_to_operand_dims) or \
        set(dn.scatter_dims_to_operand_dims) & set(dn.operand_batching_dims):
      raise TypeError(f"{name}: scatter_dims_to_operand_dims {dn.scatter_dims_to_operand_dims} "
                      f"must be operand axes, not batching axes, of {operand.str_short()}")
    _check_batching(name, operand, indices, dn.operand_batching_dims,
                    dn.scatter_indices_batching_dims)
    scatter_shape = tuple(n for d, n in enumerate(updates.shape)
                          if d not in dn.update_window_dims)
    sizes = scatter_window_sizes(operand.shape, updates.shape, dn)
    if scatter_shape != indices.shape[:-1] or any(s > n for s, n in zip(sizes, operand.shape)):
      raise TypeError(f"{name}: updates {updates.str_short()} must have the indices' batch "
                      f"shape {indices.shape[:-1]} on their non-window axes, and windows that "
                      f"fit in the operand {operand.str_short()}")
    return operand
  return abstract_eval


def _apply_updates(combine: Callable) -> Callable:
  """The numpy reference of a scatter combining old and new values with `combine`: windows
  are applied in order; out-of-bounds ones are clamped (CLIP) or skipped (XLA's semantics)."""
  def reference(operand: np.ndarray, indices: np.ndarray, updates: np.ndarray, *,
                dimension_numbers, mode, **_) -> np.ndarray:
    dn = dimension_numbers
    sizes = scatter_window_sizes(operand.shape, updates.shape, dn)
    nw = len(dn.update_window_dims)
    moved = np.moveaxis(updates, list(dn.update_window_dims),
                        list(range(updates.ndim - nw, updates.ndim)))
    out = operand.copy()
    for b in np.ndindex(*indices.shape[:-1]):
      start = _window_starts(operand.shape, indices[b], b, dn.scatter_dims_to_operand_dims,
                             dn.operand_batching_dims, dn.scatter_indices_batching_dims)
      if mode is GatherScatterMode.CLIP:
        start = _clamp(start, sizes, operand.shape)
      elif not _in_bounds(start, sizes, operand.shape, range(operand.ndim)):
        continue
      region = _window(start, sizes)
      out[region] = combine(out[region], moved[b].reshape(sizes))
    return out
  return reference


def _bind_scatter(prim: core.Primitive, operand: Any, scatter_indices: Any, updates: Any,
                  dimension_numbers: ScatterDimensionNumbers, indices_are_sorted: bool,
                  unique_indices: bool, mode: str | GatherScatterMode | None) -> Any:
  return prim.bind(operand, scatter_indices, updates,
                   dimension_numbers=_tuples(dimension_numbers, ScatterDimensionNumbers),
                   indices_are_sorted=bool(indices_are_sorted),
                   unique_indices=bool(unique_indices), mode=GatherScatterMode.from_any(mode))


def _scatter_batcher(prim: core.Primitive, axis_data, args, dims, *, dimension_numbers,
                     **params):
  """Every operand gets the batch axis at the front, paired as a batching dimension."""
  size = axis_data.size
  operand, indices, updates = (batching.bdim_at_front(x, d, size) for x, d in zip(args, dims))
  dn = dimension_numbers
  dn = ScatterDimensionNumbers(_shift(dn.update_window_dims), _shift(dn.inserted_window_dims),
                               _shift(dn.scatter_dims_to_operand_dims),
                               (0,) + _shift(dn.operand_batching_dims),
                               (0,) + _shift(dn.scatter_indices_batching_dims))
  return prim.bind(operand, indices, updates, dimension_numbers=dn, **params), 0


def _scatter_primitive(name: str, combine: Callable, accepted: DTypeClass = any_dtype
                       ) -> core.Primitive:
  prim = standard_primitive(name, _scatter_abstract_eval(name, accepted))
  def_reference(prim, _apply_updates(combine))
  batching.fancy_primitive_batchers[prim] = functools.partial(_scatter_batcher, prim)
  return prim


def _gather_updates_like(x: Any, indices: Any, updates_aval: ShapedArray, *, dimension_numbers,
                         mode, indices_are_sorted, unique_indices) -> Any:
  """The windows of `x` a scatter with these params would write, shaped like its updates
  (out-of-bounds windows read as 0)."""
  x_aval = core.get_aval(x)
  mode = GatherScatterMode.from_any(mode)
  return gather_p.bind(
      x, indices, dimension_numbers=_gather_dnums_of(dimension_numbers),
      slice_sizes=scatter_window_sizes(x_aval.shape, updates_aval.shape, dimension_numbers),
      indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
      mode=mode, fill_value=0 if mode is GatherScatterMode.FILL_OR_DROP else None)


def _scatter_addsub_transpose(prim: core.Primitive) -> Callable:
  """scatter-add/sub are linear in operand and updates: the updates' cotangent is the gathered
  windows of the output's (negated for sub)."""
  def transpose(ct, operand, indices, updates, **params):
    if ad.is_undefined_primal(indices):
      raise TypeError(f"{prim.name} is not linear in its indices")
    ct_updates = None
    if ad.is_undefined_primal(updates):
      ct_updates = _gather_updates_like(ct, indices, updates.aval, **params)
      ct_updates = lax.neg(ct_updates) if prim is scatter_sub_p else ct_updates
    return [ct if ad.is_undefined_primal(operand) else None, None, ct_updates]
  return transpose


def _scatter_addsub_jvp(prim: core.Primitive) -> Callable:
  def jvp(primals, tangents, **params):
    operand, indices, updates = primals
    out = prim.bind(operand, indices, updates, **params)
    t_op, _, t_up = tangents
    if type(t_op) is ad.Zero and type(t_up) is ad.Zero:
      return out, ad.Zero.from_primal_value(out)
    return out, prim.bind(ad.instantiate_zeros(t_op), indices, ad.instantiate_zeros(t_up),
                          **params)
  return jvp


def _scatter_jvp(primals, tangents, **params):
  """Which update wins at each position is found by scattering update ids; the output (and
  its tangent, linearly) is then a scatter-add of the masked operand and winning updates."""
  operand, indices, updates = primals
  out = scatter_p.bind(operand, indices, updates, **params)
  t_op, _, t_up = tangents
  if type(t_op) is ad.Zero and type(t_up) is ad.Zero:
    return out, ad.Zero.from_primal_value(out)
  u_aval = core.get_aval(updates)
  scatter_axes = [d for d in range(u_aval.ndim) if d not in params["dimension_numbers"]
                  .update_window_dims]
  ids = lax.add(_update_ids(u_aval.shape, scatter_axes), np.int32(1))
  won = scatter_p.bind(full_like(operand, 0, dtypes.int32), indices, ids, **params)
  kept = lax.eq(won, np.int32(0))
  winners = lax.eq(_gather_updates_like(won, indices, u_aval, **params), ids)
  t_op, t_up = ad.instantiate_zeros(t_op), ad.instantiate_zeros(t_up)
  t_op = lax.select_n(kept, full_like(t_op, 0), t_op)
  t_up = lax.select_n(winners, full_like(t_up, 0), t_up)
  return out, scatter_add_p.bind(t_op, indices, t_up, **params)


def _update_ids(shape: Sequence[int], scatter_axes: Sequence[int]) -> Any:
  """An int32 array of `shape` numbering the update windows 0, 1, ... (row-major over the
  scatter axes), constant across each window."""
  ids, stride = np.int32(0), 1
  for d in reversed(scatter_axes):
    term = lax.mul(lax.broadcasted_iota(dtypes.int32, shape, d), np.int32(stride))
    ids = lax.add(term, ids)
    stride *= shape[d]
  return lax.broadcast_in_dim(ids, tuple(shape), ()) if not scatter_axes else ids


def _scatter_mul_jvp(primals, tangents, *, unique_indices, **params):
  """d/d operand: the tangent times the product of the updates landing there; d/d updates
  (unique indices only, as in JAX): the operand times the scattered tangent."""
  operand, indices, updates = primals
  params["unique_indices"] = unique_indices
  out = scatter_mul_p.bind(operand, indices, updates, **params)
  t_op, _, t_up = tangents
  t_out = ad.Zero.from_primal_value(out)
  if type(t_op) is not ad.Zero:
    factor = scatter_mul_p.bind(full_like(operand, 1), indices, updates, **params)
    t_out = lax.mul(t_op, factor)
  if type(t_up) is not ad.Zero:
    if not unique_indices:
      raise NotImplementedError("scatter_mul gradients are only implemented if "
                                "`unique_indices=True`")
    t_out = ad.add_tangents(t_out, lax.mul(operand, scatter_add_p.bind(
        full_like(operand, 0), indices, t_up, **params)))
  return out, t_out


def _scatter_extremum_jvp(prim: core.Primitive):
  """JAX's rule, op for op: the operand's tangent, plus at each window the tangents of the
  operand and of the updates that equal the result, scaled to average over ties. The tangents
  are scaled, not selected, so a NaN or infinite one spreads as it does in JAX."""
  def jvp(primals, tangents, **params):
    operand, indices, updates = primals
    out = prim.bind(operand, indices, updates, **params)
    t_op, _, t_up = tangents
    if type(t_op) is ad.Zero and type(t_up) is ad.Zero:
      return out, ad.Zero.from_primal_value(out)
    t_op, t_up = ad.instantiate_zeros(t_op), ad.instantiate_zeros(t_up)
    at_updates = lambda x: _gather_updates_like(x, indices, core.get_aval(updates), **params)
    count = lambda x: at_updates(scatter_add_p.bind(full_like(operand, 0), indices, x, **params))
    target = at_updates(out)
    won, kept = lax.eq(updates, target), lax.eq(at_updates(operand), target)
    num_updates = count(lax.select_n(won, full_like(updates, 0), full_like(updates, 1)))
    num_refs = count(full_like(updates, 1))
    # weak constants, as the Python scalars of JAX's rule
    one, minus_one = (lax.convert_element_type(v, core.get_aval(num_updates).dtype,
                                               weak_type=True) for v in (1.0, -1.0))
    shared = lax.div(one, lax.add(num_updates, one))
    up_coef = lax.select_n(won, full_like(updates, 0),
                           lax.select_n(kept, lax.div(one, num_updates), shared))
    op_coef = lax.div(lax.add(minus_one, lax.select_n(kept, full_like(num_updates, 0), shared)),
                      num_refs)
    t_windows = lax.add(lax.mul(at_updates(t_op), op_coef), lax.mul(t_up, up_coef))
    return out, scatter_add_p.bind(t_op, indices, t_windows, **params)
  return jvp


scatter_p = _scatter_primitive("scatter", lambda old, new: new)
ad.primitive_jvps[scatter_p] = _scatter_jvp

scatter_add_p = _scatter_primitive("scatter-add", np.add, numeric_dtypes)
scatter_sub_p = _scatter_primitive("scatter-sub", np.subtract, numeric_dtypes)
for _prim in (scatter_add_p, scatter_sub_p):
  ad.primitive_jvps[_prim] = _scatter_addsub_jvp(_prim)
  ad.primitive_transposes[_prim] = ad.zero_ct_aware(_scatter_addsub_transpose(_prim))

scatter_mul_p = _scatter_primitive("scatter-mul", np.multiply, numeric_dtypes)
ad.primitive_jvps[scatter_mul_p] = _scatter_mul_jvp

scatter_min_p = _scatter_primitive("scatter-min", np.minimum)
ad.primitive_jvps[scatter_min_p] = _scatter_extremum_jvp(scatter_min_p)

scatter_max_p = _scatter_primitive("scatter-max", np.maximum)
ad.primitive_jvps[scatter_max_p] = _scatter_extremum_jvp(scatter_max_p)


def _scatter_fn(prim: core.Primitive, doc: str) -> Callable:
  def fn(operand: Any, scatter_indices: Any, updates: Any,
         dimension_numbers: ScatterDimensionNumbers, *, indices_are_sorted: bool = False,
         unique_indices: bool = False, mode: str | GatherScatterMode | None = None) -> Any:
    return _bind_scatter(prim, operand, scatter_indices, updates, dimension_numbers,
                         indices_are_sorted, unique_indices, mode)
  fn.__name__ = fn.__qualname__ = prim.name.replace("-", "_")
  fn.__doc__ = doc
  return fn


scatter = _scatter_fn(scatter_p, "XLA's scatter: write `updates` into windows of `operand`.")
scatter_add = _scatter_fn(scatter_add_p, "Add `updates` into windows of `operand`.")
scatter_sub = _scatter_fn(scatter_sub_p, "Subtract `updates` from windows of `operand`.")
scatter_mul = _scatter_fn(scatter_mul_p, "Multiply windows of `operand` by `updates`.")
scatter_min = _scatter_fn(scatter_min_p, "The minimum of windows of `operand` and `updates`.")
scatter_max = _scatter_fn(scatter_max_p, "The maximum of windows of `operand` and `updates`.")


def scatter_apply(operand: Any, scatter_indices: Any, func: Callable[[Any], Any],
                  dimension_numbers: ScatterDimensionNumbers, *, update_shape: Sequence[int] = (),
                  indices_are_sorted: bool = False, unique_indices: bool = False,
                  mode: str | GatherScatterMode | None = None) -> Any:
  """Apply `func` to the windows of `operand` that a scatter with updates of `update_shape`
  writes; an element written k times gets `func` applied k times (as XLA's scatter)."""
  counts = scatter_add(full_like(operand, 0, dtypes.int32), scatter_indices,
                       lax.full(tuple(update_shape), 1, dtypes.int32), dimension_numbers,
                       indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
                       mode=mode)
  def body(i, x):
    return lax.select(lax.gt(counts, i), func(x), x)
  most = lax.reduce_max(counts, tuple(range(core.get_aval(counts).ndim)))
  return lax.fori_loop(np.int32(0), most, body, operand)

# ----------------------------------------------------------------------------------------------
# Slicing helpers along one axis

def _axis(operand: Any, axis: int) -> int:
  return canonicalize_axis(axis, core.get_aval(operand).ndim)


def dynamic_slice_in_dim(operand: Any, start_index: Any, slice_size: int, axis: int = 0) -> Any:
  """`dynamic_slice` along one axis (the others whole)."""
  shape = core.get_aval(operand).shape
  axis = _axis(operand, axis)
  starts = [np.int32(0)] * len(shape)
  starts[axis] = start_index
  sizes = list(shape)
  sizes[axis] = slice_size
  return lax.dynamic_slice(operand, _one_index_dtype(starts, axis), sizes)


def _one_index_dtype(starts: list, axis: int) -> list:
  """Zero starts of the dtype of the given start (dynamic_slice needs one index dtype)."""
  dtype = dtypes.dtype_of(starts[axis]) if not dtypes.is_python_scalar(starts[axis]) else None
  return starts if dtype is None else [s if i == axis else np.zeros((), dtype)[()]
                                       for i, s in enumerate(starts)]


def dynamic_update_slice_in_dim(operand: Any, update: Any, start_index: Any, axis: int) -> Any:
  """`dynamic_update_slice` along one axis."""
  axis = _axis(operand, axis)
  starts = [np.int32(0)] * core.get_aval(operand).ndim
  starts[axis] = start_index
  return lax.dynamic_update_slice(operand, update, _one_index_dtype(starts, axis))


def index_in_dim(operand: Any, index: int, axis: int = 0, keepdims: bool = True) -> Any:
  """The static `index` along `axis` (negative counts from the end)."""
  axis = _axis(operand, axis)
  size = core.get_aval(operand).shape[axis]
  wrapped = index + size if index < 0 else index
  if not 0 <= wrapped < size:
    raise IndexError(f"index {index} is out of bounds for axis {axis} with size {size}")
  out = lax.slice_in_dim(operand, wrapped, wrapped + 1, 1, axis)
  return out if keepdims else lax.squeeze(out, (axis,))


def dynamic_index_in_dim(operand: Any, index: Any, axis: int = 0, keepdims: bool = True) -> Any:
  """The dynamic `index` along `axis`."""
  out = dynamic_slice_in_dim(operand, index, 1, axis)
  return out if keepdims else lax.squeeze(out, (_axis(operand, axis),))


def dynamic_update_index_in_dim(operand: Any, update: Any, index: Any, axis: int) -> Any:
  """Write `update` (with or without the size-1 `axis`) at `index` along `axis`."""
  axis = _axis(operand, axis)
  if core.get_aval(update).ndim == core.get_aval(operand).ndim - 1:
    update = lax.expand_dims(update, (axis,))
  return dynamic_update_slice_in_dim(operand, update, index, axis)


def index_take(src: Any, idxs: Sequence[Any], axes: Sequence[int]) -> Any:
  """src[idxs[0], idxs[1], ...] on `axes`, the index arrays broadcast together (as JAX)."""
  shape = np.broadcast_shapes(*(core.get_aval(i).shape for i in idxs))
  idxs = [lax.broadcast_in_dim(i, shape, tuple(range(len(shape) - core.get_aval(i).ndim,
                                                     len(shape)))) for i in idxs]
  indices = lax.concatenate([lax.expand_dims(lax.convert_element_type(i, dtypes.int32),
                                             (len(shape),)) for i in idxs], len(shape))
  src_shape = core.get_aval(src).shape
  axes = tuple(canonicalize_axis(a, len(src_shape)) for a in axes)
  slice_sizes = tuple(1 if d in axes else n for d, n in enumerate(src_shape))
  offset = tuple(range(len(shape), len(shape) + len(src_shape) - len(axes)))
  dnums = GatherDimensionNumbers(offset, tuple(sorted(axes)), axes)
  return gather(src, indices, dnums, slice_sizes)

# ----------------------------------------------------------------------------------------------
# FLOPS (conventions: stablejax.flops)

def _scatter_combine_flops(avals_in, avals_out, **_) -> float:
  """1 per update element."""
  return avals_in[2].size


flops.flops_rules[gather_p] = flops.free
flops.flops_rules[scatter_p] = flops.free
flops.flops_rules[scatter_add_p] = _scatter_combine_flops
flops.flops_rules[scatter_sub_p] = _scatter_combine_flops
flops.flops_rules[scatter_mul_p] = _scatter_combine_flops
flops.flops_rules[scatter_min_p] = _scatter_combine_flops
flops.flops_rules[scatter_max_p] = _scatter_combine_flops
