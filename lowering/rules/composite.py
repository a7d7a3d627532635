"""Lowering of `composite`: a `stablehlo.composite` op whose decomposition is a private function
computing the composite's jaxpr (as JAX lowers it)."""
from __future__ import annotations

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from stablejax.jaxpr import ClosedJaxpr
from stablejax.lax.composite import composite_p
from stablejax.lowering.context import aval_to_ir_type
from stablejax.lowering.module import (LoweringRuleContext, leading_operands, lower_jaxpr_to_fun,
                                      ordered_effects)
from stablejax.lowering.registry import LoweringError, register_lowering


def _attribute(value) -> ir.Attribute:
  if isinstance(value, bool):
    return ir.BoolAttr.get(value)
  if isinstance(value, int):
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), value)
  if isinstance(value, float):
    return ir.FloatAttr.get(ir.F64Type.get(), value)
  return ir.StringAttr.get(value)


def _composite_rule(ctx: LoweringRuleContext, *args: ir.Value, name: str, attributes,
                    version: int, jaxpr: ClosedJaxpr) -> list[ir.Value]:
  module_ctx = ctx.module_context
  if ordered_effects(jaxpr.effects):
    raise LoweringError(f"composite '{name}': a decomposition with ordered effects is not "
                        f"supported")
  callee = module_ctx.unique_name(name.replace(".", "_"))
  lower_jaxpr_to_fun(module_ctx, callee, jaxpr)
  op = hlo.CompositeOp([aval_to_ir_type(a) for a in ctx.avals_out],
                       leading_operands(module_ctx) + list(args),
                       name=ir.StringAttr.get(name),
                       decomposition=ir.FlatSymbolRefAttr.get(callee),
                       composite_attributes=ir.DictAttr.get(
                           {k: _attribute(v) for k, v in attributes}),
                       version=ir.IntegerAttr.get(ir.IntegerType.get_signless(32), version))
  return list(op.results)


register_lowering(composite_p, _composite_rule)
