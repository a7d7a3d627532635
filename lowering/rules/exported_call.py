"""Lowering of `call_exported` (`stablejax.lax.exported_call`): the exported module is parsed
into the context of the module being built, its functions are renamed apart from that module's
symbols, made private and moved into it (once per module and Exported), and its `main` is
called, with the platform index first when it was exported for several platforms."""
from __future__ import annotations

from typing import Any

import numpy as np

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import func
from jaxlib.mlir.dialects import stablehlo as hlo

from stablejax import lax
from stablejax.lowering.context import aval_to_ir_type, ir_constant
from stablejax.lowering.module import LoweringRuleContext, ModuleContext, index_per_platform
from stablejax.lowering.polymorphism import mark_polymorphic
from stablejax.lowering.registry import LoweringError, physical_lowerings, register_lowering


def _fresh_name(module_ctx: ModuleContext, base: str, src: ir.SymbolTable) -> str:
  """A name taken neither in the module being built nor in the module being inserted."""
  name = module_ctx.unique_name(base)
  while name in module_ctx.symbol_table or name in src:
    name = module_ctx.unique_name(base)
  return name


def insert_module(module_ctx: ModuleContext, serialized: bytes, base: str) -> str:
  """Move the functions of the serialized module into the module being built, renamed
  `base...` and private; returns the name its `main` now has."""
  src = hlo.deserialize_portable_artifact(module_ctx.module.context, serialized)
  src_table = ir.SymbolTable(src.operation)
  ops = [op for op in src.body.operations if op.operation.name != "sdy.mesh"]
  for mesh in src.body.operations:
    if mesh.operation.name == "sdy.mesh":
      _insert_mesh(module_ctx, mesh, base)
  renames = {}
  for op in ops:
    old = ir.StringAttr(op.attributes["sym_name"]).value
    renames[old] = _fresh_name(module_ctx, base if old == "main" else f"{base}_{old}", src_table)
  # New names are in neither module, so renaming one symbol at a time cannot capture another.
  for old, new in renames.items():
    for op in ops:
      ir.SymbolTable.replace_all_symbol_uses(old, new, op)
  private = ir.StringAttr.get("private")
  for op in ops:
    ir.SymbolTable.set_symbol_name(op, renames[ir.StringAttr(op.attributes["sym_name"]).value])
    op.attributes["sym_visibility"] = private
    module_ctx.module.body.append(op)
    module_ctx.symbol_table.insert(op)
  return renames["main"]


def _insert_mesh(module_ctx: ModuleContext, mesh: ir.Operation, base: str) -> None:
  """The exported module's `sdy.mesh`, under its own name (its shardings name it inside
  attributes that renaming does not reach): added to the module being built, or already
  there, the same."""
  name = ir.StringAttr(mesh.attributes["sym_name"]).value
  table = module_ctx.symbol_table
  if name not in table:
    ir.InsertionPoint.at_block_begin(module_ctx.module.body).insert(mesh.detach_from_parent())
    table.insert(mesh)
  elif str(table[name].attributes["mesh"]) != str(mesh.attributes["mesh"]):
    raise LoweringError(f"the exported function '{base}' uses the mesh @{name} = "
                        f"{mesh.attributes['mesh']}, and the calling program another mesh of "
                        f"that name, {table[name].attributes['mesh']}")


def _platform_index(ctx: LoweringRuleContext, exported: Any) -> list[ir.Value]:
  """The leading platform-index operand of a module exported for several platforms (none for
  one): the index in `exported.platforms` of the platform running the call, a constant, or a
  `stablehlo.case` on the caller's own platform index when the caller runs on several; an error
  when the module was not exported for a platform the caller runs on, unless its platform check
  is disabled (then it runs as for its first platform, as in JAX)."""
  module_ctx = ctx.module_context
  running = module_ctx.platforms
  missing = [p for p in running if p not in exported.platforms]
  if missing and "platform" not in map(str, exported.disabled_safety_checks):
    raise LoweringError(f"the function '{exported.fun_name}' was exported for platforms "
                        f"{exported.platforms} but it is used on {missing}")
  if len(exported.platforms) == 1:
    return []
  index = {p: exported.platforms.index(p) if p in exported.platforms else 0 for p in running}
  if len(running) == 1:
    return [ir_constant(np.int32(index[running[0]]))]
  # (the branches of the caller's platforms that do not run this code are never taken)
  return [index_per_platform(module_ctx, [index.get(p, 0) for p in module_ctx.module_platforms])]


def _call_exported_rule(ctx: LoweringRuleContext, *args: ir.Value, exported: Any
                        ) -> list[ir.Value]:
  index = _platform_index(ctx, exported)
  module_ctx = ctx.module_context
  key = ("call_exported", exported)
  callee = module_ctx.callees.get(key)
  if callee is None:
    callee = module_ctx.callees[key] = insert_module(
        module_ctx, exported.mlir_module_serialized, f"call_exported_{exported.fun_name}")
  callee_type = module_ctx.symbol_table[callee].type
  kept = [args[i] for i in exported.module_kept_var_idx]
  kept = [_convert(x, t) for x, t in zip(kept, list(callee_type.inputs)[len(index):])]
  if not all(ir.RankedTensorType(t).has_static_shape for t in callee_type.inputs):
    mark_polymorphic(module_ctx.module)  # (compiling refines the callee's shapes to the call's)
  results = func.CallOp(list(callee_type.results), ir.FlatSymbolRefAttr.get(callee),
                        [*index, *kept]).results
  return [_convert(r, aval_to_ir_type(a)) for r, a in zip(results, ctx.avals_out)]


def _convert(x: ir.Value, to: ir.Type) -> ir.Value:
  """`x` as type `to`, which differs from its own at most in static for dynamic sizes (a
  function exported with symbolic shapes, called with known ones: as JAX, a
  `stablehlo.convert` that the refinement of shapes removes)."""
  return x if x.type == to else hlo.convert(to, x)


register_lowering(lax.call_exported_p, _call_exported_rule)
physical_lowerings.add(lax.call_exported_p)  # (the module takes and gives keys' data)
