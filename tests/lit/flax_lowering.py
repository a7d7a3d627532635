# REQUIRES: flax-on-stablejax
# RUN: %PYTHON %S/../../examples/flax_lowering.py | FileCheck %s
# The example's Flax transformer step (through `install_as_jax`): arguments named by their
# pytree paths, Flax's module scopes in the name stack (as JAX's), the backward pass under
# `transpose(jvp(Block))`, and the user's source line on the loss (examples/flax_lowering.py:34).

# CHECK-LABEL: func.func public @main(
# CHECK-SAME: loc("params['params']['SelfAttention_0']['query']['kernel']")
# CHECK-SAME: %arg{{[0-9]+}}: tensor<2x4x8xf32> loc("x")
# CHECK: stablehlo.dot_general {{.*}} -> tensor<2x4x2x4xf32> loc([[QUERY:#loc[0-9]+]])
# CHECK: stablehlo.multiply [[Y:%[0-9]+]], [[Y]] : tensor<2x4x8xf32> loc([[POW:#loc[0-9]+]])
# CHECK-DAG: [[POW_POS:#loc[0-9]+]] = loc("{{.*}}flax_lowering.py":34:20 to :26)
# CHECK-DAG: [[POW_FRAME:#loc[0-9]+]] = loc("train_step.<locals>.loss_fn"([[POW_POS]]))
# CHECK-DAG: [[POW_CHAIN:#loc[0-9]+]] = loc(callsite([[POW_FRAME]] at
# CHECK-DAG: [[POW]] = loc("jit(train_step)/jvp()/integer_pow"([[POW_CHAIN]]))
# CHECK-DAG: [[QUERY]] = loc("jit(train_step)/jvp(Block)/SelfAttention_0/SelfAttention_0/query/dot_general"(
# CHECK-DAG: loc("jit(train_step)/transpose(jvp(Block))/SelfAttention_0/SelfAttention_0/query/dot_general"(
