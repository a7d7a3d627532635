# RUN: %PYTHON %s | FileCheck %s
# Debug locations: `file:line:col` of the user's call, the call-site chain and JAX's name stack
# (`jit(f)/jvp()/op`, `transpose(jvp())` at the primal op's line, `vmap()`).
import stablejax as sj
import stablejax.numpy as jnp
from lit_util import f32, run


def loss(x, y):
  z = jnp.sin(x) * y
  return jnp.sum(z)


def print_debug(fn, *args):
  print(sj.jit(fn).lower(*args).as_text(debug_info=True), flush=True)


@run
def grad_locations():
  print_debug(sj.grad(loss), f32(3), f32(3))
  # CHECK-LABEL: TEST: grad_locations
  # CHECK: -> (tensor<3xf32> {jax.result_info = "result"})
  # CHECK: stablehlo.cosine %arg0 : tensor<3xf32> loc([[COS:#loc[0-9]+]])
  # CHECK: stablehlo.multiply %{{.*}}, %arg1 : tensor<3xf32> loc([[MUL_T:#loc[0-9]+]])
  # CHECK-DAG: [[SIN_POS:#loc[0-9]+]] = loc("{{.*}}locations.py":10:6 to :16)
  # CHECK-DAG: [[MUL_POS:#loc[0-9]+]] = loc("{{.*}}locations.py":10:6 to :20)
  # CHECK-DAG: [[SIN_FRAME:#loc[0-9]+]] = loc("loss"([[SIN_POS]]))
  # CHECK-DAG: [[MUL_FRAME:#loc[0-9]+]] = loc("loss"([[MUL_POS]]))
  # CHECK-DAG: [[SIN_CHAIN:#loc[0-9]+]] = loc(callsite([[SIN_FRAME]] at
  # CHECK-DAG: [[MUL_CHAIN:#loc[0-9]+]] = loc(callsite([[MUL_FRAME]] at
  # CHECK-DAG: [[COS]] = loc("jit(loss)/jvp()/cos"([[SIN_CHAIN]]))
  # CHECK-DAG: [[MUL_T]] = loc("jit(loss)/transpose(jvp())/mul"([[MUL_CHAIN]]))


@run
def vmap_locations():
  print_debug(sj.vmap(loss), f32(2, 3), f32(2, 3))
  # CHECK-LABEL: TEST: vmap_locations
  # CHECK: stablehlo.sine %arg0 : tensor<2x3xf32> loc([[SIN:#loc[0-9]+]])
  # CHECK: stablehlo.reduce{{.*}} loc([[SUM:#loc[0-9]+]])
  # CHECK-DAG: [[SIN_POS:#loc[0-9]+]] = loc("{{.*}}locations.py":10:6 to :16)
  # CHECK-DAG: [[SUM_POS:#loc[0-9]+]] = loc("{{.*}}locations.py":11:9 to :19)
  # CHECK-DAG: [[SIN_FRAME:#loc[0-9]+]] = loc("loss"([[SIN_POS]]))
  # CHECK-DAG: [[SUM_FRAME:#loc[0-9]+]] = loc("loss"([[SUM_POS]]))
  # CHECK-DAG: [[SIN_CHAIN:#loc[0-9]+]] = loc(callsite([[SIN_FRAME]] at
  # CHECK-DAG: [[SUM_CHAIN:#loc[0-9]+]] = loc(callsite([[SUM_FRAME]] at
  # CHECK-DAG: [[SIN]] = loc("jit(loss)/vmap()/sin"([[SIN_CHAIN]]))
  # CHECK-DAG: [[SUM]] = loc("jit(loss)/vmap()/reduce_sum"([[SUM_CHAIN]]))
