"""Lowering rules of gather and scatter: `stablehlo.gather` and `stablehlo.scatter` (with a
one-op update region). As in JAX, CLIP clamps the indices first and a FILL_OR_DROP gather
masks a PROMISE_IN_BOUNDS gather; XLA's scatter itself drops out-of-bounds windows."""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from stablejax import core, dtypes, lax
from stablejax.lax.slicing import (GatherDimensionNumbers, GatherScatterMode,
                                   ScatterDimensionNumbers, scatter_window_sizes)
from stablejax.lowering import shapes
from stablejax.lowering.context import aval_to_ir_type, ir_constant, shaped_ir_type
from stablejax.lowering.module import LoweringRuleContext, lower_fun
from stablejax.lowering.registry import register_lowering
from stablejax.lowering.rules.elementwise import minmax


def _index_dtype(indices: Any) -> np.dtype:
  """Signed indices wide enough for any operand (int32, or int64 if they are 64-bit)."""
  return dtypes.int64 if core.get_aval(indices).dtype.itemsize == 8 else dtypes.int32


def _upper_bounds(operand_shape: Sequence[int], sizes: Sequence[int], index_map: Sequence[int],
                  indices: Any) -> tuple[Any, Any]:
  """The indices as signed ints, and the largest in-bounds start of each indexed axis,
  broadcast to their shape."""
  dtype, given = _index_dtype(indices), core.get_aval(indices).dtype
  shape = core.get_aval(indices).shape
  upper = lax.dimensions_as_array([operand_shape[d] - sizes[d] for d in index_map], dtypes.int64)
  bounds = lambda u, d: lax.broadcast_in_dim(u.astype(d), shape, (len(shape) - 1,))
  if given.kind == "u" and given.itemsize >= np.dtype(dtype).itemsize:
    # converted, the largest would wrap negative: one past the end stands for them all
    indices = lax.min(indices, bounds(upper + 1, given))
  return lax.convert_element_type(indices, dtype), bounds(upper, dtype)


def _clamped(operand_shape: Sequence[int], sizes: Sequence[int], index_map: Sequence[int],
             indices: Any) -> Any:
  indices, upper = _upper_bounds(operand_shape, sizes, index_map, indices)
  return lax.clamp(np.zeros((), core.get_aval(indices).dtype), indices, upper)


def _gather_clip(operand, indices, *, dimension_numbers, slice_sizes, **params):
  indices = _clamped(core.get_aval(operand).shape, slice_sizes,
                     dimension_numbers.start_index_map, indices)
  return lax.gather_p.bind(operand, indices, dimension_numbers=dimension_numbers,
                           slice_sizes=slice_sizes, **params)


def _gather_fill(operand, indices, *, dimension_numbers, slice_sizes, fill_value, **params):
  """A PROMISE_IN_BOUNDS gather, with `fill_value` where a window is not fully in bounds."""
  dn = dimension_numbers
  indices, upper = _upper_bounds(core.get_aval(operand).shape, slice_sizes,
                                 dn.start_index_map, indices)
  dtype = core.get_aval(indices).dtype
  ok = lax.convert_element_type(lax.bitwise_and(lax.ge(indices, np.zeros((), dtype)),
                                                lax.le(indices, upper)), dtypes.int32)
  batch_ndim = len(core.get_aval(indices).shape) - 1
  ok = lax.gt(lax.reduce_min(ok, (batch_ndim,)), np.int32(0))
  out = lax.gather_p.bind(operand, indices, dimension_numbers=dn, slice_sizes=slice_sizes,
                          fill_value=None, **params)
  out_aval = core.get_aval(out)
  batch_dims = tuple(d for d in range(out_aval.ndim) if d not in dn.offset_dims)
  mask = lax.broadcast_in_dim(ok, out_aval.shape, batch_dims)
  return lax.select_n(mask, lax.full_like(out, fill_value), out)


