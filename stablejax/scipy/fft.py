"""jax.scipy.fft: the type-2 discrete cosine transform (`dct`, `dctn`) and its inverse
(`idct`, `idctn`), computed through `stablejax.numpy.fft` as JAX does (Makhoul's even/odd
reordering of the input, one complex FFT, a quarter-wave twiddle), so values agree with JAX's to
float32 rounding."""
from __future__ import annotations

import math
import operator
from typing import Any, Sequence

import numpy as np

from stablejax import dtypes, lax
from stablejax import numpy as jnp
from stablejax.numpy._axes import canonicalize_axes
from stablejax.numpy._promotion import ensure_arraylike, promote_dtypes_inexact
from stablejax.util import canonicalize_axis

__all__ = ["dct", "dctn", "idct", "idctn"]

_NORMS = (None, "backward", "ortho")


def _check_args(name: str, type: int, norm: str | None) -> None:
  if type != 2:
    raise NotImplementedError("Only DCT type 2 is implemented.")
  if norm not in _NORMS:
    raise ValueError(f"jax.scipy.fft.{name}: {norm=!r} is not implemented")


def _twiddle(n: int, k: Any) -> Any:
  """exp(-i pi k / (2 n)), in the complex dtype of `k`."""
  k = k.astype(np.result_type(k.dtype, np.complex64))
  return jnp.exp(-.5j * np.pi * k / jnp.asarray(n, k.dtype))


def _along(v: Any, axis: int, ndim: int) -> Any:
  """The 1-d `v` shaped to broadcast along `axis` of a rank-`ndim` array."""
  return lax.expand_dims(v, [a for a in range(ndim) if a != axis])


def _interleave(x: Any, axis: int) -> Any:
  """Even-indexed entries, then the odd-indexed ones reversed (Makhoul's reordering)."""
  evens = lax.slice_in_dim(x, None, None, 2, axis)
  odds = lax.rev(lax.slice_in_dim(x, 1, None, 2, axis), (axis,))
  return lax.concatenate([evens, odds], axis)


def _deinterleave(x: Any, axis: int) -> Any:
  """The inverse of `_interleave`: the first half back to the even places, the second half,
  reversed, to the odd places."""
  n = x.shape[axis]
  half = math.ceil(n / 2)
  evens = lax.slice_in_dim(x, 0, half, 1, axis)
  odds = lax.rev(lax.slice_in_dim(x, half, n, 1, axis), (axis,))
  if n % 2:
    odds = lax.pad(odds, lax.full((), 0, x.dtype),
                   [(0, 1 if a == axis else 0, 0) for a in range(x.ndim)])
  pairs = jnp.stack([evens, odds], axis=axis + 1)
  merged = lax.reshape(pairs, x.shape[:axis] + (2 * half,) + x.shape[axis + 1:])
  return lax.slice_in_dim(merged, 0, n, 1, axis)


def _ortho_scale(x: Any, axis: int) -> Any:
  """`x` divided along `axis` by sqrt(4 n) at index 0 and sqrt(2 n) elsewhere."""
  n = x.shape[axis]
  factor = lax.concatenate([lax.full((1,), 4, x.dtype), lax.full((n - 1,), 2, x.dtype)], 0)
  return x / lax.sqrt(_along(factor, axis, x.ndim) * n)


def _resize(x: Any, sizes: dict[int, int]) -> Any:
  """`x` zero-padded or cropped at the end of each axis in `sizes` to that size."""
  return lax.pad(x, lax.full((), 0, x.dtype),
                 [(0, sizes[a] - x.shape[a] if a in sizes else 0, 0) for a in range(x.ndim)])


def _parts(f, x: Any, **kwargs: Any) -> Any:
  """A complex input's transform: the transforms of its real and imaginary parts."""
  return lax.complex(f(lax.real(x), **kwargs), f(lax.imag(x), **kwargs))


def dct(x: Any, type: int = 2, n: int | None = None, axis: int = -1,
        norm: str | None = None) -> Any:
  """The type-2 discrete cosine transform of `x` along `axis` (scipy.fft.dct)."""
  x, = ensure_arraylike("dct", x)
  _check_args("dct", type, norm)
  if dtypes.issubdtype(x.dtype, np.complexfloating):
    return _parts(dct, x, type=type, n=n, axis=axis, norm=norm)
  axis = canonicalize_axis(axis, x.ndim)
  if n is not None:
    x = _resize(x, {axis: n})
  size = x.shape[axis]
  spectrum = jnp.fft.fft(_interleave(x, axis), axis=axis)
  k = _along(jnp.arange(size, dtype=spectrum.real.dtype), axis, x.ndim)
  out = 2 * (spectrum * _twiddle(size, k)).real
  return _ortho_scale(out, axis) if norm == "ortho" else out


