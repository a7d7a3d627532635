"""jax.numpy.fft: discrete Fourier transforms over `stablejax.lax.fft`, with numpy's `n`/`s`
(cropping or zero-padding the input), `axis`/`axes` and `norm` ("backward", "ortho",
"forward"), plus the sample frequencies and the zero-frequency shifts."""
from __future__ import annotations

import math
import operator
from typing import Any, Sequence

import numpy as np

from stablejax import dtypes, lax
from stablejax import numpy as jnp
from stablejax.jit import jit
from stablejax.lax.fft import FftType
from stablejax.numpy._axes import canonicalize_axes
from stablejax.numpy._promotion import ensure_arraylike
from stablejax.runtime import device_put

__all__ = ["fft", "fft2", "fftfreq", "fftn", "fftshift", "hfft", "ifft", "ifft2", "ifftn",
           "ifftshift", "ihfft", "irfft", "irfft2", "irfftn", "rfft", "rfft2", "rfftfreq",
           "rfftn"]

Shape = Sequence[int]

# As JAX: `lax.fft` is a jitted function, so each transform is a call of `@fft` in the module.
_lax_fft = jit(lax.fft, static_argnums=(1, 2))

_NORMS = ("backward", "ortho", "forward")


def _norm_factor(func_name: str, norm: str | None, sizes: Shape) -> float | None:
  """The factor `norm` scales the unnormalized (forward) or 1/N-normalized (inverse)
  transform by; None for none."""
  if norm is None or norm == "backward":
    return None
  if norm not in _NORMS:
    raise ValueError(f'Invalid norm value {norm}; should be "backward", "ortho" or "forward".')
  size = float(math.prod(sizes))
  factor = math.sqrt(size) if norm == "ortho" else size
  return factor if func_name.startswith("i") else 1 / factor


def _resize(x: Any, shape: Shape) -> Any:
  """`x` cropped and zero-padded (at the end of each axis) to `shape`."""
  if tuple(shape) == x.shape:
    return x
  cropped = tuple(min(a, b) for a, b in zip(x.shape, shape))
  if cropped != x.shape:
    x = lax.slice(x, (0,) * x.ndim, cropped)
  if cropped != tuple(shape):
    x = lax.pad(x, np.zeros((), x.dtype), [(0, b - a, 0) for a, b in zip(cropped, shape)])
  return x


def _fft_nd(x: Any, fft_type: FftType, s: Shape) -> Any:
  """The transform over the trailing `len(s)` axes; beyond the three `lax.fft` takes, the
  leading ones are transformed separately (an FFT after a forward one, an IFFT before an
  inverse one), as JAX does."""
  if len(s) <= 3:
    return _lax_fft(x, fft_type, tuple(s))
  n = 2 if len(s) == 4 else 3
  outer = tuple(range(x.ndim - len(s), x.ndim - n))
  moved = tuple(range(x.ndim - len(s) + n, x.ndim))
  if fft_type in (FftType.FFT, FftType.RFFT):
    x = jnp.moveaxis(_lax_fft(x, fft_type, tuple(s[-n:])), outer, moved)
    return jnp.moveaxis(_fft_nd(x, FftType.FFT, s[:-n]), moved, outer)
  x = jnp.moveaxis(_fft_nd(jnp.moveaxis(x, outer, moved), FftType.IFFT, s[:-n]), moved, outer)
  return _lax_fft(x, fft_type, tuple(s[-n:]))


