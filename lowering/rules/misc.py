"""Lowering rules of the lax miscellany: `stablehlo.reduce_precision` and
`stablehlo.optimization_barrier`."""
from __future__ import annotations

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from stablejax import lax
from stablejax.lowering.module import LoweringRuleContext
from stablejax.lowering.registry import register_lowering


def _reduce_precision_rule(ctx: LoweringRuleContext, x: ir.Value, *, exponent_bits: int,
                           mantissa_bits: int) -> ir.Value:
  return hlo.reduce_precision(x, exponent_bits, mantissa_bits)


def _optimization_barrier_rule(ctx: LoweringRuleContext, *xs: ir.Value) -> list[ir.Value]:
  return list(hlo.OptimizationBarrierOp(list(xs)).results)


register_lowering(lax.reduce_precision_p, _reduce_precision_rule)
register_lowering(lax.optimization_barrier_p, _optimization_barrier_rule)
register_lowering(lax.copy_p, lambda ctx, x: x)
register_lowering(lax.stage_p, lambda ctx, x: x)
register_lowering(lax.device_put_p, lambda ctx, *xs, devices, srcs, copy_semantics: list(xs))
register_lowering(lax.dce_sink_p, lambda ctx, x, *, prevent_mlir_dce: [])
