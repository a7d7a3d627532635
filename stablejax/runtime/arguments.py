"""`Signature`: what a call's concrete arguments were, per position, so that a call repeating it
(jit's last call, an eager primitive's) finds its device buffers with no aval computed again:
an Array of a canonical aval on the executable's device is checked by identity, a numpy array
by its type, dtype object and shape, a Python or numpy scalar by its type alone (its weak type
follows from the type), and all the host values then go to the device in one `put_host`. A
Python scalar repeated (a learning rate, a constant operand) reuses its buffer: scalars are
immutable (numpy's too), and a buffer is never written once made."""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from stablejax import core, dtypes
from stablejax.config import config
from stablejax.runtime import pjrt
from stablejax.runtime.array import Array, canonical_aval

_SCALAR_TYPES = frozenset({bool, int, float, complex})
_SCALARS_KEPT = 16  # the buffers of the last distinct values of each scalar argument


class _Host:
  """One host argument position: the Python type, and for a numpy array its dtype (as given,
  before canonicalization) and shape; the aval it is put as, and how it becomes that value.
  `kept` holds the buffers of a Python scalar's last values (None: not kept)."""
  __slots__ = ("type", "dtype", "shape", "aval", "convert", "bounds", "kept")

  def accepts(self, x: Any) -> bool:
    if type(x) is not self.type:
      return False
    if self.shape is not None:  # (a numpy array)
      return x.dtype is self.dtype and x.shape == self.shape
    return self.bounds is None or self.bounds[0] <= x <= self.bounds[1]

  def kept_buffer(self, x: Any) -> pjrt.Buffer | None:
    """The buffer already made of the scalar `x`, if any and not donated since."""
    buf = self.kept.get(x)
    if buf is None or buf.is_deleted() or config.transfer_guard_host_to_device is not None:
      return None
    return buf

  def keep(self, x: Any, buf: pjrt.Buffer) -> None:
    if len(self.kept) >= _SCALARS_KEPT:
      self.kept.clear()
    self.kept[x] = buf


def _host(x: Any) -> _Host | None:
  """The host position of `x` (a numpy array or scalar, a Python scalar), or None for any other
  value (these take the slow path: its checks and errors)."""
  t = type(x)
  if t is not np.ndarray and t not in _SCALAR_TYPES and not isinstance(x, np.generic):
    return None
  aval = core.get_aval(x)
  if aval.dtype == dtypes.float0 or not isinstance(aval.dtype, np.dtype):
    return None
  h = _Host()
  h.type, h.aval = t, canonical_aval(aval)
  h.dtype, h.shape = (x.dtype, x.shape) if t is np.ndarray else (None, None)
  h.convert = _converter(h.dtype, aval.dtype) if t is np.ndarray else aval.dtype.type
  info = np.iinfo(aval.dtype) if t is int else None  # a Python int must fit its weak type
  h.bounds = None if info is None else (int(info.min), int(info.max))
  # Python and numpy scalars are immutable: their buffers can be kept (a float's key must
  # tell -0.0 from 0.0, which compare equal: zeros are never kept; nor complex numbers)
  h.kept = {} if t is not np.ndarray and aval.dtype.kind != "c" else None
  return h


def _converter(given: np.dtype, want: np.dtype) -> Callable[[np.ndarray], np.ndarray]:
  if given == want:
    return lambda x: x
  return lambda x: np.asarray(x, want)


