"""Lowering of the collectives (`stablejax.lax.parallel`), as JAX 0.10.2 emits them: inside the
body of a shard_map (lowering/rules/shard_map.py), a collective is a StableHLO collective over the
partitions (devices) of its mesh: `replica_groups` of partition ids, `channel_handle` 1 of type 1
(device to device) and `use_global_device_ids`."""
from __future__ import annotations

from typing import Hashable, Sequence

import numpy as np

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from stablejax import lax
from stablejax.lowering.context import aval_to_ir_type, dtype_to_ir_type, ir_constant
from stablejax.lowering.module import LoweringRuleContext
from stablejax.lowering.registry import LoweringError, register_lowering
from stablejax.lowering.rules.shard_map import manual_mesh
from stablejax.sharding import Mesh
from stablejax.util import prod


def _names(axis_name) -> tuple:
  return tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)


def axis_groups(mesh: Mesh, axes: Sequence[Hashable]) -> np.ndarray:
  """The partition ids of the devices along `axes` (one group a row, the devices in order of
  their index along `axes`, row-major): partition p is the p-th device of the mesh."""
  names = list(mesh.axis_names)
  missing = [a for a in axes if a not in names]
  if missing:
    raise LoweringError(f"collective over axes {missing} that are not axes of the shard_map "
                        f"mesh {tuple(names)}")
  ids = np.arange(mesh.size).reshape(tuple(mesh.shape.values()))
  pos = [names.index(a) for a in axes]
  rest = [i for i in range(len(names)) if i not in pos]
  return ids.transpose(rest + pos).reshape(-1, prod(ids.shape[p] for p in pos))


def _groups_attr(groups: np.ndarray) -> ir.DenseIntElementsAttr:
  return ir.DenseIntElementsAttr.get(np.ascontiguousarray(groups, dtype=np.int64))


def _channel() -> ir.Attribute:
  return hlo.ChannelHandle.get(1, 1)


def _add_reducer(op: ir.Operation, dtype: np.dtype, combine) -> None:
  """The reduction region `(a, b) -> combine(a, b)` over scalars of `dtype`."""
  scalar = ir.RankedTensorType.get([], dtype_to_ir_type(dtype))
  block = op.regions[0].blocks.append(scalar, scalar)
  with ir.InsertionPoint(block):
    hlo.return_([combine(*block.arguments)])


_COMBINERS = {lax.psum_p: hlo.add, lax.pmax_p: hlo.maximum, lax.pmin_p: hlo.minimum}


def _allreduce_rule(ctx: LoweringRuleContext, x: ir.Value, *, axes, axis_index_groups
                    ) -> list[ir.Value]:
  aval = ctx.avals_in[0]
  groups = axis_groups(manual_mesh(ctx.primitive.name), axes)
  op = hlo.AllReduceOp([x.type], [x], _groups_attr(groups), channel_handle=_channel(),
                       use_global_device_ids=True)
  combine = _COMBINERS[ctx.primitive]
  if aval.dtype == np.bool_:
    combine = hlo.or_ if ctx.primitive is not lax.pmin_p else hlo.and_
  _add_reducer(op.operation, aval.dtype, combine)
  return list(op.results)


for _p in _COMBINERS:
  register_lowering(_p, _allreduce_rule)


def _all_gather_rule(ctx: LoweringRuleContext, x: ir.Value, *, all_gather_dimension, axis_name,
                     axis_size, axis_index_groups, tiled) -> list[ir.Value]:
  groups = axis_groups(manual_mesh("all_gather"), axis_name)
  aval_in, aval_out = ctx.avals_in[0], ctx.avals_out[0]
  if not tiled:  # gather blocks of one along the new axis (as JAX)
    shape = list(aval_in.shape)
    shape.insert(all_gather_dimension, 1)
    dims = [i for i in range(len(shape)) if i != all_gather_dimension]
    x = hlo.broadcast_in_dim(aval_to_ir_type(aval_in.update(shape=tuple(shape))), x, dims)
  op = hlo.AllGatherOp([aval_to_ir_type(aval_out)], [x], all_gather_dimension,
                       _groups_attr(groups), channel_handle=_channel(),
                       use_global_device_ids=True)
  return list(op.results)


