# RUN: %PYTHON %s | FileCheck %s
# `as_text(debug_info="inline")`: each op's location printed in full on its own line, so one
# CHECK line checks an op, its name stack and the user's line that staged it.
import stablejax as sj
import stablejax.numpy as jnp
from lit_util import f32, run


def loss(x, y):
  z = jnp.sin(x) * y
  return jnp.sum(z)


def print_inline(fn, *args):
  print(sj.jit(fn).lower(*args).as_text(debug_info="inline"), flush=True)


@run
def grad_inline():
  print_inline(sj.grad(loss), f32(3), f32(3))
  # CHECK-LABEL: TEST: grad_inline
  # CHECK: func.func public @main(%arg0: tensor<3xf32> loc("x"), %arg1: tensor<3xf32> loc("y"))
  # CHECK: stablehlo.cosine %arg0 : tensor<3xf32> loc("jit(loss)/jvp()/cos"(callsite("loss"("{{.*}}locations_inline.py":10:6 to :16) at
  # CHECK: stablehlo.multiply %{{.*}}, %arg1 : tensor<3xf32> loc("jit(loss)/transpose(jvp())/mul"(callsite("loss"("{{.*}}locations_inline.py":10:6 to :20) at
  # CHECK-NOT: #loc


@run
def vmap_inline():
  print_inline(sj.vmap(loss), f32(2, 3), f32(2, 3))
  # CHECK-LABEL: TEST: vmap_inline
  # CHECK: stablehlo.sine %arg0 : tensor<2x3xf32> loc("jit(loss)/vmap()/sin"(callsite("loss"("{{.*}}locations_inline.py":10:6 to :16) at
  # CHECK: stablehlo.reduce{{.*}} loc("jit(loss)/vmap()/reduce_sum"(callsite("loss"("{{.*}}locations_inline.py":11:9 to :19) at