def _fft_core(func_name: str, fft_type: FftType, a: Any, s: Shape | None,
              axes: Sequence[int] | None, norm: str | None) -> Any:
  """numpy's n-dimensional transform of `a` over `axes`, sized `s`: the axes moved last, the
  input resized, `lax.fft`, the normalization, the axes moved back."""
  full_name = f"jax.numpy.fft.{func_name}"
  (arr,) = ensure_arraylike(full_name, a)
  arr = jnp.asarray(arr)
  if s is not None:
    s = tuple(map(operator.index, s))
    if any(n <= 0 for n in s):
      raise ValueError(f"{full_name}: shape should be positive, got s={s}")
    if axes is not None and len(s) != len(axes):
      raise ValueError(f"{full_name}: shape and axes have different lengths: s={s}, "
                       f"axes={tuple(axes)}")
  if axes is None:
    given_axes = None
    axes = tuple(range(arr.ndim - (arr.ndim if s is None else len(s)), arr.ndim))
  else:
    given_axes = canonicalize_axes(full_name, axes, arr.ndim)
    axes = tuple(range(arr.ndim - len(given_axes), arr.ndim))
    arr = jnp.moveaxis(arr, given_axes, axes)
  if s is not None:
    in_shape = list(arr.shape)
    for axis, n in zip(axes, s):
      in_shape[axis] = n
    if fft_type == FftType.IRFFT:
      in_shape[-1] = in_shape[-1] // 2 + 1
    arr = _resize(arr, in_shape)
  else:
    s = [arr.shape[axis] for axis in axes]
    if fft_type == FftType.IRFFT and axes:
      s[-1] = max(0, 2 * (s[-1] - 1))
  out = _fft_nd(arr, fft_type, s)
  factor = _norm_factor(func_name, norm, s)
  if factor is not None:
    out = lax.mul(out, np.asarray(factor, out.dtype))
  return out if given_axes is None else jnp.moveaxis(out, axes, given_axes)


def _check_one_axis(func_name: str, axis: Any) -> None:
  if isinstance(axis, (list, tuple)):
    name = f"jax.numpy.fft.{func_name}"
    raise ValueError(f"{name} does not support multiple axes. Please use {name}n. "
                     f"Got axis = {axis!r}.")


def _fft_1d(func_name: str, fft_type: FftType, a: Any, n: int | None, axis: int,
            norm: str | None) -> Any:
  _check_one_axis(func_name, axis)
  return _fft_core(func_name, fft_type, a, None if n is None else [n], [axis], norm)


def _fft_2d(func_name: str, fft_type: FftType, a: Any, s: Shape | None, axes: Sequence[int],
            norm: str | None) -> Any:
  if len(axes) != 2:
    raise ValueError(f"jax.numpy.fft.{func_name} only supports 2 axes. Got axes = {axes!r}.")
  return _fft_core(func_name, fft_type, a, s, axes, norm)


def fft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Any:
  """The one-dimensional discrete Fourier transform along `axis`."""
  return _fft_1d("fft", FftType.FFT, a, n, axis, norm)


def ifft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Any:
  """The one-dimensional inverse discrete Fourier transform along `axis`."""
  return _fft_1d("ifft", FftType.IFFT, a, n, axis, norm)


def rfft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Any:
  """The one-dimensional transform of real input: its n // 2 + 1 non-negative frequencies."""
  return _fft_1d("rfft", FftType.RFFT, a, n, axis, norm)


def irfft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Any:
  """The real inverse of `rfft`: `n` (default 2 (m - 1)) real values along `axis`."""
  return _fft_1d("irfft", FftType.IRFFT, a, n, axis, norm)


def hfft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Any:
  """The transform of a Hermitian-symmetric signal given by its first half: real output."""
  (a,) = ensure_arraylike("jax.numpy.fft.hfft", a)
  conj_a = jnp.conj(a)
  _check_one_axis("hfft", axis)
  size = 2 * (conj_a.shape[axis] - 1) if n is None else n
  return _fft_1d("hfft", FftType.IRFFT, conj_a, n, axis, norm) * size


def ihfft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Any:
  """The inverse of `hfft`: the first half of the Hermitian spectrum of real input."""
  _check_one_axis("ihfft", axis)
  arr = jnp.asarray(a)
  size = arr.shape[axis] if n is None else n
  return jnp.conj(_fft_1d("ihfft", FftType.RFFT, arr, n, axis, norm)) * (1 / size)


def fftn(a: Any, s: Shape | None = None, axes: Sequence[int] | None = None,
         norm: str | None = None) -> Any:
  """The n-dimensional discrete Fourier transform over `axes` (all, or the last len(s))."""
  return _fft_core("fftn", FftType.FFT, a, s, axes, norm)


def ifftn(a: Any, s: Shape | None = None, axes: Sequence[int] | None = None,
          norm: str | None = None) -> Any:
  """The n-dimensional inverse discrete Fourier transform over `axes`."""
  return _fft_core("ifftn", FftType.IFFT, a, s, axes, norm)


