"""`Signature`: what a call's concrete arguments were, per position, so that a call repeating it
(jit's last call, an eager primitive's) finds its device buffers with no aval computed again:
an Array of a canonical aval on the executable's device is checked by identity, a numpy array
by its type, dtype object and shape, a Python or numpy scalar by its type alone (its weak type
follows from the type), and all the host values then go to the device in one `put_host`. A
Python scalar repeated (a learning rate, a constant operand) reuses its buffer: scalars are
immutable (numpy's too), and a buffer is never written once made.

On a CPU device a small numpy argument is not transferred at all: the signature keeps device
buffers and numpy views of their memory (`pjrt.alias_host`), and copies each call's value into
them. The copy waits for nothing: a set of such arrays is written only once the call that last
used it has its results ready (its execution has read the memory). The signature keeps a few
sets in turn, for calls dispatched before the last ones finished; when none is free, the values
are transferred as any other."""
from __future__ import annotations

from typing import Any, Callable, Sequence

import collections
import functools

import numpy as np

from stablejax import core, dtypes
from stablejax.config import config
from stablejax.runtime import pjrt
from stablejax.runtime.array import Array, canonical_aval
from stablejax.util import bounded

_SCALAR_TYPES = frozenset({bool, int, float, complex})
_SCALARS_KEPT = 16  # the buffers of the last distinct values of each scalar argument
_STAGED_BYTES = 1 << 20  # numpy arguments up to this size are staged (larger: copying dominates)
_STAGING_SETS = 4  # per signature: calls in flight at once that can still be staged


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
    bounded(self.kept, _SCALARS_KEPT)[x] = buf


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


def _stageable(spec: _Host) -> bool:
  """Whether the host position `spec` is a numpy array small enough to stage, of a dtype its
  buffer holds as numpy does (not packed: int4 and narrower)."""
  dt = spec.aval.dtype
  return (spec.shape is not None and spec.aval.size * dt.itemsize <= _STAGED_BYTES
          and dtypes.itemsize_bits(dt) == 8 * dt.itemsize)


def _converter(given: np.dtype, want: np.dtype) -> Callable[[np.ndarray], np.ndarray]:
  if given == want:
    return lambda x: x
  return lambda x: np.asarray(x, want)


