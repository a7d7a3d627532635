# RUN: %PYTHON %s | FileCheck %s
# cond and switch lower to stablehlo.case with one region per branch (false branch first).
import numpy as np

import stablejax as sj
import stablejax.numpy as jnp
from lit_util import f32, i32, print_stablehlo, run
from stablejax import lax


@run
def cond_of_bool_predicate():
  print_stablehlo(lambda p, x: lax.cond(p, jnp.sin, lambda x: x * 2.0, x), np.bool_(True),
                  f32(3))
  # CHECK-LABEL: TEST: cond_of_bool_predicate
  # CHECK: func.func public @main(%arg0: tensor<i1>, %arg1: tensor<3xf32>) -> tensor<3xf32>
  # CHECK: %[[I:.*]] = stablehlo.convert %arg0 : (tensor<i1>) -> tensor<i32>
  # CHECK: %[[R:.*]] = "stablehlo.case"(%[[I]]) ({
  # CHECK: stablehlo.multiply %arg1, %{{.*}} : tensor<3xf32>
  # CHECK-NEXT: stablehlo.return %{{.*}} : tensor<3xf32>
  # CHECK-NEXT: }, {
  # CHECK-NEXT: %[[S:.*]] = stablehlo.sine %arg1 : tensor<3xf32>
  # CHECK-NEXT: stablehlo.return %[[S]] : tensor<3xf32>
  # CHECK-NEXT: }) : (tensor<i32>) -> tensor<3xf32>
  # CHECK: return %[[R]] : tensor<3xf32>


@run
def switch_clamps_its_index():
  print_stablehlo(lambda i, x: lax.switch(i, [jnp.sin, jnp.cos, jnp.exp], x), i32(), f32())
  # CHECK-LABEL: TEST: switch_clamps_its_index
  # CHECK: %[[LO:.*]] = stablehlo.constant dense<0> : tensor<i32>
  # CHECK: %[[HI:.*]] = stablehlo.constant dense<2> : tensor<i32>
  # CHECK: %[[I:.*]] = stablehlo.clamp %[[LO]], %arg0, %[[HI]] : tensor<i32>
  # CHECK: "stablehlo.case"(%[[I]]) ({
  # CHECK: stablehlo.sine %arg1
  # CHECK: stablehlo.return
  # CHECK: }, {
  # CHECK: stablehlo.cosine %arg1
  # CHECK: stablehlo.return
  # CHECK: }, {
  # CHECK: stablehlo.exponential %arg1
  # CHECK: stablehlo.return
  # CHECK: }) : (tensor<i32>) -> tensor<f32>


@run
def cond_with_several_outputs_and_closure():
  def f(p, x, y):
    return lax.cond(p > 0, lambda: (x + y, y), lambda: (x, x * y))
  print_stablehlo(f, f32(), f32(), f32())
  # CHECK-LABEL: TEST: cond_with_several_outputs_and_closure
  # CHECK: stablehlo.compare GT, %arg0
  # CHECK: %[[R:.*]]:2 = "stablehlo.case"(%{{.*}}) ({
  # CHECK: %[[M:.*]] = stablehlo.multiply %arg1, %arg2 : tensor<f32>
  # CHECK-NEXT: stablehlo.return %arg1, %[[M]] : tensor<f32>, tensor<f32>
  # CHECK: }, {
  # CHECK: %[[A:.*]] = stablehlo.add %arg1, %arg2 : tensor<f32>
  # CHECK-NEXT: stablehlo.return %[[A]], %arg2 : tensor<f32>, tensor<f32>
  # CHECK: }) : (tensor<i32>) -> (tensor<f32>, tensor<f32>)
  # CHECK: return %[[R]]#0, %[[R]]#1


@run
def grad_of_cond():
  print_stablehlo(sj.grad(lambda x: lax.cond(x > 0, jnp.sin, lambda x: x * x, x)), f32())
  # CHECK-LABEL: TEST: grad_of_cond
  # CHECK: %[[I:.*]] = stablehlo.convert %{{.*}} : (tensor<i1>) -> tensor<i32>
  # CHECK: "stablehlo.case"(%[[I]])
  # CHECK: stablehlo.cosine
  # CHECK: "stablehlo.case"(%[[I]])
