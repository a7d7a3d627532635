"""Mesh axis types and abstract meshes (JAX's `jax.sharding.AxisType`, `AbstractMesh`).

An `AbstractMesh` is a mesh's axis names, sizes and types without its devices: what a traced
program may depend on. The context mesh of this thread (set by `sharding.set_mesh`, read by
`get_abstract_mesh`) lives here; `use_abstract_mesh` changes only the abstract one (as
`auto_axes` / `explicit_axes` do, to change axis types for a function).
"""
from __future__ import annotations

import collections
import contextlib
import dataclasses
import enum
import math
import threading
from typing import Any, Iterator, Sequence


class AxisType(enum.Enum):
  """How a mesh axis is used: by the partitioner (Auto), by types (Explicit) or by the user in
  a manual region (Manual, as `shard_map`)."""
  Auto = enum.auto()
  Explicit = enum.auto()
  Manual = enum.auto()

  def __repr__(self) -> str:
    return self.name


def normalize_axis_types(axis_names: tuple, axis_types: Any, what: str) -> tuple[AxisType, ...]:
  """One AxisType per axis name (default Auto); a single AxisType is a tuple of one."""
  if axis_types is None:
    axis_types = (AxisType.Auto,) * len(axis_names)
  elif not isinstance(axis_types, tuple):
    axis_types = tuple(axis_types) if isinstance(axis_types, list) else (axis_types,)
  if not all(isinstance(t, AxisType) for t in axis_types):
    raise TypeError(f"axis_types passed to {what} must be of type "
                    f"`stablejax.sharding.AxisType`, got {axis_types}")
  if len(axis_types) != len(axis_names):
    raise ValueError(f"{what}: the number of axis names must match the number of axis_types, got "
                     f"axis_names={axis_names} and axis_types={axis_types}")
  return axis_types


class BaseMesh:
  """What concrete and abstract meshes share: the axis types by name."""
  axis_names: tuple[str, ...]
  axis_types: tuple[AxisType, ...]

  def _axes_of(self, t: AxisType) -> tuple[str, ...]:
    return tuple(n for n, a in zip(self.axis_names, self.axis_types) if a == t)

  @property
  def auto_axes(self) -> tuple[str, ...]:
    return self._axes_of(AxisType.Auto)

  @property
  def explicit_axes(self) -> tuple[str, ...]:
    return self._axes_of(AxisType.Explicit)

  @property
  def manual_axes(self) -> tuple[str, ...]:
    return self._axes_of(AxisType.Manual)

  @property
  def are_all_axes_auto(self) -> bool:
    return bool(self.axis_types) and all(t == AxisType.Auto for t in self.axis_types)

  @property
  def are_all_axes_explicit(self) -> bool:
    return bool(self.axis_types) and all(t == AxisType.Explicit for t in self.axis_types)

  @property
  def are_all_axes_manual(self) -> bool:
    return bool(self.axis_types) and all(t == AxisType.Manual for t in self.axis_types)


@dataclasses.dataclass(frozen=True)
class AbstractDevice:
  """The kind of device an abstract mesh is for."""
  device_kind: str
  num_cores: int | None
  platform: str

  def _repr(self) -> str:
    return (f"device_kind={self.device_kind}, num_cores={self.num_cores}, "
            f"platform={self.platform}")

  def __repr__(self) -> str:
    return f"AbstractDevice({self._repr()})"


