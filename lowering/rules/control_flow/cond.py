"""Lowering of `cond` to `stablehlo.case`: one region per branch, ending in `stablehlo.return`;
the regions use the operands from the enclosing region directly."""
from __future__ import annotations

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from stablejax import lax
from stablejax.jaxpr import ClosedJaxpr
from stablejax.lowering.context import aval_to_ir_type
from stablejax.lowering.module import LoweringRuleContext
from stablejax.lowering.registry import register_lowering
from stablejax.lowering.rules.control_flow.common import fill_region


def _cond_rule(ctx: LoweringRuleContext, index: ir.Value, *args: ir.Value,
               branches: tuple[ClosedJaxpr, ...]) -> list[ir.Value]:
  case = hlo.CaseOp([aval_to_ir_type(a) for a in ctx.avals_out], index, len(branches))
  for i, (region, branch) in enumerate(zip(case.regions, branches)):
    fill_region(ctx, region, branch, args, [], f"branch_{i}_fun")
  return list(case.results)


register_lowering(lax.cond_p, _cond_rule)
