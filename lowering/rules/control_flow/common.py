"""What the control-flow lowerings share: filling a region with a jaxpr."""
from __future__ import annotations

from typing import Sequence

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from stablejax.jaxpr import ClosedJaxpr
from stablejax.lowering.module import LoweringRuleContext, jaxpr_subcomp


def fill_region(ctx: LoweringRuleContext, region: ir.Region, jaxpr: ClosedJaxpr,
                outer_args: Sequence[ir.Value], arg_types: Sequence[ir.Type], name: str) -> None:
  """Fill `region` (with block arguments of `arg_types`) with `jaxpr` applied to
  `outer_args` followed by the block arguments, and return its results."""
  block = region.blocks.append(*arg_types)
  with ir.InsertionPoint(block):
    outs = jaxpr_subcomp(ctx.module_context, jaxpr.jaxpr, jaxpr.consts,
                         [*outer_args, *block.arguments], f"{ctx.name_stack}/{name}")
    hlo.return_(outs)
