# RUN: %PYTHON %s | FileCheck %s
# The module structure: header, @main, constants and debug locations.
import numpy as np

import stablejax as sj
import stablejax.numpy as jnp
from lit_util import f32, print_stablehlo, run


@run
def module_header():
  def scale(x):
    return x * 2.0
  print_stablehlo(scale, f32(4))
  # CHECK-LABEL: TEST: module_header
  # CHECK: module @jit_scale attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32}
  # CHECK-NEXT: func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32>
  # CHECK: return %{{.*}} : tensor<4xf32>


@run
def multiple_results_and_pytrees():
  print_stablehlo(lambda d: {"a": d[0] + 1.0, "b": d[1]}, (f32(2), np.zeros((), np.int32)))
  # CHECK-LABEL: TEST: multiple_results_and_pytrees
  # CHECK: func.func public @main(%arg0: tensor<2xf32>, %arg1: tensor<i32>) -> (tensor<2xf32>, tensor<i32>)


@run
def scalar_constant_is_inline_and_broadcast():
  print_stablehlo(lambda x, s: x + s * 3.0, f32(4), f32())
  # CHECK-LABEL: TEST: scalar_constant_is_inline_and_broadcast
  # CHECK: %[[C:.*]] = stablehlo.constant dense<3.000000e+00> : tensor<f32>
  # CHECK: %[[M:.*]] = stablehlo.multiply %arg1, %[[C]] : tensor<f32>
  # CHECK: %[[B:.*]] = stablehlo.broadcast_in_dim %[[M]], dims = [] : (tensor<f32>) -> tensor<4xf32>
  # CHECK: stablehlo.add %arg0, %[[B]] : tensor<4xf32>


@run
def array_constant():
  table = np.arange(4, dtype=np.float32)
  print_stablehlo(lambda x: x * table, f32(4))
  # CHECK-LABEL: TEST: array_constant
  # CHECK: stablehlo.constant dense<[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<4xf32>


@run
def debug_locations_name_user_lines():
  def f(x):
    return jnp.sin(x)
  print(sj.jit(f).lower(f32(2)).as_text(debug_info=True))
  # CHECK-LABEL: TEST: debug_locations_name_user_lines
  # CHECK: stablehlo.sine %arg0 : tensor<2xf32> loc([[LOC:#loc[0-9]+]])
  # CHECK: [[FILE:#loc[0-9]+]] = loc("{{.*}}module.py":49:11 to :21)
  # CHECK: [[FRAME:#loc[0-9]+]] = loc("debug_locations_name_user_lines.<locals>.f"([[FILE]]))
  # CHECK: [[CHAIN:#loc[0-9]+]] = loc(callsite([[FRAME]] at
  # CHECK: [[LOC]] = loc("jit(f)/sin"([[CHAIN]]))


@run
def donated_arguments_alias_results():
  # each donated argument takes the first free result of its type; y has none left
  f = sj.jit(lambda x, y, z: (z + 1.0, x * 2.0), donate_argnums=(0, 1, 2), keep_unused=True)
  print(f.lower(f32(3), f32(3), f32(2)).as_text())
  # CHECK-LABEL: TEST: donated_arguments_alias_results
  # CHECK: func.func public @main(%arg0: tensor<3xf32> {tf.aliasing_output = 1 : i32}, %arg1: tensor<3xf32>, %arg2: tensor<2xf32> {tf.aliasing_output = 0 : i32})
