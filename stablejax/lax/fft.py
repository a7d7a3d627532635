"""The fast Fourier transform, as `jax.lax.fft`: the `fft` primitive with its rules and numpy
reference. Its lowering (`stablehlo.fft`) lives in `stablejax.lowering.rules.fft`.

The transform acts on the trailing `len(fft_lengths)` axes of its operand (at most three); the
leading axes are batch axes."""
from __future__ import annotations

import enum
import math
from typing import Any, Sequence

import numpy as np

from stablejax import core, dtypes, lax
from stablejax.core import ShapedArray
from stablejax.interpreters import ad, batching, flops
from stablejax.lax.primitive_kit import def_reference, standard_primitive

__all__ = ["fft", "fft_p", "FftType"]


class FftType(enum.IntEnum):
  """Which FFT to perform."""
  FFT = 0  # forward, complex to complex
  IFFT = 1  # inverse, complex to complex
  RFFT = 2  # forward, real to complex (the non-negative frequencies of the last axis)
  IRFFT = 3  # inverse, complex (Hermitian) to real


_FFT_TYPE_NAMES = {name: t for t in FftType for name in (t.name, t.name.lower())}


def _fft_type(fft_type: FftType | str) -> FftType:
  if isinstance(fft_type, FftType):
    return fft_type
  if isinstance(fft_type, str):
    if fft_type not in _FFT_TYPE_NAMES:
      raise ValueError(f"Unknown FFT type '{fft_type}'")
    return _FFT_TYPE_NAMES[fft_type]
  raise TypeError(f"Unknown FFT type value '{fft_type}'")


def _inexact_dtype(dtype: np.dtype) -> np.dtype:
  """JAX's `to_inexact_dtype`: integers and booleans to a float of their width (64 bits to
  float64, narrower ones to float32); inexact types unchanged."""
  if dtypes.is_inexact(dtype):
    return dtype
  return dtypes.canonicalize(np.float64 if dtype.itemsize == 8 else np.float32)


def _complex_dtype(dtype: np.dtype) -> np.dtype:
  """The complex type holding `dtype`'s values: complex128 for 64-bit types, else complex64."""
  wide = np.dtype(_inexact_dtype(dtype)) in (dtypes.float64, dtypes.complex128)
  return dtypes.canonicalize(np.complex128 if wide else np.complex64)


def _real_dtype(dtype: np.dtype) -> np.dtype:
  return dtypes.float64 if dtype == dtypes.complex128 else dtypes.float32


def fft(x: Any, fft_type: FftType | str, fft_lengths: Sequence[int]) -> Any:
  """The FFT of type `fft_type` over the trailing `len(fft_lengths)` axes of `x`. The operand is
  converted as JAX does: to complex for FFT, IFFT and IRFFT, to a real float for RFFT."""
  typ = _fft_type(fft_type)
  dtype = core.get_aval(x).dtype
  if typ == FftType.RFFT:
    if dtypes.is_complex(dtype):
      raise ValueError("only real valued inputs supported for rfft")
    x = lax.convert_element_type(x, _inexact_dtype(dtype))
  else:
    x = lax.convert_element_type(x, _complex_dtype(dtype))
  fft_lengths = tuple(int(n) for n in fft_lengths)
  if not fft_lengths:
    return x
  return fft_p.bind(x, fft_type=typ, fft_lengths=fft_lengths)


