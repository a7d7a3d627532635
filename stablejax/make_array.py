"""Arrays assembled shard by shard, as JAX's `make_array_from_callback`,
`make_array_from_single_device_arrays` and `make_array_from_process_local_data`."""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from stablejax import core, dtypes
from stablejax.runtime import pjrt
from stablejax.runtime.array import Array, from_buffer
from stablejax.sharding import SingleDeviceSharding, check_sharding


def _layout(shape: tuple, sharding: Any) -> list[tuple[Any, tuple, int]]:
  """(device, index, replica id) of each shard of an array of `shape` on this process."""
  sharding = check_sharding(sharding, "make_array")
  local = set(pjrt.local_devices())
  return [entry for entry in sharding._shard_layout(shape) if entry[0] in local]


def _aval(shape: Sequence[int], dtype: Any) -> core.ShapedArray:
  return core.ShapedArray(tuple(shape), dtypes.canonicalize(np.dtype(dtype)))


def make_array_from_callback(shape: Sequence[int], sharding: Any,
                             data_callback: Callable[[tuple | None], Any],
                             dtype: Any = None) -> Array:
  """The Array of `shape` laid out by `sharding` whose shard on each device is
  `data_callback(index)`, `index` the tuple of slices of the global array it holds."""
  shape = tuple(shape)
  layout = _layout(shape, sharding)
  values = [np.asarray(data_callback(index)) for _, index, _ in layout]
  if dtype is None:
    dtype = values[0].dtype if values else dtypes.default_float()
  aval = _aval(shape, dtype)
  for (_, index, _), v in zip(layout, values):
    want = tuple(len(range(*s.indices(n))) for s, n in zip(index, shape))
    if v.shape != want:
      raise ValueError(f"make_array_from_callback: data_callback returned a shard of shape "
                       f"{v.shape} for index {index}, expected {want}")
  if isinstance(sharding, SingleDeviceSharding):
    return Array(pjrt.put(values[0], aval, layout[0][0]), aval)
  return Array(pjrt.put_shards(values, aval, sharding, [d for d, _, _ in layout]),
               core.typed_aval(aval, sharding))


def make_array_from_single_device_arrays(shape: Sequence[int], sharding: Any,
                                         arrays: Sequence[Array], *, dtype: Any = None
                                         ) -> Array:
  """The Array of `shape` laid out by `sharding` made of `arrays`, one per device of the
  sharding on this process (each the shard its device holds); no data is copied."""
  shape = tuple(shape)
  layout = _layout(shape, sharding)
  by_device = {}
  for a in arrays:
    if not isinstance(a, Array) or not pjrt.is_single_device(a._buf):
      raise TypeError(f"make_array_from_single_device_arrays takes single-device Arrays, got "
                      f"{type(a).__name__}")
    by_device[a.device] = a
  if set(by_device) != {d for d, _, _ in layout} or len(by_device) != len(arrays):
    raise ValueError(f"make_array_from_single_device_arrays: the arrays are on devices "
                     f"{sorted(map(str, (a.device for a in arrays)))}, the sharding's shards "
                     f"on {sorted(str(d) for d, _, _ in layout)} (one array per device)")
  dtype = arrays[0].dtype if dtype is None else dtype
  aval = _aval(shape, dtype)
  bufs = [by_device[d]._buf for d, _, _ in layout]
  if len(bufs) == 1 and bufs[0].aval.shape == shape:
    return from_buffer(bufs[0])
  return Array(pjrt.assemble(aval, sharding, bufs), core.typed_aval(aval, sharding))


def make_array_from_process_local_data(sharding: Any, local_data: Any,
                                       global_shape: Sequence[int] | None = None) -> Array:
  """The Array laid out by `sharding` of this process's data (one process: the whole array)."""
  if pjrt.process_count() > 1:
    raise NotImplementedError("make_array_from_process_local_data over several processes")
  local_data = np.asarray(local_data)
  shape = local_data.shape if global_shape is None else tuple(global_shape)
  if shape != local_data.shape:
    raise ValueError(f"make_array_from_process_local_data: global_shape {shape} differs from "
                     f"the local data's shape {local_data.shape} in a single process")
  return make_array_from_callback(shape, sharding, lambda index: local_data[index])
