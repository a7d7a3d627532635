"""Lowering rules of dot_general: `stablehlo.dot_general` with dot dimension numbers; of
scaled_dot: its decomposition (bfloat16 products of the operands and their spread scales)."""
from __future__ import annotations

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from stablejax import lax
from stablejax.config import config
from stablejax.lowering.context import aval_to_ir_type
from stablejax.lax.dot import scaled_dot_decomposition
from stablejax.lowering.module import LoweringRuleContext, lower_fun
from stablejax.lowering.registry import register_lowering


# `config.default_matmul_precision` -> the precision of both operands, as JAX's.
_DEFAULT_PRECISIONS = {"default": "DEFAULT", "bfloat16": "DEFAULT", "high": "HIGH",
                       "tensorfloat32": "HIGH", "highest": "HIGHEST", "float32": "HIGHEST"}


def _precision_config(precision) -> ir.ArrayAttr | None:
  """`[#stablehlo<precision HIGH>, ...]` for a (lhs, rhs) pair of lax.Precision, as JAX; with
  none, that of `config.default_matmul_precision` (if set)."""
  if precision is None:
    name = _DEFAULT_PRECISIONS.get(config.default_matmul_precision)
    return None if name is None else ir.ArrayAttr.get([hlo.PrecisionAttr.get(name)] * 2)
  return ir.ArrayAttr.get([hlo.PrecisionAttr.get(p.name) for p in precision])


def _dot_general_rule(ctx: LoweringRuleContext, lhs: ir.Value, rhs: ir.Value, *,
                      dimension_numbers, preferred_element_type, precision=None,
                      out_sharding=None) -> ir.Value:
  (lhs_contract, rhs_contract), (lhs_batch, rhs_batch) = dimension_numbers
  out_aval = ctx.avals_out[0]
  lhs_aval, rhs_aval = ctx.avals_in
  if lhs_aval.dtype != rhs_aval.dtype:  # StableHLO wants one operand type: use the result's
    lhs = hlo.convert(aval_to_ir_type(lhs_aval.update(dtype=out_aval.dtype)), lhs)
    rhs = hlo.convert(aval_to_ir_type(rhs_aval.update(dtype=out_aval.dtype)), rhs)
  dnums = hlo.DotDimensionNumbers.get(
      lhs_batching_dimensions=list(lhs_batch), rhs_batching_dimensions=list(rhs_batch),
      lhs_contracting_dimensions=list(lhs_contract),
      rhs_contracting_dimensions=list(rhs_contract))
  return hlo.dot_general(aval_to_ir_type(out_aval), lhs, rhs, dnums,
                         precision_config=_precision_config(precision))


register_lowering(lax.dot_general_p, _dot_general_rule)
register_lowering(lax.scaled_dot_p, lower_fun(scaled_dot_decomposition))
