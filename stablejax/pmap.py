"""`pmap`: map a function over an array axis, one slice per device (JAX's `jax.pmap`).

As in JAX 0.10.2, `pmap` is `jit` of a `shard_map` over a one-axis mesh of the first `n`
devices (`n` the size of the mapped axis), that axis named `axis_name`: an argument mapped along
axis `a` is split by `P(None, ..., None, axis_name)` (the name at position `a`) and the body sees
one slice with that axis squeezed out; a result gains the axis back at its `out_axes` position.
The transformations (grad, vmap, ...) and the lowering (`sdy.manual_computation`) are
`shard_map`'s; the results are Arrays sharded over the mesh.
"""
from __future__ import annotations

import functools
from typing import Any, Callable, Hashable, Iterable, Sequence

import numpy as np

from stablejax import core
from stablejax.jit import jit
from stablejax.lax.structural import expand_dims, squeeze
from stablejax.runtime import devices as all_devices
from stablejax.shard_map import shard_map
from stablejax.sharding import Mesh, NamedSharding, PartitionSpec
from stablejax.tree_util import (broadcast_prefix, tree_flatten, tree_leaves, tree_map,
                                 tree_unflatten)

__all__ = ["pmap"]

_DEFAULT_AXIS_NAME = "_internal_pmap_axis_name"


def _index_tuple(nums: int | Iterable[int]) -> tuple[int, ...]:
  return (nums,) if isinstance(nums, int) else tuple(nums)


def _check_axes(what: str, axes: Any) -> None:
  if not all(type(a) is int for a in tree_leaves(axes)):
    raise TypeError(f"pmap {what} must be an int, None, or (nested) container with those "
                    f"types as leaves, but got {axes}.")


def _axis_spec(axis_name: Hashable, axis: int | None) -> PartitionSpec:
  return PartitionSpec() if axis is None else PartitionSpec(*[None] * axis, axis_name)


def _flat_in_axes(in_axes: Any, dyn_nums: Sequence[int] | None, args: tuple, kwargs: dict
                  ) -> list[int | None]:
  """One mapped axis (or None) per leaf of (dynamic args, kwargs); keyword arguments are mapped
  along axis 0, as in JAX."""
  if dyn_nums is not None and isinstance(in_axes, tuple):
    in_axes = tuple(in_axes[i] for i in dyn_nums if i < len(in_axes))
  try:
    return broadcast_prefix((in_axes, 0), (args, kwargs), is_leaf=lambda x: x is None)
  except ValueError as e:
    raise ValueError(f"pmap in_axes must be a tree prefix of the tuple of arguments passed "
                     f"positionally to the pmapped function (arguments passed by keyword are "
                     f"mapped over their leading axis); got in_axes={in_axes!r}: {e}") from None


def _canonical_axes(flat: Sequence[Any], in_axes_flat: Sequence[int | None]) -> tuple:
  """The mapped axes, negative ones counted from the end of their argument's rank."""
  out = []
  for x, ax in zip(flat, in_axes_flat):
    ndim = core.get_aval(x).ndim
    if ax is not None and not -ndim <= ax < ndim:
      raise ValueError(f"pmap in_axes {ax} is out of range for an argument of rank {ndim}")
    out.append(None if ax is None else ax % ndim)
  return tuple(out)


def _mapped_size(flat: Sequence[Any], in_axes_flat: Sequence[int | None]) -> int:
  for x, ax in zip(flat, in_axes_flat):
    if ax is not None:
      return int(core.get_aval(x).shape[ax])
  raise ValueError("pmap requires at least one argument with a mapped axis.")


def _mesh_devices(devices: tuple | None, backend: str | None, size: int,
                  axis_size: int | None) -> tuple:
  if axis_size is not None and axis_size != size:
    raise ValueError(f"Specified axis_size {axis_size} doesn't match received axis_size {size}.")
  available = tuple(all_devices(backend) if devices is None else devices)
  if size > len(available):
    raise ValueError(f"pmap: the mapped axis has size {size}, but only {len(available)} "
                     f"devices are available: it must be at most the number of devices")
  return available[:size]


def _split_static(args: tuple, static_nums: tuple[int, ...]
                  ) -> tuple[tuple, tuple, list[int] | None]:
  """(dynamic args, ((position, static value), ...), positions of the dynamic args or None)."""
  if not static_nums:
    return args, (), None
  if max(static_nums) >= len(args):
    raise ValueError(
        f"pmapped function has static_broadcasted_argnums={static_nums} but was called with "
        f"only {len(args)} positional argument{'s' if len(args) > 1 else ''}. All static "
        "broadcasted arguments must be passed positionally.")
  dyn_nums = [i for i in range(len(args)) if i not in static_nums]
  statics = tuple((i, args[i]) for i in static_nums)
  try:
    hash(statics)
  except TypeError as e:
    raise ValueError(f"pmap: static_broadcasted_argnums arguments must be hashable: {e}") from None
  return tuple(args[i] for i in dyn_nums), statics, dyn_nums


