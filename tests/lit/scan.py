# RUN: %PYTHON %s | FileCheck %s
# scan lowers to a stablehlo.while over an i32 counter: dynamic slices of the xs at the counter
# (at length-1-counter when reversed), dynamic_update_slice of the stacked outputs.
import numpy as np

from stablejax import lax
from lit_util import f32, print_stablehlo, run


@run
def scan_forward():
  print_stablehlo(lambda c, xs: lax.scan(lambda c, x: (c + x, c * x), c, xs), f32(3), f32(5, 3))
  # CHECK-LABEL: TEST: scan_forward
  # CHECK: %[[ZERO:.*]] = stablehlo.constant dense<0> : tensor<i32>
  # CHECK: stablehlo.while(%[[I:.*]] = %[[ZERO]], %[[C:.*]] = %arg0, %[[XS:.*]] = %arg1, %[[YS:.*]] = %{{.*}}) : tensor<i32>, tensor<3xf32>, tensor<5x3xf32>, tensor<5x3xf32>
  # CHECK-NEXT: cond {
  # CHECK: %[[N:.*]] = stablehlo.constant dense<5> : tensor<i32>
  # CHECK: %[[P:.*]] = stablehlo.compare LT, %[[I]], %[[N]], SIGNED
  # CHECK: stablehlo.return %[[P]] : tensor<i1>
  # CHECK: } do {
  # CHECK: %[[X:.*]] = stablehlo.dynamic_slice %[[XS]], %[[I]], %{{.*}}, sizes = [1, 3] : (tensor<5x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x3xf32>
  # CHECK: %[[XR:.*]] = stablehlo.reshape %[[X]] : (tensor<1x3xf32>) -> tensor<3xf32>
  # CHECK: %[[SUM:.*]] = stablehlo.add %[[C]], %[[XR]] : tensor<3xf32>
  # CHECK: %[[Y:.*]] = stablehlo.multiply %[[C]], %[[XR]] : tensor<3xf32>
  # CHECK: %[[YR:.*]] = stablehlo.reshape %[[Y]] : (tensor<3xf32>) -> tensor<1x3xf32>
  # CHECK: %[[NEWYS:.*]] = stablehlo.dynamic_update_slice %[[YS]], %[[YR]], %[[I]], %{{.*}} : (tensor<5x3xf32>, tensor<1x3xf32>, tensor<i32>, tensor<i32>) -> tensor<5x3xf32>
  # CHECK: %[[NEXT:.*]] = stablehlo.add %[[I]], %{{.*}} : tensor<i32>
  # CHECK: stablehlo.return %[[NEXT]], %[[SUM]], %[[XS]], %[[NEWYS]] : tensor<i32>, tensor<3xf32>, tensor<5x3xf32>, tensor<5x3xf32>
  # CHECK: }
  # CHECK: return %{{.*}}#1, %{{.*}}#3 : tensor<3xf32>, tensor<5x3xf32>


@run
def scan_reverse():
  print_stablehlo(lambda xs: lax.scan(lambda c, x: (c + x, c), 0.0, xs, reverse=True), f32(4))
  # CHECK-LABEL: TEST: scan_reverse
  # CHECK: stablehlo.while(%[[I:[^ ]*]] =
  # CHECK: } do {
  # CHECK: %[[LAST:.*]] = stablehlo.constant dense<3> : tensor<i32>
  # CHECK: %[[J:.*]] = stablehlo.subtract %[[LAST]], %[[I]] : tensor<i32>
  # CHECK: stablehlo.dynamic_slice %{{.*}}, %[[J]], sizes = [1] : (tensor<4xf32>, tensor<i32>) -> tensor<1xf32>
  # CHECK: stablehlo.dynamic_update_slice %{{.*}}, %{{.*}}, %[[J]] : (tensor<4xf32>, tensor<1xf32>, tensor<i32>) -> tensor<4xf32>


@run
def scan_consts_and_no_xs():
  w = np.float32(3.0)
  print_stablehlo(lambda c, w: lax.scan(lambda c, _: (c * w, None), c, None, length=7)[0],
                  f32(2), w)
  # CHECK-LABEL: TEST: scan_consts_and_no_xs
  # CHECK: stablehlo.while(%[[I:[^ ]*]] = %{{.*}}, %[[W:[^ ]*]] = %arg1, %[[C:[^ ]*]] = %arg0) : tensor<i32>, tensor<f32>, tensor<2xf32>
  # CHECK: stablehlo.constant dense<7> : tensor<i32>
  # CHECK: } do {
  # CHECK-NOT: dynamic_slice
  # CHECK: stablehlo.multiply
  # CHECK: stablehlo.return %{{.*}}, %[[W]], %{{.*}} : tensor<i32>, tensor<f32>, tensor<2xf32>


@run
def fori_loop_static_bounds():
  print_stablehlo(lambda x: lax.fori_loop(0, 10, lambda i, c: c + 1.0, x), f32(2))
  # CHECK-LABEL: TEST: fori_loop_static_bounds
  # the loop counter `i`, which nothing reads, is pruned by DCE (as JAX does)
  # CHECK: stablehlo.while({{.*}}) : tensor<i32>, tensor<2xf32>
  # CHECK: stablehlo.constant dense<10> : tensor<i32>
  # CHECK: stablehlo.compare LT