def _gather_rule(ctx: LoweringRuleContext, operand: ir.Value, indices: ir.Value, *,
                 dimension_numbers: GatherDimensionNumbers, slice_sizes, indices_are_sorted,
                 unique_indices, mode, fill_value) -> Any:
  params = dict(dimension_numbers=dimension_numbers, slice_sizes=slice_sizes,
                indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
                mode=GatherScatterMode.PROMISE_IN_BOUNDS)
  out_aval = ctx.avals_out[0]
  if 0 in out_aval.shape:  # (as JAX: its windows may not fit an empty operand, see gather_p)
    return shapes.full(ctx, 0, out_aval.shape, out_aval.dtype)
  if mode is GatherScatterMode.FILL_OR_DROP:
    return lower_fun(_gather_fill)(ctx, operand, indices, fill_value=fill_value, **params)
  if mode is GatherScatterMode.CLIP:
    return lower_fun(_gather_clip)(ctx, operand, indices, fill_value=None, **params)
  dn = dimension_numbers
  attr = hlo.GatherDimensionNumbers.get(
      offset_dims=list(dn.offset_dims), collapsed_slice_dims=list(dn.collapsed_slice_dims),
      operand_batching_dims=list(dn.operand_batching_dims),
      start_indices_batching_dims=list(dn.start_indices_batching_dims),
      start_index_map=list(dn.start_index_map),
      index_vector_dim=ctx.avals_in[1].ndim - 1)
  return shapes.gather(ctx, operand, indices, attr, slice_sizes, indices_are_sorted,
                       ctx.avals_out[0])


def _scatter_clip_indices(operand, indices, updates, *, dimension_numbers):
  sizes = scatter_window_sizes(core.get_aval(operand).shape, core.get_aval(updates).shape,
                                dimension_numbers)
  return _clamped(core.get_aval(operand).shape, sizes,
                  dimension_numbers.scatter_dims_to_operand_dims, indices)


def _scatter_rule(combine: Callable[[ir.Value, ir.Value], ir.Value] | None) -> Callable:
  """The rule of a scatter whose region returns `combine(old, new)` (the new value if None)."""
  def rule(ctx: LoweringRuleContext, operand: ir.Value, indices: ir.Value, updates: ir.Value, *,
           dimension_numbers: ScatterDimensionNumbers, indices_are_sorted, unique_indices,
           mode) -> ir.Value:
    if mode is GatherScatterMode.CLIP:
      (indices,) = lower_fun(_scatter_clip_indices)(
          ctx, operand, indices, updates, dimension_numbers=dimension_numbers)
    dn = dimension_numbers
    attr = hlo.ScatterDimensionNumbers.get(
        update_window_dims=list(dn.update_window_dims),
        inserted_window_dims=list(dn.inserted_window_dims),
        input_batching_dims=list(dn.operand_batching_dims),
        scatter_indices_batching_dims=list(dn.scatter_indices_batching_dims),
        scattered_dims_to_operand_dims=list(dn.scatter_dims_to_operand_dims),
        index_vector_dim=ir.RankedTensorType(indices.type).rank - 1)
    op = hlo.ScatterOp([aval_to_ir_type(ctx.avals_out[0])], [operand], indices, [updates], attr,
                       indices_are_sorted=indices_are_sorted, unique_indices=unique_indices)
    scalar = shaped_ir_type((), ctx.avals_out[0].dtype)
    block = op.update_computation.blocks.append(scalar, scalar)
    with ir.InsertionPoint(block):
      old, new = block.arguments
      hlo.return_([new if combine is None else combine(old, new)])
    return op.results[0]
  return rule


register_lowering(lax.gather_p, _gather_rule)
for _prim, _rule in [
    (lax.scatter_p, _scatter_rule(None)), (lax.scatter_add_p, _scatter_rule(hlo.add)),
    (lax.scatter_sub_p, _scatter_rule(hlo.subtract)),
    (lax.scatter_mul_p, _scatter_rule(hlo.multiply)),
    (lax.scatter_min_p, _scatter_rule(lambda a, b: minmax(a, b, hlo.MinOp, "LT"))),
    (lax.scatter_max_p, _scatter_rule(lambda a, b: minmax(a, b, hlo.MaxOp, "GT")))]:
  register_lowering(_prim, _rule)
