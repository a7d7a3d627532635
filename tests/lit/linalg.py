# RUN: %PYTHON %s | FileCheck %s
# Linear algebra: LAPACK's typed-FFI targets on the CPU (as JAX calls them: column-major
# matrices, the info result turned into NaNs), StableHLO's own ops for other platforms.
import numpy as np

import stablejax as sj
from stablejax import lax
from lit_util import f32, run


def print_for(platform, fn, *args):
  print(sj.jit(fn).lower(*args, platform=platform).as_text(), flush=True)


@run
def cholesky_cpu():
  print_for("cpu", lambda x: lax.linalg.cholesky(x, symmetrize_input=False), f32(4, 3, 3))
  # CHECK-LABEL: TEST: cholesky_cpu
  # CHECK: %[[R:.*]]:2 = stablehlo.custom_call @lapack_spotrf_ffi(%arg0) {backend_config = "", mhlo.backend_config = {uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<0> : tensor<1xindex>]} : (tensor<4x3x3xf32>) -> (tensor<4x3x3xf32>, tensor<4xi32>)
  # CHECK: %[[OK:.*]] = stablehlo.compare EQ, %[[R]]#1, %{{.*}}, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  # CHECK: stablehlo.broadcast_in_dim %[[OK]], dims = [0] : (tensor<4xi1>) -> tensor<4x1x1xi1>
  # CHECK: stablehlo.constant dense<0x7FC00000> : tensor<f32>
  # CHECK: stablehlo.select %{{.*}}, %[[R]]#0, %{{.*}} : tensor<4x3x3xi1>, tensor<4x3x3xf32>


@run
def cholesky_cuda():
  print_for("cuda", lambda x: lax.linalg.cholesky(x, symmetrize_input=False), f32(3, 3))
  # CHECK-LABEL: TEST: cholesky_cuda
  # CHECK: %[[R:.*]]:2 = stablehlo.custom_call @cusolver_potrf_ffi(%arg0) {backend_config = "", mhlo.backend_config = {lower = true}, mhlo.frontend_attributes = {num_batch_dims = "0"}
  # CHECK: stablehlo.compare EQ, %[[R]]#1


@run
def cholesky_tpu():
  print_for("tpu", lambda x: lax.linalg.cholesky(x, symmetrize_input=False), f32(3, 3))
  # CHECK-LABEL: TEST: cholesky_tpu
  # CHECK-NOT: custom_call
  # CHECK: stablehlo.cholesky %arg0, lower = true : tensor<3x3xf32>


@run
def triangular_solve_cpu():
  print_for("cpu", lambda a, b: lax.linalg.triangular_solve(a, b, left_side=True, lower=True,
                                                            transpose_a=True), f32(3, 3), f32(3, 2))
  # CHECK-LABEL: TEST: triangular_solve_cpu
  # CHECK: stablehlo.custom_call @lapack_strsm_ffi(%arg0, %arg1) {backend_config = "", mhlo.backend_config = {diag = 78 : ui8, side = 76 : ui8, trans_x = 84 : ui8, uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 1, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>]} : (tensor<3x3xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>


@run
def triangular_solve_conjugate_cpu():
  c64 = np.zeros((2, 2), np.complex64)
  print_for("cpu", lambda a, b: lax.linalg.triangular_solve(a, b, conjugate_a=True), c64, c64)
  # CHECK-LABEL: TEST: triangular_solve_conjugate_cpu
  # CHECK: %[[A:.*]] = chlo.conj %arg0 : tensor<2x2xcomplex<f32>> -> tensor<2x2xcomplex<f32>>
  # CHECK: stablehlo.custom_call @lapack_ctrsm_ffi(%[[A]], %arg1) {{.*}}trans_x = 78 : ui8


@run
def triangular_solve_cuda():
  print_for("cuda", lambda a, b: lax.linalg.triangular_solve(a, b, lower=True, transpose_a=True,
                                                             unit_diagonal=True),
            f32(3, 3), f32(2, 3))
  # CHECK-LABEL: TEST: triangular_solve_cuda
  # CHECK: "stablehlo.triangular_solve"(%arg0, %arg1) <{left_side = false, lower = true, transpose_a = #stablehlo<transpose TRANSPOSE>, unit_diagonal = true}> : (tensor<3x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
