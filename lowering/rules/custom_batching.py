"""Lowering of `custom_vmap_call` (`stablejax.lax.custom_batching`): its jaxpr, inline."""
from __future__ import annotations

from typing import Any

from jaxlib.mlir import ir

from stablejax.jaxpr import ClosedJaxpr
from stablejax.lax.custom_batching import custom_vmap_call_p
from stablejax.lowering.module import LoweringRuleContext, inline_jaxpr
from stablejax.lowering.registry import register_lowering


def _custom_vmap_rule(ctx: LoweringRuleContext, *args: ir.Value, call: ClosedJaxpr,
                      **params: Any) -> list[ir.Value]:
  return inline_jaxpr(ctx, call.jaxpr, call.consts, args)


register_lowering(custom_vmap_call_p, _custom_vmap_rule)
