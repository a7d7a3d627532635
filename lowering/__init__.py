"""Lowering jaxprs to StableHLO MLIR (installed as stablejax.lowering)."""
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import chlo, func
from jaxlib.mlir.dialects import stablehlo as hlo

from stablejax.lowering.context import (
    aval_to_ir_type, dtype_to_ir_type, ir_constant, make_ir_context)
from stablejax.lowering.ffi import custom_call, ir_attribute
from stablejax.lowering.host_callbacks import host_callbacks, register_host_callback
from stablejax.lowering.module import (
    LoweringRuleContext, ModuleContext, call_jaxpr, jaxpr_subcomp, lower_fun, lower_jaxpr,
    verify_module)
from stablejax.lowering.module import (
    canonical_platforms, fix_platform_index, module_text, ordered_effects, token_type)
from stablejax.lowering.partitioning import ShardingContext
from stablejax.lowering.polymorphism import export_main, is_polymorphic, refine_shapes
from stablejax.lowering.registry import LoweringError, register_lowering

# The rules register themselves on import; they import the names above, so they come last.
from stablejax.lowering.rules import (  # noqa: E402,F401
    call, dot, elementwise, reductions, structural)
from stablejax.lowering.rules import special  # noqa: E402,F401
from stablejax.lowering.rules import misc  # noqa: E402,F401
from stablejax.lowering.rules import dimensions  # noqa: E402,F401
from stablejax.lowering.rules import bitwise  # noqa: E402,F401
from stablejax.lowering.rules import sorting  # noqa: E402,F401
from stablejax.lowering.rules import windowed_reductions  # noqa: E402,F401
from stablejax.lowering.rules import convolution  # noqa: E402,F401
from stablejax.lowering.rules.control_flow import cond, scan, while_loop  # noqa: E402,F401
from stablejax.lowering.rules.control_flow import platform_dependent  # noqa: E402,F401
from stablejax.lowering.rules.control_flow import solves  # noqa: E402,F401
from stablejax.lowering.rules import custom_derivatives  # noqa: E402,F401
from stablejax.lowering.rules import custom_batching  # noqa: E402,F401
from stablejax.lowering.rules import callback  # noqa: E402,F401
# (as ffi_rules: the name `ffi` is lowering.ffi, the custom_call helper's module)
from stablejax.lowering.rules import ffi as ffi_rules  # noqa: E402,F401
from stablejax.lowering.rules import slicing  # noqa: E402,F401
from stablejax.lowering.rules import stacking  # noqa: E402,F401
from stablejax.lowering.rules import composite  # noqa: E402,F401
from stablejax.lowering.rules import rng  # noqa: E402,F401
from stablejax.lowering.rules import random  # noqa: E402,F401
from stablejax.lowering.rules import linalg  # noqa: E402,F401
from stablejax.lowering.rules import fft  # noqa: E402,F401
from stablejax.lowering.rules import exported_call  # noqa: E402,F401
from stablejax.lowering.rules import sharding  # noqa: E402,F401
from stablejax.lowering.rules import shard_map  # noqa: E402,F401
from stablejax.lowering.rules import parallel  # noqa: E402,F401
from stablejax.lowering.rules import checks  # noqa: E402,F401
from stablejax.lowering.registry import seal_builtin_rules  # noqa: E402

seal_builtin_rules()

__all__ = [
    "LoweringError", "LoweringRuleContext", "ModuleContext", "ShardingContext",
    "aval_to_ir_type", "call_jaxpr",
    "chlo", "custom_call", "dtype_to_ir_type", "func", "hlo", "host_callbacks", "ir",
    "ir_attribute", "register_host_callback",
    "ir_constant", "jaxpr_subcomp", "lower_fun", "lower_jaxpr", "make_ir_context",
    "register_lowering", "verify_module",
    "canonical_platforms", "fix_platform_index", "module_text", "ordered_effects", "token_type",
    "export_main", "is_polymorphic", "refine_shapes",
]
