"""`shard_map`: run a per-shard function on every device of a mesh (JAX's `jax.shard_map`).

Each argument is split into blocks by its `PartitionSpec` over the mesh axes; the function sees
one block, may use collectives over the mesh axis names (`lax.psum(x, "i")`, ...), and its
results are put together by `out_specs` (an output whose spec leaves a mesh axis out is the
same on all devices along it). The higher-order primitive `shard_map_p`
(stablejax/lax/shard_map.py) holds the per-shard jaxpr; it lowers to Shardy's
`sdy.manual_computation` (lowering/rules/shard_map.py), which XLA's SPMD partitioner runs on the
mesh's devices. Called outside `jit`, it runs as a `jit` of itself (as JAX's eager shard_map gives
the same values).
"""
from __future__ import annotations

import functools
from typing import Any, Callable

from stablejax import core, typed_sharding as typed
from stablejax.jit import jit
from stablejax.mesh import manual_region
from stablejax.lax.shard_map import shard_aval, shard_map_p, trace_body
from stablejax.sharding import Mesh, PartitionSpec, current_mesh
from stablejax.tree_util import (broadcast_prefix, flatten_fun, tree_flatten, tree_leaves,
                                 tree_map, tree_structure, tree_unflatten)


_INFER = object()  # in_specs / smap's in_axes not given: inferred from the arguments' types


def _specs_for(what: str, specs: Any, tree: Any) -> list[PartitionSpec]:
  try:
    flat = broadcast_prefix(specs, tree, is_leaf=lambda x: x is None)
  except ValueError as e:
    raise ValueError(f"shard_map {what} must be a tree prefix of the corresponding value, got "
                     f"{specs} for value tree {tree_structure(tree)}: {e}") from None
  return [PartitionSpec() if s is None else s for s in flat]


def shard_map(f: Callable | None = None, /, *, out_specs: Any, in_specs: Any = _INFER,
              mesh: Mesh | None = None, axis_names: frozenset = frozenset(),
              check_vma: bool = True) -> Callable:
  """Map `f` over the blocks of its arguments on every device of `mesh` (default: the mesh
  of the enclosing `with mesh:`): arguments are split by `in_specs` and results put together
  by `out_specs` (PartitionSpecs, pytree prefixes of the arguments and results; on a mesh of
  Explicit axes `in_specs` must be the arguments' types' and may be left out). Inside `f`
  the mesh axis names are bound for collectives. All mesh axes are manual (`axis_names` must
  be empty or all of them); `check_vma` is accepted, and replication is not checked. Outside
  `jit` it runs compiled over the mesh."""
  if f is None:
    return functools.partial(shard_map, out_specs=out_specs, in_specs=in_specs, mesh=mesh,
                             axis_names=axis_names, check_vma=check_vma)
  mesh = current_mesh() if mesh is None else mesh
  if not isinstance(mesh, Mesh):
    raise TypeError(f"shard_map needs a Mesh (mesh= or an enclosing `with mesh:`), got {mesh!r}")
  if axis_names and set(axis_names) != set(mesh.axis_names):
    raise NotImplementedError("shard_map over some of the mesh axes (axis_names) is not "
                              "supported; stablejax makes all mesh axes manual")
  if in_specs is _INFER and not mesh.are_all_axes_explicit:
    raise TypeError("shard_map in_specs argument must be a pytree of "
                    "`stablejax.sharding.PartitionSpec` instances, but it was `None` when "
                    f"axis_names={set(mesh.axis_names)} are of type {_types(mesh)}")

  @functools.wraps(f, updated=())
  def mapped(*args):
    flat, in_tree = tree_flatten(args)
    if in_specs is _INFER:
      specs = [PartitionSpec(*typed.parts(core.get_aval(x))) for x in flat]
    else:
      specs = _specs_for("in_specs", in_specs, args)
      if mesh.are_all_axes_explicit:
        _check_explicit_inputs(specs, flat)
    flat_f, out_tree = flatten_fun(f, tree_structure((args, {})))
    blocks = [shard_aval(mesh, s, core.get_aval(x)) for s, x in zip(specs, flat)]
    with manual_region(mesh.abstract_mesh, mesh.axis_names):
      body = trace_body(flat_f, mesh, blocks)
    dummy = tree_unflatten(out_tree(), [0] * len(body.out_avals))
    flat_out_specs = _specs_for("out_specs", out_specs, dummy)
    outs = shard_map_p.bind(*flat, jaxpr=body, mesh=mesh, in_specs=tuple(specs),
                            out_specs=tuple(flat_out_specs), check_vma=check_vma)
    return tree_unflatten(out_tree(), outs)
  return mapped


