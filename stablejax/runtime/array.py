"""`Array`: the user-visible value, a buffer on one device with its abstract value.

Operators, indexing and methods such as `.reshape` are installed by `stablejax.numpy.array_methods`.
"""
from __future__ import annotations

import operator
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from stablejax import basearray, core, dtypes, tree_util
from stablejax.runtime import pjrt
from stablejax.util import bounded


_CANONICAL_LIMIT = 1 << 16
_canonical: dict[core.ShapedArray, core.ShapedArray] = {}


def canonical_aval(aval: core.ShapedArray) -> core.ShapedArray:
  """One ShapedArray object per array type among Arrays, so that jit's dispatch fast path can
  compare argument types by identity."""
  c = _canonical.get(aval)
  if c is None:
    c = bounded(_canonical, _CANONICAL_LIMIT)[aval] = aval
  return c


class Array(basearray.Array):
  """A value living on a device; `aval` is its core.ShapedArray (including weak_type). The
  concrete class: `stablejax.Array`, the public type, is its base (and traced values')."""
  __slots__ = ("_buf", "aval", "_npy", "__weakref__")
  __array_priority__ = 100
  __hash__ = None  # like JAX: arrays are mutable-looking values, not hashable

  def __init__(self, buf: pjrt.Buffer, aval: core.ShapedArray):
    self._buf = buf
    self.aval = canonical_aval(aval)
    self._npy = None

  shape = property(lambda self: self.aval.shape)
  dtype = property(lambda self: self.aval.dtype)
  ndim = property(lambda self: self.aval.ndim)
  size = property(lambda self: self.aval.size)
  weak_type = property(lambda self: self.aval.weak_type)

  @property
  def device(self) -> Any:
    """The device holding this array; its sharding if it spans several (as JAX)."""
    if pjrt.on_one_device(self._buf):
      return pjrt.buffer_device(self._buf)
    return self._buf._sharding

  def devices(self) -> set:
    """The set of devices holding this array."""
    return set(self._buf._sharding._internal_device_list)

  @property
  def sharding(self) -> Any:
    """How the array is laid out on its devices (`stablejax.sharding`)."""
    return self._buf._sharding

  @property
  def is_fully_replicated(self) -> bool:
    return self._buf._sharding.is_fully_replicated

  @property
  def addressable_shards(self) -> list[Shard]:
    """The shards of the array on this process's devices, in the sharding's device order."""
    if pjrt.on_one_device(self._buf):
      return [Shard(self.device, (slice(None),) * self.ndim, 0, self)]
    bufs = {pjrt.buffer_device(b): b for b in self._buf._arrays}
    layout = self._buf._sharding._shard_layout(self.shape)
    return [Shard(d, index, replica, from_buffer(bufs[d])) for d, index, replica in layout
            if d in bufs]

  def _value(self) -> np.ndarray:
    """The value as a read-only numpy array, read back once (gathered from its shards)."""
    if self._buf.is_deleted():  # (a host copy read before may still be cached)
      raise pjrt.deleted_error(self._buf, "the Array")
    if self._npy is None:
      if pjrt.on_one_device(self._buf):
        self._npy = pjrt.to_numpy(self._buf)
      else:
        self._npy = _gather(self)
    return self._npy

  def __array__(self, dtype=None, copy=None) -> np.ndarray:
    value = self._value()
    if copy:
      return np.array(value, dtype)
    return value if dtype is None else np.asarray(value, dtype)

  def block_until_ready(self) -> Array:
    """Wait until the value is computed; returns self."""
    if self._buf.is_deleted():
      raise pjrt.deleted_error(self._buf, "the Array")
    pjrt.block_until_ready([self._buf])
    return self

  def is_deleted(self) -> bool:
    """Whether the buffer is gone (donated to a jit call, or `delete()`d)."""
    return self._buf.is_deleted()

  def delete(self) -> None:
    """Free the device buffer now; the Array cannot be used afterwards."""
    self._buf.delete()

  def copy(self) -> Array:
    """A copy in a new buffer on the same device."""
    return Array(pjrt.copy_to(self._buf, self.device), self.aval)

  def item(self) -> Any:
    return self._value().item()

  def tolist(self) -> Any:
    return self._value().tolist()

  def __len__(self) -> int:
    if not self.shape:
      raise TypeError("len() of unsized object (a rank-0 array)")
    return self.shape[0]

  def __iter__(self) -> Iterator[Array]:
    if not self.shape:
      raise TypeError("iteration over a rank-0 array")
    aval, device = self.aval.update(shape=self.shape[1:]), self.device
    physical = core.physical_aval(aval)
    return (Array(pjrt.put(row, physical, device), aval) for row in self._value())

  def __bool__(self) -> bool:
    return bool(self._value())

  def __int__(self) -> int:
    return int(self._value())

  def __float__(self) -> float:
    return float(self._value())

  def __complex__(self) -> complex:
    return complex(self._value())

  def __index__(self) -> int:
    if self.ndim or not np.issubdtype(self.dtype, np.integer):
      raise TypeError("only integer scalar arrays can be converted to a scalar index, got "
                      f"{self.aval.str_short()}")
    return operator.index(self._value().item())

  def __reduce__(self) -> tuple:
    """Pickled as its value and weak type; unpickled onto the default device."""
    return _unpickle, (self._value(), self.weak_type)

  def __deepcopy__(self, memo: dict) -> Array:
    return self.copy()

  def __repr__(self) -> str:
    if core.physical_aval(self.aval) is not self.aval:  # a key array, as JAX shows one
      return f"Array({self.shape}, dtype={self.dtype}) overlaying:\n{self._value()}"
    prefix = "Array("
    dtype_str = f"dtype={self.dtype.name}" + (", weak_type=True" if self.weak_type else "")
    line_width = np.get_printoptions()["linewidth"]
    if self.size == 0:
      s = f"[], shape={self.shape}"
    else:
      s = np.array2string(self._value(), prefix=prefix, suffix=",", separator=", ",
                          max_line_width=line_width)
    last_line_len = len(s) - s.rfind("\n") + 1
    sep = " " * len(prefix) if last_line_len + len(dtype_str) + 2 > line_width else " "
    return f"{prefix}{s},{sep}{dtype_str})"

  def __str__(self) -> str:
    if core.physical_aval(self.aval) is not self.aval:
      return repr(self)
    return str(self._value())

  def __format__(self, format_spec: str) -> str:
    """A 0-d array formats as its scalar value (`f"{x:.2f}"`); others as their str."""
    if self.ndim == 0:
      return format(self._value().item(), format_spec)
    return format(str(self), format_spec)


