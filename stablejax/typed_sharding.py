"""Sharding in types: how an array is split over the Explicit axes of its mesh, carried in its
aval (JAX's `ShapedArray.sharding` under `AxisType.Explicit`, printed `f32[8@x,4]`).

An Array laid out by a NamedSharding on a mesh with Explicit axes has an aval whose `sharding`
is an `AvalSharding`: the abstract mesh and the spec restricted to its Explicit axes, one entry
per dimension. Every primitive applied to such avals gets its results' shardings from its rule
in `sharding_rules` (registered by the primitive's family file; `Primitive.out_avals` applies
them). A primitive without a rule keeps what its abstract evaluation returned.
"""
from __future__ import annotations

import math
from typing import Any, Callable, Sequence

from stablejax.mesh import AbstractMesh
from stablejax.partition_spec import PartitionSpec

__all__ = ["AvalSharding", "ShardingTypeError", "of_sharding", "of_spec", "sharding_rules"]


class ShardingTypeError(Exception):
  """Operands whose typed shardings a primitive cannot combine (JAX's `ShardingTypeError`)."""


class AvalSharding:
  """The typed sharding of an aval: an abstract mesh and one spec entry per dimension (None, an
  Explicit axis name or a tuple of them). It prints as JAX's NamedSharding over an AbstractMesh."""
  __slots__ = ("mesh", "spec")
  memory_kind = None

  def __init__(self, mesh: AbstractMesh, spec: PartitionSpec):
    self.mesh, self.spec = mesh, spec

  def update(self, *, mesh: AbstractMesh | None = None, spec: Any = None) -> AvalSharding:
    spec = self.spec if spec is None else spec
    return AvalSharding(self.mesh if mesh is None else mesh,
                        spec if isinstance(spec, PartitionSpec) else PartitionSpec(*spec))

  def __eq__(self, other: Any) -> bool:
    return (isinstance(other, AvalSharding) and self.mesh == other.mesh and
            tuple(self.spec) == tuple(other.spec))

  def __hash__(self) -> int:
    return hash((self.mesh, tuple(self.spec)))

  def shape_str(self, shape: Sequence[int]) -> str:
    """`8@x,4`: each dimension with the axes splitting it."""
    out = []
    for n, p in zip(shape, self.spec):
      out.append(f"{n}" if p is None else f"{n}@{p}" if isinstance(p, str)
                 else f"{n}@({','.join(p)})")
    return ",".join(out)

  def __repr__(self) -> str:
    return f"NamedSharding(mesh={self.mesh!r}, spec={self.spec})"


def of_sharding(sharding: Any, ndim: int) -> AvalSharding | None:
  """The typed sharding of an array of rank `ndim` laid out by `sharding`: its spec over the
  Explicit axes of its mesh; None unless it is a NamedSharding on a mesh with Explicit axes."""
  mesh = getattr(sharding, "mesh", None)
  return None if mesh is None else of_spec(mesh, sharding.spec, ndim)


def of_spec(mesh: Any, spec: PartitionSpec, ndim: int) -> AvalSharding | None:
  """The typed sharding of an array of rank `ndim` split by `spec` over `mesh` (a Mesh or
  AbstractMesh): `spec` over its Explicit axes; None when it has none."""
  if not mesh.explicit_axes:
    return None
  explicit = set(mesh.explicit_axes)
  parts = []
  for i in range(ndim):
    axes = tuple(a for a in spec.axes(i) if a in explicit)
    parts.append(None if not axes else axes[0] if len(axes) == 1 else axes)
  return AvalSharding(mesh.abstract_mesh, PartitionSpec(*parts))


# ----------------------------------------------------------------------------------------------
# The rules: `rule(*avals_in, **params)` gives each result's spec entries (a tuple per result, a
# list of them for a primitive with multiple results), reading `parts(aval)` of its operands.

sharding_rules: dict[Any, Callable[..., Any]] = {}


def parts(aval: Any) -> tuple:
  """The spec entries of `aval`, one per dimension (all None when it has no typed sharding)."""
  s = aval.sharding
  return tuple(s.spec) if isinstance(s, AvalSharding) else (None,) * aval.ndim


def axis_tuple(p: Any) -> tuple[str, ...]:
  return () if p is None else (p,) if isinstance(p, str) else tuple(p)


def is_typed(avals: Sequence[Any]) -> bool:
  """Whether any of `avals` carries a typed sharding."""
  for a in avals:
    if isinstance(getattr(a, "sharding", None), AvalSharding):
      return True
  return False


