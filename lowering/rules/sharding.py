"""Lowering of `lax.with_sharding_constraint` to Shardy's `sdy.sharding_constraint`, as JAX 0.10
emits it, on the module's `sdy.mesh @mesh` (lowering/partitioning.py)."""
from __future__ import annotations

from typing import Any

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import sdy

from stablejax import lax
from stablejax.lowering.module import LoweringRuleContext
from stablejax.lowering.partitioning import check_named, dims_text, ensure_mesh
from stablejax.lowering.registry import register_lowering


def _sharding_constraint_rule(ctx: LoweringRuleContext, x: ir.Value, *, sharding: Any
                              ) -> list[ir.Value]:
  s = check_named(sharding, "with_sharding_constraint")
  ensure_mesh(ctx.module_context.module, s.mesh)
  attr = ir.Attribute.parse("#sdy.sharding" + dims_text(s, ctx.avals_in[0].ndim))
  return [sdy.ShardingConstraintOp(x, attr).result]


register_lowering(lax.sharding_constraint_p, _sharding_constraint_rule)
