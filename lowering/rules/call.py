"""Lowering of the call primitive (`stablejax.lax.call`): a nested `jit` becomes a `func.call` of
a private function (one per distinct callee in the module)."""
from __future__ import annotations

from jaxlib.mlir import ir

from stablejax import lax
from stablejax.jaxpr import ClosedJaxpr
from stablejax.lowering.module import LoweringRuleContext, call_jaxpr
from stablejax.lowering.registry import register_lowering


def _jit_rule(ctx: LoweringRuleContext, *args: ir.Value, jaxpr: ClosedJaxpr, name: str
              ) -> list[ir.Value]:
  return call_jaxpr(ctx, jaxpr, name, args)


register_lowering(lax.jit_p, _jit_rule)
