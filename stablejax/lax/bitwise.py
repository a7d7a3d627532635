"""Bitwise primitives: xor, shifts, population count, leading zeros and bitcasts.

None is differentiable (zero tangents, as in JAX). The references follow XLA where numpy
differs: a shift by a negative amount or by at least the bit width gives 0 (all sign bits for
an arithmetic right shift). Lowering rules live in `stablejax.lowering.rules.bitwise`.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from stablejax import core, dtypes
from stablejax.core import ShapedArray
from stablejax.interpreters import ad, batching, flops
from stablejax.lax.primitive_kit import (binop, bool_or_int_dtypes, def_reference, int_dtypes,
                                         standard_primitive, unop)
from stablejax.lax.structural import transpose

ArrayLike = Any
Array = Any
DTypeLike = Any

__all__ = [
    "bitcast_convert_type", "bitcast_convert_type_p", "bitwise_xor", "clz", "clz_p", "mulhi",
    "mulhi_p", "population_count", "population_count_p", "shift_left", "shift_left_p",
    "shift_right_arithmetic", "shift_right_arithmetic_p", "shift_right_logical",
    "shift_right_logical_p", "xor_p",
]


# ----------------------------------------------------------------------------------------------
# Public functions (JAX's signatures)

def bitwise_xor(x: ArrayLike, y: ArrayLike) -> Array:
  """Elementwise exclusive OR of booleans or integers (primitive `xor`)."""
  return xor_p.bind(x, y)


def mulhi(x: ArrayLike, y: ArrayLike, /) -> Array:
  """Elementwise high half of the double-width product of two integers."""
  return mulhi_p.bind(x, y)


def shift_left(x: ArrayLike, y: ArrayLike) -> Array:
  """Elementwise x << y; shifts by at least the bit width (or negative) give 0."""
  return shift_left_p.bind(x, y)


def shift_right_logical(x: ArrayLike, y: ArrayLike) -> Array:
  """Elementwise logical right shift (zeros shifted in), whatever the signedness of x."""
  return shift_right_logical_p.bind(x, y)


def shift_right_arithmetic(x: ArrayLike, y: ArrayLike) -> Array:
  """Elementwise arithmetic right shift (copies of the sign bit shifted in)."""
  return shift_right_arithmetic_p.bind(x, y)


def population_count(x: ArrayLike) -> Array:
  """Elementwise number of set bits."""
  return population_count_p.bind(x)


def clz(x: ArrayLike) -> Array:
  """Elementwise number of leading zero bits."""
  return clz_p.bind(x)


def bitcast_convert_type(operand: ArrayLike, new_dtype: DTypeLike) -> Array:
  """Reinterpret the bits of `operand` as `new_dtype`. A narrower type adds a trailing axis of
  size old_bits // new_bits; a wider one consumes a trailing axis of size new_bits // old_bits."""
  return bitcast_convert_type_p.bind(operand, new_dtype=dtypes.canonicalize(new_dtype))


# ----------------------------------------------------------------------------------------------
# References (numpy, XLA's semantics)

def _unsigned(dtype: np.dtype) -> np.dtype:
  return np.dtype(f"u{np.dtype(dtype).itemsize}")


