"""Lowering rules of the structural primitives: broadcasting, reshaping, transposition,
slicing, padding, concatenation and iota."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from stablejax import lax
from stablejax.lowering.context import shaped_ir_type
from stablejax.lowering.module import LoweringRuleContext
from stablejax.lowering.registry import register_lowering
from stablejax.lowering import shapes


def _broadcast_in_dim_rule(ctx: LoweringRuleContext, x: ir.Value, *, shape,
                           broadcast_dimensions) -> ir.Value:
  return shapes.broadcast_in_dim(ctx, x, ctx.avals_out[0].shape, ctx.avals_out[0].dtype,
                                 broadcast_dimensions)


def _reshape_rule(ctx: LoweringRuleContext, x: ir.Value, *, new_sizes, dimensions) -> ir.Value:
  if dimensions is not None and tuple(dimensions) != tuple(range(len(dimensions))):
    x = hlo.transpose(x, list(dimensions))
  return shapes.reshape(ctx, x, ctx.avals_out[0])


def _reshape_to_output_rule(ctx: LoweringRuleContext, x: ir.Value, *, dimensions) -> ir.Value:
  """squeeze and expand_dims: a reshape to the output's shape."""
  return shapes.reshape(ctx, x, ctx.avals_out[0])


def _transpose_rule(ctx: LoweringRuleContext, x: ir.Value, *, permutation) -> ir.Value:
  return hlo.transpose(x, list(permutation))


def _concatenate_rule(ctx: LoweringRuleContext, *xs: ir.Value, dimension: int) -> ir.Value:
  return hlo.concatenate(list(xs), dimension)


def _slice_rule(ctx: LoweringRuleContext, x: ir.Value, *, start_indices, limit_indices,
                strides) -> ir.Value:
  strides = [1] * len(start_indices) if strides is None else list(strides)
  return shapes.slice_op(ctx, x, ctx.avals_out[0], start_indices, limit_indices, strides)


def _same_index_type(indices: Sequence[ir.Value], avals: Sequence) -> list[ir.Value]:
  """StableHLO wants all start indices of one type: widen them to the widest when they differ."""
  dts = {a.dtype for a in avals}
  if len(dts) <= 1:
    return list(indices)
  dtype = np.dtype(f"int{max(dt.itemsize for dt in dts) * 8}")
  return [x if a.dtype == dtype else hlo.convert(shaped_ir_type((), dtype), x)
          for x, a in zip(indices, avals)]


def _dynamic_slice_rule(ctx: LoweringRuleContext, x: ir.Value, *starts: ir.Value,
                        slice_sizes) -> ir.Value:
  if not slice_sizes:  # a 0-d operand is its own slice (the op's text, `sizes = []`, is not
    return x           # read back by the parser)
  starts = _same_index_type(starts, ctx.avals_in[1:])
  return shapes.dynamic_slice(ctx, x, ctx.avals_in[0].shape, starts, ctx.avals_out[0])


def _dynamic_update_slice_rule(ctx: LoweringRuleContext, x: ir.Value, update: ir.Value,
                               *starts: ir.Value) -> ir.Value:
  starts = _same_index_type(starts, ctx.avals_in[2:])
  return hlo.dynamic_update_slice(x, update, starts)


def _pad_rule(ctx: LoweringRuleContext, x: ir.Value, padding_value: ir.Value, *,
              padding_config) -> ir.Value:
  lo, hi, interior = zip(*padding_config) if padding_config else ((), (), ())
  return shapes.pad(ctx, x, padding_value, ctx.avals_out[0], lo, hi, interior)


def _rev_rule(ctx: LoweringRuleContext, x: ir.Value, *, dimensions) -> ir.Value:
  return hlo.reverse(x, list(dimensions))


def _iota_rule(ctx: LoweringRuleContext, *, dtype, shape, dimension) -> ir.Value:
  return shapes.iota(ctx, shape, dtype, dimension)


for _prim, _rule in [
    (lax.broadcast_in_dim_p, _broadcast_in_dim_rule), (lax.reshape_p, _reshape_rule),
    (lax.squeeze_p, _reshape_to_output_rule), (lax.expand_dims_p, _reshape_to_output_rule),
    (lax.transpose_p, _transpose_rule), (lax.concatenate_p, _concatenate_rule),
    (lax.slice_p, _slice_rule), (lax.dynamic_slice_p, _dynamic_slice_rule),
    (lax.dynamic_update_slice_p, _dynamic_update_slice_rule), (lax.pad_p, _pad_rule),
    (lax.rev_p, _rev_rule), (lax.iota_p, _iota_rule)]:
  register_lowering(_prim, _rule)
