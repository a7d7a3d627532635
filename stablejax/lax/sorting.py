"""Sorting: `sort` over several operands (the first `num_keys` are the keys) and `top_k`, with
their rules and numpy references. Lowering rules live in `stablejax.lowering.rules.sorting`.

Floats sort in JAX's total order: -0.0 equals 0.0 and every NaN sorts last. The tangents of
both are the operands' tangents gathered by the permutation (an iota sorted with the keys)."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from stablejax import core, dtypes, lax
from stablejax.core import ShapedArray
from stablejax.interpreters import ad, batching, flops
from stablejax.lax.slicing import GatherDimensionNumbers, gather
from stablejax.lax.primitive_kit import (check_dtype, def_reference, ordered_dtypes,
                                         standard_primitive)
from stablejax.lax.structural import check_axes
from stablejax.util import canonicalize_axis

__all__ = ["approx_max_k", "approx_min_k", "approx_top_k_p", "sort", "sort_key_val", "sort_p",
           "top_k", "top_k_p"]

INDEX_DTYPE = np.dtype(np.int32)


def sort(operand: Any, dimension: int = -1, is_stable: bool = True, num_keys: int = 1) -> Any:
  """Sort `operand` (an array, or a sequence of arrays sorted lexicographically by the first
  `num_keys` and permuted alike) along `dimension`."""
  if isinstance(operand, (list, tuple)):
    if not operand:
      raise TypeError("Sort requires at least one operand")
    if not 1 <= num_keys <= len(operand):
      raise ValueError(f"num_keys={num_keys} must be between 1 and len(operand)={len(operand)}")
    dimension = canonicalize_axis(dimension, core.get_aval(operand[0]).ndim)
    return tuple(sort_p.bind(*operand, dimension=dimension, is_stable=bool(is_stable),
                             num_keys=int(num_keys)))
  if num_keys != 1:
    raise ValueError(f"num_keys={num_keys} must equal 1 for a single operand.")
  dimension = canonicalize_axis(dimension, core.get_aval(operand).ndim)
  return sort_p.bind(operand, dimension=dimension, is_stable=bool(is_stable), num_keys=1)[0]


def sort_key_val(keys: Any, values: Any, dimension: int = -1, is_stable: bool = True
                 ) -> tuple[Any, Any]:
  """Sort `keys` along `dimension` and apply the same permutation to `values`."""
  dimension = canonicalize_axis(dimension, core.get_aval(keys).ndim)
  k, v = sort_p.bind(keys, values, dimension=dimension, is_stable=bool(is_stable), num_keys=1)
  return k, v


def _sort_abstract_eval(*avals: ShapedArray, dimension, is_stable, num_keys):
  if any(a.shape != avals[0].shape for a in avals[1:]):
    raise TypeError(f"Arguments to sort must have equal shapes, got: "
                    f"{' '.join(str(a.shape) for a in avals)}")
  if not 1 <= num_keys <= len(avals):
    raise ValueError(f"sort: num_keys={num_keys} must be between 1 and {len(avals)}")
  check_axes("sort", (dimension,), avals[0], "dimension")
  return list(avals)


def _take_along(x: Any, indices: Any, axis: int) -> Any:
  """x[..., indices[..., j, ...], ...] along `axis`: a gather batched over the other axes."""
  shape = core.get_aval(x).shape
  batch = tuple(i for i in range(len(shape)) if i != axis)
  dnums = GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(axis,),
                                 start_index_map=(axis,), operand_batching_dims=batch,
                                 start_indices_batching_dims=batch)
  return gather(x, lax.expand_dims(indices, (len(shape),)), dnums,
                tuple(min(n, 1) for n in shape), mode="promise_in_bounds")  # (size-0 axes: 0)


def _sort_jvp(primals, tangents, *, dimension, is_stable, num_keys):
  """Sort an iota with the operands; gather the tangents by it (JAX's rule)."""
  shape = core.get_aval(primals[0]).shape
  iota = lax.broadcasted_iota(INDEX_DTYPE, shape, dimension)
  *outs, perm = sort_p.bind(*primals, iota, dimension=dimension, is_stable=is_stable,
                            num_keys=num_keys)
  return outs, [ad.Zero.from_primal_value(o) if type(t) is ad.Zero
                else _take_along(t, perm, dimension) for o, t in zip(outs, tangents)]


def _sort_batcher(axis_data, args, dims, *, dimension, is_stable, num_keys):
  size = axis_data.size
  args = [batching.bdim_at_front(x, d, size) for x, d in zip(args, dims)]
  outs = sort_p.bind(*args, dimension=dimension + 1, is_stable=is_stable, num_keys=num_keys)
  return outs, [0] * len(outs)


def _sort_reference(*operands: np.ndarray, dimension, is_stable, num_keys) -> list[np.ndarray]:
  moved = [np.moveaxis(x, dimension, -1) for x in operands]
  keys = []
  for k in moved[:num_keys]:
    keys += [k.real, k.imag] if k.dtype.kind == "c" else [k]
  order = np.lexsort(keys[::-1], axis=-1)
  return [np.moveaxis(np.take_along_axis(x, order, -1), -1, dimension) for x in moved]


sort_p = standard_primitive("sort", _sort_abstract_eval, multiple_results=True)
def_reference(sort_p, _sort_reference)
ad.primitive_jvps[sort_p] = _sort_jvp
batching.fancy_primitive_batchers[sort_p] = _sort_batcher


# ----------------------------------------------------------------------------------------------
# top_k

def top_k(operand: Any, k: int, *, axis: int = -1) -> tuple[Any, Any]:
  """The `k` largest entries along `axis`, largest first (ties: lower index first), and their
  int32 indices."""
  k = int(k)
  if k < 0:
    raise ValueError(f"k argument to top_k must be nonnegative, got {k}")
  axis = canonicalize_axis(axis, core.get_aval(operand).ndim)
  values, indices = top_k_p.bind(operand, k=k, axis=axis)
  return values, indices


def _top_k_abstract_eval(x: ShapedArray, *, k, axis):
  check_dtype("top_k", ordered_dtypes, x)
  if not x.ndim:
    raise TypeError(f"top_k operand must have >= 1 dimension, got {x.shape}")
  check_axes("top_k", (axis,), x, "axis")
  if x.shape[axis] < k:
    raise ValueError(f"k argument to top_k must be no larger than size along axis; got k={k} "
                     f"with shape={x.shape} and axis={axis}")
  shape = x.shape[:axis] + (k,) + x.shape[axis + 1:]
  return [ShapedArray(shape, x.dtype, x.weak_type), ShapedArray(shape, INDEX_DTYPE)]


def _top_k_jvp(primals, tangents, *, k, axis):
  (x,), (t,) = primals, tangents
  values, indices = top_k_p.bind(x, k=k, axis=axis)
  t_out = (ad.Zero.from_primal_value(values) if type(t) is ad.Zero
           else _take_along(t, indices, axis))
  return [values, indices], [t_out, ad.Zero.from_primal_value(indices)]


def _top_k_batcher(args, dims, *, k, axis):
  (x,), (d,) = args, dims
  outs = top_k_p.bind(x, k=k, axis=axis + (d <= axis))
  return outs, [d, d]


def _total_order_key(x: np.ndarray) -> np.ndarray:
  """Integers ordered as XLA orders `x` for top_k: floats by their total order (-NaN < -inf <
  ... < -0.0 < 0.0 < ... < inf < NaN), booleans and integers by value."""
  if dtypes.kind(x.dtype) != "f":
    return x.astype(np.int64)
  bits = x.view(np.dtype(f"i{x.dtype.itemsize}"))
  return np.where(bits < 0, bits ^ np.iinfo(bits.dtype).max, bits)


def _top_k_reference(x: np.ndarray, *, k, axis) -> list[np.ndarray]:
  moved = np.moveaxis(x, axis, -1)
  index = np.arange(moved.shape[-1]) + np.zeros(moved.shape, int)
  # descending by value (~ reverses the integer order exactly), ascending by index on ties
  order = np.lexsort((index, ~_total_order_key(moved)), axis=-1)[..., :k]
  return [np.moveaxis(np.take_along_axis(moved, order, -1), -1, axis),
          np.moveaxis(order, -1, axis).astype(INDEX_DTYPE)]


top_k_p = standard_primitive("top_k", _top_k_abstract_eval, multiple_results=True)
def_reference(top_k_p, _top_k_reference)
ad.primitive_jvps[top_k_p] = _top_k_jvp
batching.primitive_batchers[top_k_p] = _top_k_batcher

# ----------------------------------------------------------------------------------------------
# approx_max_k / approx_min_k: exact on CPU and GPU (XLA's fallback there sorts and slices)

def approx_max_k(operand: Any, k: int, reduction_dimension: int = -1,
                 recall_target: float = 0.95, reduction_input_size_override: int = -1,
                 aggregate_to_topk: bool = True) -> tuple[Any, Any]:
  """The `k` largest entries along `reduction_dimension` and their int32 indices (exact here:
  `recall_target` is TPU's approximation)."""
  return tuple(approx_top_k_p.bind(
      operand, k=k, reduction_dimension=reduction_dimension, recall_target=recall_target,
      is_max_k=True, reduction_input_size_override=reduction_input_size_override,
      aggregate_to_topk=aggregate_to_topk))


def approx_min_k(operand: Any, k: int, reduction_dimension: int = -1,
                 recall_target: float = 0.95, reduction_input_size_override: int = -1,
                 aggregate_to_topk: bool = True) -> tuple[Any, Any]:
  """The `k` smallest entries along `reduction_dimension` and their int32 indices."""
  return tuple(approx_top_k_p.bind(
      operand, k=k, reduction_dimension=reduction_dimension, recall_target=recall_target,
      is_max_k=False, reduction_input_size_override=reduction_input_size_override,
      aggregate_to_topk=aggregate_to_topk))


def _approx_top_k_abstract_eval(x: ShapedArray, *, k, reduction_dimension, aggregate_to_topk,
                                **_) -> list[ShapedArray]:
  if k <= 0:
    raise ValueError(f"k must be positive, got {k}")
  if not x.ndim:
    raise TypeError(f"approx_top_k operand must have >= 1 dimension, got {x.shape}")
  axis = canonicalize_axis(reduction_dimension, x.ndim)
  if x.shape[axis] < k:
    raise ValueError(f"k must be smaller than the size of reduction_dim {x.shape[axis]}, "
                     f"got {k}")
  if dtypes.kind(x.dtype) != "f":
    raise ValueError("operand must be a floating type")
  if not aggregate_to_topk:
    raise NotImplementedError("approx_top_k with aggregate_to_topk=False (TPU's partial "
                              "reduction) is not supported by stablejax")
  shape = x.shape[:axis] + (k,) + x.shape[axis + 1:]
  return [ShapedArray(shape, x.dtype, x.weak_type), ShapedArray(shape, INDEX_DTYPE)]


def composite_approx_top_k(x: Any, *, k, reduction_dimension, is_max_k, **_) -> list:
  """The exact top (or bottom) k: top_k, or a stable sort of (x, iota) and a slice."""
  shape = core.get_aval(x).shape
  axis = canonicalize_axis(reduction_dimension, len(shape))
  if is_max_k:
    return list(top_k(x, k, axis=axis))
  iota = lax.broadcasted_iota(INDEX_DTYPE, shape, axis)
  return [lax.slice_in_dim(o, 0, k, axis=axis) for o in sort_p.bind(
      x, iota, dimension=axis, is_stable=True, num_keys=1)]


def _approx_top_k_jvp(primals, tangents, **params):
  (x,), (t,) = primals, tangents
  values, indices = approx_top_k_p.bind(x, **params)
  axis = canonicalize_axis(params["reduction_dimension"], core.get_aval(x).ndim)
  t_out = (ad.Zero.from_primal_value(values) if type(t) is ad.Zero
           else _take_along(t, indices, axis))
  return [values, indices], [t_out, ad.Zero.from_primal_value(indices)]


def _approx_top_k_batcher(args, dims, *, reduction_dimension, **params):
  (x,), (d,) = args, dims
  axis = canonicalize_axis(reduction_dimension, core.get_aval(x).ndim - 1)
  outs = approx_top_k_p.bind(x, reduction_dimension=axis + (d <= axis), **params)
  return outs, [d, d]


def _approx_top_k_reference(x: np.ndarray, *, k, reduction_dimension, is_max_k, **_) -> list:
  axis = canonicalize_axis(reduction_dimension, x.ndim)
  if is_max_k:
    return _top_k_reference(x, k=k, axis=axis)
  moved = np.moveaxis(x, axis, -1)
  index = np.arange(moved.shape[-1]) + np.zeros(moved.shape, int)
  order = np.lexsort((index, _total_order_key(moved)), axis=-1)[..., :k]
  return [np.moveaxis(np.take_along_axis(moved, order, -1), -1, axis),
          np.moveaxis(order, -1, axis).astype(INDEX_DTYPE)]


approx_top_k_p = standard_primitive("approx_top_k", _approx_top_k_abstract_eval,
                                    multiple_results=True)
def_reference(approx_top_k_p, _approx_top_k_reference)
ad.primitive_jvps[approx_top_k_p] = _approx_top_k_jvp
batching.primitive_batchers[approx_top_k_p] = _approx_top_k_batcher

# ----------------------------------------------------------------------------------------------
# FLOPS (conventions: stablejax.flops)

def _sort_cost(size: int, n: int) -> float:
  return size * max(math.ceil(math.log2(n)), 1) if n > 1 else 0


def _sort_flops(avals_in, avals_out, *, dimension, **_) -> float:
  return _sort_cost(avals_in[0].size, avals_in[0].shape[dimension])


def _top_k_flops(avals_in, avals_out, *, axis=-1, **_) -> float:
  return _sort_cost(avals_in[0].size, avals_in[0].shape[axis])


flops.flops_rules[sort_p] = _sort_flops
flops.flops_rules[top_k_p] = _top_k_flops
flops.flops_rules[approx_top_k_p] = (
    lambda avals_in, avals_out, *, reduction_dimension, **_: _top_k_flops(
        avals_in, avals_out, axis=reduction_dimension))
