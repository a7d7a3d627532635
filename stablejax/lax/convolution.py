"""Convolutions: `conv_general_dilated` (XLA's Convolution) and its wrappers `conv`,
`conv_with_general_padding`, `conv_transpose` and `conv_general_dilated_patches`, with the
primitive's rules and numpy reference. The lowering rule lives in
`stablejax.lowering.rules.convolution`.

Dimension numbers give, per operand, the axes in the canonical order (batch, feature, spatial...)
of the lhs and output and (output feature, input feature, spatial...) of the kernel."""
from __future__ import annotations

import math
import operator
from typing import Any, NamedTuple, Sequence

import numpy as np

from stablejax import core, dtypes, lax
from stablejax.core import ShapedArray
from stablejax.interpreters import ad, batching, flops
from stablejax.interpreters.batching import not_mapped
from stablejax.lax.dot import _result_dtype, canonicalize_precision
from stablejax.lax.primitive_kit import (check_dtype, def_reference, numeric_dtypes,
                                         standard_primitive)
from stablejax.lax.sharding import apply_out_sharding
from stablejax.lax.windowed_reductions import (
    _np_pad, _np_slice, _window_views, padtype_to_pads, window_output_shape)

__all__ = [
    "conv", "conv_dimension_numbers", "conv_general_dilated", "conv_general_dilated_p",
    "conv_general_dilated_local", "conv_general_dilated_patches", "conv_general_permutations", "conv_transpose",
    "conv_with_general_padding", "ConvDimensionNumbers",
]


class ConvDimensionNumbers(NamedTuple):
  """The axes of (batch, feature, spatial...) in the lhs and output and of (output feature,
  input feature, spatial...) in the kernel."""
  lhs_spec: Sequence[int]
  rhs_spec: Sequence[int]
  out_spec: Sequence[int]


def _dilate(n: int, d: int) -> int:
  return 0 if n == 0 else 1 + d * (n - 1)


def conv_general_permutations(dimension_numbers: Sequence[str]
                              ) -> tuple[tuple[int, ...], ...]:
  """The axis permutations of string dimension numbers such as ("NHWC", "HWIO", "NHWC"): the
  spatial axes of lhs and output follow the order of their letters in the kernel spec."""
  lhs, rhs, out = dimension_numbers
  pairs = (("N", "C"), ("O", "I"), ("N", "C"))
  for i, (spec, (a, b)) in enumerate(zip(dimension_numbers, pairs)):
    if not spec.count(a) == spec.count(b) == 1:
      raise TypeError(f"convolution dimension_numbers[{i}] must contain the characters '{a}' "
                      f"and '{b}' exactly once, got {spec}.")
    if len(spec) != len(set(spec)):
      raise TypeError(f"convolution dimension_numbers[{i}] cannot have duplicate characters, "
                      f"got {spec}.")
  if not set(lhs) - {"N", "C"} == set(rhs) - {"O", "I"} == set(out) - {"N", "C"}:
    raise TypeError("convolution dimension_numbers elements must each have the same set of "
                    f"spatial characters, got {tuple(dimension_numbers)}.")

  def perm(spec: str, pair: tuple[str, str]) -> tuple[int, ...]:
    spatial = sorted((i for i, c in enumerate(spec) if c not in pair),
                     key=lambda i: rhs.index(spec[i]))
    return (spec.index(pair[0]), spec.index(pair[1])) + tuple(spatial)
  return tuple(perm(spec, pair) for spec, pair in zip(dimension_numbers, pairs))


