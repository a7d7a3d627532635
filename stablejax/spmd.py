"""`jit` over several devices, the planning: `in_shardings`/`out_shardings`, the shardings of
multi-device Array arguments and `with_sharding_constraint` make a program that XLA's SPMD
partitioner partitions over a mesh. `plan` says which mesh and which argument and result
shardings; that `lowering.ShardingContext` is an input of lowering (the module's Shardy `sdy`
annotations, as JAX 0.10's, are built with it) and of compiling (`pipeline.compile`, for the
mesh's devices)."""
from __future__ import annotations

from typing import Any, Sequence

from stablejax import sharding as sharding_lib
from stablejax.jaxpr import ClosedJaxpr, Jaxpr
from stablejax.lax.sharding import sharding_constraint_p
from stablejax.lowering import ShardingContext
from stablejax.runtime import Array, pjrt
from stablejax.tree_util import PyTreeDef, tree_leaves, tree_unflatten
from stablejax.util import weak_cache


def _is_leaf_sharding(s: Any) -> bool:
  return s is None or isinstance(s, (sharding_lib.PartitionSpec, sharding_lib.Sharding))


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
    if not eqn.params:  # (most equations: no sharding, mesh or jaxpr to look in)
      continue
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
         flat_args: Sequence[Any], closed: ClosedJaxpr, name: str) -> ShardingContext:
  """The mesh and the flat argument and result shardings of a call: the given ones, else a
  multi-device argument's own and a result's type's (None: the partitioner chooses)."""
  args, kwargs = tree_unflatten(in_tree, list(flat_args))
  ins = _resolve(prefix_leaves(in_prefix, args, f"jit of {name}: in_shardings"), "jit")
  ins += [None] * len(tree_leaves(kwargs))
  for i, x in enumerate(flat_args):
    if ins[i] is None and type(x) is Array and not pjrt.is_single_device(x._buf):
      ins[i] = x.sharding
  outs = tree_unflatten(out_tree, list(closed.out_avals))
  outs = _resolve(prefix_leaves(out_prefix, outs, f"jit of {name}: out_shardings"), "jit")
  mesh = _mesh(ins + outs, closed)
  outs = [typed_result(a, mesh) if s is None else s for s, a in zip(outs, closed.out_avals)]
  return ShardingContext(mesh, tuple(ins), tuple(outs))


def typed_result(aval: Any, mesh: sharding_lib.Mesh) -> sharding_lib.NamedSharding | None:
  """The sharding of a result whose type splits it over Explicit axes of `mesh` (as JAX's
  results are laid out by their types); None for the partitioner to choose."""
  typed = getattr(aval, "typed_sharding", None)
  if typed is None or typed.mesh != mesh.abstract_mesh:
    return None
  return sharding_lib.NamedSharding(mesh, typed.spec)


def mesh_sharding(s: Any) -> sharding_lib.NamedSharding | None:
  """`s` if it lays an array out over a mesh (a NamedSharding), else None."""
  return s if isinstance(s, sharding_lib.NamedSharding) else None


def names_a_sharding(prefix: Any) -> bool:
  """Whether a pytree prefix of shardings gives any: one of Nones only is none given, as in JAX
  (flax's nnx.jit passes such tuples)."""
  return bool(tree_leaves(prefix))


__all__ = ["constraint_mesh", "is_multi_device", "mesh_sharding", "names_a_sharding", "plan",
           "prefix_leaves", "typed_result"]
