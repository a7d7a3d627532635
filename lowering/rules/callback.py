"""Lowering of the host callbacks (`stablejax.lax.callback`): a `stablehlo.custom_call` to
XLA's Python callback target, which calls the registered function with the operands as numpy
arrays (as JAX's `emit_python_callback` does)."""
from __future__ import annotations

from typing import Any

import numpy as np
from jaxlib.mlir import ir

from stablejax import lax
from stablejax.lax.callback import HostCallback
from stablejax.lowering.context import aval_to_ir_type
from stablejax.lowering.ffi import custom_call
from stablejax.lowering.host_callbacks import register_host_callback
from stablejax.lowering.module import LoweringRuleContext
from stablejax.lowering.registry import register_lowering

_TARGETS = {"cpu": "xla_ffi_python_cpu_callback", "cuda": "xla_ffi_python_gpu_callback",
            "rocm": "xla_ffi_python_gpu_callback"}


def _host_call(ctx: LoweringRuleContext, callback: HostCallback, args, has_side_effect: bool
               ) -> list[ir.Value]:
  target = _TARGETS.get(ctx.platform)
  if target is None:
    raise NotImplementedError(f"host callbacks ({callback.name}) are not supported on "
                              f"{ctx.platform}")
  index = register_host_callback(ctx.module_context.module, callback)
  return custom_call(target, [aval_to_ir_type(a) for a in ctx.avals_out], args,
                     backend_config={"index": np.uint64(index)},
                     has_side_effect=has_side_effect)


def _pure_callback_rule(ctx: LoweringRuleContext, *args: ir.Value, callback: HostCallback,
                        **params: Any) -> list[ir.Value]:
  return _host_call(ctx, callback, args, has_side_effect=False)


def _debug_callback_rule(ctx: LoweringRuleContext, *args: ir.Value, callback: HostCallback,
                         **params: Any) -> list[ir.Value]:
  return _host_call(ctx, callback, args, has_side_effect=True)


register_lowering(lax.pure_callback_p, _pure_callback_rule)
register_lowering(lax.debug_callback_p, _debug_callback_rule)
