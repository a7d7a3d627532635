"""Windowed reductions: `reduce_window_sum`, `reduce_window_max` and `reduce_window_min` (XLA's
ReduceWindow with an add/max/min region), `reduce_window` for those monoids, and
`padtype_to_pads`, with their rules and numpy references. Lowering rules live in
`stablejax.lowering.rules.windowed_reductions`.

The tangent of a max/min window is the tangent at the first position holding the extremum:
the windows are unrolled into one strided slice per window position (exact, and cheap for the
small windows of pooling)."""
from __future__ import annotations

import itertools
import math
from typing import Any, Callable, Sequence

import numpy as np

from stablejax import core, dtypes, lax
from stablejax.core import ShapedArray
from stablejax.interpreters import ad, batching, flops
from stablejax.lax.primitive_kit import any_dtype, check_dtype, def_reference, numeric_dtypes
from stablejax.lax.primitive_kit import standard_primitive

__all__ = [
    "padtype_to_pads", "reduce_window", "reduce_window_max", "reduce_window_max_p",
    "reduce_window_min", "reduce_window_min_p", "reduce_window_sum", "reduce_window_sum_p",
]

Pads = tuple[tuple[int, int], ...]


def padtype_to_pads(in_shape: Sequence[int], window_shape: Sequence[int],
                    window_strides: Sequence[int], padding: str) -> list[tuple[int, int]]:
  """The (low, high) pads of "SAME", "SAME_LOWER" or "VALID" padding."""
  name = padding.upper() if isinstance(padding, str) else padding
  if name == "VALID":
    return [(0, 0)] * len(in_shape)
  if name not in ("SAME", "SAME_LOWER"):
    raise TypeError(f"Unknown padding type: {padding}.")
  pads = []
  for n, w, s in zip(in_shape, window_shape, window_strides):
    out = -(-n // s)
    total = max((out - 1) * s + w - n, 0)
    lo = total // 2 if name == "SAME" else total - total // 2
    pads.append((lo, total - lo))
  return pads


def _dilate(n: int, d: int) -> int:
  return 0 if n == 0 else 1 + d * (n - 1)


def window_output_shape(shape: Sequence[int], window_dimensions: Sequence[int],
                        window_strides: Sequence[int], padding: Pads,
                        base_dilation: Sequence[int], window_dilation: Sequence[int]
                        ) -> tuple[int, ...]:
  """The shape of a windowed reduction (or of a convolution's spatial axes)."""
  out = []
  for n, w, s, (lo, hi), bd, wd in zip(shape, window_dimensions, window_strides, padding,
                                       base_dilation, window_dilation):
    span = _dilate(n, bd) + lo + hi - _dilate(w, wd)
    out.append(0 if span < 0 else span // s + 1)
  return tuple(out)


def _params(name: str, aval: ShapedArray, window_dimensions, window_strides, padding,
            base_dilation, window_dilation) -> dict:
  """The canonical params of a windowed reduction, checked against the operand."""
  ndim = aval.ndim
  ones = (1,) * ndim
  window_dimensions = tuple(int(w) for w in window_dimensions)
  window_strides = tuple(int(s) for s in window_strides)
  base_dilation = ones if base_dilation is None else tuple(int(d) for d in base_dilation)
  window_dilation = ones if window_dilation is None else tuple(int(d) for d in window_dilation)
  if isinstance(padding, str):
    padding = padtype_to_pads(
        tuple(_dilate(n, d) for n, d in zip(aval.shape, base_dilation)),
        tuple(_dilate(w, d) for w, d in zip(window_dimensions, window_dilation)),
        window_strides, padding)
  padding = tuple((int(lo), int(hi)) for lo, hi in padding)
  for what, v in [("window_dimensions", window_dimensions), ("window_strides", window_strides),
                  ("padding", padding), ("base_dilation", base_dilation),
                  ("window_dilation", window_dilation)]:
    if len(v) != ndim:
      raise TypeError(f"{name}: {what} {v} must have one entry per axis of the operand "
                      f"{aval.str_short()}")
  if min(window_dimensions + window_strides + base_dilation + window_dilation, default=1) < 1:
    raise TypeError(f"{name}: window dimensions, strides and dilations must be positive")
  return dict(window_dimensions=window_dimensions, window_strides=window_strides,
              padding=padding, base_dilation=base_dilation, window_dilation=window_dilation)


def _abstract_eval(name: str, accepted):
  def abstract_eval(x: ShapedArray, **params):
    check_dtype(name, accepted, x)
    _params(name, x, **params)
    return ShapedArray(window_output_shape(x.shape, **params), x.dtype, x.weak_type)
  return abstract_eval


def _batcher(prim: core.Primitive, args, dims, **params):
  """The batch axis gets a window of 1."""
  (x,), (d,) = args, dims
  ins = lambda t, v: t[:d] + (v,) + t[d:]  # noqa: E731
  new = {k: ins(v, (0, 0) if k == "padding" else 1) for k, v in params.items()}
  return prim.bind(x, **new), d


def _identity(name: str, dtype: np.dtype) -> Any:
  if name == "reduce_window_sum":
    return np.zeros((), dtype)
  hi = name == "reduce_window_min"
  if dtype == np.bool_:
    return np.array(hi)
  if dtypes.kind(dtype) == "f":
    return np.array(np.inf if hi else -np.inf, dtype)
  info = np.iinfo(dtype)
  return np.array(info.max if hi else info.min, dtype)


def _window_views(pad: Callable, slicer: Callable, x: Any, shape: Sequence[int], fill: Any,
                  window_dimensions, window_strides, padding, base_dilation, window_dilation
                  ) -> list:
  """One strided slice of the padded, dilated operand per window position (the operand of
  `pad(x, fill, config)` and `slicer(x, start, limit, strides)`, numpy's or lax's)."""
  config = [(lo, hi, bd - 1) for (lo, hi), bd in zip(padding, base_dilation)]
  padded = pad(x, fill, config)
  out_shape = window_output_shape(shape, window_dimensions, window_strides, padding,
                                  base_dilation, window_dilation)
  views = []
  for offsets in itertools.product(*[range(w) for w in window_dimensions]):
    start = [o * wd for o, wd in zip(offsets, window_dilation)]
    limit = [s + (n - 1) * st + 1 if n else s
             for s, n, st in zip(start, out_shape, window_strides)]
    views.append(slicer(padded, start, limit, window_strides))
  return views


def _np_pad(x: np.ndarray, fill: Any, config) -> np.ndarray:
  for axis, (lo, hi, interior) in enumerate(config):
    if interior and x.shape[axis]:
      idx = np.repeat(np.arange(1, x.shape[axis]), interior)
      x = np.insert(x, idx, fill, axis=axis)
    before = [(max(lo, 0), max(hi, 0)) if a == axis else (0, 0) for a in range(x.ndim)]
    x = np.pad(x, before, constant_values=fill)
    x = x[tuple(slice(max(-lo, 0), x.shape[a] - max(-hi, 0)) if a == axis else slice(None)
                for a in range(x.ndim))]
  return x


def _np_slice(x: np.ndarray, start, limit, strides) -> np.ndarray:
  return x[tuple(slice(s, lim, st) for s, lim, st in zip(start, limit, strides))]


def _reference(name: str, ufunc: np.ufunc) -> Callable:
  def reference(x: np.ndarray, **params) -> np.ndarray:
    init = _identity(name, x.dtype)
    views = _window_views(_np_pad, _np_slice, x, x.shape, init, **params)
    out_shape = window_output_shape(x.shape, **params)
    out = np.full(out_shape, init, x.dtype)
    for v in views:
      out = ufunc(out, v).astype(x.dtype)
    return out
  return reference


def _lax_views(x: Any, fill: Any, **params) -> list:
  return _window_views(lax.pad, lax.slice, x, core.get_aval(x).shape, fill, **params)


def _chooser_jvp(prim: core.Primitive):
  """The tangent at the first window position holding the extremum."""
  def jvp(primals, tangents, **params):
    (x,), (t,) = primals, tangents
    out = prim.bind(x, **params)
    dtype = core.get_aval(x).dtype
    xs = _lax_views(x, _identity(prim.name, dtype)[()], **params)
    ts = _lax_views(t, np.zeros((), dtype)[()], **params)
    t_out = ts[-1]
    for xv, tv in zip(xs[-2::-1], ts[-2::-1]):
      t_out = lax.select_n(lax.eq(xv, out), t_out, tv)
    return out, t_out
  return jvp


def _sum_transpose(ct, operand, *, window_dimensions, window_strides, padding, base_dilation,
                   window_dilation):
  """Spread each cotangent over its window: dilate it by the strides, pad it so every input
  position sees the windows covering it, sum windows again, strided by the base dilation."""
  in_shape = operand.aval.shape
  out_shape = core.get_aval(ct).shape
  config = []
  for n, w, s, (lo, _), bd, wd, m in zip(in_shape, window_dimensions, window_strides, padding,
                                         base_dilation, window_dilation, out_shape):
    before = _dilate(w, wd) - lo - 1
    after = _dilate(n, bd) + _dilate(w, wd) - 1 - _dilate(m, s) - before
    config.append((before, after, s - 1))
  padded = lax.pad(ct, np.zeros((), core.get_aval(ct).dtype)[()], config)
  ndim = len(in_shape)
  return [reduce_window_sum_p.bind(
      padded, window_dimensions=window_dimensions, window_strides=base_dilation,
      padding=((0, 0),) * ndim, base_dilation=(1,) * ndim, window_dilation=window_dilation)]


def _windowed(name: str, accepted, ufunc: np.ufunc) -> core.Primitive:
  prim = standard_primitive(name, _abstract_eval(name, accepted))
  def_reference(prim, _reference(name, ufunc))
  batching.primitive_batchers[prim] = lambda args, dims, **params: _batcher(
      prim, args, dims, **params)
  return prim


reduce_window_sum_p = _windowed("reduce_window_sum", numeric_dtypes, np.add)
ad.deflinear2(reduce_window_sum_p, _sum_transpose)
reduce_window_max_p = _windowed("reduce_window_max", any_dtype, np.maximum)
ad.primitive_jvps[reduce_window_max_p] = _chooser_jvp(reduce_window_max_p)
reduce_window_min_p = _windowed("reduce_window_min", any_dtype, np.minimum)
ad.primitive_jvps[reduce_window_min_p] = _chooser_jvp(reduce_window_min_p)


def _bind(prim: core.Primitive, operand: Any, window_dimensions, window_strides, padding,
          base_dilation=None, window_dilation=None) -> Any:
  return prim.bind(operand, **_params(prim.name, core.get_aval(operand), window_dimensions,
                                      window_strides, padding, base_dilation, window_dilation))


def reduce_window_sum(operand: Any, window_dimensions: Sequence[int],
                      window_strides: Sequence[int], padding: Any,
                      base_dilation: Sequence[int] | None = None,
                      window_dilation: Sequence[int] | None = None) -> Any:
  """The sum over each window (padding: (low, high) pairs or "SAME"/"VALID")."""
  return _bind(reduce_window_sum_p, operand, window_dimensions, window_strides, padding,
               base_dilation, window_dilation)


def reduce_window_max(operand: Any, window_dimensions: Sequence[int],
                      window_strides: Sequence[int], padding: Any,
                      base_dilation: Sequence[int] | None = None,
                      window_dilation: Sequence[int] | None = None) -> Any:
  """The maximum over each window (padding: (low, high) pairs or "SAME"/"VALID")."""
  return _bind(reduce_window_max_p, operand, window_dimensions, window_strides, padding,
               base_dilation, window_dilation)


def reduce_window_min(operand: Any, window_dimensions: Sequence[int],
                      window_strides: Sequence[int], padding: Any,
                      base_dilation: Sequence[int] | None = None,
                      window_dilation: Sequence[int] | None = None) -> Any:
  """The minimum over each window (padding: (low, high) pairs or "SAME"/"VALID")."""
  return _bind(reduce_window_min_p, operand, window_dimensions, window_strides, padding,
               base_dilation, window_dilation)


_MONOIDS = {lax.add: reduce_window_sum_p, lax.max: reduce_window_max_p,
            lax.min: reduce_window_min_p}


def reduce_window(operand: Any, init_value: Any, computation: Callable,
                  window_dimensions: Sequence[int], window_strides: Sequence[int], padding: Any,
                  base_dilation: Sequence[int] | None = None,
                  window_dilation: Sequence[int] | None = None) -> Any:
  """Reduce each window with `computation` (lax.add, lax.max or lax.min here), starting from
  `init_value`, which combines with the result as one more element."""
  prim = _MONOIDS.get(computation)
  if prim is None:
    raise NotImplementedError(
        "stablejax's reduce_window supports the computations lax.add, lax.max and lax.min; "
        f"got {computation!r}")
  out = _bind(prim, operand, window_dimensions, window_strides, padding, base_dilation,
              window_dilation)
  dtype = core.get_aval(out).dtype
  init = lax.convert_element_type(init_value, dtype)
  if core.is_concrete(init_value) and np.all(np.asarray(init_value) == _identity(prim.name,
                                                                                 dtype)):
    return out
  return computation(out, init)

# ----------------------------------------------------------------------------------------------
# FLOPS (conventions: stablejax.flops)

def _reduce_window_flops(avals_in, avals_out, *, window_dimensions, **_) -> float:
  return avals_out[0].size * math.prod(window_dimensions)


flops.flops_rules[reduce_window_sum_p] = _reduce_window_flops
flops.flops_rules[reduce_window_max_p] = _reduce_window_flops
flops.flops_rules[reduce_window_min_p] = _reduce_window_flops
