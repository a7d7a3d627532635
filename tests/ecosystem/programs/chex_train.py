"""chex: a chex.dataclass state through jit and tree maps, shape/type/tree asserts under jit,
chexify'd value asserts (a passing one and a failing one), trained a few steps; prints the
results as JSON and writes the lowered step to the path given as the first argument."""
import json
import sys

import chex
import jax
import jax.numpy as jnp


@chex.dataclass
class State:
  w: jnp.ndarray
  b: jnp.ndarray
  step: jnp.ndarray


x = jnp.linspace(-1.0, 1.0, 16).reshape(8, 2)
y = x @ jnp.array([[2.0], [-1.0]]) + 0.5


def loss_fn(w, b):
  return jnp.mean((x @ w + b - y) ** 2)


@jax.jit
def step(state):
  chex.assert_shape(state.w, (2, 1))
  chex.assert_type(state.b, float)
  chex.assert_rank(x, 2)
  loss, (gw, gb) = jax.value_and_grad(loss_fn, argnums=(0, 1))(state.w, state.b)
  chex.assert_trees_all_equal_shapes((gw, gb), (state.w, state.b))
  return state.replace(w=state.w - 0.1 * gw, b=state.b - 0.1 * gb, step=state.step + 1), loss


state = State(w=jnp.zeros((2, 1)), b=jnp.zeros(1), step=jnp.array(0))
losses = []
for _ in range(10):
  state, loss = step(state)
  losses.append(float(loss))
with open(sys.argv[1], "w") as f:
  f.write(step.lower(state).as_text())


@chex.chexify
@jax.jit
def positive_log(v):
  chex.assert_tree_all_finite(v)
  return jnp.log(v)


caught = ""
try:
  positive_log(jnp.array([1.0, jnp.inf]))
  chex.block_until_chexify_assertions_complete()  # (the checks run asynchronously)
except AssertionError as e:
  caught = type(e).__name__
print(json.dumps({
    "losses": losses, "w": state.w.tolist(), "b": state.b.tolist(), "step": int(state.step),
    "log": positive_log(jnp.array([1.0, 2.0])).tolist(), "caught": [caught == "AssertionError"],
}))
