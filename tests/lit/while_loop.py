# RUN: %PYTHON %s | FileCheck %s
# while_loop lowers to stablehlo.while with a cond and a body region over the carry.
import stablejax as sj
from lit_util import f32, print_stablehlo, run
from stablejax import lax


@run
def while_with_closed_over_value():
  def f(x):
    return lax.while_loop(lambda c: c[0] < 10, lambda c: (c[0] + 1, c[1] * x), (0, x))
  print_stablehlo(f, f32(4))
  # CHECK-LABEL: TEST: while_with_closed_over_value
  # CHECK: func.func public @main(%arg0: tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>)
  # CHECK: %[[ZERO:.*]] = stablehlo.constant dense<0> : tensor<i32>
  # CHECK: %[[W:.*]]:2 = stablehlo.while(%[[I:.*]] = %[[ZERO]], %[[V:.*]] = %arg0) : tensor<i32>, tensor<4xf32>
  # CHECK-NEXT: cond {
  # CHECK: %[[P:.*]] = stablehlo.compare LT, %[[I]], %{{.*}}, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
  # CHECK-NEXT: stablehlo.return %[[P]] : tensor<i1>
  # CHECK-NEXT: } do {
  # CHECK: %[[N:.*]] = stablehlo.add %[[I]], %{{.*}} : tensor<i32>
  # CHECK-NEXT: %[[M:.*]] = stablehlo.multiply %[[V]], %arg0 : tensor<4xf32>
  # CHECK-NEXT: stablehlo.return %[[N]], %[[M]] : tensor<i32>, tensor<4xf32>
  # CHECK-NEXT: }
  # CHECK-NEXT: return %[[W]]#0, %[[W]]#1


@run
def cond_nested_in_while():
  def f(x):
    def body(c):
      i, v = c
      return i + 1, lax.cond(v > 1.0, lambda v: v * 0.5, lambda v: v + x, v)
    return lax.while_loop(lambda c: c[0] < 10, body, (0, x))[1]
  print_stablehlo(f, f32())
  # CHECK-LABEL: TEST: cond_nested_in_while
  # CHECK: stablehlo.while(%[[I:.*]] = %{{.*}}, %[[V:.*]] = %arg0) : tensor<i32>, tensor<f32>
  # CHECK: cond {
  # CHECK: stablehlo.return %{{.*}} : tensor<i1>
  # CHECK: } do {
  # CHECK: %[[P:.*]] = stablehlo.compare GT, %[[V]], %{{.*}}, FLOAT
  # CHECK-NEXT: %[[IDX:.*]] = stablehlo.convert %[[P]] : (tensor<i1>) -> tensor<i32>
  # CHECK-NEXT: %[[C:.*]] = "stablehlo.case"(%[[IDX]]) ({
  # CHECK-NEXT: %[[A:.*]] = stablehlo.add %[[V]], %arg0 : tensor<f32>
  # CHECK-NEXT: stablehlo.return %[[A]] : tensor<f32>
  # CHECK-NEXT: }, {
  # CHECK: stablehlo.multiply %[[V]]
  # CHECK: stablehlo.return
  # CHECK-NEXT: }) : (tensor<i32>) -> tensor<f32>
  # CHECK-NEXT: stablehlo.return %{{.*}}, %[[C]] : tensor<i32>, tensor<f32>


@run
def vmap_of_while_with_batched_predicate():
  def f(x):
    return lax.while_loop(lambda v: v < 10.0, lambda v: v * 2.0, x)
  print_stablehlo(sj.vmap(f), f32(3))
  # CHECK-LABEL: TEST: vmap_of_while_with_batched_predicate
  # CHECK: stablehlo.while(%[[V:.*]] = %arg0) : tensor<3xf32>
  # CHECK: cond {
  # CHECK: %[[P:.*]] = stablehlo.compare LT, %[[V]]
  # CHECK: stablehlo.reduce(%[[P]] init: %{{.*}}) applies stablehlo.maximum
  # CHECK: } do {
  # CHECK: %[[Q:.*]] = stablehlo.compare LT, %[[V]]
  # CHECK: %[[M:.*]] = stablehlo.multiply %[[V]]
  # CHECK: %[[S:.*]] = stablehlo.select %[[Q]], %[[M]], %[[V]]
  # CHECK: stablehlo.return %[[S]] : tensor<3xf32>