class Signature:
  """Per argument position: the canonical aval of an Array on `sharding`'s device, or a host
  position; `take` selects the arguments the executable takes (None: all)."""
  __slots__ = ("specs", "avals", "sharding", "device", "take", "host", "host_specs", "packed",
               "packed_specs", "packed_aval", "unpacked")

  @classmethod
  def of(cls, xs: Sequence[Any], device: pjrt.Device, take: Sequence[int] | None = None
         ) -> Signature | None:
    """The signature of the arguments `xs` of a call run on `device`, or None if one is neither
    an Array on that device nor a host value."""
    sh = pjrt.sharding(device)
    specs = []
    for x in xs:
      if type(x) is Array:
        if x._buf._sharding is not sh:
          return None
        specs.append(x.aval)
      else:
        spec = _host(x)
        if spec is None:
          return None
        specs.append(spec)
    sig = cls()
    sig.specs, sig.sharding, sig.device = tuple(specs), sh, device
    sig.avals = tuple(s.aval if type(s) is _Host else s for s in specs)
    sig.take = None if take is None else tuple(take)
    taken = specs if take is None else [specs[i] for i in take]
    sig.host = tuple(i for i, s in enumerate(taken) if type(s) is _Host)
    sig.host_specs = tuple(taken[i] for i in sig.host)
    sig.packed = sig.packed_specs = sig.packed_aval = sig.unpacked = None
    return sig

  def packable(self) -> list[int]:
    """The positions (among those taken) of its numpy arrays."""
    return [i for i, s in zip(self.host, self.host_specs) if s.shape is not None]

  def packing(self, positions: Sequence[int]) -> Signature:
    """This signature for the executable taking the numpy arrays at `positions` (among those
    taken) as one leading uint8 vector of their bytes, its other arguments after it."""
    sig = Signature()
    sig.specs, sig.avals, sig.sharding, sig.device, sig.take = (
        self.specs, self.avals, self.sharding, self.device, self.take)
    sig.packed = tuple(positions)
    taken = dict(zip(self.host, self.host_specs))
    sig.packed_specs = tuple(taken[i] for i in sig.packed)
    size = sum(s.aval.size * s.aval.dtype.itemsize for s in sig.packed_specs)
    sig.packed_aval = core.ShapedArray((size,), np.dtype(np.uint8))
    rest = [(i, s) for i, s in taken.items() if i not in sig.packed]
    sig.host, sig.host_specs = tuple(i for i, _ in rest), tuple(s for _, s in rest)
    n = len(self.specs) if self.take is None else len(self.take)
    sig.unpacked = tuple(i for i in range(n) if i not in sig.packed)
    return sig

  def buffers(self, xs: Sequence[Any]) -> list | None:
    """The buffers of the arguments `xs` (those taken), their host values put on the device,
    if they repeat this signature; else None."""
    specs = self.specs
    if len(xs) != len(specs):
      return None
    sh, out = self.sharding, []
    for x, spec in zip(xs, specs):
      if type(x) is Array:
        if x.aval is not spec or x._buf._sharding is not sh:
          return None
        out.append(x._buf)
      elif type(spec) is _Host and spec.accepts(x):
        out.append(x)
      else:
        return None
    if self.take is not None:
      out = [out[i] for i in self.take]
    if self.packed is not None:
      return self._put_packed(out)
    if self.host:
      self._put(out)
    return out

  def _put_packed(self, out: list) -> list:
    """The packed numpy arrays' bytes as one buffer, then the others' buffers."""
    blob = np.concatenate([np.ascontiguousarray(spec.convert(out[i])).reshape(-1).view(
        np.uint8) for i, spec in zip(self.packed, self.packed_specs)])
    if self.host:
      self._put(out)
    (buf,) = pjrt.put_host([blob], [self.packed_aval], self.device)
    return [buf, *[out[i] for i in self.unpacked]]

  def _put(self, out: list) -> None:
    """Replace the host values in `out` by buffers: kept ones, else all put in one go."""
    todo, values, avals = [], [], []
    for i, spec in zip(self.host, self.host_specs):
      x = out[i]
      buf = None if spec.kept is None or not x else spec.kept_buffer(x)
      if buf is None:
        todo.append((i, spec, x))
        values.append(spec.convert(x))
        avals.append(spec.aval)
      else:
        out[i] = buf
    if todo:
      for (i, spec, x), buf in zip(todo, pjrt.put_host(values, avals, self.device)):
        out[i] = buf
        if spec.kept is not None and x:
          spec.keep(x, buf)