def conv_dimension_numbers(lhs_shape: Sequence[int], rhs_shape: Sequence[int],
                           dimension_numbers: Any) -> ConvDimensionNumbers:
  """`ConvDimensionNumbers` from None (NCHW/OIHW/NCHW), three spec strings, or themselves."""
  if isinstance(dimension_numbers, ConvDimensionNumbers):
    return ConvDimensionNumbers(*(tuple(map(int, s)) for s in dimension_numbers))
  if len(lhs_shape) != len(rhs_shape):
    raise TypeError(f"convolution requires lhs and rhs ndim to be equal, got "
                    f"{len(lhs_shape)} and {len(rhs_shape)}.")
  if dimension_numbers is None:
    iota = tuple(range(len(lhs_shape)))
    return ConvDimensionNumbers(iota, iota, iota)
  if not isinstance(dimension_numbers, (list, tuple)):
    raise TypeError(f"convolution dimension_numbers must be tuple/list or None, got "
                    f"{type(dimension_numbers)}.")
  if len(dimension_numbers) != 3:
    raise TypeError(f"convolution dimension_numbers list/tuple must be length 3, got "
                    f"{len(dimension_numbers)}.")
  if not all(isinstance(s, str) for s in dimension_numbers):
    raise TypeError(f"convolution dimension_numbers elements must be strings, got "
                    f"{tuple(map(type, dimension_numbers))}.")
  for i, spec in enumerate(dimension_numbers):
    if len(spec) != len(lhs_shape):
      raise TypeError(f"convolution dimension_numbers[{i}] must have len equal to the ndim of "
                      f"lhs and rhs, got {len(spec)} for lhs and rhs shapes "
                      f"{tuple(lhs_shape)} and {tuple(rhs_shape)}.")
  return ConvDimensionNumbers(*conv_general_permutations(dimension_numbers))


def conv_general_dilated(lhs: Any, rhs: Any, window_strides: Sequence[int], padding: Any,
                         lhs_dilation: Sequence[int] | None = None,
                         rhs_dilation: Sequence[int] | None = None,
                         dimension_numbers: Any = None, feature_group_count: int = 1,
                         batch_group_count: int = 1, precision: Any = None,
                         preferred_element_type: Any = None, out_sharding: Any = None) -> Any:
  """General n-dimensional convolution with strides, padding ("SAME", "SAME_LOWER", "VALID"
  or (low, high) pairs), lhs (transposed) and rhs (atrous) dilation and grouping; the result
  is laid out by `out_sharding` if given."""
  lhs_shape, rhs_shape = core.get_aval(lhs).shape, core.get_aval(rhs).shape
  dnums = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
  nspatial = len(rhs_shape) - 2
  lhs_dilation = (1,) * nspatial if lhs_dilation is None else tuple(map(int, lhs_dilation))
  rhs_dilation = (1,) * nspatial if rhs_dilation is None else tuple(map(int, rhs_dilation))
  if isinstance(padding, str):
    if any(d != 1 for d in lhs_dilation):
      raise ValueError("String padding is not implemented for transposed convolution using "
                       "this op. Please either exactly specify the required padding or use "
                       "conv_transpose.")
    window = [_dilate(rhs_shape[d], r) for d, r in zip(dnums.rhs_spec[2:], rhs_dilation)]
    padding = padtype_to_pads([lhs_shape[d] for d in dnums.lhs_spec[2:]], window,
                              window_strides, padding)
  try:
    padding = tuple((operator.index(lo), operator.index(hi)) for lo, hi in padding)
  except (ValueError, TypeError):
    raise ValueError("padding argument to conv_general_dilated should be a string or a "
                     f"sequence of (low, high) pairs, got {padding}") from None
  preferred = None if preferred_element_type is None else dtypes.canonicalize(
      preferred_element_type)
  out = conv_general_dilated_p.bind(
      lhs, rhs, window_strides=tuple(map(int, window_strides)), padding=padding,
      lhs_dilation=lhs_dilation, rhs_dilation=rhs_dilation, dimension_numbers=dnums,
      feature_group_count=operator.index(feature_group_count),
      batch_group_count=operator.index(batch_group_count),
      precision=canonicalize_precision(precision), preferred_element_type=preferred)
  return apply_out_sharding(out, out_sharding, "lax.conv_general_dilated")


