"""`with_sharding_constraint`: pin the sharding of an intermediate value of a jitted program
(the `sharding_constraint` primitive; XLA's partitioner honours it); `reshard`, the same for
values over Explicit mesh axes, as JAX's."""
from __future__ import annotations

from typing import Any

from stablejax import core, sharding as sharding_lib
from stablejax.interpreters import ad, batching, flops
from stablejax.lax.primitive_kit import def_reference, standard_primitive
from stablejax.typed_sharding import of_sharding
from stablejax.tree_util import broadcast_prefix, tree_flatten, tree_unflatten

__all__ = ["apply_out_sharding", "sharding_constraint_p", "typed_named_sharding",
           "with_sharding_constraint"]
# (reshard is top-level: `sj.reshard`)


def with_sharding_constraint(x: Any, shardings: Any) -> Any:
  """`x` (a pytree) laid out as `shardings` says (one sharding, or a pytree prefix of `x`);
  outside of jit the arrays are put there (JAX's jax.lax.with_sharding_constraint)."""
  leaves, tree = tree_flatten(x)
  flat_shardings = _broadcast_prefix(shardings, x, len(leaves))
  out = [_constrain(leaf, sharding_lib.check_sharding(s, "with_sharding_constraint"))
         for leaf, s in zip(leaves, flat_shardings)]
  return tree_unflatten(tree, out)


def _constrain(leaf: Any, s: Any) -> Any:
  """`leaf` laid out by the sharding `s`: constrained when traced, else put there."""
  s._to_xla_hlo_sharding(core.get_aval(leaf).ndim)  # the rank check, with the caller's names
  if isinstance(leaf, core.Tracer):
    return sharding_constraint_p.bind(leaf, sharding=s)
  return sharding_lib.put(leaf, s)


def reshard(xs: Any, out_shardings: Any) -> Any:
  """`xs` (a pytree) laid out as `out_shardings` says: a NamedSharding, or a PartitionSpec of
  the enclosing mesh, over Explicit mesh axes (or a pytree prefix of `xs` of them). Outside of
  jit the arrays are put there (JAX's `jax.reshard`)."""
  leaves, tree = tree_flatten(xs)
  try:
    flat = broadcast_prefix(out_shardings, xs, is_leaf=lambda s: s is None or isinstance(
        s, (sharding_lib.PartitionSpec, sharding_lib.Sharding)))
  except ValueError as e:
    raise ValueError(f"reshard out_shardings must be a tree prefix of the arguments: {e}"
                     ) from None
  return tree_unflatten(tree, [_constrain(x, _reshard_target(s)) for x, s in zip(leaves, flat)])


def _reshard_target(s: Any) -> sharding_lib.NamedSharding:
  """The NamedSharding `reshard` puts a value on, with JAX's errors for the others."""
  if s is None:
    raise ValueError("Reshard should only be used with out_shardings which are non-None and "
                     f"have a non-empty mesh. Got sharding {s}.")
  if isinstance(s, sharding_lib.PartitionSpec):
    if sharding_lib.current_mesh() is None:
      raise ValueError("Using PartitionSpec when you are not under a mesh context is not "
                       "allowed. Please pass a NamedSharding instance or enter into a mesh "
                       f"context. Got {s}")
    s = sharding_lib.check_sharding(s, "reshard")
  if not isinstance(s, sharding_lib.NamedSharding):
    raise TypeError("`out_sharding` argument of reshard only supports instances of "
                    f"`NamedSharding` or `PartitionSpec`. Got {s} of type: {type(s)}")
  types = dict(zip(s.mesh.axis_names, s.mesh.axis_types))
  for name in (a for i in range(len(s.spec)) for a in s.spec.axes(i)):
    if types[name] is not sharding_lib.AxisType.Explicit:
      raise ValueError("PartitionSpec passed to reshard cannot contain axis names that are of "
                       f"type Auto or Manual. Got PartitionSpec: {s.spec} with axis name: "
                       f"{name} of type: AxisType.{types[name].name}.")
  return s


def apply_out_sharding(x: Any, out_sharding: Any, what: str) -> Any:
  """The result `x` (a pytree) of `what` laid out by its `out_sharding=` argument (NamedShardings,
  or PartitionSpecs over the context mesh, padded to each rank as JAX's typed shardings are;
  None: `x` as it is): a sharding constraint under a trace, else a device_put."""
  if out_sharding is None:
    return x
  leaves, tree = tree_flatten(x)
  flat = _broadcast_prefix(out_sharding, x, len(leaves))
  return tree_unflatten(tree, [
      with_sharding_constraint(leaf, typed_named_sharding(s, core.get_aval(leaf).ndim, what))
      for leaf, s in zip(leaves, flat)])


def typed_named_sharding(s: Any, ndim: int, what: str) -> Any:
  """`s` (the `out_sharding=` of `what`) as a NamedSharding whose spec names every dimension of
  a rank-`ndim` result."""
  if isinstance(s, sharding_lib.PartitionSpec):
    mesh = sharding_lib.current_mesh()
    if mesh is None:
      raise ValueError("Using PartitionSpec when you are not under a mesh context is not "
                       "allowed. Please pass a NamedSharding instance or enter into a mesh "
                       f"context via `stablejax.set_mesh`. Got {s}")
    s = sharding_lib.NamedSharding(mesh, s)
  if not isinstance(s, sharding_lib.NamedSharding):
    raise TypeError(f"`out_sharding` argument of {what} only supports instances of "
                    f"`NamedSharding` or `PartitionSpec`. Got {s} of type: {type(s)}")
  return s.update(spec=(*s.spec, *[None] * (ndim - len(s.spec))))


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
  """`x`, typed by `sharding` where it splits over Explicit mesh axes."""
  out_type = of_sharding(sharding, x.ndim)
  return x if out_type is None else x.update(sharding=out_type)


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
