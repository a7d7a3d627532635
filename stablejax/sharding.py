"""Shardings: how an array's elements are laid out over devices (JAX's `jax.sharding`).

A `Mesh` names the axes of an n-d array of devices; a `PartitionSpec` says which mesh axes split
each array dimension; a `NamedSharding` pairs them. NamedSharding is a jaxlib GSPMDSharding, so
jaxlib's multi-device ArrayImpl holds it directly (as the single-device arrays hold
`SingleDeviceSharding`).
"""
from __future__ import annotations

import abc
import collections
import itertools
import math
import threading
from typing import Any, Iterator, Sequence

import numpy as np

from jaxlib import _jax, xla_client

from stablejax import core, tree_util
from stablejax.typed_sharding import AvalSharding
from stablejax.partition_spec import UNCONSTRAINED, P, PartitionSpec, strip_trailing_none
from stablejax.mesh import (AbstractDevice, AbstractMesh, AxisType, BaseMesh, get_abstract_mesh,
                            use_abstract_mesh)
from stablejax import mesh as mesh_lib
from stablejax.runtime import array, pjrt, transfer_guard
from stablejax.runtime.array import Array

Device = pjrt.Device
SingleDeviceSharding = pjrt.SingleDeviceSharding
Index = tuple


# ----------------------------------------------------------------------------------------------
# Sharding: the base of every sharding

