"""Lowering rule of conv_general_dilated: `stablehlo.convolution` with its dimension numbers,
window attributes and precision config, as JAX emits it."""
from __future__ import annotations

import numpy as np

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from stablejax import lax
from stablejax.lowering.context import aval_to_ir_type
from stablejax.lowering.module import LoweringRuleContext
from stablejax.lowering.registry import register_lowering
from stablejax.lowering.rules.dot import _precision_config


def _i64(n: int) -> ir.IntegerAttr:
  return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), n)


def _conv_general_dilated_rule(ctx: LoweringRuleContext, lhs: ir.Value, rhs: ir.Value, *,
                               window_strides, padding, lhs_dilation, rhs_dilation,
                               dimension_numbers, feature_group_count, batch_group_count,
                               precision, preferred_element_type) -> ir.Value:
  lhs_spec, rhs_spec, out_spec = dimension_numbers
  dnums = hlo.ConvDimensionNumbers.get(
      input_batch_dimension=lhs_spec[0], input_feature_dimension=lhs_spec[1],
      input_spatial_dimensions=list(lhs_spec[2:]),
      kernel_output_feature_dimension=rhs_spec[0], kernel_input_feature_dimension=rhs_spec[1],
      kernel_spatial_dimensions=list(rhs_spec[2:]),
      output_batch_dimension=out_spec[0], output_feature_dimension=out_spec[1],
      output_spatial_dimensions=list(out_spec[2:]))
  nspatial = len(rhs_spec) - 2
  pads = np.asarray(padding, np.int64).reshape(nspatial, 2)
  return hlo.convolution(
      aval_to_ir_type(ctx.avals_out[0]), lhs, rhs, dimension_numbers=dnums,
      feature_group_count=_i64(feature_group_count), batch_group_count=_i64(batch_group_count),
      window_strides=ir.DenseI64ArrayAttr.get(list(window_strides)),
      padding=ir.DenseIntElementsAttr.get(pads),
      lhs_dilation=ir.DenseI64ArrayAttr.get(list(lhs_dilation)),
      rhs_dilation=ir.DenseI64ArrayAttr.get(list(rhs_dilation)),
      window_reversal=ir.DenseBoolArrayAttr.get([False] * nspatial),
      precision_config=_precision_config(precision))


register_lowering(lax.conv_general_dilated_p, _conv_general_dilated_rule)
