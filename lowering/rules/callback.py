"""Lowering of the host callbacks (`stablejax.lax.callback`): a `stablehlo.custom_call` to
XLA's Python callback target for the platform, which calls the registered function with the
operands as numpy arrays (as JAX's `emit_python_callback` does). A callback with an ordered
effect takes the effect's token as its first operand and returns the next one first (XLA hands
the function `None` for the token and ignores the token it returns). In a module partitioned
over several devices the call runs once, on device 0, on whole values (as JAX's do: XLA's SPMD
partitioner needs a sharding on a side-effecting op)."""
from __future__ import annotations

import weakref
from typing import Any, Callable

import numpy as np
from jaxlib.mlir import ir

from stablejax import core, lax
from stablejax.lax.callback import HostCallback
from stablejax.lowering.context import aval_to_ir_type
from stablejax.lowering.ffi import custom_call
from stablejax.lowering.host_callbacks import register_host_callback
from stablejax.lowering.module import LoweringRuleContext, token_type
from stablejax.lowering.partitioning import maximal_sharding
from stablejax.lowering.registry import register_lowering

_TARGETS = {"cpu": "xla_ffi_python_cpu_callback", "cuda": "xla_ffi_python_gpu_callback",
            "rocm": "xla_ffi_python_gpu_callback"}

# callback -> the same taking and returning a token; weak both ways (see `_with_token`).
_token_callbacks: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _with_token(callback: HostCallback) -> Callable:
  """`callback` taking a token first and returning one first, made once per callback and
  alive as long as it is (host callbacks are registered by weak reference)."""
  fn = _token_callbacks.get(callback)
  if fn is None:
    ref = weakref.ref(callback)
    fn = _token_callbacks[callback] = lambda token, *args: (None, *ref()(*args))
  return fn


def _layout(t: ir.Type) -> tuple[int, ...]:
  """The row-major layout of a tensor type; a token has none."""
  return tuple(reversed(range(t.rank))) if isinstance(t, ir.RankedTensorType) else ()


def _target(ctx: LoweringRuleContext, callback: HostCallback) -> str:
  """The callback target of the code's platforms. One for several platforms only where they
  share it: XLA rejects another platform's target even in a branch never taken (JAX lowers
  callbacks for one platform only)."""
  targets = {_TARGETS.get(p) for p in ctx.platforms}
  if None in targets:
    missing = [p for p in ctx.platforms if p not in _TARGETS]
    raise NotImplementedError(f"host callbacks ({callback.name}) are not supported on "
                              f"{', '.join(missing)}")
  if len(targets) > 1:
    raise NotImplementedError(f"host callbacks ({callback.name}) cannot be lowered for "
                              f"several platforms at once ({', '.join(ctx.platforms)}); lower "
                              "for one platform")
  return targets.pop()


def _host_call(ctx: LoweringRuleContext, callback: HostCallback, args, has_side_effect: bool,
               effect: core.Effect | None = None) -> list[ir.Value]:
  target = _target(ctx, callback)
  result_types = [aval_to_ir_type(a) for a in ctx.avals_out]
  operands = list(args)
  ordered = effect is not None and effect in ctx.tokens_in
  if ordered:
    callback = _with_token(callback)
    result_types = [token_type(), *result_types]
    operands = [ctx.tokens_in[effect], *operands]
  module_ctx = ctx.module_context
  index = register_host_callback(module_ctx.module, callback)
  sharding = (None if module_ctx.axis_context is None else
              maximal_sharding(module_ctx.module, len(result_types)))
  results = custom_call(target, result_types, operands,
                        backend_config={"index": np.uint64(index)},
                        has_side_effect=has_side_effect,
                        operand_layouts=[_layout(v.type) for v in operands],
                        result_layouts=[_layout(t) for t in result_types], sharding=sharding)
  if not ordered:
    return results
  ctx.set_tokens_out({effect: results[0]})
  return results[1:]


def _pure_callback_rule(ctx: LoweringRuleContext, *args: ir.Value, callback: HostCallback,
                        **params: Any) -> list[ir.Value]:
  return _host_call(ctx, callback, args, False)


def _debug_callback_rule(ctx: LoweringRuleContext, *args: ir.Value, callback: HostCallback,
                         effect: core.Effect, **params: Any) -> list[ir.Value]:
  return _host_call(ctx, callback, args, True, effect)


def _io_callback_rule(ctx: LoweringRuleContext, *args: ir.Value, callback: HostCallback,
                      ordered: bool, **params: Any) -> list[ir.Value]:
  (effect,) = lax.io_callback_p.effects({"ordered": ordered})
  return _host_call(ctx, callback, args, True, effect)


register_lowering(lax.pure_callback_p, _pure_callback_rule)
register_lowering(lax.io_callback_p, _io_callback_rule)
register_lowering(lax.debug_callback_p, _debug_callback_rule)