def rfftn(a: Any, s: Shape | None = None, axes: Sequence[int] | None = None,
          norm: str | None = None) -> Any:
  """The n-dimensional transform of real input (the last axis halved as in `rfft`)."""
  return _fft_core("rfftn", FftType.RFFT, a, s, axes, norm)


def irfftn(a: Any, s: Shape | None = None, axes: Sequence[int] | None = None,
           norm: str | None = None) -> Any:
  """The real inverse of `rfftn`."""
  return _fft_core("irfftn", FftType.IRFFT, a, s, axes, norm)


def fft2(a: Any, s: Shape | None = None, axes: Sequence[int] = (-2, -1),
         norm: str | None = None) -> Any:
  """The two-dimensional discrete Fourier transform over `axes`."""
  return _fft_2d("fft2", FftType.FFT, a, s, axes, norm)


def ifft2(a: Any, s: Shape | None = None, axes: Sequence[int] = (-2, -1),
          norm: str | None = None) -> Any:
  """The two-dimensional inverse discrete Fourier transform over `axes`."""
  return _fft_2d("ifft2", FftType.IFFT, a, s, axes, norm)


def rfft2(a: Any, s: Shape | None = None, axes: Sequence[int] = (-2, -1),
          norm: str | None = None) -> Any:
  """The two-dimensional transform of real input over `axes`."""
  return _fft_2d("rfft2", FftType.RFFT, a, s, axes, norm)


def irfft2(a: Any, s: Shape | None = None, axes: Sequence[int] = (-2, -1),
           norm: str | None = None) -> Any:
  """The real inverse of `rfft2`."""
  return _fft_2d("irfft2", FftType.IRFFT, a, s, axes, norm)


def _check_freq_args(func_name: str, n: Any, d: Any) -> None:
  if isinstance(n, (list, tuple)):
    raise ValueError(f"The n argument of jax.numpy.fft.{func_name} only takes an int. "
                     f"Got n = {list(n)}.")
  if isinstance(d, (list, tuple)):
    raise ValueError(f"The d argument of jax.numpy.fft.{func_name} only takes a single value. "
                     f"Got d = {list(d)}.")


def _on_device(x: Any, device: Any) -> Any:
  return x if device is None else device_put(x, device)


def fftfreq(n: int, d: Any = 1.0, *, dtype: Any = None, device: Any = None) -> Any:
  """The sample frequencies of an `n`-point FFT with sample spacing `d`: [0, 1, ...,
  -(n // 2), ..., -1] / (d n)."""
  _check_freq_args("fftfreq", n, d)
  out_dtype = dtypes.canonicalize(dtype or dtypes.default_float())
  dtype = out_dtype if dtypes.is_float(out_dtype) else dtypes.default_float()
  i = jnp.arange(n, dtype=dtype)
  k = (i + n // 2) % n - n // 2
  return _on_device((k / jnp.asarray(d * n, dtype=dtype)).astype(out_dtype), device)


def rfftfreq(n: int, d: Any = 1.0, *, dtype: Any = None, device: Any = None) -> Any:
  """The sample frequencies of an `n`-point `rfft`: [0, 1, ..., n // 2] / (d n)."""
  _check_freq_args("rfftfreq", n, d)
  dtype = dtype or dtypes.default_float()
  k = jnp.arange(0, n // 2 + 1, dtype=dtype)
  return _on_device(k / jnp.asarray(d * n, dtype=dtype), device)


def _shift(name: str, x: Any, axes: None | int | Sequence[int], sign: int) -> Any:
  """`x` rolled by sign * (size // 2) along each of `axes` (all when None)."""
  (x,) = ensure_arraylike(name, x)
  x = jnp.asarray(x)
  if axes is None:
    axes = tuple(range(x.ndim))
  if isinstance(axes, int):
    return jnp.roll(x, sign * (x.shape[axes] // 2), axes)
  return jnp.roll(x, [sign * (x.shape[axis] // 2) for axis in axes], tuple(axes))


def fftshift(x: Any, axes: None | int | Sequence[int] = None) -> Any:
  """`x` with the zero frequency moved to the middle of each of `axes`."""
  return _shift("fftshift", x, axes, 1)


def ifftshift(x: Any, axes: None | int | Sequence[int] = None) -> Any:
  """The inverse of `fftshift`."""
  return _shift("ifftshift", x, axes, -1)
