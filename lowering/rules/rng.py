"""Lowering of rng_bit_generator: `stablehlo.rng_bit_generator` on the key as uint64[2] (a
uint32[4] key is bitcast to it and back), and of rng_uniform: `stablehlo.rng`, as JAX lowers
them."""
from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from stablejax import lax
from stablejax.lax.rng import RandomAlgorithm
from stablejax.lowering.context import aval_to_ir_type, ir_constant, shaped_ir_type
from stablejax.lowering.module import LoweringRuleContext
from stablejax.lowering.registry import register_lowering

_ALGORITHMS = {RandomAlgorithm.RNG_DEFAULT: "DEFAULT", RandomAlgorithm.RNG_THREE_FRY: "THREE_FRY",
               RandomAlgorithm.RNG_PHILOX: "PHILOX"}


def _rng_bit_generator_rule(ctx: LoweringRuleContext, key: ir.Value, *, shape, dtype, algorithm,
                            out_sharding) -> list[ir.Value]:
  key_aval, bits_aval = ctx.avals_out
  u32 = key_aval.dtype == np.uint32
  if u32:
    key = hlo.bitcast_convert(shaped_ir_type((2,), np.dtype(np.uint64)),
                              hlo.reshape(shaped_ir_type((2, 2), np.dtype(np.uint32)), key))
  out_key, bits = hlo.RngBitGeneratorOp(
      key.type, aval_to_ir_type(bits_aval),
      hlo.RngAlgorithmAttr.get(_ALGORITHMS[algorithm]), key).results
  if u32:
    out_key = hlo.reshape(aval_to_ir_type(key_aval),
                          hlo.bitcast_convert(shaped_ir_type((2, 2), np.dtype(np.uint32)),
                                              out_key))
  return [out_key, bits]


def _rng_uniform_rule(ctx: LoweringRuleContext, a: ir.Value, b: ir.Value, *, shape
                      ) -> ir.Value:
  return hlo.rng(a, b, ir_constant(np.array(shape, np.int64)),
                 hlo.RngDistributionAttr.get("UNIFORM"))


register_lowering(lax.rng_bit_generator_p, _rng_bit_generator_rule)
register_lowering(lax.rng_uniform_p, _rng_uniform_rule)
