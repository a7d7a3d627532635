# RUN: %PYTHON %s | FileCheck %s
# Ordered effects are threaded with tokens: @main creates one per ordered effect, each ordered
# callback takes it and returns the next; control flow and callees carry them.
import stablejax as sj
from stablejax import lax
from lit_util import f32, i32, print_stablehlo, run


@run
def two_ordered_prints():
  def f(x):
    sj.debug.print("a {}", x, ordered=True)
    sj.debug.print("b {}", x + 1.0, ordered=True)
    return x
  print_stablehlo(f, f32())
  # CHECK-LABEL: TEST: two_ordered_prints
  # CHECK: func.func public @main(%arg0: tensor<f32>) -> tensor<f32>
  # CHECK: %[[T0:.*]] = stablehlo.create_token : !stablehlo.token
  # CHECK: %[[T1:.*]] = stablehlo.custom_call @xla_ffi_python_cpu_callback(%[[T0]], %arg0)
  # CHECK-SAME: has_side_effect = true
  # CHECK-SAME: (!stablehlo.token, tensor<f32>) -> !stablehlo.token
  # CHECK: stablehlo.custom_call @xla_ffi_python_cpu_callback(%[[T1]], %{{[0-9]+}})
  # CHECK-SAME: (!stablehlo.token, tensor<f32>) -> !stablehlo.token


@run
def unordered_print_has_no_token():
  def f(x):
    sj.debug.print("a {}", x)
    return x
  print_stablehlo(f, f32())
  # CHECK-LABEL: TEST: unordered_print_has_no_token
  # CHECK-NOT: stablehlo.token
  # CHECK: stablehlo.custom_call @xla_ffi_python_cpu_callback(%arg0)
  # CHECK-SAME: (tensor<f32>) -> ()


@run
def token_through_while_loop():
  def f(n):
    sj.debug.print("before", ordered=True)

    def body(i):
      sj.debug.print("i {}", i, ordered=True)
      return i + 1
    return lax.while_loop(lambda i: i < n, body, 0)
  print_stablehlo(f, i32())
  # CHECK-LABEL: TEST: token_through_while_loop
  # CHECK: %[[T0:.*]] = stablehlo.create_token
  # CHECK: %[[T1:.*]] = stablehlo.custom_call @xla_ffi_python_cpu_callback(%[[T0]])
  # CHECK: stablehlo.while(%[[TA:.*]] = %[[T1]], %{{.*}} = %{{.*}}) : !stablehlo.token, tensor<i32>
  # CHECK: stablehlo.custom_call @xla_ffi_python_cpu_callback(%[[TA]], %{{.*}})
  # CHECK: stablehlo.return %{{.*}}, %{{.*}} : !stablehlo.token, tensor<i32>


@run
def token_through_cond_and_callee():
  inner = sj.jit(lambda x: (sj.debug.print("in {}", x, ordered=True), x)[1])

  def f(x):
    y = lax.cond(x > 0, lambda x: (sj.debug.print("pos", ordered=True), x)[1], lambda x: -x, x)
    return inner(y)
  print_stablehlo(f, f32())
  # CHECK-LABEL: TEST: token_through_cond_and_callee
  # CHECK: %[[T0:.*]] = stablehlo.create_token
  # CHECK: %[[C:.*]]:2 = "stablehlo.case"
  # CHECK: stablehlo.return %[[T0]], %{{.*}} : !stablehlo.token, tensor<f32>
  # CHECK: %[[T1:.*]] = stablehlo.custom_call @xla_ffi_python_cpu_callback(%[[T0]])
  # CHECK: stablehlo.return %[[T1]], %arg0 : !stablehlo.token, tensor<f32>
  # CHECK: (tensor<i32>) -> (!stablehlo.token, tensor<f32>)
  # CHECK: call @_lambda_(%[[C]]#0, %[[C]]#1) : (!stablehlo.token, tensor<f32>) -> (!stablehlo.token, tensor<f32>)
  # CHECK: func.func private @_lambda_(%arg0: !stablehlo.token, %arg1: tensor<f32>) -> (!stablehlo.token, tensor<f32>)
