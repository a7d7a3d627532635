"""`auto_axes` / `explicit_axes`: run a function with some mesh axes of the context mesh made
Auto (the partitioner lays values out along them) or Explicit (JAX's
`jax.sharding.auto_axes` / `explicit_axes`).

stablejax's arrays do not carry their sharding in their types, so switching an axis's type
changes what `get_abstract_mesh()` says inside the function, and the values are laid out at the
boundary: `auto_axes` puts the results on `out_sharding`, `explicit_axes` the arguments on
`in_sharding` (a sharding constraint under `jit`, a device_put eagerly).
"""
from __future__ import annotations

import functools
from typing import Any, Callable, NamedTuple

from stablejax import mesh as mesh_lib
from stablejax.lax.sharding import apply_out_sharding, with_sharding_constraint
from stablejax.sharding import NamedSharding
from stablejax.tree_util import tree_leaves


class _MeshSwitch(NamedTuple):
  prev: mesh_lib.AbstractMesh
  new: mesh_lib.AbstractMesh
  axes: tuple[str, ...]


def _sharding_mesh(shardings: Any, name: str) -> mesh_lib.AbstractMesh:
  found = mesh_lib.empty_abstract_mesh
  for s in tree_leaves(shardings):
    if isinstance(s, NamedSharding):
      if not found.empty and found != s.mesh.abstract_mesh:
        raise ValueError(f"Shardings passed to {name} should have the same mesh. Got one mesh "
                         f"{found} and another {s.mesh}")
      found = s.mesh.abstract_mesh
  return found


def _switch(axes: Any, axis_type: mesh_lib.AxisType, name: str, shardings: Any = None
            ) -> _MeshSwitch | None:
  """The context mesh (else the shardings') and the same with `axes` (default: all) of type
  `axis_type`; None when there is no mesh."""
  current, given = mesh_lib.get_abstract_mesh(), _sharding_mesh(shardings, name)
  if current.empty and given.empty:
    return None
  if not current.empty and not given.empty and current != given:
    raise ValueError(f"Context mesh {current} must match the mesh passed to shardings {given}. "
                     "Recommended approach is to use the `stablejax.set_mesh` context manager.")
  mesh = given if current.empty else current
  axes = mesh.axis_names if axes is None else axes if isinstance(axes, tuple) else (axes,)
  for a in axes:
    if a not in mesh.axis_names:
      raise ValueError(f"{name}: {a!r} is not an axis of the mesh {mesh}")
    if a in mesh.manual_axes:
      raise NotImplementedError("Going from `Manual` AxisType to `Auto` or `Explicit` AxisType "
                                "is not allowed.")
  return _MeshSwitch(mesh, mesh.update_axis_types({a: axis_type for a in axes}), axes)


def _pop_sharding(given: Any, kwargs: dict, key: str) -> Any:
  if given is not None:
    return given
  if key not in kwargs:
    raise TypeError(f"Missing required keyword argument: '{key}'")
  return kwargs.pop(key)


def auto_axes(f: Callable | None = None, /, *, axes: str | tuple[str, ...] | None = None,
              out_sharding: Any = None) -> Any:
  """`f` run with `axes` (default: all) of the context mesh Auto, its results laid out by
  `out_sharding` (given here or as a keyword argument of the call)."""
  if f is None:
    return functools.partial(auto_axes, axes=axes, out_sharding=out_sharding)

  @functools.wraps(f)
  def wrapped(*args: Any, **kwargs: Any) -> Any:
    out_s = _pop_sharding(out_sharding, kwargs, "out_sharding")
    switch = _switch(axes, mesh_lib.AxisType.Auto, "auto_axes", out_s)
    if switch is None or set(switch.prev.auto_axes) == set(switch.axes):
      return f(*args, **kwargs)
    with mesh_lib.use_abstract_mesh(switch.new):
      out = f(*args, **kwargs)
    return apply_out_sharding(out, out_s, "auto_axes")
  return wrapped


def explicit_axes(f: Callable | None = None, /, *, axes: str | tuple[str, ...] | None = None,
                  in_sharding: Any = None) -> Any:
  """`f` run with `axes` (default: all) of the context mesh Explicit, its arguments laid out by
  `in_sharding` (given here or as a keyword argument of the call)."""
  if f is None:
    return functools.partial(explicit_axes, axes=axes, in_sharding=in_sharding)

  @functools.wraps(f)
  def wrapped(*args: Any, **kwargs: Any) -> Any:
    in_s = _pop_sharding(in_sharding, kwargs, "in_sharding")
    switch = _switch(axes, mesh_lib.AxisType.Explicit, "explicit_axes")
    if switch is None:
      raise ValueError("Context mesh cannot be empty. Please use `stablejax.set_mesh` to enter "
                       "into a mesh context when using `explicit_axes`.")
    with mesh_lib.use_abstract_mesh(switch.new):
      return f(*with_sharding_constraint(args, in_s), **kwargs)
  return wrapped


__all__ = ["auto_axes", "explicit_axes"]
