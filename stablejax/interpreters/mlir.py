"""`jax.interpreters.mlir`: JAX's names for writing lowering rules, as thin adapters over
`stablejax.lowering` (its registry, rule context and IR helpers; there is no second lowering
machinery). Signatures are JAX 0.10.2's: `lower_fun` lowers several results by default, and
`aval_to_ir_type` takes the module context first."""
from __future__ import annotations

import io
from typing import Any, Callable, Iterable, Sequence

import numpy as np
from jaxlib.mlir import ir

from stablejax import core, lowering
from stablejax.lowering import (
    LoweringRuleContext, ModuleContext, ShardingContext, dtype_to_ir_type, ir_attribute,
    make_ir_context, token_type)

__all__ = [
    "LoweringRule", "LoweringRuleContext", "ModuleContext", "ShardingContext", "aval_to_ir_type",
    "aval_to_ir_types", "dense_int_array", "dense_int_elements", "dtype_to_ir_type",
    "flatten_ir_types", "flatten_ir_values", "i32_attr", "i64_attr", "ir", "ir_attribute",
    "ir_constant", "ir_constants", "lower_fun", "make_ir_context", "module_to_bytecode",
    "module_to_string", "register_lowering", "token_type",
]

LoweringRule = Callable[..., Sequence[ir.Value]]  # rule(ctx, *values, **params)


def register_lowering(prim: core.Primitive, rule: LoweringRule, platform: str | None = None,
                      inline: bool = True, cacheable: bool = True) -> None:
  """Register `rule(ctx, *values, **params)` lowering `prim` (on `platform` only, if given).
  `inline` and `cacheable` are accepted for JAX's signature: stablejax emits every rule's ops
  in place and caches whole modules."""
  del inline, cacheable
  lowering.register_lowering(prim, rule, platform)


def lower_fun(fun: Callable, multiple_results: bool = True) -> LoweringRule:
  """A lowering rule tracing `fun(*args, **params)`, written with stablejax ops, on the
  equation's input types and emitting it in place (JAX's default: a list of results)."""
  return lowering.lower_fun(fun, multiple_results)


def aval_to_ir_type(ctx: ModuleContext | None, aval: core.ShapedArray) -> ir.Type:
  """The MLIR tensor type of `aval` (the module context is not needed here)."""
  del ctx
  return lowering.aval_to_ir_type(aval)


def aval_to_ir_types(ctx: ModuleContext | None, aval: core.ShapedArray) -> tuple[ir.Type, ...]:
  """`aval`'s MLIR types: one tensor type."""
  return (aval_to_ir_type(ctx, aval),)


def ir_constant(val: Any, *, const_lowering: Any = None,
                aval: core.ShapedArray | None = None) -> ir.Value:
  """A `stablehlo.constant` of `val` (of `aval`'s shape and dtype if given)."""
  del const_lowering
  if aval is None:
    return lowering.ir_constant(val)
  return lowering.ir_constant(val, shape=aval.shape, dtype=aval.dtype)


def ir_constants(val: Any, *, const_lowering: Any = None,
                 aval: core.ShapedArray | None = None) -> tuple[ir.Value, ...]:
  """`ir_constant` as a tuple of IR values (one here)."""
  return (ir_constant(val, const_lowering=const_lowering, aval=aval),)


def dense_int_elements(xs: Sequence[int]) -> ir.DenseElementsAttr:
  return ir.DenseIntElementsAttr.get(np.asarray(xs, np.int64))


def dense_int_array(xs: Sequence[int]) -> ir.DenseI64ArrayAttr:
  return ir.DenseI64ArrayAttr.get(list(xs))


def i32_attr(i: int) -> ir.IntegerAttr:
  return ir.IntegerAttr.get(ir.IntegerType.get_signless(32), i)


def i64_attr(i: int) -> ir.IntegerAttr:
  return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), i)


def _flatten(xs: Iterable[Any], leaf: type) -> list:
  """One level flattened: each element a `leaf` or a sequence of them."""
  return [y for x in xs for y in ([x] if isinstance(x, leaf) else x)]


def flatten_ir_values(xs: Iterable[ir.Value | Sequence[ir.Value]]) -> list[ir.Value]:
  return _flatten(xs, ir.Value)


def flatten_ir_types(xs: Iterable[ir.Type | Sequence[ir.Type]]) -> list[ir.Type]:
  return _flatten(xs, ir.Type)


def module_to_string(module: ir.Module, enable_debug_info: bool | None = None) -> str:
  """The module's text (with locations if `enable_debug_info`)."""
  return lowering.module_text(module, debug_info=bool(enable_debug_info))


def module_to_bytecode(module: ir.Module) -> bytes:
  """The module as MLIR bytecode."""
  output = io.BytesIO()
  module.operation.write_bytecode(file=output)
  return output.getvalue()
