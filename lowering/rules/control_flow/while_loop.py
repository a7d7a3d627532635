"""Lowering of `while` to `stablehlo.while`: a cond and a body region over the carry, each
ending in `stablehlo.return`; the regions use the loop's consts from the enclosing region
directly."""
from __future__ import annotations

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from stablejax import lax
from stablejax.jaxpr import ClosedJaxpr
from stablejax.lowering.module import LoweringRuleContext
from stablejax.lowering.registry import register_lowering
from stablejax.lowering.rules.control_flow.common import fill_region
from stablejax.util import split_list


def _while_rule(ctx: LoweringRuleContext, *args: ir.Value, cond_jaxpr: ClosedJaxpr,
                body_jaxpr: ClosedJaxpr, cond_nconsts: int, body_nconsts: int
                ) -> list[ir.Value]:
  cond_consts, body_consts, carry = split_list(args, [cond_nconsts, body_nconsts])
  types = [v.type for v in carry]
  loop = hlo.WhileOp(types, carry)
  fill_region(ctx, loop.regions[0], cond_jaxpr, cond_consts, types, "cond_fun")
  fill_region(ctx, loop.regions[1], body_jaxpr, body_consts, types, "body_fun")
  return list(loop.results)


register_lowering(lax.while_p, _while_rule)
