"""`stablejax.dlpack`, as `jax.dlpack`: arrays of other libraries taken through the DLPack
protocol (`from_dlpack`; host memory only: the value is copied to the device)."""
from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from stablejax.runtime import pjrt
from stablejax.runtime.array import Array, put

SUPPORTED_DTYPES = frozenset(np.dtype(d) for d in (
    np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
    np.float16, ml_dtypes.bfloat16, np.float32, np.float64, np.complex64, np.complex128,
    np.bool_))

_DL_CPU, _DL_CUDA_HOST = 1, 3  # DLPack's device types of host memory


def is_supported_dtype(dtype: Any) -> bool:
  """Whether arrays of `dtype` can go through DLPack."""
  if dtype is None:
    raise TypeError(f"Expected a string or dtype-like object; got {dtype=}")
  return np.dtype(dtype) in SUPPORTED_DTYPES


def _target_device(device: Any) -> Any:
  if device is None or isinstance(device, pjrt.Device):
    return device
  devices = getattr(device, "device_set", None)
  if devices is None:
    raise TypeError(f"from_dlpack: device must be a Device or a Sharding, got {device!r}")
  if len(devices) > 1:
    raise ValueError("from_dlpack can only unpack a dlpack tensor onto a singular device, but "
                     f"a Sharding with {len(devices)} devices was provided.")
  return next(iter(devices))


def from_dlpack(external_array: Any, device: Any = None, copy: bool | None = None) -> Array:
  """The Array of `external_array` (anything with `__dlpack__` and `__dlpack_device__` in host
  memory: a numpy array, a CPU torch tensor, ...), on `device` (default: the default device).
  The value is copied, so `copy=False` is an error."""
  device = _target_device(device)
  if not hasattr(external_array, "__dlpack__") or not hasattr(external_array,
                                                              "__dlpack_device__"):
    raise TypeError("The array passed to from_dlpack must have __dlpack__ and "
                    "__dlpack_device__ methods.")
  device_type, _ = external_array.__dlpack_device__()
  if device_type not in (_DL_CPU, _DL_CUDA_HOST):
    raise TypeError(f"Array passed to from_dlpack is on unsupported device type (DLDeviceType: "
                    f"{device_type}, array: {external_array}): stablejax takes host memory")
  if copy is False:
    raise ValueError("from_dlpack copies the value to the device; copy=False cannot be honoured")
  value = np.from_dlpack(external_array)
  if not is_supported_dtype(value.dtype):
    raise TypeError(f"from_dlpack: dtype {value.dtype} is not supported")
  return put(np.array(value), device)