def common_mesh(avals: Sequence[Any]) -> AbstractMesh:
  """The one mesh of the typed avals among `avals`."""
  mesh = None
  for a in avals:
    if isinstance(a.sharding, AvalSharding):
      if mesh is not None and a.sharding.mesh != mesh:
        raise ShardingTypeError(f"Mesh for all inputs should be equal. Got one mesh: {mesh} and "
                                f"another mesh: {a.sharding.mesh}")
      mesh = a.sharding.mesh
  return mesh


def propagate(prim: Any, avals_in: Sequence[Any], avals_out: list, params: dict) -> list:
  """`avals_out` with the typed shardings `prim`'s rule gives them (unchanged without a rule)."""
  rule = sharding_rules.get(prim)
  if rule is None:
    return avals_out
  mesh = common_mesh(avals_in)
  out_parts = rule(*avals_in, **params)
  if not prim.multiple_results:
    out_parts = [out_parts]
  _check_legal(prim, avals_in, out_parts)
  return [a.update(sharding=AvalSharding(mesh, PartitionSpec(*p)))
          for a, p in zip(avals_out, out_parts)]


def _check_legal(prim: Any, avals_in: Sequence[Any], out_parts: Sequence[tuple]) -> None:
  """No mesh axis splits two dimensions of one result."""
  for p in out_parts:
    used = [a for entry in p for a in axis_tuple(entry)]
    if len(set(used)) != len(used):
      raise ShardingTypeError(
          f"{prim} operation with inputs: {', '.join(a.str_short() for a in avals_in)} produces "
          f"an illegally sharded result: {PartitionSpec(*p)}")


# ----------------------------------------------------------------------------------------------
# Rules shared by families

def elementwise_rule(name: str) -> Callable[..., tuple]:
  """Operands of one shape (rank-0 ones broadcast): each dimension is split as the operands
  that split it, which must agree (JAX's broadcasting rule)."""
  def rule(*avals: Any, **params: Any) -> tuple:
    shaped = [a for a in avals if a.shape]
    if not shaped:
      return ()
    specs = [parts(a) for a in shaped]
    out = []
    for i in range(len(specs[0])):
      found = {s[i] for s in specs} - {None}
      if len(found) > 1:
        raise ShardingTypeError(f"{name} got incompatible shardings for broadcasting: "
                                f"{', '.join(str(s) for s in specs)}.")
      out.append(next(iter(found), None))
    return tuple(out)
  return rule


def same_rule(x: Any, **params: Any) -> tuple:
  """The result is split as the (first) operand."""
  return parts(x)


def drop_axes_rule(x: Any, *, axes: Sequence[int], **params: Any) -> tuple:
  """A reduction: the reduced dimensions go, the others keep their split."""
  return tuple(p for i, p in enumerate(parts(x)) if i not in axes)


def varying_shape_rule(name: str, abstract_eval: Callable[..., Any]) -> Callable[..., tuple]:
  """The operand's split, kept on a dimension whose size changes (as slicing and padding
  change it) only where the new size still divides over its axes (JAX's rule)."""
  def rule(x: Any, *rest: Any, **params: Any) -> tuple:
    out_shape = abstract_eval(x, *rest, **params).shape
    spec = parts(x)
    sizes = dict(x.sharding.mesh.shape_tuple) if isinstance(x.sharding, AvalSharding) else {}
    for n, m, p in zip(x.shape, out_shape, spec):
      k = math.prod(sizes[a] for a in axis_tuple(p))
      if n != m and m % k:
        raise ShardingTypeError(
            f"{name} on sharded dims where out dim ({m}) is not divisible by mesh axes ({k}) "
            f"with spec ({p}) is not implemented. Got input type={x.str_short()} and output "
            f"shape={tuple(out_shape)}")
    return spec
  return rule


def split_parts(sizes: dict[str, int], axes: Sequence[str], out_sizes: Sequence[int],
                error: Callable[[], Exception]) -> list:
  """`axes` (major first) dealt out over dimensions of `out_sizes`, each taking axes while its
  size divides (JAX's reshape rule)."""
  it, out = iter(axes), []
  for n in out_sizes:
    dim = []
    while n > 1:
      a = next(it, None)
      if a is None:
        break
      n, rem = divmod(n, sizes[a])
      if rem:
        raise error()
      dim.append(a)
    out.append(None if not dim else dim[0] if len(dim) == 1 else tuple(dim))
  if next(it, None) is not None:
    raise error()
  return out

