# RUN: %PYTHON %s | FileCheck %s
# The FFT: `stablehlo.fft` of each type with its lengths, as JAX prints it (jnp.fft calls the
# jitted lax.fft, a private @fft function); on GPUs a multi-dimensional IRFFT is split as JAX does.
import numpy as np

import stablejax as sj
import stablejax.numpy as jnp
from stablejax import lax
from lit_util import f32, print_stablehlo, run


def c64(*shape):
  return np.zeros(shape, np.complex64)


@run
def fft_of_real():
  print_stablehlo(jnp.fft.fft, f32(2, 8))
  # CHECK-LABEL: TEST: fft_of_real
  # CHECK: %0 = call @fft(%arg0) : (tensor<2x8xf32>) -> tensor<2x8xcomplex<f32>>
  # CHECK: func.func private @fft(%arg0: tensor<2x8xf32>) -> tensor<2x8xcomplex<f32>>
  # CHECK-NEXT: %0 = stablehlo.convert %arg0 : (tensor<2x8xf32>) -> tensor<2x8xcomplex<f32>>
  # CHECK-NEXT: %1 = stablehlo.fft %0, type = FFT, length = [8] : (tensor<2x8xcomplex<f32>>) -> tensor<2x8xcomplex<f32>>


@run
def ifftn_3d():
  print_stablehlo(jnp.fft.ifftn, c64(2, 3, 4))
  # CHECK-LABEL: TEST: ifftn_3d
  # CHECK: stablehlo.fft %arg0, type = IFFT, length = [2, 3, 4] : (tensor<2x3x4xcomplex<f32>>) -> tensor<2x3x4xcomplex<f32>>


@run
def rfft_cropped():
  print_stablehlo(lambda x: jnp.fft.rfft(x, n=6), f32(2, 8))
  # CHECK-LABEL: TEST: rfft_cropped
  # CHECK: %0 = stablehlo.slice %arg0 [0:2, 0:6] : (tensor<2x8xf32>) -> tensor<2x6xf32>
  # CHECK: stablehlo.fft %arg0, type = RFFT, length = [6] : (tensor<2x6xf32>) -> tensor<2x4xcomplex<f32>>


@run
def irfft2_cpu():
  print_stablehlo(jnp.fft.irfft2, c64(3, 4))
  # CHECK-LABEL: TEST: irfft2_cpu
  # CHECK-NOT: stablehlo.transpose
  # CHECK: stablehlo.fft %arg0, type = IRFFT, length = [3, 6] : (tensor<3x4xcomplex<f32>>) -> tensor<3x6xf32>


@run
def irfft2_cuda():
  print_stablehlo(jnp.fft.irfft2, c64(5, 3, 4), platform="cuda")
  # CHECK-LABEL: TEST: irfft2_cuda
  # CHECK: %0 = stablehlo.transpose %arg0, dims = [0, 2, 1] : (tensor<5x3x4xcomplex<f32>>) -> tensor<5x4x3xcomplex<f32>>
  # CHECK-NEXT: %1 = stablehlo.fft %0, type = IFFT, length = [3] : (tensor<5x4x3xcomplex<f32>>) -> tensor<5x4x3xcomplex<f32>>
  # CHECK-NEXT: %2 = stablehlo.transpose %1, dims = [0, 2, 1] : (tensor<5x4x3xcomplex<f32>>) -> tensor<5x3x4xcomplex<f32>>
  # CHECK-NEXT: %3 = stablehlo.fft %2, type = IRFFT, length = [6] : (tensor<5x3x4xcomplex<f32>>) -> tensor<5x3x6xf32>


@run
def fft_along_axis_0():
  print_stablehlo(lambda x: jnp.fft.fft(x, axis=0, norm="ortho"), c64(2, 8))
  # CHECK-LABEL: TEST: fft_along_axis_0
  # CHECK: %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<2x8xcomplex<f32>>) -> tensor<8x2xcomplex<f32>>
  # CHECK: call @fft(%0)
  # CHECK: stablehlo.multiply
  # CHECK: stablehlo.transpose %{{.*}}, dims = [1, 0] : (tensor<8x2xcomplex<f32>>) -> tensor<2x8xcomplex<f32>>
  # CHECK: stablehlo.fft %arg0, type = FFT, length = [2] : (tensor<8x2xcomplex<f32>>) -> tensor<8x2xcomplex<f32>>


@run
def rfft_grad():
  print_stablehlo(sj.grad(lambda x: jnp.sum(jnp.real(lax.fft(x, "RFFT", (8,))))), f32(8))
  # CHECK-LABEL: TEST: rfft_grad
  # CHECK: stablehlo.fft %{{.*}}, type = IRFFT, length = [8] : (tensor<5xcomplex<f32>>) -> tensor<8xf32>
