"""Lowering of `dim_as_value_p`: refused until symbolic shapes lower (the dimension named)."""
from __future__ import annotations

from stablejax import lax
from stablejax.lowering.context import refuse_symbolic
from stablejax.lowering.module import LoweringRuleContext
from stablejax.lowering.registry import register_lowering


def _dim_as_value_rule(ctx: LoweringRuleContext, *, dim) -> list:
  refuse_symbolic((dim,))
  return []


register_lowering(lax.dim_as_value_p, _dim_as_value_rule)
