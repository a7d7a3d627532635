# RUN: %PYTHON %s | FileCheck %s
# Contractions: dot_general with contracting and batch dimensions.
import stablejax.numpy as jnp
from stablejax import lax
from lit_util import f32, print_stablehlo, run


@run
def matmul():
  print_stablehlo(lambda x, y: x @ y, f32(2, 3), f32(3, 4))
  # CHECK-LABEL: TEST: matmul
  # CHECK: stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>


@run
def batched_dot_general():
  print_stablehlo(lambda x, y: lax.dot_general(x, y, (((2,), (1,)), ((0,), (0,)))),
                  f32(5, 2, 3), f32(5, 3, 4))
  # CHECK-LABEL: TEST: batched_dot_general
  # CHECK: stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<5x2x3xf32>, tensor<5x3x4xf32>) -> tensor<5x2x4xf32>


@run
def einsum():
  print_stablehlo(lambda x, y: jnp.einsum("ij,kj->ik", x, y), f32(2, 3), f32(4, 3))
  # CHECK-LABEL: TEST: einsum
  # CHECK: stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [1] : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
