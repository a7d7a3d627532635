"""jax.experimental.mesh_utils: `create_device_mesh` lays devices out in an array of the mesh's
shape: by id on GPUs, in the given order elsewhere, or by a handler registered for the devices'
kind in `device_kind_handler_dict`; `create_hybrid_device_mesh` tiles one such mesh per granule
(slice or process) over a DCN mesh. (TPU torus layouts are not in stablejax.)"""
from __future__ import annotations

import collections
import math
import operator
from typing import Any, Callable, Sequence

import numpy as np

from stablejax.runtime.pjrt import devices as _devices

__all__ = ["create_device_mesh", "create_hybrid_device_mesh", "device_kind_handler_dict"]

# device kind -> handler(mesh_shape, devices, *, contiguous_submeshes) -> device array or None
device_kind_handler_dict: dict[str, Callable[..., np.ndarray | None]] = {}


def _axis_sizes(mesh_shape: Any) -> tuple[int, ...] | None:
  try:
    return tuple(operator.index(d) for d in mesh_shape)
  except TypeError:
    return None


def create_device_mesh(mesh_shape: Sequence[int], devices: Sequence[Any] | None = None, *,
                       contiguous_submeshes: bool = False,
                       allow_split_physical_axes: bool = False) -> np.ndarray:
  """An array of `devices` (default: all) of shape `mesh_shape`."""
  if devices is None:
    devices = _devices()
  shape = _axis_sizes(mesh_shape)
  if shape is None:
    raise ValueError("`mesh_shape` passed to `create_device_mesh` should be a sequence of ints. "
                     f"Got {mesh_shape}")
  if math.prod(shape) != len(devices):
    raise ValueError(f"Number of devices {len(devices)} must equal the product of mesh_shape "
                     f"{shape}")
  last = devices[-1]
  handler = device_kind_handler_dict.get(last.device_kind)
  if handler is not None:
    result = handler(shape, devices, contiguous_submeshes=contiguous_submeshes)
    if result is not None:
      return result
  if last.platform == "tpu":
    raise NotImplementedError("create_device_mesh: stablejax does not lay out TPU meshes")
  if last.platform == "gpu":
    devices = sorted(devices, key=lambda d: d.id)
  return np.asarray(devices).reshape(shape)


def create_hybrid_device_mesh(mesh_shape: Sequence[int], dcn_mesh_shape: Sequence[int],
                              devices: Sequence[Any] | None = None, *,
                              process_is_granule: bool = False,
                              should_sort_granules_by_key: bool = True,
                              allow_split_physical_axes: bool = False) -> np.ndarray:
  """The devices grouped into granules (by `slice_index`, or `process_index`), each laid out
  by `create_device_mesh(mesh_shape)`, the granules' meshes tiled as `dcn_mesh_shape`."""
  if devices is None:
    devices = _devices()
  attr = "process_index" if process_is_granule else "slice_index"
  if not hasattr(devices[0], attr):
    raise ValueError(f"Device {devices[0]} does not have attribute {attr}. See "
                     "`process_is_granule` option.")
  groups: dict[Any, list] = collections.defaultdict(list)
  for d in devices:
    groups[getattr(d, attr)].append(d)
  keys = sorted(groups) if should_sort_granules_by_key else list(groups)
  if math.prod(dcn_mesh_shape) != len(keys):
    raise ValueError(f"Number of slices {len(keys)} must equal the product of dcn_mesh_shape "
                     f"{dcn_mesh_shape}")
  meshes = [create_device_mesh(mesh_shape, groups[k],
                               allow_split_physical_axes=allow_split_physical_axes)
            for k in keys]
  blocks = np.empty(len(meshes), dtype=object)
  blocks[:] = meshes
  return np.block(blocks.reshape(tuple(dcn_mesh_shape)).tolist())
