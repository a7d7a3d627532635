"""stablejax.numpy: the numpy API over stablejax.lax, with JAX's dtype promotion and broadcasting.

Importing it installs the operators and methods of traced values and device arrays.
"""
import numpy as _np

from stablejax.numpy import array_methods  # noqa: F401  (installs operators and methods)
from stablejax.numpy._contractions import dot, einsum, matmul
from stablejax.numpy._creation import (
    arange, array, asarray, eye, full, full_like, linspace, ones, ones_like, zeros, zeros_like)
from stablejax.numpy._reductions import argmax, argmin, cumsum, max, mean, min, prod, sum
from stablejax.numpy._shape import (
    concatenate, expand_dims, moveaxis, pad, ravel, reshape, squeeze, stack, swapaxes, transpose)
from stablejax.numpy._ufuncs import (
    BINARY as _BINARY, UNARY as _UNARY, clip, floor_divide, invert, logical_not, power,
    reciprocal, remainder, round, square, where)

# dtypes, as numpy dtypes (jnp.float32(x) also works, as numpy's scalar types).
bool_ = _np.bool_
int8, int16, int32, int64 = _np.int8, _np.int16, _np.int32, _np.int64
uint8, uint16, uint32, uint64 = _np.uint8, _np.uint16, _np.uint32, _np.uint64
float16, float32, float64 = _np.float16, _np.float32, _np.float64
complex64, complex128 = _np.complex64, _np.complex128
dtype = _np.dtype
pi, e, inf, nan, newaxis = _np.pi, _np.e, _np.inf, _np.nan, None

globals().update(_UNARY)
globals().update(_BINARY)
mod = remainder
pow = power  # noqa: A001
