# RUN: %PYTHON %s | FileCheck %s
# Elementwise primitives: math ops, implicit broadcasting, comparisons, select and casts.
import numpy as np

from stablejax import lax
from lit_util import f32, i32, print_stablehlo, run


@run
def unary_math():
  print_stablehlo(lambda x: (lax.sin(x), lax.exp(x), lax.tanh(x), lax.logistic(x),
                             lax.rsqrt(x)), f32(3))
  # CHECK-LABEL: TEST: unary_math
  # CHECK: stablehlo.sine %arg0 : tensor<3xf32>
  # CHECK: stablehlo.exponential %arg0 : tensor<3xf32>
  # CHECK: stablehlo.tanh %arg0 : tensor<3xf32>
  # CHECK: stablehlo.logistic %arg0 : tensor<3xf32>
  # CHECK: stablehlo.rsqrt %arg0 : tensor<3xf32>


@run
def complex_sine_from_real_parts():
  print_stablehlo(lax.sin, np.zeros(2, np.complex64))
  # CHECK-LABEL: TEST: complex_sine_from_real_parts
  # CHECK: %[[RE:.*]] = stablehlo.real %arg0
  # CHECK: %[[IM:.*]] = stablehlo.imag %arg0
  # CHECK: stablehlo.compare EQ, %[[RE]]
  # CHECK: stablehlo.sine %[[RE]] : tensor<2xf32>
  # CHECK: stablehlo.cosine %[[RE]] : tensor<2xf32>
  # CHECK: stablehlo.exponential_minus_one %[[IM]] : tensor<2xf32>
  # CHECK-NOT: stablehlo.sine {{.*}}complex
  # CHECK: stablehlo.select


@run
def rank0_operand_is_broadcast():
  print_stablehlo(lambda x, y: lax.mul(x, y), f32(2, 3), f32())
  # CHECK-LABEL: TEST: rank0_operand_is_broadcast
  # CHECK: %[[B:.*]] = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
  # CHECK: stablehlo.multiply %arg0, %[[B]] : tensor<2x3xf32>


@run
def comparison_types():
  print_stablehlo(lambda x, i, u: (x > 1.0, i <= 2, lax.lt(u, np.uint32(3))),
                  f32(2), i32(2), np.zeros(2, np.uint32))
  # CHECK-LABEL: TEST: comparison_types
  # CHECK: stablehlo.compare GT, %arg0, %{{.*}}, FLOAT
  # CHECK: stablehlo.compare LE, %arg1, %{{.*}}, SIGNED
  # CHECK: stablehlo.compare LT, %arg2, %{{.*}}, UNSIGNED


@run
def select_and_convert():
  print_stablehlo(lambda p, x, y: lax.convert_element_type(lax.select_n(p, x, y), np.int32),
                  np.zeros(3, bool), f32(3), f32(3))
  # CHECK-LABEL: TEST: select_and_convert
  # CHECK: %[[S:.*]] = stablehlo.select %arg0, %arg2, %arg1 : tensor<3xi1>, tensor<3xf32>
  # CHECK: stablehlo.convert %[[S]] : (tensor<3xf32>) -> tensor<3xi32>


@run
def integer_pow_is_a_multiply_chain():
  print_stablehlo(lambda x: lax.integer_pow(x, 3), f32(2))
  # CHECK-LABEL: TEST: integer_pow_is_a_multiply_chain
  # CHECK: stablehlo.multiply
  # CHECK: stablehlo.multiply
  # CHECK-NOT: stablehlo.power
