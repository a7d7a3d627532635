"""`shard_map`: run a per-shard function on every device of a mesh (JAX's `jax.shard_map`).

Each argument is split into blocks by its `PartitionSpec` over the mesh axes; the function sees
one block, may use collectives over the mesh axis names (`lax.psum(x, "i")`, ...), and its
results are put together by `out_specs` (an output whose spec leaves a mesh axis out is the
same on all devices along it). The higher-order primitive `shard_map_p` holds the per-shard
jaxpr; it lowers to Shardy's `sdy.manual_computation` (lowering/rules/parallel.py), which XLA's
SPMD partitioner runs on the mesh's devices.
"""
from __future__ import annotations

import functools
from typing import Any, Callable, Hashable

from stablejax import core, lax
from stablejax.interpreters import ad, batching, partial_eval as pe
from stablejax.jaxpr import ClosedJaxpr, eval_jaxpr
from stablejax.sharding import Mesh, PartitionSpec, current_mesh
from stablejax.tree_util import (broadcast_prefix, flatten_fun, tree_flatten, tree_structure,
                                 tree_unflatten)
from stablejax.util import prod

shard_map_p = core.Primitive("shard_map")
shard_map_p.multiple_results = True


def _dim_axes(spec: PartitionSpec, dim: int) -> tuple[Hashable, ...]:
  entry = spec[dim] if dim < len(spec) else None
  if entry is None:
    return ()
  return tuple(entry) if isinstance(entry, tuple) else (entry,)


def _split_factor(mesh: Mesh, spec: PartitionSpec, dim: int) -> int:
  return prod(mesh.shape[n] for n in _dim_axes(spec, dim))


def _check_spec(mesh: Mesh, spec: Any, aval: core.ShapedArray, what: str) -> None:
  if not isinstance(spec, PartitionSpec):
    raise TypeError(f"shard_map {what}: expected a PartitionSpec, got {spec!r}")
  if len(spec) > aval.ndim:
    raise ValueError(f"shard_map {what} {spec} has more entries than the rank of its value "
                     f"{aval.str_short()}")
  names = [n for d in range(len(spec)) for n in _dim_axes(spec, d)]
  unknown = [n for n in names if n not in mesh.shape]
  if unknown or len(set(names)) != len(names):
    raise ValueError(f"shard_map {what} {spec}: mesh axes {unknown or names} are not in the mesh "
                     f"{tuple(mesh.axis_names)} or are used twice")


