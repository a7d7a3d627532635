# RUN: %PYTHON %s | FileCheck %s
# A nested jit is a private function and a call, lowered once per distinct callee.
import stablejax as sj
from lit_util import f32, print_stablehlo, run


@run
def nested_jit_call():
  @sj.jit
  def inner(x):
    return x * 2.0

  def outer(x):
    return inner(x) + inner(x + 1.0)
  print_stablehlo(outer, f32(3))
  # CHECK-LABEL: TEST: nested_jit_call
  # CHECK: func.func public @main(%arg0: tensor<3xf32>) -> tensor<3xf32>
  # CHECK: call @inner(%arg0) : (tensor<3xf32>) -> tensor<3xf32>
  # CHECK: call @inner(%{{.*}}) : (tensor<3xf32>) -> tensor<3xf32>
  # CHECK: func.func private @inner(%arg0: tensor<3xf32>) -> tensor<3xf32>
  # CHECK-NEXT: stablehlo.constant dense<2.000000e+00>
  # CHECK-NOT: func.func private @inner


@run
def two_callees():
  f = sj.jit(lambda x: x + 1.0)
  g = sj.jit(lambda x: x * 3.0)
  print_stablehlo(lambda x: g(f(x)), f32(2))
  # CHECK-LABEL: TEST: two_callees
  # CHECK: %[[A:.*]] = call @_lambda_(%arg0)
  # CHECK: call @_lambda__0(%[[A]])
  # CHECK: func.func private @_lambda_(
  # CHECK: stablehlo.add
  # CHECK: func.func private @_lambda__0(
  # CHECK: stablehlo.multiply