def _fft_abstract_eval(x: ShapedArray, *, fft_type: FftType, fft_lengths: tuple[int, ...]
                       ) -> ShapedArray:
  k = len(fft_lengths)
  if not 1 <= k <= 3:
    raise ValueError(f"fft takes one to three fft_lengths, got {fft_lengths}")
  if k > x.ndim:
    raise ValueError(f"FFT input shape {x.shape} must have at least as many input dimensions "
                     f"as fft_lengths {fft_lengths}.")
  batch, minor = x.shape[:-k], x.shape[-k:]
  if fft_type == FftType.RFFT:
    if x.dtype not in (dtypes.float32, dtypes.float64):
      raise ValueError(f"RFFT input must be float32 or float64, got {x.dtype}")
    if minor != fft_lengths:
      raise ValueError(f"RFFT input shape {x.shape} minor dimensions must be equal to "
                       f"fft_lengths {fft_lengths}")
    if fft_lengths[-1] == 0:  # (JAX fails to lower it: stablehlo.fft gives an empty result)
      raise ValueError(f"RFFT of an empty axis: input shape {x.shape}, fft_lengths "
                       f"{fft_lengths} (the result would have {fft_lengths[-1] // 2 + 1} "
                       "elements computed from none)")
    return ShapedArray((*batch, *fft_lengths[:-1], fft_lengths[-1] // 2 + 1),
                       _complex_dtype(x.dtype), x.weak_type)
  if not dtypes.is_complex(x.dtype):
    raise ValueError(f"{fft_type.name} input must be complex64 or complex128, got {x.dtype}")
  if fft_type == FftType.IRFFT:
    if minor[:-1] != fft_lengths[:-1]:
      raise ValueError(f"IRFFT input shape {x.shape} minor dimensions must be equal to all "
                       f"except the last fft_length, got fft_lengths={fft_lengths}")
    return ShapedArray((*batch, *fft_lengths), _real_dtype(x.dtype), x.weak_type)
  if minor != fft_lengths:
    raise ValueError(f"{fft_type.name} input shape {x.shape} minor dimensions must be equal "
                     f"to fft_lengths {fft_lengths}")
  return ShapedArray(x.shape, x.dtype, x.weak_type)


def _hermitian_weights(fft_lengths: tuple[int, ...], like: Any, scale: float = 1.0) -> Any:
  """`scale` times the multiplicity in the full spectrum of each entry of an RFFT's last axis,
  broadcast to the shape of `like` along it: 1 for the zero frequency (and the Nyquist one of
  an even length), 2 for the others, whose conjugates the RFFT leaves out."""
  n = fft_lengths[-1]
  weights = np.full(n // 2 + 1, 2.0)
  weights[0] = 1.0
  if n % 2 == 0:
    weights[-1] = 1.0
  aval = core.get_aval(like)
  return lax.broadcast_in_dim((scale * weights).astype(aval.dtype), aval.shape, (aval.ndim - 1,))


def _rfft_transpose(t: Any, fft_lengths: tuple[int, ...]) -> Any:
  """RFFT^T: N IRFFT(conj(t) / w), w the Hermitian weights."""
  weighted = lax.div(lax.conj(t), _hermitian_weights(fft_lengths, t))
  out = fft_p.bind(weighted, fft_type=FftType.IRFFT, fft_lengths=fft_lengths)
  return lax.mul(out, np.asarray(math.prod(fft_lengths), core.get_aval(out).dtype))


def _irfft_transpose(t: Any, fft_lengths: tuple[int, ...]) -> Any:
  """IRFFT^T: conj(w RFFT(t) / N), w the Hermitian weights (JAX's convention for complex
  cotangents)."""
  spectrum = fft_p.bind(t, fft_type=FftType.RFFT, fft_lengths=fft_lengths)
  scale = 1 / math.prod(fft_lengths)
  return lax.conj(lax.mul(spectrum, _hermitian_weights(fft_lengths, spectrum, scale)))


def _fft_transpose(t: Any, x: Any, *, fft_type: FftType, fft_lengths: tuple[int, ...]) -> list:
  """FFT and IFFT are symmetric (their own transposes); RFFT and IRFFT transpose to each other
  with the Hermitian weights of the entries the RFFT leaves out."""
  if fft_type == FftType.RFFT:
    return [_rfft_transpose(t, fft_lengths)]
  if fft_type == FftType.IRFFT:
    return [_irfft_transpose(t, fft_lengths)]
  return [fft_p.bind(t, fft_type=fft_type, fft_lengths=fft_lengths)]


def _fft_batcher(args, dims, *, fft_type: FftType, fft_lengths: tuple[int, ...]):
  (x,), (d,) = args, dims
  x = batching.moveaxis(x, d, 0)
  return fft_p.bind(x, fft_type=fft_type, fft_lengths=fft_lengths), 0


def _fft_reference(x: np.ndarray, *, fft_type: FftType, fft_lengths: tuple[int, ...]
                   ) -> np.ndarray:
  axes = tuple(range(x.ndim - len(fft_lengths), x.ndim))
  transform = {FftType.FFT: np.fft.fftn, FftType.IFFT: np.fft.ifftn,
               FftType.RFFT: np.fft.rfftn, FftType.IRFFT: np.fft.irfftn}[fft_type]
  return transform(x, s=fft_lengths, axes=axes)


fft_p = standard_primitive("fft", _fft_abstract_eval)
def_reference(fft_p, _fft_reference)
ad.deflinear2(fft_p, _fft_transpose)
batching.primitive_batchers[fft_p] = _fft_batcher

# ----------------------------------------------------------------------------------------------
# FLOPS (conventions: stablejax.flops)

def _fft_flops(avals_in, avals_out, *, fft_type, fft_lengths, **_) -> float:
  points = math.prod(fft_lengths)
  transforms = avals_in[0].size / max(math.prod(avals_in[0].shape[-len(fft_lengths):]), 1)
  real = getattr(fft_type, "name", str(fft_type)) in ("RFFT", "IRFFT")
  return transforms * 5 * points * math.log2(max(points, 1)) / (2 if real else 1)


flops.flops_rules[fft_p] = _fft_flops
