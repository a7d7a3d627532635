# RUN: %PYTHON %s | FileCheck %s
# LU and QR: LAPACK's getrf/geqrf/orgqr typed-FFI targets on the CPU and cuSOLVER's for cuda, as
# JAX calls them (column-major matrices, 0-based pivots, NaNs only for a bad-argument info).
import numpy as np

import stablejax as sj
from stablejax import lax
from lit_util import f32, i32, run


def print_for(platform, fn, *args):
  print(sj.jit(fn).lower(*args, platform=platform).as_text(), flush=True)


@run
def lu_cpu():
  print_for("cpu", lax.linalg.lu, f32(2, 4, 3))
  # CHECK-LABEL: TEST: lu_cpu
  # CHECK: %[[R:.*]]:3 = stablehlo.custom_call @lapack_sgetrf_ffi(%arg0) {backend_config = "", mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<0> : tensor<1xindex>]} : (tensor<2x4x3xf32>) -> (tensor<2x4x3xf32>, tensor<2x3xi32>, tensor<2xi32>)
  # CHECK: %[[P:.*]] = stablehlo.subtract %[[R]]#1, %{{.*}} : tensor<2x3xi32>
  # CHECK: stablehlo.while
  # CHECK: stablehlo.compare GE, %[[R]]#2, %{{.*}}, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
  # CHECK: stablehlo.select %{{.*}}, %[[R]]#0, %{{.*}} : tensor<2x4x3xi1>, tensor<2x4x3xf32>
  # CHECK: return %{{.*}}, %[[P]], %{{.*}} : tensor<2x4x3xf32>, tensor<2x3xi32>, tensor<2x4xi32>


@run
def lu_cuda():
  print_for("cuda", lax.linalg.lu, f32(2, 3, 3))
  # CHECK-LABEL: TEST: lu_cuda
  # CHECK: %[[R:.*]]:3 = stablehlo.custom_call @cusolver_getrf_ffi(%arg0) {backend_config = "", mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<0> : tensor<1xindex>]} : (tensor<2x3x3xf32>) -> (tensor<2x3x3xf32>, tensor<2x3xi32>, tensor<2xi32>)
  # CHECK: %[[P:.*]] = stablehlo.subtract %[[R]]#1, %{{.*}} : tensor<2x3xi32>
  # CHECK: stablehlo.custom_call @cu_lu_pivots_to_permutation(%[[P]]) {backend_config = "", mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 0]> : tensor<2xindex>], result_layouts = [dense<[1, 0]> : tensor<2xindex>]} : (tensor<2x3xi32>) -> tensor<2x3xi32>
  # CHECK-NOT: stablehlo.while
  # CHECK: stablehlo.compare GE, %[[R]]#2


@run
def lu_pivots_to_permutation_cpu():
  print_for("cpu", lambda p: lax.linalg.lu_pivots_to_permutation(p, 4), i32(2, 3))
  # CHECK-LABEL: TEST: lu_pivots_to_permutation_cpu
  # CHECK: stablehlo.iota dim = 1 : tensor<2x4xi32>
  # CHECK: stablehlo.while
  # CHECK-NOT: custom_call
  # CHECK: return %{{.*}} : tensor<2x4xi32>


@run
def qr_cpu():
  print_for("cpu", lax.linalg.qr, f32(4, 3))
  # CHECK-LABEL: TEST: qr_cpu
  # CHECK: %[[R:.*]]:2 = stablehlo.custom_call @lapack_sgeqrf_ffi(%arg0) {backend_config = "", mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>]} : (tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<3xf32>)
  # CHECK: %[[A:.*]] = stablehlo.pad %[[R]]#0, %{{.*}}, low = [0, 0], high = [0, 1], interior = [0, 0] : (tensor<4x3xf32>, tensor<f32>) -> tensor<4x4xf32>
  # CHECK: stablehlo.custom_call @lapack_sorgqr_ffi(%[[A]], %[[R]]#1) {backend_config = "", mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>]} : (tensor<4x4xf32>, tensor<3xf32>) -> tensor<4x4xf32>


@run
def qr_complex_reduced_cpu():
  print_for("cpu", lambda x: lax.linalg.qr(x, full_matrices=False),
            np.zeros((2, 4, 3), np.complex64))
  # CHECK-LABEL: TEST: qr_complex_reduced_cpu
  # CHECK: %[[R:.*]]:2 = stablehlo.custom_call @lapack_cgeqrf_ffi(%arg0)
  # CHECK-NOT: stablehlo.pad
  # CHECK: stablehlo.custom_call @lapack_cungqr_ffi(%[[R]]#0, %[[R]]#1) {{.*}} : (tensor<2x4x3xcomplex<f32>>, tensor<2x3xcomplex<f32>>) -> tensor<2x4x3xcomplex<f32>>


@run
def qr_cuda():
  print_for("cuda", lax.linalg.qr, f32(2, 3, 3))
  # CHECK-LABEL: TEST: qr_cuda
  # CHECK: %[[R:.*]]:2 = stablehlo.custom_call @cusolver_geqrf_ffi(%arg0) {backend_config = "", mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>]} : (tensor<2x3x3xf32>) -> (tensor<2x3x3xf32>, tensor<2x3xf32>)
  # CHECK: stablehlo.custom_call @cusolver_orgqr_ffi(%{{.*}}, %[[R]]#1) {backend_config = "", mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>]} : (tensor<2x3x3xf32>, tensor<2x3xf32>) -> tensor<2x3x3xf32>
