# RUN: %PYTHON %s | FileCheck %s
# eigh and svd: LAPACK's syevd/heevd and gesdd on the CPU, cuSOLVER's syevd and gesvdj for cuda,
# with the info result turned into NaNs, as JAX emits them.
import numpy as np

import stablejax as sj
from stablejax import lax
from lit_util import f32, run


def print_for(platform, fn, *args):
  print(sj.jit(fn).lower(*args, platform=platform).as_text(), flush=True)


def eigh(x):
  return lax.linalg.eigh(x, symmetrize_input=False)


@run
def eigh_cpu():
  print_for("cpu", eigh, f32(2, 3, 3))
  # CHECK-LABEL: TEST: eigh_cpu
  # CHECK: %[[R:.*]]:3 = stablehlo.custom_call @lapack_ssyevd_ffi(%arg0) {backend_config = "", mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<0> : tensor<1xindex>]} : (tensor<2x3x3xf32>) -> (tensor<2x3x3xf32>, tensor<2x3xf32>, tensor<2xi32>)
  # CHECK: %[[OK:.*]] = stablehlo.compare EQ, %[[R]]#2, %{{.*}}, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
  # CHECK: stablehlo.broadcast_in_dim %[[OK]], dims = [0] : (tensor<2xi1>) -> tensor<2x1x1xi1>
  # CHECK: stablehlo.select %{{.*}}, %[[R]]#0, %{{.*}} : tensor<2x3x3xi1>, tensor<2x3x3xf32>
  # CHECK: stablehlo.broadcast_in_dim %[[OK]], dims = [0] : (tensor<2xi1>) -> tensor<2x1xi1>
  # CHECK: stablehlo.select %{{.*}}, %[[R]]#1, %{{.*}} : tensor<2x3xi1>, tensor<2x3xf32>


@run
def eigh_complex_upper_cpu():
  print_for("cpu", lambda x: lax.linalg.eigh(x, lower=False, symmetrize_input=False),
            np.zeros((3, 3), np.complex64))
  # CHECK-LABEL: TEST: eigh_complex_upper_cpu
  # CHECK: stablehlo.custom_call @lapack_cheevd_ffi(%arg0) {{.*}}mhlo.backend_config = {mode = 86 : ui8, uplo = 85 : ui8}
  # CHECK-SAME: -> (tensor<3x3xcomplex<f32>>, tensor<3xf32>, tensor<i32>)
  # CHECK: stablehlo.constant dense<(0x7FC00000,0x7FC00000)> : tensor<complex<f32>>


@run
def eigh_cuda():
  print_for("cuda", eigh, f32(2, 3, 3))
  # CHECK-LABEL: TEST: eigh_cuda
  # CHECK: stablehlo.custom_call @cusolver_syevd_ffi(%arg0) {backend_config = "", mhlo.backend_config = {algorithm = 0 : ui8, lower = true}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>]
  # CHECK-SAME: -> (tensor<2x3x3xf32>, tensor<2x3xf32>, tensor<2xi32>)


@run
def svd_cpu():
  print_for("cpu", lax.linalg.svd, f32(2, 4, 3))
  # CHECK-LABEL: TEST: svd_cpu
  # CHECK: %[[R:.*]]:5 = stablehlo.custom_call @lapack_sgesdd_ffi(%arg0) {backend_config = "", mhlo.backend_config = {mode = 65 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 2, 0]> : tensor<3xindex>, dense<0> : tensor<1xindex>]} : (tensor<2x4x3xf32>) -> (tensor<2x4x3xf32>, tensor<2x3xf32>, tensor<2x4x4xf32>, tensor<2x3x3xf32>, tensor<2xi32>)
  # CHECK: stablehlo.compare EQ, %[[R]]#4
  # CHECK: stablehlo.select %{{.*}}, %[[R]]#1, %{{.*}} : tensor<2x3xi1>, tensor<2x3xf32>
  # CHECK: stablehlo.select %{{.*}}, %[[R]]#2, %{{.*}} : tensor<2x4x4xi1>, tensor<2x4x4xf32>
  # CHECK: stablehlo.select %{{.*}}, %[[R]]#3, %{{.*}} : tensor<2x3x3xi1>, tensor<2x3x3xf32>


@run
def svd_values_only_cpu():
  print_for("cpu", lambda x: lax.linalg.svd(x, full_matrices=False, compute_uv=False), f32(4, 3))
  # CHECK-LABEL: TEST: svd_values_only_cpu
  # CHECK: stablehlo.custom_call @lapack_sgesdd_ffi(%arg0) {{.*}}mhlo.backend_config = {mode = 78 : ui8}
  # CHECK-SAME: -> (tensor<4x3xf32>, tensor<3xf32>, tensor<4x3xf32>, tensor<3x3xf32>, tensor<i32>)
  # CHECK-COUNT-1: stablehlo.select


@run
def svd_cuda():
  print_for("cuda", lambda x: lax.linalg.svd(x, full_matrices=False),
            np.zeros((4, 3), np.complex64))
  # CHECK-LABEL: TEST: svd_cuda
  # CHECK: %[[R:.*]]:5 = stablehlo.custom_call @cusolver_gesvdj_ffi(%arg0) {backend_config = "", mhlo.backend_config = {compute_uv = true, full_matrices = true}
  # CHECK-SAME: -> (tensor<4x3xcomplex<f32>>, tensor<3xf32>, tensor<4x4xcomplex<f32>>, tensor<3x3xcomplex<f32>>, tensor<i32>)
  # CHECK: %[[V:.*]] = stablehlo.transpose %[[R]]#3, dims = [1, 0]
  # CHECK: stablehlo.negate
  # CHECK: stablehlo.slice %[[R]]#2 [0:4, 0:3]


@run
def svd_large_cuda():
  print_for("cuda", lambda x: lax.linalg.svd(x, compute_uv=False), f32(2, 1025))
  # CHECK-LABEL: TEST: svd_large_cuda
  # CHECK: stablehlo.custom_call @cusolver_gesvd_ffi(%arg0) {backend_config = "", mhlo.backend_config = {compute_uv = false, full_matrices = true, transposed = true}
  # CHECK-SAME: operand_layouts = [dense<[1, 0]> : tensor<2xindex>]
  # CHECK-SAME: -> (tensor<2x1025xf32>, tensor<2xf32>, tensor<f32>, tensor<f32>, tensor<i32>)
