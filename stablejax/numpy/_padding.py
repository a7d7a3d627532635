"""numpy's padding arrays: `pad`, in all of numpy's modes but 'median' and callables (its
statistic modes use the statistics of `_statistics`)."""
from __future__ import annotations

import operator
from typing import Any

import numpy as np

from stablejax import core, dtypes, lax
from stablejax.numpy._creation import array as array_, linspace
from stablejax.numpy._manipulation_elements import repeat
from stablejax.numpy._math_arithmetic import round as round_
from stablejax.numpy._promotion import (
    broadcast_to as _broadcast_to, convert, dtype, ensure_arraylike, scalar_like, shape)
from stablejax.numpy._statistics import max as max_, mean, min as min_

_PAD_KWARGS = {
    "constant": ("constant_values",), "edge": (), "wrap": (), "empty": (),
    "linear_ramp": ("end_values",), "reflect": ("reflect_type",),
    "symmetric": ("reflect_type",), "maximum": ("stat_length",), "minimum": ("stat_length",),
    "mean": ("stat_length",)}


def pad(array: Any, pad_width: Any, mode: str = "constant", **kwargs: Any) -> Any:
  """`array` padded by `pad_width` (numpy's forms) in any of numpy's modes except 'median' and
  callables."""
  (array,) = ensure_arraylike("pad", array)
  array = array_(array)
  ndim = len(shape(array))
  widths = _pairs(pad_width, ndim, "pad_width")
  if not all(isinstance(w, (int, np.integer)) for pair in widths for w in pair):
    raise TypeError("`pad_width` must be of integral type.")
  if callable(mode) or mode not in _PAD_KWARGS:
    raise NotImplementedError(f"Unimplemented padding mode '{mode}' for np.pad.")
  unsupported = set(kwargs) - set(_PAD_KWARGS[mode])
  if unsupported:
    raise ValueError(f"unsupported keyword arguments for mode '{mode}': {unsupported}")
  if ndim == 0:
    return array
  widths = tuple((int(lo), int(hi)) for lo, hi in widths)
  if any(w < 0 for pair in widths for w in pair):
    raise ValueError("index can't contain negative values")
  if mode == "constant":
    return _pad_constant(array, widths, kwargs.get("constant_values", 0))
  if mode in ("reflect", "symmetric"):
    reflect_type = kwargs.get("reflect_type", "even")
    if reflect_type not in ("even", "odd"):
      raise ValueError(f"pad: reflect_type must be 'even' or 'odd', got {reflect_type!r}")
    return _per_axis(array, widths, mode, _reflect_axis(mode, reflect_type))
  if mode == "linear_ramp":
    ends = _pairs(kwargs.get("end_values", 0), ndim, "end_values")
    return _per_axis(array, widths, mode, _ramp_axis(ends))
  if mode in ("maximum", "minimum", "mean"):
    lengths = kwargs.get("stat_length")
    lengths = None if lengths is None else _pairs(lengths, ndim, "stat_length")
    return _per_axis(array, widths, mode, _stat_axis(mode, lengths))
  return _per_axis(array, widths, mode, _PAD_AXIS[mode])


def _pairs(values: Any, ndim: int, name: str) -> np.ndarray:
  """numpy.pad's (before, after) forms of `values` as an (ndim, 2) host array."""
  try:
    values = np.asarray(core.concrete_or_error(values, f"the {name} argument of jnp.pad"))
  except ValueError:
    raise TypeError(f"`{name}` entries must be the same shape: {values}") from None
  if values.shape not in ((ndim, 2), (1, 2), (2,), (1,), ()):
    raise ValueError(f"jnp.pad: {name} with nd={ndim} has unsupported shape {values.shape}. "
                     f"Valid shapes are ({ndim}, 2), (1, 2), (2,), (1,), or ().")
  return np.broadcast_to(values, (ndim, 2))


def _pad_constant(array: Any, widths: tuple, values: Any) -> Any:
  values = convert(array_(values), dtype(array), core.get_aval(array).weak_type)
  ndim = len(shape(array))
  if shape(values) in ((), (1,)) or shape(values)[-1:] == (1,) and len(shape(values)) == 1:
    value = lax.reshape(values, ()) if shape(values) else values
    return lax.pad(array, value, [(lo, hi, 0) for lo, hi in widths])
  if len(shape(values)) == 1 and shape(values)[0] != 2:
    raise ValueError(f"jnp.pad: constant_values has unsupported shape {shape(values)}. If the "
                     "shape is 1D or 2D, the last dimension must be of size 1 or 2.")
  values = _broadcast_to(values, (ndim, 2))
  for i, pair in enumerate(widths):
    for side, width in enumerate(pair):
      if width:
        config = [(0, 0, 0)] * ndim
        config[i] = (width, 0, 0) if side == 0 else (0, width, 0)
        value = lax.reshape(lax.slice(values, (i, side), (i + 1, side + 1)), ())
        array = lax.pad(array, value, config)
  return array


