"""Sharding annotations in Shardy's `sdy` dialect, as JAX 0.10 emits them (its default
partitioner): the `sdy.mesh @mesh` of the module, `sdy.sharding` on `@main`'s arguments and
results, and `sdy.sharding_constraint` for `lax.with_sharding_constraint`."""
from __future__ import annotations

from typing import Any, Sequence

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import sdy

from stablejax import lax, sharding as sharding_lib
from stablejax.lowering.module import LoweringRuleContext
from stablejax.lowering.registry import register_lowering

MESH_NAME = "mesh"


def _mesh_text(mesh: sharding_lib.Mesh) -> str:
  axes = ", ".join(f'"{n}"={s}' for n, s in mesh.shape.items())
  ids = [int(i) for i in mesh.device_ids.flat]
  order = "" if ids == sorted(ids) else f", device_ids=[{', '.join(map(str, ids))}]"
  meta = ", ".join(f'{{name = "{n}", size = {s} : i64}}' for n, s in mesh.shape.items())
  return (f"sdy.mesh @{MESH_NAME} = <[{axes}]{order}> "
          f"{{stablehlo.mesh = {{axes = [{meta}]}}}}")


def _dims_text(s: sharding_lib.NamedSharding, ndim: int) -> str:
  dims = []
  for i in range(ndim):
    part = s.spec[i] if i < len(s.spec) else None
    if part is sharding_lib.UNCONSTRAINED:
      dims.append("{?}")
    else:
      dims.append("{" + ", ".join(f'"{a}"' for a in s.spec.axes(i)) + "}")
  return f"<@{MESH_NAME}, [{', '.join(dims)}]>"


def _check_named(s: Any, what: str) -> sharding_lib.NamedSharding:
  if not isinstance(s, sharding_lib.NamedSharding):
    raise TypeError(f"{what}: only NamedShardings can annotate a multi-device program, got {s!r}")
  return s


def sharding_attr(s: Any, ndim: int) -> ir.Attribute:
  """`#sdy.sharding<@mesh, [...]>` of a NamedSharding for a rank-`ndim` value."""
  return ir.Attribute.parse("#sdy.sharding" + _dims_text(_check_named(s, "sharding"), ndim))


def ensure_mesh(module: ir.Module, mesh: sharding_lib.Mesh) -> None:
  """Add `sdy.mesh @mesh` for `mesh` at the top of `module` (once; one mesh per module) and
  set `mhlo.num_partitions` to its size."""
  with module.context, ir.Location.unknown():
    symbols = ir.SymbolTable(module.operation)
    op = ir.Operation.parse(_mesh_text(mesh))
    if MESH_NAME in symbols:
      if str(symbols[MESH_NAME].attributes["mesh"]) != str(op.attributes["mesh"]):
        raise ValueError(f"a program can use one mesh; got {mesh} and another one")
      return
    ir.InsertionPoint.at_block_begin(module.body).insert(op)
    i32 = ir.IntegerType.get_signless(32)
    module.operation.attributes["mhlo.num_partitions"] = ir.IntegerAttr.get(i32, mesh.size)


def annotate_main(module: ir.Module, mesh: sharding_lib.Mesh, in_shardings: Sequence[Any],
                  out_shardings: Sequence[Any]) -> None:
  """Put `sdy.sharding` on `@main`'s arguments and results where a sharding is given (None:
  the partitioner chooses), in place."""
  ensure_mesh(module, mesh)
  with module.context:
    main = ir.SymbolTable(module.operation)["main"]
    fn_type = main.type
    main.arg_attrs = _with_shardings(main.arg_attrs if "arg_attrs" in main.attributes else None,
                                     fn_type.inputs, in_shardings)
    main.result_attrs = _with_shardings(
        main.result_attrs if "res_attrs" in main.attributes else None, fn_type.results,
        out_shardings)


def _with_shardings(attrs: Any, types: Sequence[ir.Type], shardings: Sequence[Any]
                    ) -> ir.ArrayAttr:
  out = []
  for i, t in enumerate(types):
    entries = {} if attrs is None else {a.name: a.attr for a in ir.DictAttr(attrs[i])}
    if shardings[i] is not None:
      entries["sdy.sharding"] = sharding_attr(shardings[i], ir.RankedTensorType(t).rank)
    out.append(ir.DictAttr.get(entries))
  return ir.ArrayAttr.get(out)


def _sharding_constraint_rule(ctx: LoweringRuleContext, x: ir.Value, *, sharding: Any
                              ) -> list[ir.Value]:
  s = _check_named(sharding, "with_sharding_constraint")
  ensure_mesh(ctx.module_context.module, s.mesh)
  attr = ir.Attribute.parse("#sdy.sharding" + _dims_text(s, ctx.avals_in[0].ndim))
  return [sdy.ShardingConstraintOp(x, attr).result]


register_lowering(lax.sharding_constraint_p, _sharding_constraint_rule)
