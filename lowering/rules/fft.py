"""Lowering of the FFT: `stablehlo.fft`, as JAX emits it. On GPUs a multi-dimensional IRFFT is
split into an IFFT of the outer axes and a one-dimensional IRFFT of the last, as JAX does
(cuFFT's multi-dimensional complex-to-real transform assumes Hermitian symmetry along every
axis; numpy and the other backends only along the last)."""
from __future__ import annotations

from typing import Sequence

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from stablejax import lax
from stablejax.lax.fft import FftType
from stablejax.lowering.module import LoweringRuleContext
from stablejax.lowering.registry import register_lowering


def _fft_op(x: ir.Value, fft_type: FftType, fft_lengths: Sequence[int]) -> ir.Value:
  return hlo.fft(x, hlo.FftTypeAttr.get(fft_type.name), ir.DenseI64ArrayAttr.get(list(fft_lengths)))


def _fft(ctx: LoweringRuleContext, x: ir.Value, *, fft_type: FftType,
         fft_lengths: tuple[int, ...]) -> list[ir.Value]:
  return [_fft_op(x, fft_type, fft_lengths)]


def _fft_gpu(ctx: LoweringRuleContext, x: ir.Value, *, fft_type: FftType,
             fft_lengths: tuple[int, ...]) -> list[ir.Value]:
  if fft_type != FftType.IRFFT or len(fft_lengths) == 1:
    return _fft(ctx, x, fft_type=fft_type, fft_lengths=fft_lengths)
  rank = ctx.avals_in[0].ndim
  first = rank - len(fft_lengths)  # the last axis goes to the front of the transformed ones
  to_front = [*range(first), rank - 1, *range(first, rank - 1)]
  x = hlo.transpose(x, to_front)
  x = _fft_op(x, FftType.IFFT, fft_lengths[:-1])
  x = hlo.transpose(x, [*range(first), *range(first + 1, rank), first])
  return [_fft_op(x, FftType.IRFFT, fft_lengths[-1:])]


register_lowering(lax.fft_p, _fft)
register_lowering(lax.fft_p, _fft_gpu, platform="gpu")
