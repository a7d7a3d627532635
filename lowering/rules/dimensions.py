"""Lowering of `dim_as_value_p`: the dimension computed from the function's dimension
variables (`lowering.shapes.eval_dim`)."""
from __future__ import annotations

from jaxlib.mlir import ir

from stablejax import lax
from stablejax.lowering.module import LoweringRuleContext
from stablejax.lowering.registry import register_lowering
from stablejax.lowering.shapes import eval_dim


def _dim_as_value_rule(ctx: LoweringRuleContext, *, dim) -> ir.Value:
  return eval_dim(ctx, dim)


register_lowering(lax.dim_as_value_p, _dim_as_value_rule)