def _types(mesh: Mesh) -> str:
  return ", ".join(str(t) for t in mesh.axis_types)


def _check_explicit_inputs(specs: list[PartitionSpec], flat: list) -> None:
  """On a mesh of Explicit axes, each spec must be its argument's type's (JAX's check)."""
  for spec, x in zip(specs, flat):
    aval = core.get_aval(x)
    want = PartitionSpec(*typed.parts(aval))
    given = PartitionSpec(*spec, *[None] * (aval.ndim - len(spec)))
    if given != want:
      raise ValueError(
          f"in_specs passed to shard_map: {given} does not match the specs of the input: "
          f"{want} for arg: {aval.str_short()}. `in_specs` is an optional argument so you can "
          "omit specifying it and shard_map will infer the in_specs from the arguments. If you "
          "want to reshard your inputs, you can use `stablejax.reshard` on the arguments and "
          "then pass those args to shard_map.")


def _bind(*args: Any, **params: Any) -> list:
  return shard_map_p.bind(*args, **params)


_compiled = jit(_bind, static_argnames=("jaxpr", "mesh", "in_specs", "out_specs", "check_vma"))


def _shard_map_impl(*args: Any, **params: Any) -> list:
  """A shard_map on concrete values: compiled over its mesh (cached per body and specs)."""
  return _compiled(*args, **params)


shard_map_p.def_impl(_shard_map_impl)


def _axes_to_spec(axis_name: Any, axis: int | None) -> PartitionSpec:
  """The spec mapping positional axis `axis` (None: none) over mesh axis `axis_name`."""
  return PartitionSpec() if axis is None else PartitionSpec(*[None] * axis, axis_name)


def _check_smap_axes(in_axes: Any, out_axes: Any, axis_name: Any) -> None:
  if isinstance(axis_name, (list, tuple)):
    raise TypeError(f"smap axis_name should be a `str` or a `Hashable`, but got {axis_name}")
  if in_axes is not None and in_axes is not _INFER and not isinstance(in_axes, (int, tuple)):
    raise TypeError("smap in_axes must be an int, None, jax.sharding.Infer, or a tuple of "
                    "entries corresponding to the positional arguments passed to the "
                    f"function, but got {in_axes}.")
  if in_axes is not _INFER and not all(isinstance(a, int) for a in tree_leaves(in_axes)):
    raise TypeError("smap in_axes must be an int, None, jax.sharding.Infer, or (nested) "
                    f"container with those types as leaves, but got {in_axes}.")
  if not all(isinstance(a, int) for a in tree_leaves(out_axes)):
    raise TypeError("smap out_axes must be an int, None, or (nested) container with those "
                    f"types as leaves, but got {out_axes}.")


def smap(f: Callable | None = None, /, *, in_axes: Any = _INFER, out_axes: Any,
         axis_name: Any) -> Callable:
  """A shard_map over the one mesh axis `axis_name` of the current mesh, its specs given as
  positional axes: argument axis `in_axes` (None: not split) is split over `axis_name`, the
  results' pieces are put together along `out_axes`."""
  if f is None:
    return functools.partial(smap, in_axes=in_axes, out_axes=out_axes, axis_name=axis_name)
  _check_smap_axes(in_axes, out_axes, axis_name)
  mesh = current_mesh()
  if in_axes is _INFER and mesh is not None and not mesh.are_all_axes_explicit:
    raise TypeError("in_axes was not specified when "
                    f"axis_name={frozenset({axis_name})} was of type {_types(mesh)}")
  to_spec = functools.partial(_axes_to_spec, axis_name)
  is_none = lambda a: a is None  # noqa: E731
  in_specs = _INFER if in_axes is _INFER else tree_map(to_spec, in_axes, is_leaf=is_none)
  out_specs = tree_map(to_spec, out_axes, is_leaf=is_none)
  return shard_map(f, in_specs=in_specs, out_specs=out_specs, axis_names=frozenset({axis_name}))
