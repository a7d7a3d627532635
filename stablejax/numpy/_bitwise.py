"""numpy's binary operations (bitwise): elementwise bit operations and shifts, bit counting and
bit packing."""
from __future__ import annotations

from typing import Any

import numpy as np

from stablejax.util import canonicalize_axis
from stablejax import lax
from stablejax.numpy._elementwise import binary, bool_to_int, numeric
from stablejax.numpy._manipulation_shape import expand_dims, moveaxis, ravel, reshape
from stablejax.numpy._math_arithmetic import abs_
from stablejax.numpy._promotion import (
    convert, dtype as dtype_of, dtype, ensure_arraylike, scalar_like, shape)


def _right_shift(x: Any, y: Any) -> Any:
  """Logical for unsigned x, arithmetic for signed x."""
  shift = lax.shift_right_logical if dtype(x).kind == "u" else lax.shift_right_arithmetic
  return shift(x, y)


bitwise_and = binary("bitwise_and", lax.bitwise_and, False)


bitwise_or = binary("bitwise_or", lax.bitwise_or, False)


bitwise_xor = binary("bitwise_xor", lax.bitwise_xor, False)


left_shift = binary("left_shift", numeric(lax.shift_left), False)


bitwise_left_shift = binary("bitwise_left_shift", numeric(lax.shift_left), False)


right_shift = binary("right_shift", numeric(_right_shift), False)


bitwise_right_shift = binary("bitwise_right_shift", numeric(_right_shift), False)


def bitwise_count(x: Any, /) -> Any:
  """Elementwise number of set bits of |x|, as uint8 (numpy.bitwise_count)."""
  (x,) = bool_to_int(*ensure_arraylike("bitwise_count", x))
  return convert(lax.population_count(abs_(x)), np.dtype(np.uint8))


def invert(x: Any, /) -> Any:
  """Elementwise bitwise negation of integers and booleans (the ~ operator)."""
  (x,) = ensure_arraylike("invert", x)
  return lax.bitwise_not(x)


bitwise_invert = bitwise_not = invert


def packbits(a: Any, axis: int | None = None, bitorder: str = "big") -> Any:
  """The booleans (nonzero) of `a` packed eight to a uint8 along `axis` (flattened if None)."""
  (a,) = ensure_arraylike("packbits", a)
  if dtype_of(a).kind not in "biu":
    raise TypeError("Expected an input array of integer or boolean data type")
  if bitorder not in ("little", "big"):
    raise ValueError("'order' must be either 'little' or 'big'")
  if axis is None:
    a, axis = ravel(a), 0
  axis = canonicalize_axis(axis, len(shape(a)))
  bits = convert(lax.ne(a, scalar_like(a, 0)), np.dtype(np.uint8))
  bits = moveaxis(bits, axis, -1)
  n = shape(bits)[-1]
  pad = -n % 8
  bits = lax.pad(bits, np.uint8(0), [(0, 0, 0)] * (len(shape(bits)) - 1) + [(0, pad, 0)])
  bits = reshape(bits, shape(bits)[:-1] + ((n + pad) // 8, 8))
  weights = np.array([1 << i for i in (range(7, -1, -1) if bitorder == "big" else range(8))],
                     np.uint8)
  weights = weights.reshape((1,) * (len(shape(bits)) - 1) + (8,))
  packed = lax.reduce_sum(lax.mul(bits, weights), (len(shape(bits)) - 1,))
  return moveaxis(packed, -1, axis)


def unpackbits(a: Any, axis: int | None = None, count: int | None = None,
               bitorder: str = "big") -> Any:
  """The bits of the uint8 array `a`, unpacked along `axis` (flattened if None)."""
  (a,) = ensure_arraylike("unpackbits", a)
  if dtype_of(a) != np.uint8:
    raise TypeError("Expected an input array of unsigned byte data type")
  if bitorder not in ("little", "big"):
    raise ValueError("'order' must be either 'little' or 'big'")
  shifts = np.array(list(range(7, -1, -1)) if bitorder == "big" else list(range(8)), np.uint8)
  if axis is None:
    a, axis = ravel(a), 0
  axis = canonicalize_axis(axis, len(shape(a)))
  moved = expand_dims(moveaxis(a, axis, -1), -1)
  shifts = shifts.reshape((1,) * (len(shape(moved)) - 1) + (8,))
  bits = lax.bitwise_and(lax.shift_right_logical(moved, shifts), np.uint8(1))
  bits = reshape(bits, shape(bits)[:-2] + (shape(bits)[-2] * 8,))
  if count is not None:
    bits = bits[..., :count]
  return moveaxis(bits, -1, axis)
