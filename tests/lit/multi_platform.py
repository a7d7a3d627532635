# RUN: %PYTHON %s | FileCheck %s
# A module for several platforms: @main takes the platform index first, and an equation whose
# rule differs per platform becomes a stablehlo.case on it (one branch per distinct rule).
import numpy as np

import stablejax as sj
from stablejax import core
from stablejax.lowering import hlo, register_lowering
from lit_util import f32, run

per_platform = core.Primitive("lit_per_platform")
per_platform.def_abstract_eval(lambda x: x)
register_lowering(per_platform, lambda ctx, x: hlo.sine(x))
register_lowering(per_platform, lambda ctx, x: hlo.cosine(x), platform="cuda")


def print_for(fn, platforms, *args):
  print(sj.jit(fn).lower(*args, platforms=platforms).as_text(), flush=True)


@run
def case_on_platform_index():
  print_for(lambda x: per_platform.bind(x) * 2.0, ("cpu", "cuda"), f32(3))
  # CHECK-LABEL: TEST: case_on_platform_index
  # CHECK: func.func public @main(%arg0: tensor<i32> {jax.global_constant = "_platform_index"}, %arg1: tensor<3xf32>) -> tensor<3xf32>
  # CHECK: %[[R:.*]] = "stablehlo.case"(%arg0) ({
  # CHECK: stablehlo.sine %arg1
  # CHECK: }, {
  # CHECK: stablehlo.cosine %arg1
  # CHECK: }) : (tensor<i32>) -> tensor<3xf32>
  # CHECK: stablehlo.multiply %[[R]]


@run
def rule_index_from_platform_index():
  print_for(per_platform.bind, ("cuda", "tpu", "rocm"), f32())
  # CHECK-LABEL: TEST: rule_index_from_platform_index
  # CHECK: %[[I:.*]] = "stablehlo.case"(%arg0) ({
  # CHECK: stablehlo.constant dense<0> : tensor<i32>
  # CHECK: stablehlo.constant dense<1> : tensor<i32>
  # CHECK: stablehlo.constant dense<1> : tensor<i32>
  # CHECK: }) : (tensor<i32>) -> tensor<i32>
  # CHECK: "stablehlo.case"(%[[I]]) ({
  # CHECK: stablehlo.cosine
  # CHECK: stablehlo.sine


@run
def same_rule_everywhere_has_no_case():
  print_for(lambda x: x + np.float32(1), ("cpu", "cuda"), f32())
  # CHECK-LABEL: TEST: same_rule_everywhere_has_no_case
  # CHECK: func.func public @main(%arg0: tensor<i32> {jax.global_constant = "_platform_index"}, %arg1: tensor<f32>)
  # CHECK-NOT: stablehlo.case
  # CHECK: stablehlo.add %arg1
