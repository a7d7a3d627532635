"""Lowering rules of the windowed reductions: `stablehlo.reduce_window` with an add, max or min
region and that op's identity as the initial value."""
from __future__ import annotations

from typing import Callable

import numpy as np

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from stablejax import lax
from stablejax.lowering.context import aval_to_ir_type, ir_constant
from stablejax.lowering.module import LoweringRuleContext
from stablejax.lowering.registry import register_lowering
from stablejax.lowering.rules.reductions import REDUCTIONS, fill_region

WINDOWED = {
    lax.reduce_window_sum_p: REDUCTIONS[lax.reduce_sum_p],
    lax.reduce_window_max_p: REDUCTIONS[lax.reduce_max_p],
    lax.reduce_window_min_p: REDUCTIONS[lax.reduce_min_p],
}


def _reduce_window_rule(reducer: Callable[..., list[ir.Value]], identity: Callable) -> Callable:
  def rule(ctx: LoweringRuleContext, x: ir.Value, *, window_dimensions, window_strides,
           padding, base_dilation, window_dilation) -> ir.Value:
    dtype = ctx.avals_in[0].dtype
    init = ir_constant(identity(dtype), dtype=dtype)
    op = hlo.ReduceWindowOp(
        [aval_to_ir_type(ctx.avals_out[0])], [x], [init], list(window_dimensions),
        window_strides=list(window_strides), base_dilations=list(base_dilation),
        window_dilations=list(window_dilation),
        padding=ir.DenseIntElementsAttr.get(np.asarray(padding, np.int64).reshape(-1, 2)))
    fill_region(op.regions[0], [init], reducer)
    return op.result
  return rule


for _prim, (_op, _identity) in WINDOWED.items():
  register_lowering(_prim, _reduce_window_rule(_op, _identity))
