# RUN: %PYTHON %s | FileCheck %s
# ffi_call: a typed-FFI custom call (lowering needs no registered kernel, only compiling does).
import numpy as np

import stablejax as sj
from lit_util import f32, print_stablehlo, run


@run
def typed_ffi_attributes():
  call = sj.ffi.ffi_call("my_kernel", sj.ShapeDtypeStruct((2, 3), np.float32))
  print_stablehlo(lambda x: call(x, alpha=np.float32(2), n=3, eps=0.5, mode="fast", on=True,
                                 weights=np.arange(3, dtype=np.float32)), f32(2, 3))
  # CHECK-LABEL: TEST: typed_ffi_attributes
  # CHECK: stablehlo.custom_call @my_kernel(%arg0)
  # CHECK-SAME: backend_config = ""
  # CHECK-SAME: mhlo.backend_config = {alpha = 2.000000e+00 : f32, eps = 5.000000e-01 : f64, mode = "fast", n = 3 : i64, on = true, weights = dense<[0.000000e+00, 1.000000e+00, 2.000000e+00]> : tensor<3xf32>}
  # CHECK-SAME: operand_layouts = [dense<[1, 0]> : tensor<2xindex>]
  # CHECK-SAME: result_layouts = [dense<[1, 0]> : tensor<2xindex>]
  # CHECK-SAME: (tensor<2x3xf32>) -> tensor<2x3xf32>


@run
def two_results_and_alias():
  call = sj.ffi.ffi_call("pair_kernel", [sj.ShapeDtypeStruct((4,), np.float32),
                                         sj.ShapeDtypeStruct((), np.int32)],
                         input_output_aliases={0: 0})
  print_stablehlo(lambda x: call(x)[1], f32(4))
  # CHECK-LABEL: TEST: two_results_and_alias
  # CHECK: %[[R:.*]]:2 = stablehlo.custom_call @pair_kernel(%arg0)
  # CHECK-SAME: output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>]
  # CHECK-SAME: (tensor<4xf32>) -> (tensor<4xf32>, tensor<i32>)
  # CHECK: return %[[R]]#1 : tensor<i32>


@run
def side_effect_kept_unused():
  tick = sj.ffi.ffi_call("tick", sj.ShapeDtypeStruct((), np.float32), has_side_effect=True)
  pure = sj.ffi.ffi_call("pure", sj.ShapeDtypeStruct((), np.float32))

  def f(x):
    tick(x)
    pure(x)
    return x + 1
  print_stablehlo(f, f32())
  # CHECK-LABEL: TEST: side_effect_kept_unused
  # CHECK-NOT: @pure
  # CHECK: stablehlo.custom_call @tick(%arg0)
  # CHECK-SAME: has_side_effect = true
  # CHECK-NOT: @pure
  # CHECK: stablehlo.add