def _shift_reference(shift_op: Callable, arithmetic: bool = False) -> Callable:
  """The reference of a shift: in-range amounts use numpy's `shift_op`, out-of-range amounts
  give 0, or the sign for an arithmetic shift."""
  def reference(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    nbits = x.dtype.itemsize * 8
    x, y = np.broadcast_arrays(x, y)
    in_range = (y >= 0) & (y < nbits)
    safe_y = np.where(in_range, y, 0).astype(x.dtype)
    out = shift_op(x, safe_y)
    negative = x.view(f"i{x.dtype.itemsize}") < 0
    overflow = np.where(negative, ~np.zeros_like(x), 0) if arithmetic else np.zeros_like(x)
    return np.where(in_range, out, overflow).astype(x.dtype)
  return reference


def _with_bits_as(kind: str, shift_op: Callable) -> Callable:
  """`shift_op` on x's bits viewed as a signed ("i") or unsigned ("u") integer: XLA's logical
  shift ignores the sign, its arithmetic shift copies the top bit even of unsigned types."""
  def op(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    dtype = np.dtype(f"{kind}{x.dtype.itemsize}")
    return shift_op(x.view(dtype), y.astype(dtype)).view(x.dtype)
  return op


def _popcount_reference(x: np.ndarray) -> np.ndarray:
  return np.bitwise_count(x.view(_unsigned(x.dtype))).astype(x.dtype)  # numpy counts |x|


def _clz_reference(x: np.ndarray) -> np.ndarray:
  nbits = x.dtype.itemsize * 8
  u = np.asarray(x).view(_unsigned(x.dtype)).astype(np.uint64)
  bit_length = np.zeros(u.shape, np.int64)
  for i in range(nbits):
    bit_length = np.where(u >> np.uint64(i) != 0, i + 1, bit_length)
  return (nbits - bit_length).astype(x.dtype)


def _mulhi_reference(x: np.ndarray, y: np.ndarray) -> np.ndarray:
  """The exact product in Python integers, shifted right by the bit width."""
  bits = x.dtype.itemsize * 8
  product = np.asarray(x, object) * np.asarray(y, object)
  high = np.vectorize(lambda p: p >> bits, otypes=[object])(product)
  return np.vectorize(lambda h: h & ((1 << bits) - 1), otypes=[object])(high).astype(
      _unsigned(x.dtype)).view(x.dtype)


def _bitcast_reference(x: np.ndarray, *, new_dtype: np.dtype) -> np.ndarray:
  x = np.ascontiguousarray(x)
  old, new = x.dtype.itemsize, np.dtype(new_dtype).itemsize
  if old > new:
    return x.view(new_dtype).reshape(*x.shape, old // new)
  out = x.view(new_dtype)
  return out.reshape(x.shape[:-1]) if old < new else out


# ----------------------------------------------------------------------------------------------
# The primitives (zero tangents: none is differentiable)

xor_p = binop("xor", bool_or_int_dtypes, np.bitwise_xor)
shift_left_p = binop("shift_left", int_dtypes, _shift_reference(np.left_shift))
shift_right_logical_p = binop("shift_right_logical", int_dtypes,
                               _shift_reference(_with_bits_as("u", np.right_shift)))
shift_right_arithmetic_p = binop(
    "shift_right_arithmetic", int_dtypes,
    _shift_reference(_with_bits_as("i", np.right_shift), arithmetic=True))
population_count_p = unop("population_count", int_dtypes, _popcount_reference)
clz_p = unop("clz", int_dtypes, _clz_reference)
mulhi_p = binop("mulhi", int_dtypes, _mulhi_reference)


def _bitcast_abstract_eval(x: ShapedArray, *, new_dtype: np.dtype) -> ShapedArray:
  old_dtype, new_dtype = x.dtype, np.dtype(new_dtype)
  if old_dtype != new_dtype and (old_dtype.kind in "bc" or new_dtype.kind in "bc"):
    raise TypeError("lax.bitcast_convert_type does not support bool or complex values unless "
                    f"the operand and destination types match; got operand dtype={old_dtype}, "
                    f"new_dtype={new_dtype}")
  old_bits, new_bits = old_dtype.itemsize * 8, new_dtype.itemsize * 8
  if old_bits == new_bits:
    shape = x.shape
  elif old_bits > new_bits:
    shape = (*x.shape, old_bits // new_bits)
  else:
    last = x.shape[-1] if x.shape else 1
    if last * old_bits != new_bits:
      raise ValueError(f"bitcast_convert_type: cannot convert an array of shape {x.shape} from "
                       f"{old_dtype} ({old_bits} bits) to {new_dtype} ({new_bits} bits): "
                       f"{last} * {old_bits} != {new_bits}")
    shape = x.shape[:-1]
  return ShapedArray(shape, new_dtype, False)


def _bitcast_batcher(args, dims, *, new_dtype):
  """Elementwise when the widths match; otherwise the trailing axis changes, so a batch axis
  there moves to the front first."""
  (x,), (d,) = args, dims
  aval = core.get_aval(x)
  if d is not None and d == aval.ndim - 1 and np.dtype(new_dtype).itemsize != aval.dtype.itemsize:
    x = transpose(x, (d, *range(d)))
    d = 0
  return bitcast_convert_type_p.bind(x, new_dtype=new_dtype), d


bitcast_convert_type_p = standard_primitive("bitcast_convert_type", _bitcast_abstract_eval)
def_reference(bitcast_convert_type_p, _bitcast_reference)
batching.primitive_batchers[bitcast_convert_type_p] = _bitcast_batcher

for _prim in (xor_p, shift_left_p, shift_right_logical_p, shift_right_arithmetic_p,
              population_count_p, clz_p, mulhi_p, bitcast_convert_type_p):
  ad.defjvp_zero(_prim)
del _prim

# ----------------------------------------------------------------------------------------------
# FLOPS (conventions: stablejax.flops)

flops.flops_rules[bitcast_convert_type_p] = flops.free
