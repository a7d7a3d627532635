"""Lowering of `scan`: a `stablehlo.while` carrying an i32 counter, the consts, carries, xs and
stacked ys (after the tokens of the body's ordered effects, carried right after the counter);
each iteration takes a `stablehlo.dynamic_slice` of every xs at the counter (at
`length - 1 - counter` when reversed) and writes the ys with `stablehlo.dynamic_update_slice`."""
from __future__ import annotations

import numpy as np

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from stablejax import core, lax
from stablejax.jaxpr import ClosedJaxpr
from stablejax.lowering import shapes
from stablejax.lowering.context import ir_constant
from stablejax.lowering.module import LoweringRuleContext
from stablejax.lowering.registry import register_lowering
from stablejax.lowering.rules.control_flow.common import lower_region
from stablejax.lowering.rules.elementwise import compare
from stablejax.util import split_list


def _i32(value: int) -> ir.Value:
  return ir_constant(np.int32(value))


def _zeros(n: int) -> list[ir.Value]:
  return [_i32(0) for _ in range(n)]


def _index_at(ctx: LoweringRuleContext, x: ir.Value, aval: core.ShapedArray, index: ir.Value
              ) -> ir.Value:
  """`x[index]` along the leading axis."""
  piece = shapes.dynamic_slice(ctx, x, aval.shape, [index] + _zeros(aval.ndim - 1),
                               core.ShapedArray((1, *aval.shape[1:]), aval.dtype))
  return shapes.reshape(ctx, piece, core.ShapedArray(aval.shape[1:], aval.dtype))


def _update_at(ctx: LoweringRuleContext, ys: ir.Value, aval: core.ShapedArray, y: ir.Value,
               index: ir.Value) -> ir.Value:
  """`ys` with `ys[index] = y` along the leading axis."""
  y = shapes.reshape(ctx, y, core.ShapedArray((1, *aval.shape[1:]), aval.dtype))
  return hlo.dynamic_update_slice(ys, y, [index] + _zeros(aval.ndim - 1))


def _scan_rule(ctx: LoweringRuleContext, *args: ir.Value, jaxpr: ClosedJaxpr, length: int,
               reverse: bool, linear: tuple, unroll: int, num_consts: int, num_carry: int
               ) -> list[ir.Value]:
  xs_avals = ctx.avals_in[num_consts + num_carry:]
  ys_avals = ctx.avals_out[num_carry:]
  ys_init = [shapes.full(ctx, 0, a.shape, a.dtype) for a in ys_avals]
  if length == 0:  # no iteration (and no slice of the empty xs to build)
    return list(args[num_consts:num_consts + num_carry]) + ys_init
  effects = list(ctx.tokens_in)
  operands = [_i32(0), *(ctx.tokens_in[e] for e in effects), *args, *ys_init]
  types = [v.type for v in operands]
  loop = hlo.WhileOp(types, operands)
  cond = loop.regions[0].blocks.append(*types)
  with ir.InsertionPoint(cond):
    bound = shapes.dim_value(ctx, length, np.dtype(np.int32))
    hlo.return_([compare(cond.arguments[0], bound, "LT", np.dtype(np.int32))])
  body = loop.regions[1].blocks.append(*types)
  with ir.InsertionPoint(body):
    i, token_args, consts, carry, xs, ys = split_list(
        list(body.arguments), [1, len(effects), num_consts, num_carry, len(xs_avals)])
    i = i[0]
    index = hlo.subtract(shapes.dim_value(ctx, length - 1, np.dtype(np.int32)), i) \
        if reverse else i
    x = [_index_at(ctx, v, a, index) for v, a in zip(xs, xs_avals)]
    tokens = dict(zip(effects, token_args))
    outs = lower_region(ctx, jaxpr, consts + carry + x, tokens, "body_fun")
    carry_out, y = split_list(outs, [num_carry])
    ys = [_update_at(ctx, v, a, u, index) for v, a, u in zip(ys, ys_avals, y)]
    hlo.return_([hlo.add(i, _i32(1)), *(tokens[e] for e in effects), *consts, *carry_out, *xs,
                 *ys])
  _, token_results, _, carry_out, _, ys = split_list(
      list(loop.results), [1, len(effects), num_consts, num_carry, len(xs_avals)])
  ctx.set_tokens_out(dict(zip(effects, token_results)))
  return carry_out + ys


register_lowering(lax.scan_p, _scan_rule)
