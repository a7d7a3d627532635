"""Small lax helpers over existing primitives: `select`, `broadcast_like`, `empty`, `dtype`,
`shape_as_value`, and the shape computations of convolutions and windowed reductions, with the
type aliases of lax's signatures."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Union

import numpy as np

from stablejax import core, dtypes
from stablejax.lax.convolution import (ConvDimensionNumbers, _conv_transpose_padding,
                                       conv_general_permutations)
from stablejax.lax.dot import Precision
from stablejax.lax.elementwise import select_n
from stablejax.lax.sharding import apply_out_sharding
from stablejax.lax.structural import broadcast_in_dim, full
from stablejax.lax.windowed_reductions import padtype_to_pads, window_output_shape

__all__ = [
    "broadcast_like", "broadcast_shapes", "conv_general_shape_tuple", "conv_shape_tuple",
    "conv_transpose_shape_tuple", "ConvGeneralDilatedDimensionNumbers", "DotDimensionNumbers",
    "dtype", "empty", "PrecisionLike", "reduce_window_shape_tuple", "select", "shape_as_value",
]

DotDimensionNumbers = tuple[tuple[Sequence[int], Sequence[int]],
                            tuple[Sequence[int], Sequence[int]]]
ConvGeneralDilatedDimensionNumbers = Union[tuple[str, str, str], ConvDimensionNumbers, None]
PrecisionLike = Union[None, str, Precision, tuple[str, str], tuple[Precision, Precision]]


def select(pred: Any, on_true: Any, on_false: Any) -> Any:
  """Elementwise `on_true` where the boolean `pred` holds, else `on_false`."""
  return select_n(pred, on_false, on_true)


def broadcast_shapes(*shapes: Sequence[int]) -> tuple[int, ...]:
  """The numpy broadcast of `shapes`; a ValueError if they are incompatible."""
  shapes = [tuple(int(d) for d in s) for s in shapes]
  rank = max((len(s) for s in shapes), default=0)
  padded = [(1,) * (rank - len(s)) + s for s in shapes]
  out = []
  for sizes in zip(*padded):
    non_one = {d for d in sizes if d != 1}
    if len(non_one) > 1:
      raise ValueError(f"Incompatible shapes for broadcasting: shapes={shapes}")
    out.append(non_one.pop() if non_one else 1)
  return tuple(out)


def broadcast_like(arr: Any, like_arr: Any) -> Any:
  """`arr` broadcast (numpy style) to the shape of `like_arr`."""
  shape, target = core.get_aval(arr).shape, core.get_aval(like_arr).shape
  if broadcast_shapes(shape, target) != target:
    raise ValueError(f"broadcast_like: cannot broadcast shape {shape} to {target}")
  return broadcast_in_dim(arr, target, tuple(range(len(target) - len(shape), len(target))))


def empty(shape: Sequence[int], dtype: Any, *, out_sharding: Any = None) -> Any:
  """An array of `shape` and `dtype` whose contents are unspecified (zeros here)."""
  return apply_out_sharding(full(shape, 0, dtype), out_sharding, "lax.empty")


def dtype(x: Any) -> np.dtype:
  """The canonical dtype of a value, or of a dtype-like (a name, a type, a numpy dtype)."""
  if isinstance(x, (str, np.dtype, type)):
    return dtypes.canonicalize(np.dtype(x))
  return dtypes.dtype_of(x)


def shape_as_value(shape: Sequence[int]) -> Any:
  """`shape` as a 1-D integer array: int32, or int64 where a dimension needs it (as JAX)."""
  shape = tuple(int(d) for d in shape)
  dtype = np.dtype(np.int64 if any(d > np.iinfo(np.int32).max for d in shape) else np.int32)
  return full((0,), 0, dtype) if not shape else np.asarray(shape, dtype)


def reduce_window_shape_tuple(operand_shape: Sequence[int], window_dimensions: Sequence[int],
                              window_strides: Sequence[int], padding: Sequence[tuple[int, int]],
                              base_dilation: Sequence[int] | None = None,
                              window_dilation: Sequence[int] | None = None) -> tuple[int, ...]:
  """The output shape of a windowed reduction with explicit (low, high) `padding`."""
  ones = (1,) * len(operand_shape)
  return window_output_shape(operand_shape, window_dimensions, window_strides, padding,
                             base_dilation or ones, window_dilation or ones)


def conv_shape_tuple(lhs_shape: Sequence[int], rhs_shape: Sequence[int],
                     strides: Sequence[int], pads: Any, batch_group_count: int = 1
                     ) -> tuple[int, ...]:
  """The output shape of an NC... by OI... convolution."""
  if isinstance(pads, str):
    pads = padtype_to_pads(lhs_shape[2:], rhs_shape[2:], strides, pads)
  if len(pads) != len(lhs_shape) - 2:
    raise TypeError(f"Wrong number of explicit pads for convolution: expected "
                    f"{len(lhs_shape) - 2}, got {len(pads)}.")
  if any(n + lo + hi < 0 for n, (lo, hi) in zip(lhs_shape[2:], pads)):
    raise ValueError(f"Negative padding is larger than the size of the corresponding dimension: "
                     f"got padding={pads} for lhs_shape[2:]={tuple(lhs_shape[2:])}")
  spatial = reduce_window_shape_tuple(lhs_shape[2:], rhs_shape[2:], strides, pads)
  return (int(lhs_shape[0]) // batch_group_count, int(rhs_shape[0])) + spatial


def _permuted(lhs_shape, rhs_shape, dimension_numbers) -> tuple:
  lhs_perm, rhs_perm, out_perm = conv_general_permutations(dimension_numbers)
  return np.take(lhs_shape, lhs_perm).tolist(), np.take(rhs_shape, rhs_perm).tolist(), out_perm


def conv_general_shape_tuple(lhs_shape: Sequence[int], rhs_shape: Sequence[int],
                             window_strides: Sequence[int], padding: Any,
                             dimension_numbers: Sequence[str]) -> tuple[int, ...]:
  """The output shape of a convolution with spec-string `dimension_numbers`."""
  lhs, rhs, out_perm = _permuted(lhs_shape, rhs_shape, dimension_numbers)
  out = conv_shape_tuple(lhs, rhs, window_strides, padding)
  return tuple(np.take(out, np.argsort(out_perm)).tolist())


def conv_transpose_shape_tuple(lhs_shape: Sequence[int], rhs_shape: Sequence[int],
                               window_strides: Sequence[int], padding: Any,
                               dimension_numbers: Sequence[str]) -> tuple[int, ...]:
  """The output shape of `conv_transpose` with spec-string `dimension_numbers`."""
  lhs, rhs, out_perm = _permuted(lhs_shape, rhs_shape, dimension_numbers)
  if isinstance(padding, str):
    padding = [_conv_transpose_padding(k, s, padding) for k, s in zip(rhs[2:], window_strides)]
  spatial = [(n - 1) * s - k + 2 + sum(p)
             for n, k, s, p in zip(lhs[2:], rhs[2:], window_strides, padding)]
  out = [lhs[0], rhs[0]] + spatial
  return tuple(np.take(out, np.argsort(out_perm)).tolist())