register_lowering(lax.all_gather_p, _all_gather_rule)


def _reduce_scatter_rule(ctx: LoweringRuleContext, x: ir.Value, *, scatter_dimension, axis_name,
                         axis_size, axis_index_groups, tiled) -> list[ir.Value]:
  groups = axis_groups(manual_mesh("psum_scatter"), axis_name)
  aval_in, aval_out = ctx.avals_in[0], ctx.avals_out[0]
  shape = list(aval_in.shape)
  shape[scatter_dimension] //= axis_size
  block = aval_in.update(shape=tuple(shape))
  op = hlo.ReduceScatterOp(aval_to_ir_type(block), x, scatter_dimension, _groups_attr(groups),
                           channel_handle=_channel(), use_global_device_ids=True)
  _add_reducer(op.operation, aval_in.dtype, hlo.add)
  out = op.result
  return [out if tiled else hlo.reshape(aval_to_ir_type(aval_out), out)]


register_lowering(lax.reduce_scatter_p, _reduce_scatter_rule)


def _ppermute_rule(ctx: LoweringRuleContext, x: ir.Value, *, axis_name, perm
                   ) -> list[ir.Value]:
  groups = axis_groups(manual_mesh("ppermute"), axis_name)
  pairs = np.array([[g[s], g[d]] for g in groups for s, d in perm], dtype=np.int64)
  pairs = pairs.reshape(-1, 2)
  op = hlo.CollectivePermuteOp(x, ir.DenseIntElementsAttr.get(pairs), channel_handle=_channel())
  return list(op.results)


register_lowering(lax.ppermute_p, _ppermute_rule)


def _all_to_all_rule(ctx: LoweringRuleContext, x: ir.Value, *, axis_name, split_axis,
                     concat_axis, axis_size, axis_index_groups, tiled) -> list[ir.Value]:
  groups = axis_groups(manual_mesh("all_to_all"), _names(axis_name))
  if groups.shape[1] == 1:
    return [x]
  op = hlo.AllToAllOp([x], split_axis, concat_axis, groups.shape[1], _groups_attr(groups),
                      channel_handle=_channel())
  return list(op.results)


register_lowering(lax.all_to_all_p, _all_to_all_rule)


def _axis_index_rule(ctx: LoweringRuleContext, *, axis_name) -> list[ir.Value]:
  """partition_id / (the sizes of the mesh axes after it) % its size, row-major over names."""
  mesh = manual_mesh("axis_index")
  names = list(mesh.axis_names)
  sizes = list(mesh.shape.values())
  u32 = np.dtype(np.uint32)
  consts = []
  for name in _names(axis_name):
    if name not in names:
      raise LoweringError(f"axis_index over {name!r}, not an axis of the shard_map mesh "
                          f"{tuple(names)}")
    i = names.index(name)
    consts.append((ir_constant(np.uint32(prod(sizes[i + 1:])), dtype=u32),
                   ir_constant(np.uint32(sizes[i]), dtype=u32), sizes[i]))
  pid = hlo.partition_id()
  index = None
  for stride, size, n in consts:
    part = hlo.remainder(hlo.divide(pid, stride), size)
    index = part if index is None else hlo.add(
        hlo.multiply(index, ir_constant(np.uint32(n), dtype=u32)), part)
  return [hlo.convert(aval_to_ir_type(ctx.avals_out[0]), index)]


register_lowering(lax.axis_index_p, _axis_index_rule)


def _ragged_all_to_all_rule(ctx: LoweringRuleContext, operand: ir.Value, output: ir.Value,
                            *sizes: ir.Value, axis_name, axis_index_groups) -> list[ir.Value]:
  """JAX's custom call `ragged_all_to_all` (XLA:CPU has no kernel for it: compiling fails)."""
  groups = axis_groups(manual_mesh("ragged_all_to_all"), axis_name)
  config = ir.DictAttr.get({
      "replica_groups": _groups_attr(groups),
      "channel_id": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 1)})
  op = hlo.CustomCallOp([output.type], [operand, output, *sizes],
                        call_target_name=ir.StringAttr.get("ragged_all_to_all"),
                        backend_config=config,
                        api_version=ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 4))
  return list(op.results)


register_lowering(lax.ragged_all_to_all_p, _ragged_all_to_all_rule)
