"""Lowering of `cond` to `stablehlo.case`: one region per branch, ending in `stablehlo.return`;
the regions use the operands from the enclosing region directly. The tokens of the ordered
effects of the branches come first among the case's results (each branch returns them,
updated or not)."""
from __future__ import annotations

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from stablejax import lax
from stablejax.jaxpr import ClosedJaxpr
from stablejax.lowering.context import aval_to_ir_type
from stablejax.lowering.module import LoweringRuleContext, token_type
from stablejax.lowering.registry import register_lowering
from stablejax.lowering.rules.control_flow.common import lower_region, region_block


def _cond_rule(ctx: LoweringRuleContext, index: ir.Value, *args: ir.Value,
               branches: tuple[ClosedJaxpr, ...]) -> list[ir.Value]:
  effects = list(ctx.tokens_in)
  case = hlo.CaseOp([token_type()] * len(effects) + [aval_to_ir_type(a) for a in ctx.avals_out],
                    index, len(branches))
  for i, (region, branch) in enumerate(zip(case.regions, branches)):
    block, _, _ = region_block(region, [], [])
    with ir.InsertionPoint(block):
      tokens = dict(ctx.tokens_in)
      outs = lower_region(ctx, branch, args, tokens, f"branch_{i}_fun")
      hlo.return_([tokens[e] for e in effects] + outs)
  results = list(case.results)
  ctx.set_tokens_out(dict(zip(effects, results)))
  return results[len(effects):]


register_lowering(lax.cond_p, _cond_rule)
