# RUN: %PYTHON %s | FileCheck %s
# The `iree` lowering platform (lowering only: no IREE needed). Rules registered for it override
# the default there; cholesky and triangular_solve, LAPACK custom calls on the CPU and StableHLO's
# own ops by default (both rejected by IREE), are loops of plain StableHLO for IREE.
import stablejax as sj
from stablejax import core, lax
from stablejax.lowering import hlo, register_lowering
from lit_util import f32, run


def print_for(platform, fn, *args, **kwargs):
  print(sj.jit(fn).lower(*args, platform=platform, **kwargs).as_text(), flush=True)


@run
def cholesky_iree():
  print_for("iree", lambda x: lax.linalg.cholesky(x, symmetrize_input=False), f32(3, 3))
  # CHECK-LABEL: TEST: cholesky_iree
  # CHECK-NOT: custom_call
  # CHECK-NOT: stablehlo.cholesky
  # CHECK: stablehlo.while
  # CHECK: cond {
  # CHECK: stablehlo.compare LT, %iterArg, %{{.*}}, SIGNED
  # CHECK: } do {
  # CHECK: stablehlo.dot_general %iterArg_{{[0-9]+}}, %{{.*}}, contracting_dims = [1] x [0], precision = [HIGHEST, HIGHEST] : (tensor<3x3xf32>, tensor<3x1xf32>) -> tensor<3x1xf32>
  # CHECK: stablehlo.sqrt %{{.*}} : tensor<1x1xf32>
  # CHECK: stablehlo.divide %{{.*}}, %{{.*}} : tensor<3x1xf32>
  # CHECK: stablehlo.select %{{.*}}, %{{.*}}, %iterArg_{{[0-9]+}} : tensor<3x3xi1>, tensor<3x3xf32>
  # CHECK-NOT: custom_call


@run
def cholesky_cpu_and_default():
  print_for("cpu", lambda x: lax.linalg.cholesky(x, symmetrize_input=False), f32(3, 3))
  print_for("tpu", lambda x: lax.linalg.cholesky(x, symmetrize_input=False), f32(3, 3))
  # CHECK-LABEL: TEST: cholesky_cpu_and_default
  # CHECK: stablehlo.custom_call @lapack_spotrf_ffi(%arg0)
  # CHECK: stablehlo.cholesky %arg0, lower = true : tensor<3x3xf32>


@run
def triangular_solve_upper_iree():
  print_for("iree", lambda a, b: lax.linalg.triangular_solve(a, b, left_side=True, lower=False),
            f32(2, 3, 3), f32(2, 3, 4))
  # CHECK-LABEL: TEST: triangular_solve_upper_iree
  # CHECK-NOT: custom_call
  # CHECK: stablehlo.reverse %arg0, dims = [1, 2] : tensor<2x3x3xf32>
  # CHECK: stablehlo.reverse %arg1, dims = [1] : tensor<2x3x4xf32>
  # CHECK: stablehlo.while
  # CHECK: stablehlo.dot_general %{{.*}}, %iterArg_{{[0-9]+}}, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [HIGHEST, HIGHEST] : (tensor<2x1x3xf32>, tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  # CHECK: stablehlo.divide %{{.*}}, %{{.*}} : tensor<2x1x4xf32>
  # CHECK: stablehlo.reverse %{{.*}}, dims = [1] : tensor<2x3x4xf32>
  # CHECK-NOT: triangular_solve


@run
def cpu_and_iree_in_one_module():
  print_for(None, lambda x: lax.linalg.cholesky(x, symmetrize_input=False), f32(3, 3),
            platforms=("cpu", "iree"))
  # CHECK-LABEL: TEST: cpu_and_iree_in_one_module
  # CHECK: func.func public @main(%arg0: tensor<i32> {jax.global_constant = "_platform_index"}, %arg1: tensor<3x3xf32>)
  # CHECK: stablehlo.case
  # CHECK: stablehlo.custom_call @lapack_spotrf_ffi
  # CHECK: stablehlo.while


probe = core.Primitive("iree_probe")
probe.def_abstract_eval(lambda x: x)
register_lowering(probe, lambda ctx, x: [hlo.negate(x)])
register_lowering(probe, lambda ctx, x: [hlo.sine(x)], platform="iree")


@run
def a_rule_registered_for_iree():
  print_for("iree", lambda x: probe.bind(x) * 2, f32(3))
  print_for("cpu", lambda x: probe.bind(x) * 2, f32(3))
  # CHECK-LABEL: TEST: a_rule_registered_for_iree
  # CHECK: %[[S:.*]] = stablehlo.sine %arg0 : tensor<3xf32>
  # CHECK: stablehlo.multiply %[[S]], %{{.*}} : tensor<3xf32>
  # CHECK: %[[N:.*]] = stablehlo.negate %arg0 : tensor<3xf32>
  # CHECK: stablehlo.multiply %[[N]], %{{.*}} : tensor<3xf32>
