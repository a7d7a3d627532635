"""The SPMD partitioning a module is lowered for, and its Shardy `sdy` annotations as JAX 0.10
emits them (its default partitioner). `ShardingContext` is what JAX's
`ModuleContext.axis_context` is: the mesh a jitted program is partitioned over, here with the
shardings of `@main`'s arguments and results; lowering builds the module's `sdy.mesh @mesh` and
`@main`'s `sdy.sharding`s from it, and rules read it (`ctx.module_context.axis_context`: None
for a module on one device)."""
from __future__ import annotations

from typing import Any, NamedTuple, Sequence

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import func

from stablejax import sharding as sharding_lib

MESH_NAME = "mesh"
MAXIMAL_MESH_NAME = "maximal_mesh_0"  # the one-device mesh of device 0 (the mesh's first)


class ShardingContext(NamedTuple):
  """A module partitioned over `mesh` by XLA's SPMD partitioner; `in_shardings` and
  `out_shardings` hold, per argument and result of `@main`, a NamedSharding or None (the
  partitioner chooses)."""
  mesh: sharding_lib.Mesh
  in_shardings: tuple
  out_shardings: tuple

  @property
  def devices(self) -> list:
    """The devices the module runs on, in the order of its partitions."""
    return list(self.mesh.devices.flat)


def _mesh_text(mesh: sharding_lib.Mesh) -> str:
  axes = ", ".join(f'"{n}"={s}' for n, s in mesh.shape.items())
  ids = [int(i) for i in mesh.device_ids.flat]
  order = "" if ids == sorted(ids) else f", device_ids=[{', '.join(map(str, ids))}]"
  meta = ", ".join(f'{{name = "{n}", size = {s} : i64}}' for n, s in mesh.shape.items())
  return (f"sdy.mesh @{MESH_NAME} = <[{axes}]{order}> "
          f"{{stablehlo.mesh = {{axes = [{meta}]}}}}")


def dims_text(s: sharding_lib.NamedSharding, ndim: int) -> str:
  """`<@mesh, [{"x"}, {}]>`: the sharding of each dimension of a rank-`ndim` value."""
  dims = []
  for i in range(ndim):
    part = s.spec[i] if i < len(s.spec) else None
    if part is sharding_lib.UNCONSTRAINED:
      dims.append("{?}")
    else:
      dims.append("{" + ", ".join(f'"{a}"' for a in s.spec.axes(i)) + "}")
  return f"<@{MESH_NAME}, [{', '.join(dims)}]>"


def check_named(s: Any, what: str) -> sharding_lib.NamedSharding:
  """`s`, a NamedSharding; a TypeError naming `what` otherwise."""
  if not isinstance(s, sharding_lib.NamedSharding):
    raise TypeError(f"{what}: only NamedShardings can annotate a multi-device program, got {s!r}")
  return s


def sharding_attr(s: Any, ndim: int) -> ir.Attribute:
  """`#sdy.sharding<@mesh, [...]>` of a NamedSharding for a rank-`ndim` value."""
  return ir.Attribute.parse("#sdy.sharding" + dims_text(check_named(s, "sharding"), ndim))


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


def annotate_main(main: func.FuncOp, ctx: ShardingContext) -> None:
  """Put `sdy.sharding` on `main`'s arguments and results where `ctx` gives a sharding (a
  leading platform index, where there is one, keeps its attributes)."""
  fn_type = main.type
  main.arg_attrs = _with_shardings(main.arg_attrs if "arg_attrs" in main.attributes else None,
                                   fn_type.inputs, ctx.in_shardings)
  main.result_attrs = _with_shardings(
      main.result_attrs if "res_attrs" in main.attributes else None, fn_type.results,
      ctx.out_shardings)


def _with_shardings(attrs: Any, types: Sequence[ir.Type], shardings: Sequence[Any]
                    ) -> ir.ArrayAttr:
  first = len(types) - len(shardings)
  out = []
  for i, t in enumerate(types):
    entries = {} if attrs is None else {a.name: a.attr for a in ir.DictAttr(attrs[i])}
    if i >= first and shardings[i - first] is not None:
      entries["sdy.sharding"] = sharding_attr(shardings[i - first], ir.RankedTensorType(t).rank)
    out.append(ir.DictAttr.get(entries))
  return ir.ArrayAttr.get(out)


def maximal_sharding(module: ir.Module, num_results: int) -> ir.Attribute:
  """`#sdy.sharding_per_value` putting an op's `num_results` results (one entry if it has
  none) on device 0 alone: what XLA's SPMD partitioner needs on a side-effecting op, which
  JAX gives its host callbacks in a partitioned program (they then run once, on the whole
  value). Adds the one-device `sdy.mesh @maximal_mesh_0` to `module` once."""
  symbols = ir.SymbolTable(module.operation)
  if MAXIMAL_MESH_NAME not in symbols:
    op = ir.Operation.parse(
        f"sdy.mesh @{MAXIMAL_MESH_NAME} = <[], device_ids=[0]> "
        "{stablehlo.mesh = {axes = [], device_ids = dense<0> : tensor<1xi64>}}")
    first_function = next(o for o in module.body.operations if o.operation.name != "sdy.mesh")
    ir.InsertionPoint(first_function).insert(op)
  per_value = ", ".join([f"<@{MAXIMAL_MESH_NAME}, []>"] * max(1, num_results))
  return ir.Attribute.parse(f"#sdy.sharding_per_value<[{per_value}]>")
