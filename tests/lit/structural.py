# RUN: %PYTHON %s | FileCheck %s
# Structural primitives: broadcasting, reshapes, transposes, slices, padding, concatenation, iota.
import numpy as np

from stablejax import lax
from lit_util import f32, i32, print_stablehlo, run


@run
def broadcast_reshape_transpose():
  print_stablehlo(lambda x: (lax.broadcast_in_dim(x, (2, 3), (1,)), lax.reshape(x, (3, 1)),
                             lax.transpose(lax.reshape(x, (1, 3)), (1, 0))), f32(3))
  # CHECK-LABEL: TEST: broadcast_reshape_transpose
  # CHECK: stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
  # CHECK: stablehlo.reshape %arg0 : (tensor<3xf32>) -> tensor<3x1xf32>
  # CHECK: stablehlo.transpose %{{.*}}, dims = [1, 0] : (tensor<1x3xf32>) -> tensor<3x1xf32>


@run
def slices_and_padding():
  print_stablehlo(lambda x: (lax.slice(x, (1,), (5,), (2,)), lax.pad(x, 0.0, ((1, 2, 1),)),
                             lax.concatenate([x, x], 0)), f32(6))
  # CHECK-LABEL: TEST: slices_and_padding
  # CHECK: stablehlo.slice %arg0 [1:5:2] : (tensor<6xf32>) -> tensor<2xf32>
  # CHECK: stablehlo.pad %arg0, %{{.*}}, low = [1], high = [2], interior = [1] : (tensor<6xf32>, tensor<f32>) -> tensor<14xf32>
  # CHECK: stablehlo.concatenate %arg0, %arg0, dim = 0 : (tensor<6xf32>, tensor<6xf32>) -> tensor<12xf32>


@run
def dynamic_slices():
  print_stablehlo(lambda x, i: (lax.dynamic_slice(x, (i, 0), (2, 3)),
                                lax.dynamic_update_slice(x, x[:1], (i, 0))), f32(4, 3), i32())
  # CHECK-LABEL: TEST: dynamic_slices
  # CHECK: stablehlo.dynamic_slice %arg0, %{{.*}}, %{{.*}}, sizes = [2, 3] : (tensor<4x3xf32>, tensor<i32>, tensor<i32>) -> tensor<2x3xf32>
  # CHECK: stablehlo.dynamic_update_slice %arg0, %{{.*}}, %{{.*}}, %{{.*}} : (tensor<4x3xf32>, tensor<1x3xf32>, tensor<i32>, tensor<i32>) -> tensor<4x3xf32>


@run
def iota():
  print_stablehlo(lambda: lax.broadcasted_iota(np.int32, (2, 3), 1))
  # CHECK-LABEL: TEST: iota
  # CHECK: stablehlo.iota dim = 1 : tensor<2x3xi32>
