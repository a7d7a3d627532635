"""`with_sharding_constraint`: pin the sharding of an intermediate value of a jitted program
(the `sharding_constraint` primitive; XLA's partitioner honours it)."""
from __future__ import annotations

from typing import Any

from stablejax import core, sharding as sharding_lib
from stablejax.interpreters import ad, batching, flops
from stablejax.lax.primitive_kit import def_reference, standard_primitive
from stablejax.tree_util import tree_flatten, tree_unflatten

__all__ = ["sharding_constraint_p", "with_sharding_constraint"]


def with_sharding_constraint(x: Any, shardings: Any) -> Any:
  """`x` (a pytree) laid out as `shardings` says (one sharding, or a pytree prefix of `x`);
  outside of jit the arrays are put there (JAX's jax.lax.with_sharding_constraint)."""
  leaves, tree = tree_flatten(x)
  flat_shardings = _broadcast_prefix(shardings, x, len(leaves))
  out = []
  for leaf, s in zip(leaves, flat_shardings):
    s = sharding_lib.check_sharding(s, "with_sharding_constraint")
    aval = core.get_aval(leaf)
    s._to_xla_hlo_sharding(aval.ndim)  # the rank check, with the caller's names
    if isinstance(leaf, core.Tracer):
      out.append(sharding_constraint_p.bind(leaf, sharding=s))
    else:
      out.append(sharding_lib.put(leaf, s))
  return tree_unflatten(tree, out)


def _broadcast_prefix(shardings: Any, x: Any, n: int) -> list:
  """One sharding per leaf of `x`: a single one (or PartitionSpec) for all, else the leaves of
  a pytree with `x`'s structure."""
  if isinstance(shardings, (sharding_lib.PartitionSpec, sharding_lib.Sharding)):
    return [shardings] * n
  flat, _ = tree_flatten(shardings, is_leaf=lambda s: isinstance(s, sharding_lib.PartitionSpec))
  if len(flat) != n:
    raise ValueError(f"with_sharding_constraint: {len(flat)} shardings for {n} arrays")
  return flat


def _constraint_abstract_eval(x: core.ShapedArray, *, sharding: Any) -> core.ShapedArray:
  return x


def _constraint_batcher(args, dims, *, sharding: Any):
  (x,), (d,) = args, dims
  if d is batching.not_mapped or not isinstance(sharding, sharding_lib.NamedSharding):
    return sharding_constraint_p.bind(x, sharding=sharding), d
  parts = list(sharding.spec) + [None] * (core.get_aval(x).ndim - 1 - len(sharding.spec))
  spec = sharding_lib.PartitionSpec(*parts[:d], None, *parts[d:])
  return sharding_constraint_p.bind(x, sharding=sharding.update(spec=spec)), d


sharding_constraint_p = standard_primitive("sharding_constraint", _constraint_abstract_eval)
ad.deflinear(sharding_constraint_p,
             lambda ct, *, sharding: [sharding_constraint_p.bind(ct, sharding=sharding)])
batching.primitive_batchers[sharding_constraint_p] = _constraint_batcher
def_reference(sharding_constraint_p, lambda x, *, sharding: x)

# ----------------------------------------------------------------------------------------------
# FLOPS (conventions: stablejax.flops)

flops.flops_rules[sharding_constraint_p] = flops.free