def _dct_2d(x: Any, axes: Sequence[int], norm: str | None) -> Any:
  """The 2-d type-2 DCT over the two `axes` with one 2-d FFT."""
  ax1, ax2 = (canonicalize_axis(a, x.ndim) for a in axes)
  n1, n2 = x.shape[ax1], x.shape[ax2]
  spectrum = jnp.fft.fftn(_interleave(_interleave(x, ax1), ax2), axes=axes)
  k1 = _along(jnp.arange(n1, dtype=spectrum.dtype), ax1, x.ndim)
  k2 = _along(jnp.arange(n2, dtype=spectrum.dtype), ax2, x.ndim)
  mirrored = jnp.roll(jnp.flip(spectrum, axis=ax2), shift=1, axis=ax2)
  out = _twiddle(n1, k1) * (_twiddle(n2, k2) * spectrum + _twiddle(n2, -k2) * mirrored)
  out = 2 * out.real
  if norm == "ortho":
    return _ortho_scale(_ortho_scale(out, ax1), ax2)
  return out


def _nd_axes(x: Any, s: Any, axes: Any) -> tuple[list[int] | None, tuple[int, ...]]:
  """scipy's `s` (an int or a sequence, at most x.ndim long) and `axes` (default: the last
  len(s) axes, or all)."""
  if s is not None:
    try:
      s = list(s)
    except TypeError:
      s = [operator.index(s)]
    if len(s) > x.ndim:
      raise ValueError(f"s must have at most x.ndim ({x.ndim}) elements, got {len(s)}")
  if axes is None:
    axes = tuple(range(x.ndim - len(s) if s is not None else 0, x.ndim))
  else:
    axes = canonicalize_axes("dctn", axes, x.ndim)
  return s, axes


def dctn(x: Any, type: int = 2, s: Sequence[int] | None = None,
         axes: Sequence[int] | None = None, norm: str | None = None) -> Any:
  """The multidimensional type-2 DCT of `x` over `axes` (scipy.fft.dctn)."""
  x, = ensure_arraylike("dctn", x)
  _check_args("dctn", type, norm)
  if dtypes.issubdtype(x.dtype, np.complexfloating):
    return _parts(dctn, x, type=type, s=s, axes=axes, norm=norm)
  s, axes = _nd_axes(x, s, axes)
  if len(axes) == 1:
    return dct(x, n=s[0] if s is not None else None, axis=axes[0], norm=norm)
  if s is not None:
    x = _resize(x, dict(zip(axes, s)))
  if len(axes) == 2:
    return _dct_2d(x, axes, norm)
  for i in range(0, len(axes), 2):
    x = dctn(x, axes=axes[i:i + 2], norm=norm)
  return x


def idct(x: Any, type: int = 2, n: int | None = None, axis: int = -1,
         norm: str | None = None) -> Any:
  """The inverse of the type-2 DCT (a type-3 DCT) of `x` along `axis` (scipy.fft.idct)."""
  x, = ensure_arraylike("idct", x)
  _check_args("idct", type, norm)
  if dtypes.issubdtype(x.dtype, np.complexfloating):
    return _parts(idct, x, type=type, n=n, axis=axis, norm=norm)
  axis = canonicalize_axis(axis, x.ndim)
  if n is not None:
    x = _resize(x, {axis: n})
  size = x.shape[axis]
  x, = promote_dtypes_inexact(x)
  if norm != "ortho":
    x = _ortho_scale(x, axis)
  x = _ortho_scale(x, axis)
  k = _along(jnp.arange(size, dtype=x.dtype), axis, x.ndim)
  w = _twiddle(size, k)
  x = x.astype(w.dtype) / w * 2 * size
  return _deinterleave(jnp.fft.ifft(x, axis=axis).real, axis)


def idctn(x: Any, type: int = 2, s: Sequence[int] | None = None,
          axes: Sequence[int] | None = None, norm: str | None = None) -> Any:
  """The multidimensional inverse type-2 DCT of `x` over `axes` (scipy.fft.idctn)."""
  x, = ensure_arraylike("idctn", x)
  _check_args("idctn", type, norm)
  if dtypes.issubdtype(x.dtype, np.complexfloating):
    return _parts(idctn, x, type=type, s=s, axes=axes, norm=norm)
  s, axes = _nd_axes(x, s, axes)
  if len(axes) == 1:
    return idct(x, n=s[0] if s is not None else None, axis=axes[0], norm=norm)
  if s is not None:
    x = _resize(x, dict(zip(axes, s)))
  for axis in axes:
    x = idct(x, axis=axis, norm=norm)
  return x
