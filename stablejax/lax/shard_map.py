"""The `shard_map` primitive: its param `jaxpr` is the per-shard body, applied on every device of
`mesh` to one block of each operand (split by its `PartitionSpec` in `in_specs`); the results are
put together by `out_specs`. Its transformations are the call rules of
stablejax/lax/call_rules.py, the specs following the values; its lowering, Shardy's
`sdy.manual_computation`, is in lowering/rules/shard_map.py; the user-facing `sj.shard_map` is in
stablejax/shard_map.py.
"""
from __future__ import annotations

from typing import Any, Callable, ContextManager, Hashable, Sequence

from stablejax import core
from stablejax.interpreters import batching, flops, partial_eval as pe
from stablejax.jaxpr import ClosedJaxpr, eval_jaxpr
from stablejax.lax.call_rules import CallRules, register_call_rules
from stablejax.lax.elementwise import div
from stablejax.lax.parallel import psum
from stablejax.lax.primitive_kit import full
from stablejax.lax.structural import expand_dims, squeeze
from stablejax.sharding import Mesh, PartitionSpec
from stablejax import typed_sharding as typed
from stablejax.util import prod

__all__ = ["shard_map_p"]

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
  return core.typed_aval(aval.update(shape=tuple(shape)), None)  # (its axes are Manual)


def unshard_aval(mesh: Mesh, spec: PartitionSpec, aval: core.ShapedArray,
                 what: str = "out_specs") -> core.ShapedArray:
  """The type of the value whose blocks (split by `spec`) have type `aval`: split by `spec`
  over the Explicit axes of `mesh` in its type."""
  _check_spec(mesh, spec, aval, what)
  shape = tuple(size * _split_factor(mesh, spec, d) for d, size in enumerate(aval.shape))
  return core.ShapedArray(shape, aval.dtype, aval.weak_type,
                          sharding=typed.of_spec(mesh, spec, len(shape)))


def _unmentioned(mesh: Mesh, spec: PartitionSpec) -> tuple[Hashable, ...]:
  """The mesh axes `spec` does not split along (the value is the same along them)."""
  used = {n for d in range(len(spec)) for n in _dim_axes(spec, d)}
  return tuple(n for n in mesh.axis_names if n not in used)


def _mesh_axes(mesh: Mesh) -> batching.extend_axis_env:
  return batching.extend_axis_env(list(mesh.shape.items()))


def trace_body(fn: Callable, mesh: Mesh, avals: Sequence[core.ShapedArray]) -> ClosedJaxpr:
  """`fn` traced as a per-shard body: on blocks of types `avals`, the mesh axis names bound."""
  with _mesh_axes(mesh):
    return pe.trace_to_closed_jaxpr(fn, list(avals))


def _shard_map_abstract_eval(*avals, jaxpr: ClosedJaxpr, mesh: Mesh, in_specs, out_specs,
                             check_vma):
  blocks = [shard_aval(mesh, s, a) for s, a in zip(in_specs, avals)]
  if len(avals) != len(jaxpr.in_avals) or not all(map(core.typematch, blocks,
                                                      jaxpr.in_avals)):
    raise TypeError(f"shard_map: blocks {[a.str_short() for a in blocks]} of the arguments do "
                    f"not match the body's inputs {[a.str_short() for a in jaxpr.in_avals]}")
  return [unshard_aval(mesh, s, a) for s, a in zip(out_specs, jaxpr.out_avals)]


shard_map_p.def_abstract_eval(_shard_map_abstract_eval)


# Its evaluation on concrete values (`impl`) is a `jit` over the mesh, given by the API module
# (stablejax/shard_map.py), as a program compiled for one device would not span the mesh.


class _ShardMapRules(CallRules):
  """The body is transformed with the mesh axis names bound, and the specs follow the values:
  a tangent has its primal's spec, a cotangent its output's, a batched value gains an unsplit
  batch axis, and a residual (a block, which may differ between devices) leaves the known
  shard_map stacked along all the mesh axes (each block given a leading axis of 1)."""
  per_value = (("in_specs", "out_specs"),)

  def scope(self, params: dict) -> ContextManager:
    return _mesh_axes(params["mesh"])

  def residual_entry(self, params: dict, param: str) -> PartitionSpec:
    return PartitionSpec(tuple(params["mesh"].axis_names))

  def batched_entry(self, entry: PartitionSpec, batch_dim: int) -> PartitionSpec:
    if batch_dim >= len(entry):
      return entry
    return PartitionSpec(*entry[:batch_dim], None, *entry[batch_dim:])

  def ct_avals(self, params: dict, cts: Sequence) -> None:
    return None  # the cotangents of blocks: the body's output types

  def wrap_transposed(self, ct_jaxpr: ClosedJaxpr, params: dict, linear: Sequence[bool]
                      ) -> ClosedJaxpr:
    """A cotangent of an output the same along some mesh axes is divided by their size, and a
    linear input the same along some axes gets the sum of its cotangents over them, so that
    `psum`'s transpose (a `psum`) is right in every case (JAX's rule for shard_map without
    replication checks)."""
    mesh, out_specs = params["mesh"], params["out_specs"]
    lin_specs = [s for s, lin in zip(params["in_specs"], linear) if lin]

    def body(*xs):
      n = len(xs) - len(out_specs)
      cts_in = [_scale(ct, mesh, s) for ct, s in zip(xs[n:], out_specs)]
      outs = eval_jaxpr(ct_jaxpr.jaxpr, ct_jaxpr.consts, *xs[:n], *cts_in)
      return [_sum_unmentioned(o, mesh, s) for o, s in zip(outs, lin_specs)]
    return trace_body(body, mesh, ct_jaxpr.in_avals)

  def wrap_split(self, known: ClosedJaxpr, unknown: ClosedJaxpr, num_res: int, params: dict
                 ) -> tuple[ClosedJaxpr, ClosedJaxpr]:
    n_known = len(known.out_avals) - num_res

    def known_body(*xs):
      outs = eval_jaxpr(known.jaxpr, known.consts, *xs)
      return outs[:n_known] + [expand_dims(r, (0,)) for r in outs[n_known:]]

    def unknown_body(*xs):
      res = [squeeze(r, (0,)) for r in xs[:num_res]]
      return eval_jaxpr(unknown.jaxpr, unknown.consts, *res, *xs[num_res:])

    mesh = params["mesh"]
    res_blocks = [a.update(shape=(1,) + a.shape) for a in known.out_avals[n_known:]]
    return (trace_body(known_body, mesh, known.in_avals),
            trace_body(unknown_body, mesh, res_blocks + list(unknown.in_avals[num_res:])))


def _scale(ct: Any, mesh: Mesh, spec: PartitionSpec) -> Any:
  n = prod(mesh.shape[a] for a in _unmentioned(mesh, spec))
  return ct if n == 1 else div(ct, full((), n, core.get_aval(ct).dtype))


def _sum_unmentioned(x: Any, mesh: Mesh, spec: PartitionSpec) -> Any:
  axes = _unmentioned(mesh, spec)
  return psum(x, axes) if axes else x


register_call_rules(_ShardMapRules(shard_map_p))


def _shard_map_flops(avals_in, avals_out, *, jaxpr: ClosedJaxpr, mesh: Mesh, **_) -> float:
  """The body's count on every device of the mesh."""
  return flops.jaxpr_flops(jaxpr) * mesh.size


flops.flops_rules[shard_map_p] = _shard_map_flops
