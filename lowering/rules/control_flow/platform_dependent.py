"""Lowering of `platform_index` (platform_dependent's branch index): a constant where the code
runs on one platform, else a `stablehlo.case` on the module's platform index (as JAX's
`lower_per_platform` of constants)."""
from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir

from stablejax.lax.control_flow.platform_dependent import branch_index, platform_index_p
from stablejax.lowering.context import ir_constant
from stablejax.lowering.module import LoweringRuleContext, index_per_platform
from stablejax.lowering.registry import register_lowering


def _platform_index_rule(ctx: LoweringRuleContext, *, platforms) -> ir.Value:
  module_ctx = ctx.module_context
  running = module_ctx.platforms
  indices = {p: branch_index(platforms, p) for p in running}
  if len(running) == 1:
    return ir_constant(np.int32(indices[running[0]]))
  # (the branches of the module's platforms that do not run this code are never taken)
  return index_per_platform(module_ctx, [indices.get(p, 0)
                                         for p in module_ctx.module_platforms])


register_lowering(platform_index_p, _platform_index_rule)
