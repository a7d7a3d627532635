# RUN: %PYTHON %s | FileCheck %s
# The StableHLO of jit(grad(f)).
import stablejax as sj
import stablejax.numpy as jnp
from lit_util import f32, print_stablehlo, run


@run
def grad_of_sin():
  print_stablehlo(sj.grad(jnp.sin), f32())
  # CHECK-LABEL: TEST: grad_of_sin
  # CHECK: func.func public @main(%arg0: tensor<f32>) -> tensor<f32>
  # CHECK: %[[COS:.*]] = stablehlo.cosine %arg0 : tensor<f32>
  # CHECK: %[[ONE:.*]] = stablehlo.constant dense<1.000000e+00> : tensor<f32>
  # CHECK: stablehlo.multiply %[[ONE]], %[[COS]] : tensor<f32>


@run
def grad_of_matmul():
  print_stablehlo(sj.grad(lambda w, x: jnp.sum(x @ w)), f32(3, 4), f32(2, 3))
  # CHECK-LABEL: TEST: grad_of_matmul
  # (w is unused by the gradient: jit's keep_unused=False drops it from @main, as JAX's does)
  # CHECK: func.func public @main(%arg0: tensor<2x3xf32>) -> tensor<3x4xf32>
  # CHECK: stablehlo.broadcast_in_dim %{{.*}}, dims = [] : (tensor<f32>) -> tensor<2x4xf32>
  # CHECK: stablehlo.dot_general %{{.*}}, %arg0, contracting_dims = [0] x [0] : (tensor<2x4xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  # CHECK: stablehlo.transpose %{{.*}}, dims = [1, 0] : (tensor<4x3xf32>) -> tensor<3x4xf32>


@run
def grad_of_reduction():
  print_stablehlo(sj.grad(lambda x: jnp.sum(x ** 2)), f32(5))
  # CHECK-LABEL: TEST: grad_of_reduction
  # CHECK: stablehlo.broadcast_in_dim %{{.*}}, dims = [] : (tensor<f32>) -> tensor<5xf32>
  # CHECK: stablehlo.multiply
  # CHECK: return %{{.*}} : tensor<5xf32>