class Sharding(metaclass=abc.ABCMeta):
  """How an array is laid out over devices (JAX's `jax.sharding.Sharding`). A subclass defines
  the properties and methods that raise NotImplementedError here; the others follow from them.
  stablejax's shardings (NamedSharding, GSPMDSharding, SingleDeviceSharding) are jaxlib classes,
  which take no Python base: they are registered as subclasses."""

  @property
  def device_set(self) -> set:
    """The devices the sharding spans (of every process)."""
    raise NotImplementedError("Subclasses should implement this method.")

  @property
  def is_fully_replicated(self) -> bool:
    """Whether every device holds the whole array."""
    raise NotImplementedError("Subclasses should implement this method.")

  @property
  def is_fully_addressable(self) -> bool:
    """Whether this process addresses all of the devices."""
    raise NotImplementedError("Subclasses should implement this method.")

  @property
  def num_devices(self) -> int:
    raise NotImplementedError("Subclasses should implement this method.")

  @property
  def memory_kind(self) -> str | None:
    raise NotImplementedError("Subclasses should implement this method.")

  def with_memory_kind(self, kind: str) -> Sharding:
    raise NotImplementedError("Subclasses should implement this method.")

  @property
  def _device_assignment(self) -> tuple:
    raise NotImplementedError("Subclasses should implement this method.")

  def _to_xla_hlo_sharding(self, ndim: int) -> xla_client.HloSharding:
    raise NotImplementedError("Subclasses should implement this method.")

  @property
  def addressable_devices(self) -> set:
    """The devices of the sharding that this process addresses."""
    return {d for d in self.device_set if d.process_index == d.client.process_index()}

  @property
  def has_addressable_devices(self) -> bool:
    return bool(self.addressable_devices)

  def devices_indices_map(self, shape: Sequence[int]) -> dict:
    """Device -> the index (a tuple of slices) of its shard of an array of `shape`."""
    return {d: idx for d, idx, _ in self._shard_layout(tuple(shape))}

  def addressable_devices_indices_map(self, shape: Sequence[int]) -> dict:
    """`devices_indices_map` restricted to this process's devices."""
    mine = self.addressable_devices
    return {d: idx for d, idx in self.devices_indices_map(shape).items() if d in mine}

  def shard_shape(self, shape: Sequence[int]) -> tuple[int, ...]:
    """The shape of each shard of an array of `shape`."""
    hs = self._to_xla_hlo_sharding(len(shape))
    if hs.is_replicated():
      return tuple(shape)
    tiles = hs.tile_assignment_dimensions()
    return tuple(-(-n // t) for n, t in zip(shape, tiles))

  def is_equivalent_to(self, other: Any, ndim: int) -> bool:
    """Whether both lay out a rank-`ndim` array the same way on the same devices."""
    a, b = self._to_xla_hlo_sharding(ndim), other._to_xla_hlo_sharding(ndim)
    if a.is_replicated() and b.is_replicated():
      return self.device_set == other.device_set
    return (tuple(self._device_assignment) == tuple(other._device_assignment) and
            _same_tiles(a, b))

  def _shard_layout(self, shape: tuple) -> list[tuple[Device, Index, int]]:
    """(device, index, replica id) of every device, in the device assignment's order."""
    return _layout(tuple(self._device_assignment), self._to_xla_hlo_sharding(len(shape)), shape)


Sharding.register(SingleDeviceSharding)


# ----------------------------------------------------------------------------------------------
# Mesh

class Mesh(BaseMesh):
  """An n-d array of devices whose axes have names (and types: Auto unless given)."""

  def __init__(self, devices: Any, axis_names: str | Sequence[str],
               axis_types: Sequence[AxisType] | None = None):
    devices = np.asarray(devices, dtype=object)
    axis_names = (axis_names,) if isinstance(axis_names, str) else tuple(axis_names)
    if devices.ndim != len(axis_names):
      raise ValueError(f"Mesh: devices of shape {devices.shape} need {devices.ndim} axis names, "
                       f"got {axis_names}")
    if len(set(axis_names)) != len(axis_names):
      raise ValueError(f"Mesh: axis names must be unique, got {axis_names}")
    if devices.ndim and not all(isinstance(d, Device) for d in devices.flat):
      raise TypeError("Mesh: devices must be devices from stablejax.devices()")
    if len(set(devices.flat)) != devices.size:
      raise ValueError("Mesh: a device appears more than once")
    axis_types = mesh_lib.normalize_axis_types(axis_names, axis_types, "Mesh")
    self.devices = devices
    self.devices.flags.writeable = False
    self.axis_names = axis_names
    self.axis_types = axis_types

  @property
  def shape(self) -> collections.OrderedDict:
    """Axis name -> size, in axis order."""
    return collections.OrderedDict(zip(self.axis_names, self.devices.shape))

  @property
  def axis_sizes(self) -> tuple[int, ...]:
    return self.devices.shape

  @property
  def shape_tuple(self) -> tuple[tuple[str, int], ...]:
    return tuple(zip(self.axis_names, self.devices.shape))

  @property
  def size(self) -> int:
    return 0 if self.empty else self.devices.size

  @property
  def empty(self) -> bool:
    return self.devices.ndim == 0

  @property
  def device_ids(self) -> np.ndarray:
    """The ids of the devices, in the mesh's shape."""
    return np.vectorize(lambda d: d.id, otypes=[int])(self.devices)

  @property
  def _flat_devices_tuple(self) -> tuple:
    return tuple(self.devices.flat)

  @property
  def local_devices(self) -> list:
    """The devices of this process."""
    return [d for d in self.devices.flat if d.process_index == d.client.process_index()]

  @property
  def abstract_mesh(self) -> AbstractMesh:
    """The mesh without its devices (of the kind of its first device)."""
    if not self.axis_names:
      return mesh_lib.empty_abstract_mesh
    d = self.devices.flat[0]
    return AbstractMesh(self.axis_sizes, self.axis_names, self.axis_types,
                        abstract_device=AbstractDevice(d.device_kind, None, d.platform))

  def update(self, devices: Any = None, axis_names: Any = None, axis_types: Any = None) -> Mesh:
    return Mesh(self.devices if devices is None else devices,
                self.axis_names if axis_names is None else axis_names,
                self.axis_types if axis_types is None else axis_types)

  def _key(self) -> tuple:
    return (self.axis_names, self.devices.shape, tuple(d.id for d in self.devices.flat),
            self.axis_types)

  def __eq__(self, other: Any) -> bool:
    return isinstance(other, Mesh) and (self is other or self._key() == other._key())

  def __hash__(self) -> int:
    return hash(self._key())

  def __enter__(self) -> Mesh:
    _mesh_stack().append(self)
    return self

  def __exit__(self, *exc: Any) -> None:
    _mesh_stack().pop()

  def __repr__(self) -> str:
    if self.empty:
      return "Mesh(axis_sizes=(), axis_names=())"
    return (f"Mesh(axis_sizes={self.axis_sizes}, axis_names={self.axis_names}, "
            f"axis_types={self.axis_types})")

  def __str__(self) -> str:
    if self.empty:
      return "Mesh()"
    axes = ", ".join(f"{n!r}: {s}" for n, s in self.shape.items())
    return f"Mesh({axes}, axis_types={self.axis_types})"


_state = threading.local()


def _mesh_stack() -> list[Mesh]:
  stack = getattr(_state, "meshes", None)
  if stack is None:
    stack = _state.meshes = []
  return stack


def current_mesh() -> Mesh | None:
  """The mesh of the innermost `with mesh:` block of this thread, else the one `set_mesh` set
  (None: neither)."""
  stack = _mesh_stack()
  return stack[-1] if stack else mesh_lib.context.concrete


class set_mesh:
  """Make `mesh` this thread's context mesh (None: no mesh), as a setter or, used as a context
  manager, until the block ends. PartitionSpecs then name its axes, and
  `sharding.get_abstract_mesh()` is its abstract mesh (JAX's jax.set_mesh)."""
  __slots__ = ("prev_abstract_mesh", "prev_mesh")

  def __init__(self, mesh: Mesh | None):
    if mesh is not None and not isinstance(mesh, Mesh):
      raise ValueError(f"Expected mesh of type `stablejax.sharding.Mesh`. Got {type(mesh)}")
    if not core.is_evaluating():
      raise ValueError("`set_mesh` can only be used outside of `jit`.")
    if mesh is not None and mesh.manual_axes:
      raise ValueError(f"mesh {mesh} contains manual axes which is not allowed when using "
                       "`set_mesh`. Please use `shard_map` to enter into `Manual` mode instead.")
    ctx = mesh_lib.context
    self.prev_abstract_mesh, self.prev_mesh = ctx.abstract, ctx.concrete
    ctx.abstract = mesh_lib.empty_abstract_mesh if mesh is None else mesh.abstract_mesh
    ctx.concrete = mesh

  def __enter__(self) -> None:
    pass

  def __exit__(self, *exc: Any) -> None:
    mesh_lib.context.abstract = self.prev_abstract_mesh
    mesh_lib.context.concrete = self.prev_mesh



def get_mesh() -> Mesh:
  """The mesh `set_mesh` set (an empty mesh if none); only outside of `jit`."""
  if not core.is_evaluating():
    raise ValueError("`get_mesh` can only be used outside of `jit`. Maybe you want "
                     "`stablejax.sharding.get_abstract_mesh()`?")
  mesh = mesh_lib.context.concrete
  return Mesh(np.empty((), dtype=object), ()) if mesh is None else mesh


def make_mesh(axis_shapes: Sequence[int], axis_names: Sequence[str], axis_types: Any = None, *,
              devices: Sequence[Device] | None = None) -> Mesh:
  """A mesh of `axis_shapes` over the first prod(axis_shapes) devices (default: all devices);
  its axes are Explicit unless `axis_types` says otherwise, as JAX 0.10.2's."""
  axis_shapes, axis_names = tuple(axis_shapes), tuple(axis_names)
  if len(axis_shapes) != len(axis_names):
    raise ValueError(f"make_mesh: {len(axis_shapes)} axis sizes but {len(axis_names)} names")
  devices = list(pjrt.devices() if devices is None else devices)
  n = math.prod(axis_shapes)
  if n > len(devices):
    raise ValueError(f"make_mesh: a mesh of shape {axis_shapes} needs {n} devices, only "
                     f"{len(devices)} available")
  if axis_types is None:
    axis_types = (AxisType.Explicit,) * len(axis_shapes)
  return Mesh(np.array(devices[:n], dtype=object).reshape(axis_shapes), axis_names, axis_types)


# ----------------------------------------------------------------------------------------------
# NamedSharding

def _check_spec(mesh: Mesh, spec: PartitionSpec) -> None:
  used = [a for i in range(len(spec)) for a in spec.axes(i)]
  for a in used:
    if a not in mesh.shape:
      raise ValueError(f"NamedSharding: {spec} names axis {a!r}, which is not an axis of the mesh "
                       f"{mesh.axis_names}")
  dup = sorted({a for a in used if used.count(a) > 1})
  if dup:
    raise ValueError(f"NamedSharding: {spec} uses mesh axes {dup} more than once")


class _MultiDevice(_jax.GSPMDSharding):
  """What NamedSharding and GSPMDSharding share: the layout is the XLA HloSharding's (nanobind
  classes take one base, so this is it)."""

  @property
  def memory_kind(self) -> str | None:
    return self._memory_kind

  @property
  def _device_assignment(self) -> tuple:
    return tuple(self._internal_device_list)

  @property
  def device_set(self) -> set:
    return set(self._internal_device_list)

  @property
  def addressable_devices(self) -> set:
    return set(self._internal_device_list.addressable_device_list)

  @property
  def num_devices(self) -> int:
    return len(self._internal_device_list)

  @property
  def is_fully_addressable(self) -> bool:
    return self._internal_device_list.is_fully_addressable

  # (jaxlib classes take no Python base: Sharding's implementations are shared by assignment)
  shard_shape = Sharding.shard_shape
  devices_indices_map = Sharding.devices_indices_map
  addressable_devices_indices_map = Sharding.addressable_devices_indices_map
  is_equivalent_to = Sharding.is_equivalent_to
  _shard_layout = Sharding._shard_layout
  has_addressable_devices = Sharding.has_addressable_devices


def _same_tiles(a: xla_client.HloSharding, b: xla_client.HloSharding) -> bool:
  return (not a.is_replicated() and not b.is_replicated() and
          a.tile_assignment_dimensions() == b.tile_assignment_dimensions() and
          a.tile_assignment_devices() == b.tile_assignment_devices() and
          a.replicate_on_last_tile_dim() == b.replicate_on_last_tile_dim())


def _layout(devices: tuple, hs: xla_client.HloSharding, shape: tuple
            ) -> list[tuple[Device, Index, int]]:
  """(device, index, replica id) of each of `devices` for an array of `shape` laid out by `hs`
  (whose tile assignment holds positions in `devices`)."""
  full = (slice(None),) * len(shape)
  if hs.is_replicated():
    return [(d, full, i) for i, d in enumerate(devices)]
  dims = list(hs.tile_assignment_dimensions())
  out: list = [None] * len(devices)
  for k, pos in enumerate(hs.tile_assignment_devices()):
    coord = np.unravel_index(k, dims)
    index = tuple(_tile_slice(n, int(c), t) for n, c, t in zip(shape, coord, dims))
    replica = int(coord[len(shape)]) if len(dims) > len(shape) else 0
    out[pos] = (devices[pos], index, replica)
  return out


def _tile_slice(n: int, i: int, tiles: int) -> slice:
  if tiles == 1:
    return slice(None)
  chunk = -(-n // tiles)
  start = min(i * chunk, n)
  return slice(start, min(start + chunk, n))


class NamedSharding(_MultiDevice):
  """An array split over a mesh as `spec` says (JAX's jax.sharding.NamedSharding)."""

  def __init__(self, mesh: Mesh, spec: PartitionSpec | Sequence[Any] = PartitionSpec(), *,
               memory_kind: str | None = None):
    if not isinstance(mesh, Mesh):
      raise TypeError(f"NamedSharding: mesh must be a stablejax.sharding.Mesh, got {mesh!r}")
    if not isinstance(spec, PartitionSpec):
      if spec is None or not isinstance(spec, (tuple, list)):
        raise TypeError(f"NamedSharding: spec must be a PartitionSpec, got {spec!r}")
      spec = PartitionSpec(*spec)
    _check_spec(mesh, spec)
    self.mesh, self.spec = mesh, spec
    self._ndim_hlo: dict[int, xla_client.HloSharding] = {}
    super().__init__(_jax.DeviceList(mesh._flat_devices_tuple),
                     self._to_xla_hlo_sharding(len(spec)), memory_kind)

  @property
  def is_fully_replicated(self) -> bool:
    return all(self.mesh.shape[a] == 1 for i in range(len(self.spec)) for a in self.spec.axes(i))

  def _to_xla_hlo_sharding(self, ndim: int) -> xla_client.HloSharding:
    """XLA's HloSharding for a rank-`ndim` array: devices tiled by the spec's axes, replicated
    over the other mesh axes (devices are positions in the mesh's flat order)."""
    hs = self._ndim_hlo.get(ndim)
    if hs is None:
      hs = self._ndim_hlo[ndim] = _named_hlo_sharding(self.mesh, self.spec, ndim)
    return hs

  def update(self, *, mesh: Mesh | None = None, spec: Any = None,
             memory_kind: str | None = None) -> NamedSharding:
    return NamedSharding(mesh or self.mesh, self.spec if spec is None else spec,
                         memory_kind=memory_kind or self.memory_kind)

  def with_memory_kind(self, kind: str) -> NamedSharding:
    return self.update(memory_kind=kind)

  def __eq__(self, other: Any) -> bool:
    return (isinstance(other, NamedSharding) and self.mesh == other.mesh and
            self.spec == other.spec and self.memory_kind == other.memory_kind)

  def __hash__(self) -> int:
    return hash((self.mesh, self.spec, self.memory_kind))

  def __repr__(self) -> str:
    mem = "" if self.memory_kind is None else f", memory_kind={self.memory_kind}"
    return f"NamedSharding(mesh={self.mesh}, spec={self.spec}{mem})"

  def __reduce__(self) -> tuple:
    return (_named_sharding, (self.mesh, self.spec, self.memory_kind))


Sharding.register(AvalSharding)  # (the sharding in an aval's type is a Sharding, as JAX's)


def _named_sharding(mesh: Mesh, spec: PartitionSpec, memory_kind: str | None) -> NamedSharding:
  return NamedSharding(mesh, spec, memory_kind=memory_kind)


def _named_hlo_sharding(mesh: Mesh, spec: PartitionSpec, ndim: int) -> xla_client.HloSharding:
  if ndim < len(spec):
    raise ValueError(f"NamedSharding with spec {spec} is for arrays of rank >= {len(spec)}, "
                     f"got rank {ndim}")
  tiles = [math.prod(mesh.shape[a] for a in spec.axes(i)) for i in range(ndim)]
  if math.prod(tiles) == 1:
    return xla_client.HloSharding.replicate()
  names = list(mesh.axis_names)
  split = [a for i in range(ndim) for a in spec.axes(i)]
  rest = [a for a in names if a not in split]
  positions = np.arange(mesh.size).reshape(mesh.devices.shape)
  order = positions.transpose([names.index(a) for a in split + rest])
  replicas = math.prod(mesh.shape[a] for a in rest)
  op = xla_client.OpSharding()
  op.type = xla_client.OpSharding.Type.OTHER
  op.tile_assignment_dimensions = tiles + ([replicas] if replicas > 1 else [])
  op.tile_assignment_devices = [int(i) for i in order.flat]
  op.replicate_on_last_tile_dim = replicas > 1
  return xla_client.HloSharding.from_proto(op)


class GSPMDSharding(_MultiDevice):
  """An XLA HloSharding over a list of devices (what a compiled program reports for a result
  that no NamedSharding describes)."""

  def _to_xla_hlo_sharding(self, ndim: int) -> xla_client.HloSharding:
    return self._hlo_sharding

  @property
  def is_fully_replicated(self) -> bool:
    return self._hlo_sharding.is_replicated()

  def __repr__(self) -> str:
    return f"GSPMDSharding({self._hlo_sharding!r}, devices={list(self._device_assignment)})"


def named_or_gspmd(mesh: Mesh, hs: xla_client.HloSharding, ndim: int) -> Any:
  """The NamedSharding over `mesh` laying out a rank-`ndim` array as `hs` does (as JAX reports
  a compiled program's result shardings), else a GSPMDSharding."""
  for spec in _specs(mesh, ndim):
    candidate = NamedSharding(mesh, spec)
    mine = candidate._to_xla_hlo_sharding(ndim)
    if (mine.is_replicated() and hs.is_replicated()) or _same_tiles(mine, hs):
      if mesh.explicit_axes:  # a typed sharding names every dimension, as JAX's types do
        return NamedSharding(mesh, PartitionSpec(*spec, *[None] * (ndim - len(spec))))
      return candidate
  return GSPMDSharding(_jax.DeviceList(mesh._flat_devices_tuple), hs)


def _specs(mesh: Mesh, ndim: int) -> Iterator[PartitionSpec]:
  """The specs putting each mesh axis on at most one dimension (axes in mesh order)."""
  names = mesh.axis_names
  for choice in itertools.product(range(-1, ndim), repeat=len(names)):
    parts = [tuple(a for a, c in zip(names, choice) if c == i) for i in range(ndim)]
    yield PartitionSpec(*strip_trailing_none(tuple(p or None for p in parts)))


Sharding.register(NamedSharding)
Sharding.register(GSPMDSharding)


def make_single_device_sharding(device: Device, *, memory_kind: str | None = None
                                ) -> SingleDeviceSharding:
  """The sharding putting a whole array on `device`."""
  return pjrt.sharding(device) if memory_kind is None else \
      SingleDeviceSharding(device, memory_kind=memory_kind)


# ----------------------------------------------------------------------------------------------
# device_put with a sharding


def put(x: Any, sharding: Any) -> Array:
  """One value as an Array laid out by `sharding` (an Array already so laid out stays)."""
  if isinstance(sharding, SingleDeviceSharding):
    return array.put(x, sharding._device)
  if isinstance(x, core.Tracer):
    raise TypeError(f"device_put of a traced value {x!r} to a sharding is not supported; "
                    "use lax.with_sharding_constraint under jit")
  if isinstance(x, Array):
    if x.sharding == sharding:
      return x
    aval, value = x.aval, np.asarray(x)
  else:
    aval = core.get_aval(x)
    value = np.asarray(x, aval.dtype)
  layout = sharding._shard_layout(aval.shape)
  buf = pjrt.put_shards([value[index] for _, index, _ in layout], core.typed_aval(aval, None),
                        sharding, [d for d, _, _ in layout])
  return Array(buf, core.typed_aval(aval, sharding))


def device_put(x: Any, device: Any = None) -> Any:
  """Put `x` (a pytree of arrays) on `device`: a device, a sharding, or (inside `with mesh:`)
  a PartitionSpec; None keeps Arrays where they are (JAX's jax.device_put)."""
  with transfer_guard.explicit():
    if device is None or isinstance(device, Device):
      return array.device_put(x, device)
    sharding = check_sharding(device, "device_put")
    return tree_util.tree_map(lambda leaf: put(leaf, sharding), x)


def check_sharding(s: Any, what: str) -> Any:
  """`s` if it is a sharding (a PartitionSpec under `with mesh:` becomes a NamedSharding)."""
  if isinstance(s, PartitionSpec):
    mesh = current_mesh()
    if mesh is None:
      raise ValueError(f"{what}: a PartitionSpec {s} needs a mesh: use NamedSharding(mesh, spec) "
                       "or call it inside `with mesh:`")
    return NamedSharding(mesh, s)
  if isinstance(s, Device):
    return pjrt.sharding(s)
  if not isinstance(s, Sharding):
    raise TypeError(f"{what}: expected a sharding (NamedSharding, SingleDeviceSharding) or a "
                    f"PartitionSpec, got {s!r}")
  return s


__all__ = ["AbstractDevice", "AbstractMesh", "AxisType", "GSPMDSharding", "Mesh", "NamedSharding",
           "P", "PartitionSpec", "SingleDeviceSharding", "Sharding", "current_mesh", "device_put",
           "get_abstract_mesh", "get_mesh", "make_mesh", "make_single_device_sharding",
           "set_mesh", "use_abstract_mesh"]