class Shard:
  """One device's piece of an Array: `data` is `array[index]` on `device`."""
  __slots__ = ("device", "index", "replica_id", "data")

  def __init__(self, device: pjrt.Device, index: tuple, replica_id: int, data: Array):
    self.device, self.index, self.replica_id, self.data = device, index, replica_id, data

  def __repr__(self) -> str:
    return (f"Shard(device={self.device!r}, index={self.index}, replica_id={self.replica_id}, "
            f"data={self.data})")


def _gather(x: Array) -> np.ndarray:
  """The whole value of a multi-device Array, read back from its shards."""
  shards = x.addressable_shards
  if {s.device for s in shards} != x.devices():
    raise RuntimeError("Fetching the value of an Array that spans devices of other processes is "
                       "not possible; use its .addressable_shards (this process's shards)")
  out = np.empty(x.shape, x.dtype)
  for shard in shards:
    if shard.replica_id == 0:
      out[shard.index] = shard.data._value()
  out.flags.writeable = False
  return out


_new = object.__new__


def _unpickle(value: np.ndarray, weak_type: bool) -> Array:
  aval = core.ShapedArray(value.shape, value.dtype, weak_type)
  return Array(pjrt.put(value, aval, pjrt.default_device()), aval)


def from_buffer(buf: pjrt.Buffer) -> Array:
  """Wrap a buffer whose `aval` jaxlib already holds (the result path of an execution)."""
  a = _new(Array)
  a._buf = buf
  a.aval = buf.aval
  a._npy = None
  return a


def result_wrap(aval: core.ShapedArray) -> Callable[[pjrt.Buffer], Array]:
  """How a result buffer of type `aval` becomes an Array: as it is, or for an extended dtype (a
  key array) its physical buffer typed `aval`; float0 values (no data) as numpy zeros, as JAX
  returns them."""
  if core.physical_aval(aval) is aval:
    return from_buffer
  if aval.dtype == dtypes.float0:
    return lambda buf: np.zeros(aval.shape, dtypes.float0)
  aval = canonical_aval(aval)
  return lambda buf: Array(buf, aval)


core.aval_handlers[Array] = operator.attrgetter("aval")


def check_device(device: Any) -> pjrt.Device:
  """`device` if it is a device, else a TypeError."""
  if not isinstance(device, pjrt.Device):
    raise TypeError(f"device must be a device from stablejax.devices(), got {device!r}")
  return device


def put(x: Any, device: pjrt.Device | None = None) -> Array:
  """One value (an Array, a numpy value or a Python scalar) as an Array on `device` (default:
  an Array stays where it is, anything else goes to the default device)."""
  if isinstance(x, Array):
    if device is None or device == x.device:
      return x
    if not pjrt.on_one_device(x._buf):  # gathered, then put whole on `device`
      return Array(pjrt.put(x._value(), core.physical_aval(x.aval), check_device(device)), x.aval)
    return Array(pjrt.copy_to(x._buf, check_device(device)), x.aval)
  if isinstance(x, core.Tracer):
    raise TypeError(f"device_put of a traced value {x!r} is not supported; device_put values "
                    "outside of jit/grad/vmap")
  aval = core.get_aval(x)
  device = pjrt.default_device() if device is None else check_device(device)
  if aval.dtype == dtypes.float0:  # no data: stored as false booleans
    return Array(pjrt.put(np.zeros(aval.shape, np.bool_), core.physical_aval(aval), device), aval)
  return Array(pjrt.put(x, aval, device), aval)


def device_put(x: Any, device: pjrt.Device | None = None) -> Any:
  """Put `x` (an array, a numpy value, a Python scalar, or a pytree of them) on `device`."""
  return tree_util.tree_map(lambda leaf: put(leaf, device), x)