def _per_axis(array: Any, widths: tuple, mode: str, pad_axis: Any) -> Any:
  """Pad each axis in turn with `pad_axis(array, axis, before, after)`; an empty axis can only
  take zero padding."""
  for axis, (before, after) in enumerate(widths):
    if shape(array)[axis] == 0 and mode != "empty":
      if before or after:
        raise ValueError(f"Cannot apply '{mode}' padding to empty axis")
      continue
    array = pad_axis(array, axis, before, after)
  return array


def _join(before: Any, array: Any, after: Any, axis: int) -> Any:
  return lax.concatenate([before, array, after], axis)


def _pad_wrap(array: Any, axis: int, before: int, after: int) -> Any:
  size = shape(array)[axis]
  (left_reps, left), (right_reps, right) = divmod(before, size), divmod(after, size)
  parts = [lax.slice_in_dim(array, size - left, size, axis=axis)] if left else []
  parts += [array] * (left_reps + right_reps + 1)
  parts += [lax.slice_in_dim(array, 0, right, axis=axis)] if right else []
  return lax.concatenate(parts, axis) if len(parts) > 1 else array


def _pad_edge(array: Any, axis: int, before: int, after: int) -> Any:
  size = shape(array)[axis]
  return _join(repeat(lax.slice_in_dim(array, 0, 1, axis=axis), before, axis), array,
               repeat(lax.slice_in_dim(array, size - 1, size, axis=axis), after, axis), axis)


def _pad_empty(array: Any, axis: int, before: int, after: int) -> Any:
  def block(n):
    return lax.full(shape(array)[:axis] + (n,) + shape(array)[axis + 1:], 0, dtype(array))
  return _join(block(before), array, block(after), axis)


_PAD_AXIS = {"wrap": _pad_wrap, "edge": _pad_edge, "empty": _pad_empty}


def _reflect_axis(mode: str, reflect_type: str) -> Any:
  def pad_axis(array: Any, axis: int, before: int, after: int) -> Any:
    size = shape(array)[axis]
    array = _reflect_side(array, axis, size, before, True, mode, reflect_type)
    return _reflect_side(array, axis, size, after, False, mode, reflect_type)
  return pad_axis


def _reflect_side(array: Any, axis: int, size: int, width: int, before: bool, mode: str,
                  reflect_type: str) -> Any:
  """Pad one side of `axis` (of unpadded `size`) by mirror images of the growing array, `width`
  in all."""
  offset = 1 if mode == "reflect" and size > 1 else 0
  edge = _edge(array, axis, before)
  while width > 0:
    n = min(width, size - offset)
    width -= n
    cur = shape(array)[axis]
    if before:
      x = lax.slice_in_dim(array, offset, offset + n, axis=axis)
    else:
      stop = cur if mode == "symmetric" or size == 1 else cur - 1
      x = lax.slice_in_dim(array, cur - n - offset, stop, axis=axis)
    x = lax.rev(x, (axis,))
    if reflect_type == "odd":
      x = lax.sub(lax.mul(scalar_like(x, 2), _broadcast_to(edge, shape(x))), x)
      edge = _edge(x, axis, before) if size > 1 else edge
    array = lax.concatenate([x, array] if before else [array, x], axis)
  return array


def _edge(x: Any, axis: int, first: bool) -> Any:
  size = shape(x)[axis]
  start = 0 if first else size - 1
  return lax.slice_in_dim(x, start, start + 1, axis=axis)


def _ramp_axis(ends: np.ndarray) -> Any:
  def pad_axis(array: Any, axis: int, before: int, after: int) -> Any:
    weak = core.get_aval(array).weak_type
    ramps = [convert(linspace(end, lax.squeeze(_edge(array, axis, first), (axis,)), n, False,
                              dtype=dtype(array), axis=axis), dtype(array), weak)
             for end, n, first in ((ends[axis][0], before, True), (ends[axis][1], after, False))]
    return _join(ramps[0], array, lax.rev(ramps[1], (axis,)), axis)
  return pad_axis


def _stat_axis(mode: str, lengths: np.ndarray | None) -> Any:
  stat = {"maximum": max_, "minimum": min_, "mean": mean}[mode]

  def pad_axis(array: Any, axis: int, before: int, after: int) -> Any:
    size = shape(array)[axis]
    if lengths is None:
      windows = (array, array)
    else:
      lo, hi = (operator.index(n) for n in lengths[axis])
      if lo == 0 or hi == 0:
        raise ValueError("stat_length of 0 yields no value for padding")
      windows = (lax.slice_in_dim(array, 0, min(lo, size), axis=axis),
                 lax.slice_in_dim(array, size - min(hi, size), size, axis=axis))
    stats = [stat(w, axis=axis, keepdims=True) for w in windows]
    if dtypes.is_integer(dtype(array)) or dtype(array) == np.bool_:
      stats = [round_(s) if dtypes.is_inexact(dtype(s)) else s for s in stats]
    stats = [convert(s, dtype(array), core.get_aval(array).weak_type) for s in stats]
    return _join(repeat(stats[0], before, axis), array, repeat(stats[1], after, axis), axis)
  return pad_axis