def _mapped_call(fun: Callable, statics: tuple, in_tree: Any, in_axes_flat: tuple,
                 out_axes: Any, mesh: Mesh, donate_flat: tuple[int, ...]) -> Callable:
  """The jitted shard_map running `fun` (its static arguments `statics` bound) on the mesh's
  devices, taking the flat dynamic arguments."""
  axis_name = mesh.axis_names[0]

  def _fun(*flat):  # (named as JAX names it: the module is `jit__fun`)
    slices = [x if ax is None else squeeze(x, (ax,)) for x, ax in zip(flat, in_axes_flat)]
    args, kwargs = tree_unflatten(in_tree, slices)
    full, it = [], iter(args)
    given = dict(statics)
    for i in range(len(args) + len(given)):
      full.append(given[i] if i in given else next(it))
    out = fun(*full, **kwargs)
    out_flat, out_tree = tree_flatten(out)
    out_axes_flat = broadcast_prefix(out_axes, out, is_leaf=lambda x: x is None)
    return tree_unflatten(out_tree, [y if ax is None else expand_dims(y, (ax,))
                                     for y, ax in zip(out_flat, out_axes_flat)])

  in_specs = tuple(_axis_spec(axis_name, ax) for ax in in_axes_flat)
  out_specs = tree_map(functools.partial(_axis_spec, axis_name), out_axes,
                       is_leaf=lambda x: x is None)
  mapped = shard_map(_fun, mesh=mesh, in_specs=in_specs, out_specs=out_specs,
                     check_vma=False)
  named = lambda spec: NamedSharding(mesh, spec)  # noqa: E731
  out_shardings = tree_map(named, out_specs, is_leaf=lambda x: isinstance(x, PartitionSpec))
  return jit(mapped, in_shardings=tuple(map(named, in_specs)), out_shardings=out_shardings,
             donate_argnums=donate_flat)


def pmap(fun: Callable, axis_name: Hashable | None = None, *, in_axes: Any = 0,
         out_axes: Any = 0, static_broadcasted_argnums: int | Iterable[int] = (),
         devices: Sequence[Any] | None = None, backend: str | None = None,
         axis_size: int | None = None, donate_argnums: int | Iterable[int] = ()) -> Callable:
  """`fun` mapped over axis `in_axes` of its arguments, one slice per device (the first n
  devices, or `devices`), with `axis_name` bound for collectives; results stacked along
  `out_axes` as Arrays sharded over the devices. Arguments at `static_broadcasted_argnums` are
  static (hashable) and given to every device."""
  if not callable(fun):
    raise TypeError(f"Expected a callable value, got {fun}")
  if devices is not None:
    if not devices:
      raise ValueError("'devices' argument to pmap must be non-empty, or None.")
    devices = tuple(devices)
  axis_name = _DEFAULT_AXIS_NAME if axis_name is None else axis_name
  static_nums = _index_tuple(static_broadcasted_argnums)
  donate_nums = tuple(i - sum(s < i for s in static_nums)
                      for i in _index_tuple(donate_argnums) if i not in static_nums)
  _check_axes("in_axes", in_axes)
  _check_axes("out_axes", out_axes)
  cache: dict = {}

  def prepare(args: tuple, kwargs: dict) -> tuple[Callable, list]:
    dyn_args, statics, dyn_nums = _split_static(args, static_nums)
    flat, in_tree = tree_flatten((dyn_args, kwargs))
    in_axes_flat = _canonical_axes(flat, _flat_in_axes(in_axes, dyn_nums, dyn_args, kwargs))
    mesh_devices = _mesh_devices(devices, backend, _mapped_size(flat, in_axes_flat), axis_size)
    key = (statics, in_tree, in_axes_flat, mesh_devices)
    call = cache.get(key)
    if call is None:
      donate_flat = _donated_leaves(donate_nums, dyn_args)
      mesh = Mesh(np.array(mesh_devices, dtype=object), (axis_name,))
      call = cache[key] = _mapped_call(fun, statics, in_tree, in_axes_flat, out_axes, mesh,
                                       donate_flat)
    return call, flat

  @functools.wraps(fun)
  def mapped(*args, **kwargs):
    call, flat = prepare(args, kwargs)
    return call(*flat)

  def lower(*args, **kwargs):
    """Lower for these arguments (the jitted shard_map's `Lowered`)."""
    call, flat = prepare(args, kwargs)
    return call.lower(*flat)

  mapped.lower = lower
  return mapped


def _donated_leaves(donate_nums: tuple[int, ...], dyn_args: tuple) -> tuple[int, ...]:
  """The flat positions of the leaves of the donated dynamic arguments."""
  out, start = [], 0
  for i, a in enumerate(dyn_args):
    n = len(tree_leaves(a))
    if i in donate_nums:
      out.extend(range(start, start + n))
    start += n
  return tuple(out)