class Signature:
  """Per argument position: the canonical aval of an Array on `sharding`'s device, or a host
  position; `take` selects the arguments the executable takes (None: all)."""
  __slots__ = ("specs", "avals", "sharding", "device", "take", "host", "host_specs", "packed",
               "packed_specs", "packed_aval", "unpacked", "host_pairs", "staged", "staging",
               "free", "unstaged")

  @classmethod
  def of(cls, xs: Sequence[Any], device: pjrt.Device, take: Sequence[int] | None = None,
         stage: bool = True) -> Signature | None:
    """The signature of the arguments `xs` of a call run on `device`, or None if one is neither
    an Array on that device nor a host value. `stage`: whether its small numpy arguments may be
    staged (not where the call donates them: the executable could write into the memory)."""
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
    sig.staged = stage and device.platform == "cpu" and any(map(_stageable, sig.host_specs))
    sig.host_pairs = tuple(zip(sig.host, sig.host_specs))
    sig.staging, sig.free, sig.unstaged = [], collections.deque(), ()
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
    sig.host_pairs = tuple(zip(sig.host, sig.host_specs))
    sig.staged, sig.staging, sig.free, sig.unstaged = False, [], collections.deque(), ()
    return sig

  def caller(self, run: Callable[[list], list]) -> Callable[[Sequence[Any]], list | None]:
    """`call` with `run` bound: for arguments all Arrays taken whole (the common case, the
    cached dispatch of jit and of eager operations), one closure with nothing looked up."""
    if self.host or self.take is not None or self.packed is not None:
      return functools.partial(self.call, run)
    avals, sh, n = self.avals, self.sharding, len(self.avals)
    if n == 1:
      (aval,) = avals

      def call_on_array(xs: Sequence[Any]) -> list | None:
        if len(xs) == 1:
          x = xs[0]
          if type(x) is Array and x.aval is aval and x._buf._sharding is sh:
            return run([x._buf])
        return None
      return call_on_array

    def call_on_arrays(xs: Sequence[Any]) -> list | None:
      if len(xs) != n:
        return None
      out = []
      for x, aval in zip(xs, avals):
        if type(x) is not Array or x.aval is not aval or x._buf._sharding is not sh:
          return None
        out.append(x._buf)
      return run(out)
    return call_on_arrays

  def call(self, run: Callable[[list], list], xs: Sequence[Any]) -> list | None:
    """`run` on the buffers of the arguments `xs` (those taken; host values put on the device),
    or None if they do not repeat this signature. Staged arguments are copied into a set of
    staging arrays taken for the call (`_take_staging`)."""
    out = self._matched(xs)
    if out is None:
      return None
    if self.staged:
      staging = self._take_staging()
      if staging is not None:
        return self._run_staged(run, out, staging)
    if self.packed is not None:
      out = self._put_packed(out)
    elif self.host:
      self._put(out, self.host_pairs)
    return run(out)

  def _take_staging(self) -> _Staging | None:
    """A set of staging arrays taken from the free ones for a call: the least recently used if
    its last call is done with them, else a new set while there are fewer than
    `_STAGING_SETS`; None if neither, or under a transfer guard (which sees every transfer).
    (A deque's operations are atomic: calls in two threads take two sets.)"""
    if config.transfer_guard_host_to_device is not None:
      return None
    free = self.free
    try:
      staging = free.popleft()
    except IndexError:
      staging = None
    if staging is not None:
      if staging.done():
        return staging
      free.appendleft(staging)  # (still the least recently used)
    if len(self.staging) >= _STAGING_SETS:
      return None
    staging = _Staging(self.device, self.host_pairs)
    if not staging.arrays:  # (none can be; not tried again)
      self.staged = False
      return None
    self.unstaged = staging.unstaged
    self.staging.append(staging)
    return staging

  def _run_staged(self, run: Callable[[list], list], out: list, staging: _Staging) -> list:
    """`run` with the staged arguments of `out` copied into `staging`, which is then free
    again, fenced by the call's first result."""
    try:
      for i, host, buf in staging.arrays:
        host[...] = out[i]  # (numpy's casting, as `convert`'s)
        out[i] = buf
      if self.unstaged:
        self._put(out, self.unstaged)
      outs = run(out)
      first = outs[0] if outs else None
      staging.fence = first._buf if type(first) is Array else None
      return outs
    finally:
      self.free.append(staging)

  def _matched(self, xs: Sequence[Any]) -> list | None:
    """The arguments `xs` (those taken), Arrays as their buffers, if they repeat this signature;
    else None."""
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
    return out if self.take is None else [out[i] for i in self.take]

  def _put_packed(self, out: list) -> list:
    """The packed numpy arrays' bytes as one buffer, then the others' buffers."""
    blob = np.concatenate([np.ascontiguousarray(spec.convert(out[i])).reshape(-1).view(
        np.uint8) for i, spec in zip(self.packed, self.packed_specs)])
    if self.host:
      self._put(out, self.host_pairs)
    (buf,) = pjrt.put_host([blob], [self.packed_aval], self.device)
    return [buf, *[out[i] for i in self.unpacked]]

  def _put(self, out: list, pairs: Sequence[tuple[int, _Host]]) -> None:
    """Replace the host values at `pairs` (position, spec) in `out` by buffers: kept ones, else
    all put in one go."""
    todo, values, avals = [], [], []
    for i, spec in pairs:
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


class _Staging:
  """One set of staging arrays: per staged position, (position, a numpy view of the device
  buffer's memory, the buffer); `fence`, a result buffer of the call that last used them."""
  __slots__ = ("arrays", "unstaged", "fence")

  def __init__(self, device: pjrt.Device, pairs: Sequence[tuple[int, _Host]]):
    arrays, unstaged = [], []
    for i, spec in pairs:
      alias = pjrt.alias_host(spec.aval, device) if _stageable(spec) else None
      if alias is None:
        unstaged.append((i, spec))
      else:
        arrays.append((i, *alias))
    self.arrays, self.unstaged, self.fence = tuple(arrays), tuple(unstaged), None

  def done(self) -> bool:
    """Whether the call that last used these arrays has finished (so read them). (jaxlib crashes
    asking a deleted buffer.)"""
    fence = self.fence
    try:
      return fence is not None and not fence.is_deleted() and pjrt.is_ready(fence)
    except RuntimeError:  # (its execution failed)
      return False
