"""Lowering of `shard_map` (stablejax/lax/shard_map.py), as JAX 0.10.2 emits it: an
`sdy.manual_computation` over all the mesh axes (of the module's one `sdy.mesh`), whose region is
the per-shard body. The collectives inside it (lowering/rules/parallel.py) read its mesh with
`manual_mesh`."""
from __future__ import annotations

import threading
from typing import Sequence

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import sdy

from stablejax.jaxpr import ClosedJaxpr
from stablejax.lax.shard_map import shard_aval, shard_map_p
from stablejax.lowering.context import aval_to_ir_type
from stablejax.lowering.module import LoweringRuleContext, jaxpr_subcomp
from stablejax.lowering.partitioning import MESH_NAME, ensure_mesh
from stablejax.lowering.registry import LoweringError, register_lowering
from stablejax.sharding import Mesh, PartitionSpec


class _ManualMesh(threading.local):
  """The mesh of the shard_map body being lowered on this thread (None outside one)."""
  mesh: Mesh | None = None


_manual = _ManualMesh()


def manual_mesh(prim_name: str) -> Mesh:
  """The mesh of the shard_map whose body is being lowered (an error naming `prim_name`, a
  collective over a named axis, outside one)."""
  if _manual.mesh is None:
    raise LoweringError(f"{prim_name} over a named axis can only be lowered inside shard_map "
                        "(under vmap with an axis_name it is batched away)")
  return _manual.mesh



def _tensor_sharding(mesh_name: str, spec: PartitionSpec, ndim: int) -> ir.Attribute:
  dims = []
  for d in range(ndim):
    entry = spec[d] if d < len(spec) else None
    names = () if entry is None else entry if isinstance(entry, tuple) else (entry,)
    dims.append(sdy.DimensionShardingAttr.get([sdy.AxisRefAttr.get(str(n)) for n in names],
                                              is_closed=True))
  return sdy.TensorShardingAttr.get(mesh_name, dims)


def _shardings(mesh_name: str, specs: Sequence[PartitionSpec], avals) -> ir.Attribute:
  return sdy.TensorShardingPerValueAttr.get(
      [_tensor_sharding(mesh_name, s, a.ndim) for s, a in zip(specs, avals)])


def _shard_map_rule(ctx: LoweringRuleContext, *args: ir.Value, jaxpr: ClosedJaxpr, mesh: Mesh,
                    in_specs, out_specs, check_vma) -> list[ir.Value]:
  module_ctx = ctx.module_context
  if _manual.mesh is not None:
    raise LoweringError("a shard_map nested inside another shard_map is not supported")
  ensure_mesh(module_ctx.module, mesh)
  mesh_name = MESH_NAME
  manual = sdy.ManualAxesAttr.get([ir.StringAttr.get(str(n)) for n in mesh.axis_names])
  op = sdy.ManualComputationOp([aval_to_ir_type(a) for a in ctx.avals_out], list(args),
                               _shardings(mesh_name, in_specs, ctx.avals_in),
                               _shardings(mesh_name, out_specs, ctx.avals_out), manual)
  blocks = [shard_aval(mesh, s, a) for s, a in zip(in_specs, ctx.avals_in)]
  block = op.body.blocks.append(*[aval_to_ir_type(a) for a in blocks])
  _manual.mesh = mesh
  try:
    with ir.InsertionPoint(block):
      outs = jaxpr_subcomp(module_ctx, jaxpr.jaxpr, jaxpr.consts, list(block.arguments),
                           ctx.name_stack)
      sdy.ReturnOp(outs)
  finally:
    _manual.mesh = None
  return list(op.results)


register_lowering(shard_map_p, _shard_map_rule)
