# RUN: %PYTHON %s | FileCheck %s
# Reductions: stablehlo.reduce with its region, argmax's variadic reduce, cumsum's reduce_window.
from stablejax import lax
from lit_util import f32, print_stablehlo, run


@run
def reduce_sum_and_max():
  print_stablehlo(lambda x: (lax.reduce_sum(x, (0,)), lax.reduce_max(x, (0, 1))), f32(2, 3))
  # CHECK-LABEL: TEST: reduce_sum_and_max
  # CHECK: %[[Z:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  # CHECK: stablehlo.reduce(%arg0 init: %[[Z]]) applies stablehlo.add across dimensions = [0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<3xf32>
  # CHECK: %[[NEGINF:.*]] = stablehlo.constant dense<0xFF800000> : tensor<f32>
  # CHECK: stablehlo.reduce(%arg0 init: %[[NEGINF]]) applies stablehlo.maximum across dimensions = [0, 1]


@run
def argmax_is_a_variadic_reduce():
  print_stablehlo(lambda x: lax.argmax(x, 1, index_dtype=__import__("numpy").int32), f32(2, 3))
  # CHECK-LABEL: TEST: argmax_is_a_variadic_reduce
  # CHECK: stablehlo.iota dim = 1 : tensor<2x3xi32>
  # CHECK: stablehlo.reduce(%arg0 init: %{{.*}}), (%{{.*}} init: %{{.*}}) across dimensions = [1]
  # CHECK: reducer(
  # CHECK: stablehlo.compare GT
  # CHECK: stablehlo.return


@run
def cumsum_is_a_reduce_window():
  print_stablehlo(lambda x: lax.cumsum(x, 0), f32(4))
  # CHECK-LABEL: TEST: cumsum_is_a_reduce_window
  # CHECK: "stablehlo.reduce_window"(%arg0, %{{.*}})
  # CHECK-SAME: window_dimensions = array<i64: 4>
  # CHECK: stablehlo.add
  # CHECK: stablehlo.return