def shard_aval(mesh: Mesh, spec: PartitionSpec, aval: core.ShapedArray, what: str = "in_specs"
               ) -> core.ShapedArray:
  """The type of one block of a value of type `aval` split by `spec`."""
  _check_spec(mesh, spec, aval, what)
  shape = []
  for d, size in enumerate(aval.shape):
    n = _split_factor(mesh, spec, d)
    if size % n:
      raise ValueError(f"shard_map {what} {spec}: dimension {d} of {aval.str_short()} (size "
                       f"{size}) is not divisible by the {n} devices of mesh axes "
                       f"{_dim_axes(spec, d)}")
    shape.append(size // n)
  return aval.update(shape=tuple(shape))


def unshard_aval(mesh: Mesh, spec: PartitionSpec, aval: core.ShapedArray,
                 what: str = "out_specs") -> core.ShapedArray:
  """The type of the value whose blocks (split by `spec`) have type `aval`."""
  _check_spec(mesh, spec, aval, what)
  return aval.update(shape=tuple(size * _split_factor(mesh, spec, d)
                                 for d, size in enumerate(aval.shape)))


def _unmentioned(mesh: Mesh, spec: PartitionSpec) -> tuple[Hashable, ...]:
  """The mesh axes `spec` does not split along (the value is the same along them)."""
  used = {n for d in range(len(spec)) for n in _dim_axes(spec, d)}
  return tuple(n for n in mesh.axis_names if n not in used)


def _mesh_axes(mesh: Mesh) -> batching.extend_axis_env:
  return batching.extend_axis_env(list(mesh.shape.items()))


def _trace_body(fn: Callable, mesh: Mesh, avals: list) -> ClosedJaxpr:
  with _mesh_axes(mesh):
    return pe.trace_to_closed_jaxpr(fn, avals)


# ----------------------------------------------------------------------------------------------
# The primitive's rules

def _shard_map_abstract_eval(*avals, jaxpr: ClosedJaxpr, mesh: Mesh, in_specs, out_specs,
                             check_vma):
  blocks = [shard_aval(mesh, s, a) for s, a in zip(in_specs, avals)]
  if len(avals) != len(jaxpr.in_avals) or not all(map(core.typematch, blocks,
                                                      jaxpr.in_avals)):
    raise TypeError(f"shard_map: blocks {[a.str_short() for a in blocks]} of the arguments do "
                    f"not match the body's inputs {[a.str_short() for a in jaxpr.in_avals]}")
  return [unshard_aval(mesh, s, a) for s, a in zip(out_specs, jaxpr.out_avals)]


shard_map_p.def_abstract_eval(_shard_map_abstract_eval)


def _shard_map_eagerly(*args: Any, **params: Any) -> Any:
  raise NotImplementedError(
      "shard_map is compiled over its mesh only under jit in stablejax: call it inside "
      "sj.jit (for example sj.jit(sj.shard_map(f, mesh=..., in_specs=..., out_specs=...)))")


shard_map_p.def_impl(_shard_map_eagerly)  # (evaluated alone it would compile for one device)


def _shard_map_jvp(primals, tangents, *, jaxpr, mesh, in_specs, out_specs, check_vma):
  nonzeros = [type(t) is not ad.Zero for t in tangents]
  with _mesh_axes(mesh):
    jvp_jaxpr, out_nonzeros = ad.jvp_jaxpr(jaxpr, nonzeros, instantiate=False)
  nz_specs = [s for s, nz in zip(in_specs, nonzeros) if nz]
  out_nz_specs = [s for s, nz in zip(out_specs, out_nonzeros) if nz]
  outs = shard_map_p.bind(*primals, *[t for t in tangents if type(t) is not ad.Zero],
                          jaxpr=jvp_jaxpr, mesh=mesh, in_specs=tuple(in_specs) + tuple(nz_specs),
                          out_specs=tuple(out_specs) + tuple(out_nz_specs), check_vma=check_vma)
  n = len(out_specs)
  nz_out = iter(outs[n:])
  return outs[:n], [next(nz_out) if nz else ad.Zero.from_primal_value(p)
                    for p, nz in zip(outs[:n], out_nonzeros)]


ad.primitive_jvps[shard_map_p] = _shard_map_jvp


def _batched_spec(spec: PartitionSpec) -> PartitionSpec:
  return PartitionSpec(None, *spec)


def _shard_map_batch(axis_data, args, dims, *, jaxpr, mesh, in_specs, out_specs, check_vma):
  args = [x if d is None else batching.moveaxis(x, d, 0) for x, d in zip(args, dims)]
  in_dims = [None if d is None else 0 for d in dims]
  with _mesh_axes(mesh):
    batched, _ = batching.batch_jaxpr(jaxpr, axis_data, in_dims, instantiate=True)
  specs = [s if d is None else _batched_spec(s) for s, d in zip(in_specs, in_dims)]
  outs = shard_map_p.bind(*args, jaxpr=batched, mesh=mesh, in_specs=tuple(specs),
                          out_specs=tuple(map(_batched_spec, out_specs)), check_vma=check_vma)
  return outs, [0] * len(outs)


batching.fancy_primitive_batchers[shard_map_p] = _shard_map_batch


def _shard_map_transpose(cts, *args, jaxpr, mesh, in_specs, out_specs, check_vma):
  """The body transposed per shard. A cotangent of an output the same along some mesh axes is
  divided by their size, and a linear input the same along some axes gets the sum of its
  cotangents over them, so that `psum`'s transpose (a `psum`) is right in every case (JAX's
  rule for shard_map without replication checks)."""
  linear = [ad.is_undefined_primal(x) for x in args]
  ct_jaxpr = ad.transpose_jaxpr(jaxpr, linear)
  lin_specs = [s for s, lin in zip(in_specs, linear) if lin]

  def body(*xs):
    n = len(xs) - len(out_specs)
    cts_in = [_scale(ct, mesh, s) for ct, s in zip(xs[n:], out_specs)]
    outs = eval_jaxpr(ct_jaxpr.jaxpr, ct_jaxpr.consts, *xs[:n], *cts_in)
    return [_sum_unmentioned(o, mesh, s) for o, s in zip(outs, lin_specs)]

  nonlinear = [x for x, lin in zip(args, linear) if not lin]
  nl_specs = [s for s, lin in zip(in_specs, linear) if not lin]
  avals = ([shard_aval(mesh, s, core.get_aval(x)) for x, s in zip(nonlinear, nl_specs)] +
           list(jaxpr.out_avals))
  closed = _trace_body(body, mesh, avals)
  outs = iter(shard_map_p.bind(*nonlinear, *[ad.instantiate_zeros(ct) for ct in cts],
                               jaxpr=closed, mesh=mesh,
                               in_specs=tuple(nl_specs) + tuple(out_specs),
                               out_specs=tuple(lin_specs), check_vma=check_vma))
  return [next(outs) if lin else None for lin in linear]


def _scale(ct: Any, mesh: Mesh, spec: PartitionSpec) -> Any:
  n = prod(mesh.shape[a] for a in _unmentioned(mesh, spec))
  return ct if n == 1 else lax.div(ct, lax.full((), n, core.get_aval(ct).dtype))


def _sum_unmentioned(x: Any, mesh: Mesh, spec: PartitionSpec) -> Any:
  axes = _unmentioned(mesh, spec)
  return lax.psum(x, axes) if axes else x


ad.primitive_transposes[shard_map_p] = _shard_map_transpose


def _shard_map_partial_eval(trace: pe.PartialEvalTrace, args, params):
  """The known part of the body runs now as its own shard_map; its residuals (blocks, which
  may differ between devices) leave it stacked along all the mesh axes (each block given a
  leading axis of 1) and enter the staged shard_map of the unknown part the same way."""
  jaxpr, mesh = params["jaxpr"], params["mesh"]
  in_specs, out_specs = params["in_specs"], params["out_specs"]
  unknowns = [trace.is_unknown(x) for x in args]
  with _mesh_axes(mesh):
    known, unknown, out_unknowns, num_res = pe.partial_eval_jaxpr(jaxpr, unknowns, False)
  n_known = len(known.out_avals) - num_res
  res_avals = known.out_avals[n_known:]
  res_spec = PartitionSpec(tuple(mesh.axis_names))

  def known_body(*xs):
    outs = eval_jaxpr(known.jaxpr, known.consts, *xs)
    return outs[:n_known] + [lax.expand_dims(r, (0,)) for r in outs[n_known:]]

  def unknown_body(*xs):
    res = [lax.squeeze(r, (0,)) for r in xs[:num_res]]
    return eval_jaxpr(unknown.jaxpr, unknown.consts, *res, *xs[num_res:])

  known_specs = [s for s, u in zip(in_specs, unknowns) if not u]
  known_closed = _trace_body(known_body, mesh, list(known.in_avals))
  known_out_specs = [s for s, u in zip(out_specs, out_unknowns) if not u] + [res_spec] * num_res
  with core.set_current_trace(trace.parent):
    known_outs = shard_map_p.bind(*[x for x, u in zip(args, unknowns) if not u],
                                  jaxpr=known_closed, mesh=mesh, in_specs=tuple(known_specs),
                                  out_specs=tuple(known_out_specs),
                                  check_vma=params["check_vma"])
  res_blocks = [a.update(shape=(1,) + a.shape) for a in res_avals]
  unknown_closed = _trace_body(unknown_body, mesh,
                               res_blocks + list(unknown.in_avals[num_res:]))
  unknown_specs = [res_spec] * num_res + [s for s, u in zip(in_specs, unknowns) if u]
  unknown_outs = trace.stage(shard_map_p, known_outs[n_known:] +
                             [x for x, u in zip(args, unknowns) if u],
                             dict(jaxpr=unknown_closed, mesh=mesh, in_specs=tuple(unknown_specs),
                                  out_specs=tuple(s for s, u in zip(out_specs, out_unknowns) if u),
                                  check_vma=params["check_vma"]))
  known_it, unknown_it = iter(known_outs[:n_known]), iter(unknown_outs)
  return [next(unknown_it) if u else next(known_it) for u in out_unknowns]


pe.partial_eval_rules[shard_map_p] = _shard_map_partial_eval


# ----------------------------------------------------------------------------------------------
# The user-facing function

def _specs_for(what: str, specs: Any, tree: Any) -> list[PartitionSpec]:
  try:
    flat = broadcast_prefix(specs, tree, is_leaf=lambda x: x is None)
  except ValueError as e:
    raise ValueError(f"shard_map {what} must be a tree prefix of the corresponding value, got "
                     f"{specs} for value tree {tree_structure(tree)}: {e}") from None
  return [PartitionSpec() if s is None else s for s in flat]


def shard_map(f: Callable | None = None, /, *, out_specs: Any, in_specs: Any,
              mesh: Mesh | None = None, axis_names: frozenset = frozenset(),
              check_vma: bool = True) -> Callable:
  """Map `f` over the blocks of its arguments on every device of `mesh` (default: the mesh
  of the enclosing `with mesh:`): arguments are split by `in_specs` and results put together
  by `out_specs` (PartitionSpecs, pytree prefixes of the arguments and results). Inside `f`
  the mesh axis names are bound for collectives. All mesh axes are manual (`axis_names` must
  be empty or all of them); `check_vma` is accepted, and replication is not checked."""
  if f is None:
    return functools.partial(shard_map, out_specs=out_specs, in_specs=in_specs, mesh=mesh,
                             axis_names=axis_names, check_vma=check_vma)
  mesh = current_mesh() if mesh is None else mesh
  if not isinstance(mesh, Mesh):
    raise TypeError(f"shard_map needs a Mesh (mesh= or an enclosing `with mesh:`), got {mesh!r}")
  if axis_names and set(axis_names) != set(mesh.axis_names):
    raise NotImplementedError("shard_map over some of the mesh axes (axis_names) is not "
                              "supported; stablejax makes all mesh axes manual")

  @functools.wraps(f, updated=())
  def mapped(*args):
    flat, in_tree = tree_flatten(args)
    specs = _specs_for("in_specs", in_specs, args)
    flat_f, out_tree = flatten_fun(f, tree_structure((args, {})))
    blocks = [shard_aval(mesh, s, core.get_aval(x)) for s, x in zip(specs, flat)]
    body = _trace_body(flat_f, mesh, blocks)
    dummy = tree_unflatten(out_tree(), [0] * len(body.out_avals))
    flat_out_specs = _specs_for("out_specs", out_specs, dummy)
    outs = shard_map_p.bind(*flat, jaxpr=body, mesh=mesh, in_specs=tuple(specs),
                            out_specs=tuple(flat_out_specs), check_vma=check_vma)
    return tree_unflatten(out_tree(), outs)
  return mapped
