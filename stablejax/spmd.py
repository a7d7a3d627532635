"""`jit` over several devices: `in_shardings`/`out_shardings`, the shardings of multi-device
Array arguments and `with_sharding_constraint` make a program that XLA's SPMD partitioner
partitions over a mesh. The module is lowered as for one device, then annotated (Shardy's
`sdy` dialect, as JAX 0.10), compiled for the mesh's devices and run there."""
from __future__ import annotations

from typing import Any, Sequence

from stablejax import pipeline, sharding as sharding_lib
from stablejax.jaxpr import ClosedJaxpr, Jaxpr
from stablejax.lax.sharding import sharding_constraint_p
from stablejax.lowering.rules import sharding as sharding_rules
from stablejax.runtime import Array, pjrt, platform_of
from stablejax.runtime.sharded import (ShardedExecutable, compile_spmd, output_hlo_shardings,
                                       parameter_hlo_shardings)
from stablejax.tree_util import PyTreeDef, tree_leaves, tree_unflatten
from stablejax.util import weak_cache


def _is_leaf_sharding(s: Any) -> bool:
  return s is None or isinstance(s, (sharding_lib.PartitionSpec, *sharding_lib.Sharding))


def prefix_leaves(prefix: Any, value: Any, what: str) -> list:
  """One entry of `prefix` (a pytree prefix of `value` whose leaves are shardings or None) per
  leaf of `value`."""
  if _is_leaf_sharding(prefix):
    return [prefix] * len(tree_leaves(value))
  if isinstance(prefix, (tuple, list)) and isinstance(value, (tuple, list)) and \
      len(prefix) == len(value):
    return [s for p, v in zip(prefix, value) for s in prefix_leaves(p, v, what)]
  if isinstance(prefix, dict) and isinstance(value, dict) and prefix.keys() == value.keys():
    return [s for k in sorted(value) for s in prefix_leaves(prefix[k], value[k], what)]
  raise ValueError(f"{what} must be a sharding, None, or a pytree prefix of the "
                   f"{'arguments' if 'in' in what else 'results'}; got {prefix!r}")


def _constraint_mesh(jaxpr: Jaxpr) -> sharding_lib.Mesh | None:
  for eqn in jaxpr.eqns:
    if eqn.primitive is sharding_constraint_p:
      s = eqn.params["sharding"]
      if isinstance(s, sharding_lib.NamedSharding):
        return s.mesh
    if isinstance(eqn.params.get("mesh"), sharding_lib.Mesh):  # a shard_map's
      return eqn.params["mesh"]
    for p in eqn.params.values():
      for sub in (p if isinstance(p, (tuple, list)) else (p,)):
        inner = sub.jaxpr if isinstance(sub, ClosedJaxpr) else sub
        if isinstance(inner, Jaxpr):
          mesh = _constraint_mesh(inner)
          if mesh is not None:
            return mesh
  return None


@weak_cache(maxsize=256)
def constraint_mesh(closed: ClosedJaxpr) -> sharding_lib.Mesh | None:
  """The mesh of the program's first `with_sharding_constraint` (None: it has none)."""
  return _constraint_mesh(closed.jaxpr)


def is_multi_device(closed: ClosedJaxpr, flat_args: Sequence[Any]) -> bool:
  """Whether the program needs several devices: a multi-device Array argument or a sharding
  constraint."""
  for x in flat_args:
    if type(x) is Array and not pjrt.is_single_device(x._buf):
      return True
  return constraint_mesh(closed) is not None


def _resolve(given: Sequence[Any], what: str) -> list:
  return [None if s is None else sharding_lib.check_sharding(s, what) for s in given]


def _mesh(shardings: Sequence[Any], closed: ClosedJaxpr
          ) -> sharding_lib.Mesh:
  for s in shardings:
    if isinstance(s, sharding_lib.NamedSharding):
      return s.mesh
  mesh = constraint_mesh(closed)
  if mesh is None:
    raise ValueError("jit: a multi-device program needs a NamedSharding (in_shardings, "
                     "out_shardings, an argument's or a constraint's) to name its mesh")
  return mesh


def plan(in_prefix: Any, out_prefix: Any, in_tree: PyTreeDef, out_tree: PyTreeDef,
         flat_args: Sequence[Any], closed: ClosedJaxpr, name: str
         ) -> tuple[sharding_lib.Mesh, tuple, tuple]:
  """(mesh, flat in shardings, flat out shardings) of a call: the given ones, else a
  multi-device argument's own (None: the partitioner chooses)."""
  args, kwargs = tree_unflatten(in_tree, list(flat_args))
  ins = _resolve(prefix_leaves(in_prefix, args, f"jit of {name}: in_shardings"), "jit")
  ins += [None] * len(tree_leaves(kwargs))
  for i, x in enumerate(flat_args):
    if ins[i] is None and type(x) is Array and not pjrt.is_single_device(x._buf):
      ins[i] = x.sharding
  outs = tree_unflatten(out_tree, list(closed.out_avals))
  outs = _resolve(prefix_leaves(out_prefix, outs, f"jit of {name}: out_shardings"), "jit")
  mesh = _mesh(ins + outs, closed)
  return mesh, tuple(ins), tuple(outs)


def annotate(module: Any, mesh: sharding_lib.Mesh, ins: Sequence[Any], outs: Sequence[Any]
             ) -> None:
  """Put the sharding annotations on a lowered module in place."""
  sharding_rules.annotate_main(module, mesh, ins, outs)


def compile_sharded(closed: ClosedJaxpr, name: str, passes: tuple[str, ...],
                    mesh: sharding_lib.Mesh, ins: Sequence[Any], outs: Sequence[Any]
                    ) -> ShardedExecutable:
  """The executable of `closed` partitioned over `mesh` with these argument and result
  shardings (None: the partitioner's choice)."""
  devices = list(mesh.devices.flat)
  module = pipeline.lower(closed, name, platform_of(devices[0]), passes=passes)
  annotate(module, mesh, ins, outs)
  exe = compile_spmd(str(module), devices)
  out_shardings = _chosen(mesh, outs, output_hlo_shardings(exe, len(outs)), closed.out_avals)
  in_shardings = _chosen(mesh, ins, parameter_hlo_shardings(exe, len(ins)), closed.in_avals)
  return ShardedExecutable(exe, closed.in_avals, in_shardings, closed.out_avals, out_shardings,
                           sharding_lib.put)


def _chosen(mesh: sharding_lib.Mesh, given: Sequence[Any], compiled: Sequence[Any],
            avals: Sequence[Any]) -> list:
  """The given shardings, else the compiled program's (as NamedShardings where they are)."""
  return [s if s is not None else sharding_lib.named_or_gspmd(mesh, hs, a.ndim)
          for s, hs, a in zip(given, compiled, avals)]


def call(cache: dict, closed: ClosedJaxpr, name: str, passes: tuple[str, ...],
         in_prefix: Any, out_prefix: Any, in_tree: PyTreeDef, out_tree: PyTreeDef,
         flat_args: Sequence[Any]) -> list[Array]:
  """Run a jitted program over its mesh (compiled once per program and shardings, in
  `cache`)."""
  mesh, ins, outs = plan(in_prefix, out_prefix, in_tree, out_tree, flat_args, closed, name)
  key = (closed, passes, ins, outs)
  exe = cache.get(key)
  if exe is None:
    exe = cache[key] = compile_sharded(closed, name, passes, mesh, ins, outs)
  return exe(*flat_args)


__all__ = ["annotate", "call", "compile_sharded", "is_multi_device", "plan"]
