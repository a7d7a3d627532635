# RUN: %PYTHON %s | FileCheck %s
# Exported modules: the text of an Exported (its `main` and ops), as deserialized from its
# portable bytecode, and an Exported called from a jitted function.
import numpy as np

import stablejax as sj
import stablejax.numpy as jnp
from lit_util import f32, run


def exported_sin_mul():
  return sj.export.export(sj.jit(lambda x, y: (jnp.sin(x) * y, x.sum())))(f32(3), np.float32(2))


@run
def exported_module():
  print(sj.export.deserialize(exported_sin_mul().serialize()).mlir_module(), flush=True)
  # CHECK-LABEL: TEST: exported_module
  # CHECK: module @jit__lambda{{ }}
  # CHECK: func.func public @main(%arg0: tensor<3xf32>, %arg1: tensor<f32>) -> (tensor<3xf32>, tensor<f32>)
  # CHECK: stablehlo.sine %arg0 : tensor<3xf32>
  # CHECK: stablehlo.multiply
  # CHECK: stablehlo.reduce(%arg0 init: %{{.*}}) applies stablehlo.add across dimensions = [0]


@run
def exported_for_cuda():
  e = sj.export.export(sj.jit(jnp.tanh), platforms=("cuda",))(f32(2, 2))
  print(e.platforms, flush=True)
  print(e.mlir_module(), flush=True)
  # CHECK-LABEL: TEST: exported_for_cuda
  # CHECK: ('cuda',)
  # CHECK: func.func public @main(%arg0: tensor<2x2xf32>) -> tensor<2x2xf32>
  # CHECK: stablehlo.tanh %arg0 : tensor<2x2xf32>


@run
def call_exported_under_jit():
  e = exported_sin_mul()
  print(sj.jit(lambda x: e.call(x, np.float32(3))[0]).lower(f32(3)).as_text(), flush=True)
  # CHECK-LABEL: TEST: call_exported_under_jit
  # CHECK: func.func public @main(%arg0: tensor<3xf32>) -> tensor<3xf32>
  # CHECK: %[[OUT:.*]]:2 = call @call_exported__lambda_(%arg0, %{{.*}}) : (tensor<3xf32>, tensor<f32>) -> (tensor<3xf32>, tensor<f32>)
  # CHECK: return %[[OUT]]#0
  # CHECK: func.func private @call_exported__lambda_(%arg0: tensor<3xf32>, %arg1: tensor<f32>) -> (tensor<3xf32>, tensor<f32>)
  # CHECK: stablehlo.sine


@run
def exported_for_two_platforms():
  e = sj.export.export(sj.jit(jnp.sin), platforms=("cpu", "cuda"))(f32(3))
  print(e.mlir_module(), flush=True)
  print(sj.jit(e.call).lower(f32(3)).as_text(), flush=True)
  # CHECK-LABEL: TEST: exported_for_two_platforms
  # CHECK: func.func public @main(%arg0: tensor<i32> {{.*}}, %arg1: tensor<3xf32>) -> tensor<3xf32>
  # CHECK: stablehlo.sine %arg1
  # CHECK: func.func public @main(%arg0: tensor<3xf32>) -> tensor<3xf32>
  # CHECK: %[[CPU:.*]] = stablehlo.constant dense<0> : tensor<i32>
  # CHECK: call @call_exported_sin(%[[CPU]], %arg0)