def conv(lhs: Any, rhs: Any, window_strides: Sequence[int], padding: Any,
         precision: Any = None, preferred_element_type: Any = None) -> Any:
  """An NCHW/OIHW convolution without dilation."""
  return conv_general_dilated(lhs, rhs, window_strides, padding, precision=precision,
                              preferred_element_type=preferred_element_type)


def conv_with_general_padding(lhs: Any, rhs: Any, window_strides: Sequence[int], padding: Any,
                              lhs_dilation: Sequence[int] | None,
                              rhs_dilation: Sequence[int] | None, precision: Any = None,
                              preferred_element_type: Any = None) -> Any:
  """An NCHW/OIHW convolution with dilations."""
  return conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation,
                              precision=precision,
                              preferred_element_type=preferred_element_type)


def _conv_transpose_padding(k: int, s: int, padding: Any) -> tuple[int, int]:
  """The (before, after) padding of a transposed convolution's lhs-dilated input, for the
  forward convolution's "SAME", "VALID" or (low, high) padding."""
  if padding == "SAME":
    total = k + s - 2
    before = k - 1 if s > k - 1 else -(-total // 2)
  elif padding == "VALID":
    total = k + s - 2 + max(k - s, 0)
    before = k - 1
  elif isinstance(padding, tuple):
    before, after = (k - p - 1 for p in padding)
    total = before + after
  else:
    raise ValueError(f"Invalid padding mode: {padding}")
  return before, total - before


_CONV_TRANSPOSE_DEFAULTS = {2: ("NC", "IO", "NC"), 3: ("NHC", "HIO", "NHC"),
                            4: ("NHWC", "HWIO", "NHWC"), 5: ("NHWDC", "HWDIO", "NHWDC")}


def conv_transpose(lhs: Any, rhs: Any, strides: Sequence[int], padding: Any,
                   rhs_dilation: Sequence[int] | None = None, dimension_numbers: Any = None,
                   transpose_kernel: bool = False, precision: Any = None,
                   preferred_element_type: Any = None,
                   use_consistent_padding: bool = False) -> Any:
  """A fractionally strided convolution (the transpose of a forward convolution), with Keras'
  output padding; `transpose_kernel` flips and swaps the kernel as the gradient would."""
  ndim = core.get_aval(lhs).ndim
  rhs_shape = core.get_aval(rhs).shape
  if dimension_numbers is None:
    if ndim not in _CONV_TRANSPOSE_DEFAULTS:
      raise ValueError("No 4+ dimensional dimension_number defaults.")
    dimension_numbers = _CONV_TRANSPOSE_DEFAULTS[ndim]
  dn = conv_dimension_numbers(core.get_aval(lhs).shape, rhs_shape, dimension_numbers)
  kernel = [rhs_shape[d] for d in dn.rhs_spec[2:]]
  rhs_dilation = (1,) * (ndim - 2) if rhs_dilation is None else tuple(rhs_dilation)
  pads = padding
  if use_consistent_padding or padding in ("SAME", "VALID"):
    per_dim = [padding] * len(strides) if isinstance(padding, str) else [
        tuple(p) for p in padding]
    pads = tuple(_conv_transpose_padding(_dilate(k, r), s, p)
                 for k, r, s, p in zip(kernel, rhs_dilation, strides, per_dim))
  if transpose_kernel:
    rhs = lax.rev(rhs, dn.rhs_spec[2:])
    perm = list(range(ndim))
    perm[dn.rhs_spec[0]], perm[dn.rhs_spec[1]] = dn.rhs_spec[1], dn.rhs_spec[0]
    rhs = lax.transpose(rhs, perm)
  return conv_general_dilated(lhs, rhs, (1,) * (ndim - 2), pads, strides, rhs_dilation, dn,
                              precision=precision,
                              preferred_element_type=preferred_element_type)


def conv_general_dilated_patches(lhs: Any, filter_shape: Sequence[int],
                                 window_strides: Sequence[int], padding: Any,
                                 lhs_dilation: Sequence[int] | None = None,
                                 rhs_dilation: Sequence[int] | None = None,
                                 dimension_numbers: Any = None, precision: Any = None,
                                 preferred_element_type: Any = None) -> Any:
  """The patches a convolution with a kernel of spatial shape `filter_shape` would see, as
  features ordered (input feature, *filter positions)."""
  aval = core.get_aval(lhs)
  ndim = aval.ndim
  dn = conv_dimension_numbers(aval.shape, aval.shape, dimension_numbers)
  channels = aval.shape[dn.lhs_spec[1]]
  size = int(np.prod(filter_shape))
  one_hot = np.tile(np.eye(size, dtype=aval.dtype), (channels, 1))
  canonical = one_hot.reshape((channels * size, 1) + tuple(filter_shape))
  kernel = np.transpose(canonical, np.argsort(dn.rhs_spec))
  return conv_general_dilated(lhs, kernel, window_strides, padding, lhs_dilation, rhs_dilation,
                              dn, feature_group_count=channels, precision=precision,
                              preferred_element_type=preferred_element_type)


def conv_general_dilated_local(lhs: Any, rhs: Any, window_strides: Sequence[int], padding: Any,
                               filter_shape: Sequence[int],
                               lhs_dilation: Sequence[int] | None = None,
                               rhs_dilation: Sequence[int] | None = None,
                               dimension_numbers: Any = None, precision: Any = None) -> Any:
  """A locally connected convolution: each output position has its own kernel (`rhs`, of
  shape (out_features, in_features * prod(filter_shape), *output spatial shape) in the
  layout of the rhs spec), applied to the patches of `lhs`."""
  pair = canonicalize_precision(precision)
  patches = conv_general_dilated_patches(lhs, filter_shape, window_strides, padding,
                                         lhs_dilation, rhs_dilation, dimension_numbers,
                                         None if pair is None else pair[0])
  lhs_spec, rhs_spec, out_spec = conv_dimension_numbers(
      core.get_aval(lhs).shape, (1, 1) + tuple(filter_shape), dimension_numbers)
  order = sorted(range(len(out_spec) - 2), key=lambda k: out_spec[2 + k])
  batch = ([out_spec[2 + k] for k in order], [rhs_spec[2 + k] for k in order])
  out = lax.dot_general(patches, rhs, (([out_spec[1]], [rhs_spec[1]]), batch), precision)
  # the result is (*spatial, batch, features): move the last two to the output spec's places
  ndim = len(out_spec)
  rest = iter(range(ndim - 2))
  perm = [ndim - 2 if i == out_spec[0] else ndim - 1 if i == out_spec[1] else next(rest)
          for i in range(ndim)]
  return lax.transpose(out, perm)


# ----------------------------------------------------------------------------------------------
# Abstract evaluation

def _check(lhs: ShapedArray, rhs: ShapedArray, window_strides, padding, lhs_dilation,
           rhs_dilation, dimension_numbers, feature_group_count, batch_group_count) -> None:
  if lhs.ndim != rhs.ndim:
    raise ValueError(f"conv_general_dilated lhs and rhs must have the same number of "
                     f"dimensions, but got {lhs.shape} and {rhs.shape}.")
  lhs_spec, rhs_spec, _ = dimension_numbers
  features, batch = lhs.shape[lhs_spec[1]], lhs.shape[lhs_spec[0]]
  out_features, in_features = rhs.shape[rhs_spec[0]], rhs.shape[rhs_spec[1]]
  for name, count in (("feature_group_count", feature_group_count),
                      ("batch_group_count", batch_group_count)):
    if count < 1:
      raise ValueError(f"conv_general_dilated {name} must be a positive integer, got {count}.")
    if out_features % count:
      raise ValueError(f"conv_general_dilated rhs output feature dimension size must be a "
                       f"multiple of {name}, but {out_features} is not a multiple of {count}.")
  if features % feature_group_count:
    raise ValueError(f"conv_general_dilated feature_group_count must divide lhs feature "
                     f"dimension size, but {feature_group_count} does not divide {features}.")
  if features // feature_group_count != in_features:
    raise ValueError(f"conv_general_dilated lhs feature dimension size divided by "
                     f"feature_group_count must equal the rhs input feature dimension size, "
                     f"but {features} // {feature_group_count} != {in_features}.")
  if batch % batch_group_count:
    raise ValueError(f"conv_general_dilated batch_group_count must divide lhs batch dimension "
                     f"size, but {batch_group_count} does not divide {batch}.")
  if batch_group_count > 1 and feature_group_count > 1:
    raise ValueError(f"At most one of batch_group_count and feature_group_count may be > 1, "
                     f"got batch_group_count={batch_group_count} and "
                     f"feature_group_count={feature_group_count}")
  nspatial = rhs.ndim - 2
  for name, v in (("window_strides", window_strides), ("padding", padding),
                  ("lhs_dilation", lhs_dilation), ("rhs_dilation", rhs_dilation)):
    if len(v) != nspatial:
      raise ValueError(f"conv_general_dilated {name} {v} must have one entry per spatial "
                       f"dimension ({nspatial}) of lhs {lhs.str_short()} and rhs "
                       f"{rhs.str_short()}")
  if min(window_strides + lhs_dilation + rhs_dilation, default=1) < 1:
    raise ValueError("conv_general_dilated strides and dilations must be positive, got "
                     f"{window_strides}, {lhs_dilation} and {rhs_dilation}")
  for d, (lo, hi), dilation in zip(lhs_spec[2:], padding, lhs_dilation):
    if _dilate(lhs.shape[d], dilation) + lo + hi < 0:
      raise ValueError(f"Negative padding is larger than the size of the corresponding "
                       f"dimension: got padding={padding} for lhs {lhs.str_short()}")


def _out_shape(lhs_shape, rhs_shape, *, window_strides, padding, lhs_dilation, rhs_dilation,
               dimension_numbers, batch_group_count, **_) -> tuple[int, ...]:
  lhs_spec, rhs_spec, out_spec = dimension_numbers
  spatial = window_output_shape([lhs_shape[d] for d in lhs_spec[2:]],
                                [rhs_shape[d] for d in rhs_spec[2:]], window_strides, padding,
                                lhs_dilation, rhs_dilation)
  canonical = (lhs_shape[lhs_spec[0]] // batch_group_count, rhs_shape[rhs_spec[0]]) + spatial
  return tuple(np.take(canonical, np.argsort(out_spec)).tolist())


def _conv_abstract_eval(lhs: ShapedArray, rhs: ShapedArray, *, window_strides, padding,
                        lhs_dilation, rhs_dilation, dimension_numbers, feature_group_count,
                        batch_group_count, precision, preferred_element_type) -> ShapedArray:
  for aval in (lhs, rhs):
    check_dtype("conv_general_dilated", numeric_dtypes, aval)
  if lhs.dtype != rhs.dtype:
    raise TypeError(f"conv_general_dilated requires arguments to have the same dtypes, got "
                    f"{lhs.dtype}, {rhs.dtype}.")
  _check(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation, dimension_numbers,
         feature_group_count, batch_group_count)
  shape = _out_shape(lhs.shape, rhs.shape, window_strides=window_strides, padding=padding,
                     lhs_dilation=lhs_dilation, rhs_dilation=rhs_dilation,
                     dimension_numbers=dimension_numbers, batch_group_count=batch_group_count)
  weak = lhs.weak_type and rhs.weak_type and preferred_element_type is None
  return ShapedArray(shape, _result_dtype(lhs, rhs, preferred_element_type), weak)


def _conv_reference(lhs: np.ndarray, rhs: np.ndarray, *, window_strides, padding,
                    lhs_dilation, rhs_dilation, dimension_numbers, feature_group_count,
                    batch_group_count, precision, preferred_element_type) -> np.ndarray:
  """One strided view of the padded, dilated lhs per kernel position, contracted with that
  position's kernel slice by an einsum over (group, feature)."""
  lhs_spec, rhs_spec, out_spec = dimension_numbers
  dtype = np.dtype(preferred_element_type or lhs.dtype)
  wide = {"f": np.float64, "c": np.complex128}.get(dtypes.kind(dtype), dtype)
  x, w = np.transpose(lhs, lhs_spec).astype(wide), np.transpose(rhs, rhs_spec).astype(wide)
  ones = (1, 1)
  views = _window_views(_np_pad, _np_slice, x, x.shape, np.zeros((), wide),
                        ones + w.shape[2:], ones + tuple(window_strides),
                        ((0, 0),) * 2 + tuple(padding), ones + tuple(lhs_dilation),
                        ones + tuple(rhs_dilation))
  n, c = x.shape[:2]
  o, i = w.shape[:2]
  b, g = batch_group_count, feature_group_count
  spatial = views[0].shape[2:]
  v = np.stack(views).reshape((len(views), b, n // b, g, c // g) + spatial)
  k = w.reshape(b, g, o // (b * g), i, -1)
  out = np.einsum("pbngi...,bgoip->nbgo...", v, k).reshape((n // b, o) + spatial)
  return np.transpose(out, np.argsort(out_spec)).astype(dtype)


conv_general_dilated_p = standard_primitive("conv_general_dilated", _conv_abstract_eval)
def_reference(conv_general_dilated_p, _conv_reference)


# ----------------------------------------------------------------------------------------------
# JVP and transposition (it is bilinear)

ad.defjvp(conv_general_dilated_p,
          lambda t, lhs, rhs, **params: conv_general_dilated_p.bind(t, rhs, **params),
          lambda t, lhs, rhs, **params: conv_general_dilated_p.bind(lhs, t, **params))


def _reshape_axis_into(src: int, dst: int, x: Any) -> Any:
  """Merge axis `src` into axis `dst` (numbered without `src`) as its major part."""
  shape = core.get_aval(x).shape
  perm = [i for i in range(len(shape)) if i != src]
  perm.insert(dst, src)
  new_shape = [s for i, s in enumerate(shape) if i != src]
  new_shape[dst] *= shape[src]
  return lax.reshape(x, new_shape, perm)


def _reshape_axis_out_of(src: int, size: int, x: Any) -> Any:
  """Split axis `src` into (size, rest)."""
  shape = list(core.get_aval(x).shape)
  shape[src:src + 1] = [size, shape[src] // size]
  return lax.reshape(x, shape)


def _swap_spec(spec: Sequence[int]) -> tuple[int, ...]:
  return (spec[1], spec[0]) + tuple(spec[2:])


def _dilated(shape: Sequence[int], dilation: Sequence[int]) -> list[int]:
  return [_dilate(n, d) for n, d in zip(shape, dilation)]


def _cast(x: Any, dtype: np.dtype) -> Any:
  return x if core.get_aval(x).dtype == dtype else lax.convert_element_type(x, dtype)


def _transpose_lhs(ct, lhs_aval: ShapedArray, rhs, *, window_strides, padding, lhs_dilation,
                   rhs_dilation, dimension_numbers, feature_group_count, batch_group_count,
                   precision, preferred_element_type):
  """A convolution of the cotangent with the spatially reversed kernel, its features swapped
  (and groups moved into the kernel's output features)."""
  lhs_spec, rhs_spec, out_spec = dimension_numbers
  rhs_shape = core.get_aval(rhs).shape
  groups = max(feature_group_count, batch_group_count)
  if groups > 1:
    rhs = _reshape_axis_out_of(rhs_spec[0], groups, rhs)
    rhs = _reshape_axis_into(rhs_spec[0], rhs_spec[1], rhs)
  in_shape = [lhs_aval.shape[d] for d in lhs_spec[2:]]
  window = _dilated([rhs_shape[d] for d in rhs_spec[2:]], rhs_dilation)
  out_shape = _dilated([core.get_aval(ct).shape[d] for d in out_spec[2:]], window_strides)
  before = [w - lo - 1 for w, (lo, _) in zip(window, padding)]
  after = [n + w - 1 - m - b for n, w, m, b in
           zip(_dilated(in_shape, lhs_dilation), window, out_shape, before)]
  kernel = _cast(lax.rev(rhs, rhs_spec[2:]), core.get_aval(ct).dtype)
  out = conv_general_dilated(
      ct, kernel, lhs_dilation, list(zip(before, after)), window_strides, rhs_dilation,
      ConvDimensionNumbers(out_spec, _swap_spec(rhs_spec), lhs_spec),
      feature_group_count=groups, precision=precision,
      preferred_element_type=preferred_element_type)
  out = _cast(out, lhs_aval.dtype)
  if batch_group_count > 1:
    out = _reshape_axis_out_of(lhs_spec[1], batch_group_count, out)
    out = _reshape_axis_into(lhs_spec[1], lhs_spec[0], out)
  return out


def _transpose_rhs(ct, lhs, rhs_aval: ShapedArray, *, window_strides, padding, lhs_dilation,
                   rhs_dilation, dimension_numbers, feature_group_count, batch_group_count,
                   precision, preferred_element_type):
  """A convolution of the lhs with the cotangent as kernel: feature groups become batch
  groups and batch groups feature groups."""
  lhs_spec, rhs_spec, out_spec = dimension_numbers
  ct_shape = core.get_aval(ct).shape
  if 0 in ct_shape:
    return ad.Zero(rhs_aval)
  in_shape = _dilated([core.get_aval(lhs).shape[d] for d in lhs_spec[2:]], lhs_dilation)
  window = _dilated([rhs_aval.shape[d] for d in rhs_spec[2:]], rhs_dilation)
  out_shape = _dilated([ct_shape[d] for d in out_spec[2:]], window_strides)
  pads = [(lo, m - n + w - lo - 1)
          for (lo, _), n, w, m in zip(padding, in_shape, window, out_shape)]
  out = conv_general_dilated(
      _cast(lhs, core.get_aval(ct).dtype), ct, rhs_dilation, pads, lhs_dilation,
      window_strides,
      ConvDimensionNumbers(_swap_spec(lhs_spec), _swap_spec(out_spec), _swap_spec(rhs_spec)),
      feature_group_count=batch_group_count, batch_group_count=feature_group_count,
      precision=precision, preferred_element_type=preferred_element_type)
  return _cast(out, rhs_aval.dtype)


def _conv_transpose_rule(ct, lhs, rhs, **params):
  if ad.is_undefined_primal(lhs) and ad.is_undefined_primal(rhs):
    raise TypeError("conv_general_dilated transpose: only one operand may be linear (it is "
                    "bilinear)")
  if ad.is_undefined_primal(lhs):
    return [_transpose_lhs(ct, lhs.aval, rhs, **params), None]
  return [None, _transpose_rhs(ct, lhs, rhs.aval, **params)]


ad.primitive_transposes[conv_general_dilated_p] = ad.zero_ct_aware(_conv_transpose_rule)


# ----------------------------------------------------------------------------------------------
# Batching: the batch axis is folded into the lhs batch, the kernel's output features, or the
# feature groups, and split out of the result again.

def _fold_groups(x: Any, bdim: int, axis: int, groups: int) -> Any:
  """Fold batch axis `bdim` into `axis` (numbered without it) under its `groups` groups."""
  x = _reshape_axis_out_of(axis + int(bdim <= axis), groups, x)
  x = _reshape_axis_into(bdim + int(axis < bdim), axis + 1, x)
  return _reshape_axis_into(axis, axis, x)


def _unbatched_shape(x: Any, bdim: int | None) -> tuple[int, ...]:
  shape = core.get_aval(x).shape
  return shape if bdim is None else shape[:bdim] + shape[bdim + 1:]


def _conv_batcher(axis_data, args, dims, **params):
  (lhs, rhs), (ld, rd) = args, dims
  lhs_spec, rhs_spec, out_spec = params["dimension_numbers"]
  fg, bg = params["feature_group_count"], params["batch_group_count"]
  size = axis_data.size
  if size == 0:
    shape = _out_shape(_unbatched_shape(lhs, ld), _unbatched_shape(rhs, rd), **params)
    dtype = params["preferred_element_type"] or core.get_aval(lhs).dtype
    return lax.full((0,) + shape, 0, dtype), 0
  if ld is not not_mapped and rd is not not_mapped:
    if bg > 1:
      lhs, bg = _reshape_axis_into(ld, lhs_spec[0], lhs), bg * size
    else:
      lhs, fg = _reshape_axis_into(ld, lhs_spec[1], lhs), fg * size
    rhs = _reshape_axis_into(rd, rhs_spec[0], rhs)
    out = conv_general_dilated_p.bind(
        lhs, rhs, **dict(params, feature_group_count=fg, batch_group_count=bg))
    return _reshape_axis_out_of(out_spec[1], size, out), out_spec[1]
  if ld is not not_mapped:
    lhs = (_reshape_axis_into(ld, lhs_spec[0], lhs) if bg == 1 else
           _fold_groups(lhs, ld, lhs_spec[0], bg))
    out = conv_general_dilated_p.bind(lhs, rhs, **params)
    return _reshape_axis_out_of(out_spec[0], size, out), out_spec[0]
  groups = max(fg, bg)
  rhs = (_reshape_axis_into(rd, rhs_spec[0], rhs) if groups == 1 else
         _fold_groups(rhs, rd, rhs_spec[0], groups))
  out = conv_general_dilated_p.bind(lhs, rhs, **params)
  if groups == 1:
    return _reshape_axis_out_of(out_spec[1], size, out), out_spec[1]
  out = _reshape_axis_out_of(out_spec[1], groups, out)
  out = _reshape_axis_out_of(out_spec[1] + 1, size, out)
  return _reshape_axis_into(out_spec[1], out_spec[1] + 1, out), out_spec[1]


batching.fancy_primitive_batchers[conv_general_dilated_p] = _conv_batcher

# ----------------------------------------------------------------------------------------------
# FLOPS (conventions: stablejax.flops)

def _conv_flops(avals_in, avals_out, *, dimension_numbers, window_strides, padding, lhs_dilation,
                rhs_dilation, **_) -> float:
  """2 x (output batch x features) x input features per group x the (output position, kernel
  tap) pairs of each spatial dimension whose tap reads an input element rather than padding or a
  dilation hole: 2 x output elements x kernel size x input features per group without padding
  or lhs dilation (XLA's count)."""
  lhs, rhs, out = avals_in[0], avals_in[1], avals_out[0]
  lhs_spec, rhs_spec, out_spec = dimension_numbers
  taps = 1
  for i, (stride, (pad_lo, _), lhs_dil, rhs_dil) in enumerate(
      zip(window_strides, padding, lhs_dilation, rhs_dilation)):
    taps *= _conv_taps(lhs.shape[lhs_spec[2 + i]], rhs.shape[rhs_spec[2 + i]],
                       out.shape[out_spec[2 + i]], stride, pad_lo, lhs_dil, rhs_dil)
  batch_features = out.shape[out_spec[0]] * out.shape[out_spec[1]]
  return 2 * batch_features * rhs.shape[rhs_spec[1]] * taps


def _conv_taps(size: int, window: int, out_size: int, stride: int, pad_lo: int, lhs_dil: int,
               rhs_dil: int) -> int:
  """The (output, kernel tap) pairs of one spatial dimension that read an input element."""
  pos = (np.arange(out_size)[:, None] * stride + np.arange(window)[None, :] * rhs_dil - pad_lo)
  dilated = 0 if size == 0 else (size - 1) * lhs_dil + 1
  return int(np.count_nonzero((pos >= 0) & (pos < dilated) & (pos % lhs_dil == 0)))


flops.flops_rules[conv_general_dilated_p] = _conv_flops