class AbstractMesh(BaseMesh):
  """A mesh's axis sizes, names and types, without devices."""
  __slots__ = ("axis_sizes", "axis_names", "axis_types", "abstract_device")

  def __init__(self, axis_sizes: Sequence[int], axis_names: Sequence[str],
               axis_types: Any = None, *, abstract_device: AbstractDevice | None = None):
    self.axis_sizes, self.axis_names = tuple(axis_sizes), tuple(axis_names)
    if len(self.axis_sizes) != len(self.axis_names):
      raise ValueError(f"AbstractMesh: {len(self.axis_sizes)} axis sizes but "
                       f"{len(self.axis_names)} axis names")
    self.axis_types = normalize_axis_types(self.axis_names, axis_types, "AbstractMesh")
    self.abstract_device = abstract_device

  @property
  def size(self) -> int:
    return math.prod(self.axis_sizes) if self.axis_sizes else 0

  @property
  def empty(self) -> bool:
    return self.size == 0

  @property
  def shape(self) -> collections.OrderedDict:
    return collections.OrderedDict(self.shape_tuple)

  @property
  def shape_tuple(self) -> tuple[tuple[str, int], ...]:
    return tuple(zip(self.axis_names, self.axis_sizes))

  @property
  def abstract_mesh(self) -> AbstractMesh:
    return self

  def update(self, axis_sizes: Any = None, axis_names: Any = None, axis_types: Any = None,
             **kwargs: Any) -> AbstractMesh:
    kwargs.setdefault("abstract_device", self.abstract_device)
    return AbstractMesh(self.axis_sizes if axis_sizes is None else axis_sizes,
                        self.axis_names if axis_names is None else axis_names,
                        self.axis_types if axis_types is None else axis_types, **kwargs)

  def update_axis_types(self, name_to_type: dict[str, AxisType]) -> AbstractMesh:
    return self.update(axis_types=tuple(name_to_type.get(n, t)
                                        for n, t in zip(self.axis_names, self.axis_types)))

  def __getattr__(self, name: str) -> Any:
    if name in ("devices", "device_ids", "local_devices", "local_mesh", "is_multi_process"):
      raise ValueError(f"AbstractMesh does not implement {name}")
    raise AttributeError(f"'AbstractMesh' object has no attribute {name!r}")

  def __enter__(self) -> None:
    raise ValueError("AbstractMesh does not implement __enter__")

  def __exit__(self, *exc: Any) -> None:
    raise ValueError("AbstractMesh does not implement __exit__")

  def _key(self) -> tuple:
    return (self.axis_sizes, self.axis_names, self.axis_types, self.abstract_device)

  def __eq__(self, other: Any) -> bool:
    return isinstance(other, AbstractMesh) and self._key() == other._key()

  def __hash__(self) -> int:
    return hash(self._key())

  def __repr__(self) -> str:
    axes = ", ".join(f"'{n}': {s}" for n, s in self.shape_tuple) or "()"
    device = "" if self.abstract_device is None else f", {self.abstract_device._repr()}"
    return f"AbstractMesh({axes}, axis_types={self.axis_types}{device})"


empty_abstract_mesh = AbstractMesh((), ())


# ----------------------------------------------------------------------------------------------
# The context mesh of this thread

class _Context(threading.local):
  def __init__(self):
    self.abstract: AbstractMesh = empty_abstract_mesh
    self.concrete: Any = None  # the sharding.Mesh of `set_mesh` (None: none is set)


context = _Context()


def get_abstract_mesh() -> AbstractMesh:
  """The abstract mesh of this thread's context (empty outside `set_mesh`)."""
  return context.abstract


class use_abstract_mesh:
  """Within it, `get_abstract_mesh()` is `mesh` (a mesh of the same size as the current one)."""
  __slots__ = ("mesh", "prev")

  def __init__(self, mesh: AbstractMesh):
    if not isinstance(mesh, AbstractMesh):
      raise ValueError("Expected mesh of type `stablejax.sharding.AbstractMesh`. Got type: "
                       f"{type(mesh)}")
    self.mesh = mesh

  def __enter__(self) -> None:
    prev = context.abstract
    if not prev.empty and not self.mesh.empty and prev.size != self.mesh.size:
      raise ValueError(f"use_abstract_mesh cannot change the size of the mesh. Got new mesh: "
                       f"{self.mesh} with size={self.mesh.size} and prev mesh: {prev} with "
                       f"size={prev.size}")
    self.prev, context.abstract = prev, self.mesh

  def __exit__(self, *exc: Any) -> None:
    context.abstract = self.prev


@contextlib.contextmanager
def manual_region(mesh: AbstractMesh, axes: Sequence[str]) -> Iterator[None]:
  """Within it, `get_abstract_mesh()` is `mesh` with `axes` Manual (a shard_map's body)."""
  prev = context.abstract
  context.abstract = mesh.update_axis_types({a: AxisType.Manual for a in axes})
  try:
    yield
  finally:
    context.abstract = prev


__all__ = ["AbstractDevice", "AbstractMesh", "AxisType", "BaseMesh", "get_abstract_mesh",
           "use_abstract_mesh"]
