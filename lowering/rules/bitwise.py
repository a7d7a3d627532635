"""Lowering rules of the bitwise primitives: each is one StableHLO op."""
from __future__ import annotations

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import chlo
from jaxlib.mlir.dialects import stablehlo as hlo

from stablejax import lax
from stablejax.lowering.context import aval_to_ir_type
from stablejax.lowering.module import LoweringRuleContext
from stablejax.lowering.registry import register_lowering
from stablejax.lowering.rules.elementwise import nary_rule

# primitive -> the StableHLO op computing it, operands broadcast.
OPS = {
    lax.xor_p: hlo.XorOp, lax.shift_left_p: hlo.ShiftLeftOp,
    lax.shift_right_logical_p: hlo.ShiftRightLogicalOp,
    lax.shift_right_arithmetic_p: hlo.ShiftRightArithmeticOp,
    lax.population_count_p: hlo.PopulationCountOp, lax.clz_p: hlo.ClzOp,
    lax.mulhi_p: chlo.MulhiOp,
}


def _bitcast_convert_type_rule(ctx: LoweringRuleContext, x: ir.Value, *, new_dtype
                               ) -> ir.Value:
  return hlo.bitcast_convert(aval_to_ir_type(ctx.avals_out[0]), x)


def _register() -> None:
  for prim, op_class in OPS.items():
    register_lowering(prim, nary_rule(op_class))
  register_lowering(lax.bitcast_convert_type_p, _bitcast_convert_type_rule)


_register()
