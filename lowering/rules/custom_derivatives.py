"""Lowering of the custom-derivative primitives (`stablejax.lax.custom_derivatives`): the custom
calls and `remat2` emit their primal jaxpr inline (as JAX does; a differentiated `remat2` with
`prevent_cse` first passes its operands through an optimization barrier, so XLA does not merge
the recomputation with the forward pass), `stop_gradient` is the identity, and `custom_lin`
(forward mode of a custom VJP) is an error."""
from __future__ import annotations

from typing import Any

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from stablejax import lax
from stablejax.jaxpr import ClosedJaxpr
from stablejax.lax import custom_derivatives as cd
from stablejax.lowering.module import LoweringRuleContext, inline_jaxpr
from stablejax.lowering.registry import register_lowering


def _inline(ctx: LoweringRuleContext, closed: ClosedJaxpr, args) -> list[ir.Value]:
  return inline_jaxpr(ctx, closed.jaxpr, closed.consts, args)


def _custom_call_rule(ctx: LoweringRuleContext, *args: ir.Value, call_jaxpr: ClosedJaxpr,
                      **params: Any) -> list[ir.Value]:
  return _inline(ctx, call_jaxpr, args)


def _remat_rule(ctx: LoweringRuleContext, *args: ir.Value, jaxpr: ClosedJaxpr,
                prevent_cse: bool, differentiated: bool, policy: Any) -> list[ir.Value]:
  if prevent_cse and differentiated and args:
    args = hlo.OptimizationBarrierOp(list(args)).results
  return _inline(ctx, jaxpr, args)


def _custom_lin_rule(ctx: LoweringRuleContext, *args: ir.Value, bwd: cd.Rule, **params: Any):
  raise cd.forward_mode_error(bwd)


register_lowering(lax.custom_jvp_call_p, _custom_call_rule)
register_lowering(lax.custom_vjp_call_p, _custom_call_rule)
register_lowering(lax.remat_p, _remat_rule)
register_lowering(cd.custom_lin_p, _custom_lin_rule)
register_lowering(lax.stop_gradient_p, lambda ctx, x: [x])
register_lowering(cd.name_p, lambda ctx, x, *, name: [x])
