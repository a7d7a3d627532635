# RUN: %PYTHON %s | FileCheck %s
# The MLIR of programs before and after passes chosen with `lower(..., passes=[...])`.
import stablejax as sj
import stablejax.numpy as jnp
from stablejax import lax
from lit_util import f32, print_stablehlo, run


def _twice_sin(x):
  return jnp.sin(x) + jnp.sin(x) * 2.0


@run
def before_mlir_cse():
  print_stablehlo(_twice_sin, f32(3), passes=["dce"])
  # CHECK-LABEL: TEST: before_mlir_cse
  # CHECK: %[[A:.*]] = stablehlo.sine %arg0 : tensor<3xf32>
  # CHECK: %[[B:.*]] = stablehlo.sine %arg0 : tensor<3xf32>
  # CHECK: stablehlo.multiply %[[B]]


@run
def after_mlir_cse():
  print_stablehlo(_twice_sin, f32(3), passes=["dce", "mlir-cse"])
  # CHECK-LABEL: TEST: after_mlir_cse
  # CHECK: %[[A:.*]] = stablehlo.sine %arg0 : tensor<3xf32>
  # CHECK-NOT: stablehlo.sine
  # CHECK: %[[M:.*]] = stablehlo.multiply %[[A]], %{{.*}} : tensor<3xf32>
  # CHECK: stablehlo.add %[[A]], %[[M]] : tensor<3xf32>


@run
def after_jaxpr_cse():
  print_stablehlo(_twice_sin, f32(3), passes=["dce", "cse"])
  # CHECK-LABEL: TEST: after_jaxpr_cse
  # CHECK: stablehlo.sine
  # CHECK-NOT: stablehlo.sine
  # CHECK: return


def _loop(x):
  return lax.fori_loop(0, 3, lambda i, c: c + 1.0, x)


@run
def before_canonicalize():
  print_stablehlo(_loop, f32(2), passes=["dce"])
  # CHECK-LABEL: TEST: before_canonicalize
  # CHECK: stablehlo.while
  # CHECK: cond {
  # CHECK-NEXT: stablehlo.constant dense<3> : tensor<i32>


@run
def after_canonicalize():
  print_stablehlo(_loop, f32(2), passes=["dce", "mlir-canonicalize"])
  # constants are hoisted out of the loop regions and uniqued
  # CHECK-LABEL: TEST: after_canonicalize
  # CHECK: %[[THREE:.*]] = stablehlo.constant dense<3> : tensor<i32>
  # CHECK: stablehlo.while
  # CHECK: cond {
  # CHECK-NEXT: stablehlo.compare LT, %{{.*}}, %[[THREE]], SIGNED


def _nested(x):
  inner = sj.jit(lambda x: jnp.sin(x) * 2.0)
  return inner(x) + inner(x + 1.0)


@run
def nested_jit_before_inlining():
  print_stablehlo(_nested, f32(3), passes=["dce"])
  # CHECK-LABEL: TEST: nested_jit_before_inlining
  # CHECK: call @[[F:.*]](%arg0)
  # CHECK: call @[[F]](
  # CHECK: func.func private @[[F]](


@run
def nested_jit_after_inlining():
  print_stablehlo(_nested, f32(3), passes=["inline", "dce"])
  # CHECK-LABEL: TEST: nested_jit_after_inlining
  # CHECK: func.func public @main
  # CHECK-NOT: call @
  # CHECK: stablehlo.sine %arg0
  # CHECK: stablehlo.sine
  # CHECK-NOT: func.func private


def _scan_sum(x):
  def body(c, xi):
    c2 = lax.sin(c) * xi
    return c2, c2 * 2.0
  c, ys = lax.scan(body, x[0], x)
  return (c + jnp.sum(ys)).sum()


@run
def grad_of_scan_after_dce():
  print_stablehlo(sj.grad(_scan_sum), f32(5, 3))
  # The forward loop slices xs once and stacks two residuals (sin and cos of the carry), not
  # the ys nothing reads: 1 dynamic_slice and 2 dynamic_update_slice, as JAX's loop does.
  # CHECK-LABEL: TEST: grad_of_scan_after_dce
  # CHECK: stablehlo.while
  # CHECK: } do {
  # CHECK-COUNT-1: stablehlo.dynamic_slice
  # CHECK-NOT: stablehlo.dynamic_slice
  # CHECK: stablehlo.sine
  # CHECK: stablehlo.cosine
  # CHECK-NOT: stablehlo.constant dense<2.000000e+00>
  # CHECK: stablehlo.dynamic_update_slice
  # CHECK: stablehlo.dynamic_update_slice
  # CHECK-NOT: stablehlo.dynamic_update_slice
  # CHECK: stablehlo.return
  # CHECK: stablehlo.while
