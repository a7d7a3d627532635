"""Lowering of `ffi_call` (stablejax/lax/ffi.py): a `stablehlo.custom_call` to the registered
kernel with the typed FFI, its attributes in `mhlo.backend_config`; results of symbolic shapes
sized by shape operands, as JAX's `ffi_lowering` does."""
from __future__ import annotations

from typing import Any

from jaxlib.mlir import ir

from stablejax import lax
from stablejax.lax.ffi import ArrayAttribute
from stablejax.lowering import shapes
from stablejax.lowering.context import aval_to_ir_type
from stablejax.lowering.ffi import custom_call
from stablejax.lowering.module import LoweringRuleContext
from stablejax.lowering.registry import register_lowering


def _ffi_call_rule(ctx: LoweringRuleContext, *args: ir.Value, target_name: str,
                   has_side_effect: bool, input_output_aliases: tuple, attributes: tuple,
                   **params: Any) -> list[ir.Value]:
  config = {name: value.value if isinstance(value, ArrayAttribute) else value
            for name, value in attributes}
  return custom_call(target_name, [aval_to_ir_type(a) for a in ctx.avals_out], args,
                     backend_config=config, has_side_effect=has_side_effect,
                     operand_output_aliases=dict(input_output_aliases),
                     result_shapes=shapes.result_shapes(ctx, ctx.avals_out))


register_lowering(lax.ffi_call_p, _ffi_call_rule)
