"""Lowering of the call primitives (`stablejax.lax.call`): a nested `jit`, `closed_call` or
`call` becomes a `func.call` of a private function (one per distinct callee in the module),
named as JAX names it (the jit's name, `closed_call`, `core_call`)."""
from __future__ import annotations

from jaxlib.mlir import ir

from stablejax import lax
from stablejax.jaxpr import ClosedJaxpr, Jaxpr
from stablejax.lowering.module import LoweringRuleContext, call_jaxpr
from stablejax.lowering.registry import register_lowering


def _jit_rule(ctx: LoweringRuleContext, *args: ir.Value, jaxpr: ClosedJaxpr, name: str
              ) -> list[ir.Value]:
  return call_jaxpr(ctx, jaxpr, name, args)


def _closed_call_rule(ctx: LoweringRuleContext, *args: ir.Value, call_jaxpr: ClosedJaxpr
                      ) -> list[ir.Value]:
  return _jit_rule(ctx, *args, jaxpr=call_jaxpr, name="closed_call")


def _call_rule(ctx: LoweringRuleContext, *args: ir.Value, call_jaxpr: Jaxpr) -> list[ir.Value]:
  return _jit_rule(ctx, *args, jaxpr=ClosedJaxpr(call_jaxpr, []), name="core_call")


register_lowering(lax.jit_p, _jit_rule)
register_lowering(lax.closed_call_p, _closed_call_rule)
register_lowering(lax.call_p, _call_rule)
