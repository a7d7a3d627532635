"""Lowering of `cond` to `stablehlo.case` (one region per branch) and of `while` to
`stablehlo.while` (a cond and a body region over the carry); each region ends in
`stablehlo.return`. Regions use the operands and consts of the loop or case from the enclosing
region directly."""
from __future__ import annotations

from typing import Sequence

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from stablejax.jaxpr import ClosedJaxpr
from stablejax.lax.control_flow.cond import cond_p
from stablejax.lax.control_flow.while_loop import while_p
from stablejax.lowering.context import aval_to_ir_type
from stablejax.lowering.module import LoweringRuleContext, jaxpr_subcomp
from stablejax.lowering.registry import register_lowering
from stablejax.util import split_list


def _region(ctx: LoweringRuleContext, region: ir.Region, jaxpr: ClosedJaxpr,
            outer_args: Sequence[ir.Value], arg_types: Sequence[ir.Type], name: str) -> None:
  """Fill `region` (with block arguments of `arg_types`) with `jaxpr` applied to
  `outer_args` followed by the block arguments, and return its results."""
  block = region.blocks.append(*arg_types)
  with ir.InsertionPoint(block):
    outs = jaxpr_subcomp(ctx.module_context, jaxpr.jaxpr, jaxpr.consts,
                         [*outer_args, *block.arguments], f"{ctx.name_stack}/{name}")
    hlo.return_(outs)


def _cond_rule(ctx: LoweringRuleContext, index: ir.Value, *args: ir.Value,
               branches: tuple[ClosedJaxpr, ...]) -> list[ir.Value]:
  case = hlo.CaseOp([aval_to_ir_type(a) for a in ctx.avals_out], index, len(branches))
  for i, (region, branch) in enumerate(zip(case.regions, branches)):
    _region(ctx, region, branch, args, [], f"branch_{i}_fun")
  return list(case.results)


def _while_rule(ctx: LoweringRuleContext, *args: ir.Value, cond_jaxpr: ClosedJaxpr,
                body_jaxpr: ClosedJaxpr, cond_nconsts: int, body_nconsts: int
                ) -> list[ir.Value]:
  cond_consts, body_consts, carry = split_list(args, [cond_nconsts, body_nconsts])
  types = [v.type for v in carry]
  loop = hlo.WhileOp(types, carry)
  _region(ctx, loop.regions[0], cond_jaxpr, cond_consts, types, "cond_fun")
  _region(ctx, loop.regions[1], body_jaxpr, body_consts, types, "body_fun")
  return list(loop.results)


register_lowering(cond_p, _cond_rule)
register_lowering(while_p, _while_rule)
