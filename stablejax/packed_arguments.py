"""One transfer for a jitted call's numpy arrays: their bytes packed into one uint8 buffer on the
host, and the function's jaxpr preceded by the slices and bitcasts that unpack them. jaxlib puts
one array per call of its transfer, at a cost per array far above the copy's for the small
arrays of a call (weights, a batch), so a signature called again with several numpy arrays
runs its packed executable (`jit.Jitted`; `runtime.arguments.Signature.packing`)."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from stablejax import core, lax, pipeline
from stablejax.jaxpr import ClosedJaxpr, eval_jaxpr


def packable(aval: core.ShapedArray) -> bool:
  """Whether a host array of type `aval` can travel as bytes (booleans, integers, floats; not
  complex numbers, whose bitcast XLA refuses, nor sub-byte or extended types)."""
  dt = aval.dtype
  return isinstance(dt, np.dtype) and dt.kind in "biuf" and dt.itemsize in (1, 2, 4, 8)


def unpacking(closed: ClosedJaxpr, positions: Sequence[int]) -> ClosedJaxpr:
  """`closed` taking its arguments at `positions` as one leading uint8 vector (their bytes in
  order, each after the last), and its other arguments after it, in order."""
  avals = closed.in_avals
  sizes = [avals[i].size * avals[i].dtype.itemsize for i in positions]
  offsets = np.cumsum([0, *sizes]).tolist()
  where = {i: k for k, i in enumerate(positions)}
  others = [a for i, a in enumerate(avals) if i not in where]

  def fun(packed: Any, *rest: Any) -> list:
    it = iter(rest)
    args = [_unpack(packed, offsets[where[i]], sizes[where[i]], a) if i in where else next(it)
            for i, a in enumerate(avals)]
    return eval_jaxpr(closed.jaxpr, closed.consts, *args)
  return pipeline.trace(fun, [core.ShapedArray((offsets[-1],), np.dtype(np.uint8)), *others])[0]


def _unpack(packed: Any, offset: int, size: int, aval: core.ShapedArray) -> Any:
  piece = lax.slice(packed, (offset,), (offset + size,))
  dt = aval.dtype
  if dt == np.bool_:
    value = lax.ne(piece, np.uint8(0))
  elif dt.itemsize == 1:
    value = lax.bitcast_convert_type(piece, dt)
  else:
    value = lax.bitcast_convert_type(lax.reshape(piece, (size // dt.itemsize, dt.itemsize)), dt)
  return lax.reshape(value, aval.shape)

