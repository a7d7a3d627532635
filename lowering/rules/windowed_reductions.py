"""Lowering rules of the windowed reductions: `stablehlo.reduce_window` with an add, max or min
region and that op's identity as the initial value; with the traced computation as its region
(`reduce_window_p`); `stablehlo.select_and_scatter` (`select_and_scatter_p`), and the
decompositions of select_and_scatter_add and select_and_gather_add."""
from __future__ import annotations

from typing import Callable

import numpy as np

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from stablejax import lax
from stablejax.lowering import shapes
from stablejax.lowering.context import aval_to_ir_type, ir_constant
from stablejax.lax import windowed_reductions
from stablejax.lowering.module import LoweringRuleContext, jaxpr_subcomp, lower_fun
from stablejax.lowering.registry import register_lowering
from stablejax.lowering.rules.reductions import REDUCTIONS, fill_region

WINDOWED = {
    lax.reduce_window_sum_p: REDUCTIONS[lax.reduce_sum_p],
    lax.reduce_window_max_p: REDUCTIONS[lax.reduce_max_p],
    lax.reduce_window_min_p: REDUCTIONS[lax.reduce_min_p],
}


def _padding_attr(padding) -> ir.DenseIntElementsAttr:
  return ir.DenseIntElementsAttr.get(np.asarray(padding, np.int64).reshape(-1, 2))


def _reduce_window_rule(reducer: Callable[..., list[ir.Value]], identity: Callable) -> Callable:
  def rule(ctx: LoweringRuleContext, x: ir.Value, *, window_dimensions, window_strides,
           padding, base_dilation, window_dilation) -> ir.Value:
    dtype = ctx.avals_in[0].dtype
    init = ir_constant(identity(dtype), dtype=dtype)
    return shapes.reduce_window(ctx, [x], [init], ctx.avals_out, window_dimensions,
                                window_strides, padding, base_dilation, window_dilation,
                                reducer)[0]
  return rule


for _prim, (_op, _identity) in WINDOWED.items():
  register_lowering(_prim, _reduce_window_rule(_op, _identity))


def _general_rule(ctx: LoweringRuleContext, *args: ir.Value, jaxpr, window_dimensions,
                  window_strides, padding, base_dilation, window_dilation) -> list[ir.Value]:
  """A variadic `stablehlo.reduce_window` whose region is the traced computation."""
  if jaxpr.effects:
    raise NotImplementedError("Cannot lower effectful `reduce_window`.")
  n = len(args) // 2
  return shapes.reduce_window(
      ctx, args[:n], args[n:], ctx.avals_out, window_dimensions, window_strides, padding,
      base_dilation, window_dilation, lambda *scalars: jaxpr_subcomp(
          ctx.module_context, jaxpr.jaxpr, jaxpr.consts, list(scalars),
          f"{ctx.name_stack}/reduce_window"))


register_lowering(lax.reduce_window_p, _general_rule)


def _select_and_scatter_rule(ctx: LoweringRuleContext, operand: ir.Value, source: ir.Value,
                             init_value: ir.Value, *, select_jaxpr, scatter_jaxpr,
                             window_dimensions, window_strides, padding) -> ir.Value:
  """`stablehlo.select_and_scatter` with the traced select and scatter regions."""
  op = hlo.SelectAndScatterOp(aval_to_ir_type(ctx.avals_out[0]), operand, source, init_value,
                              window_dimensions=list(window_dimensions),
                              window_strides=list(window_strides),
                              padding=_padding_attr(padding))
  for region, jaxpr, name in ((op.select, select_jaxpr, "select"),
                              (op.scatter, scatter_jaxpr, "scatter")):
    if jaxpr.effects:
      raise NotImplementedError(f"Cannot lower effectful `{name}`.")
    fill_region(region, [init_value], lambda *scalars, j=jaxpr, n=name: jaxpr_subcomp(
        ctx.module_context, j.jaxpr, j.consts, list(scalars), f"{ctx.name_stack}/{n}"))
  return op.result


register_lowering(lax.select_and_scatter_p, _select_and_scatter_rule)
register_lowering(lax.select_and_scatter_add_p,
                  lower_fun(windowed_reductions.select_and_scatter_add_decomposition))
register_lowering(lax.select_and_gather_add_p,
                  lower_fun(windowed_reductions.select_and_gather_add_decomposition))
