"""equinox: an MLP and a BatchNorm model with eqx.nn.State trained with filter_jit /
filter_grad and optax, error_if on a good input, and the checkpointed while_loop with its
gradient; prints losses, parameters and values as JSON and writes the lowered training step to
the path given as the first argument."""
import json
import sys

import equinox as eqx
import jax
import jax.numpy as jnp
import optax

key = jax.random.PRNGKey(0)
k1, k2, k3 = jax.random.split(key, 3)
x = jax.random.normal(k1, (32, 3))
y = jnp.sin(x).sum(axis=1, keepdims=True)


class Net(eqx.Module):
  mlp: eqx.nn.MLP
  norm: eqx.nn.BatchNorm

  def __init__(self, key):
    self.mlp = eqx.nn.MLP(3, 1, width_size=16, depth=2, key=key)
    self.norm = eqx.nn.BatchNorm(3, axis_name="batch", mode="ema")

  def __call__(self, x, state):
    x, state = self.norm(x, state)
    return self.mlp(x), state


model, state = eqx.nn.make_with_state(Net)(k2)
optimizer = optax.adam(1e-2)
opt_state = optimizer.init(eqx.filter(model, eqx.is_array))


def loss_fn(model, state, x, y):
  pred, state = jax.vmap(model, axis_name="batch", in_axes=(0, None), out_axes=(0, None))(x, state)
  return jnp.mean((pred - y) ** 2), state


@eqx.filter_jit
def step(model, state, opt_state):
  (loss, state), grads = eqx.filter_value_and_grad(loss_fn, has_aux=True)(model, state, x, y)
  updates, opt_state = optimizer.update(grads, opt_state, eqx.filter(model, eqx.is_array))
  return eqx.apply_updates(model, updates), state, opt_state, loss


losses = []
for _ in range(10):
  model, state, opt_state, loss = step(model, state, opt_state)
  losses.append(float(loss))

params = eqx.filter(model, eqx.is_array)
with open(sys.argv[1], "w") as f:
  f.write(step.lower(model, state, opt_state).as_text())


@eqx.filter_jit
def checked(x):
  return eqx.error_if(x, x < 0, "negative")


def iterate(x):
  body = lambda carry: (carry[0] + 1, jnp.sin(carry[1]) * 1.1)
  return eqx.internal.while_loop(lambda carry: carry[0] < 5, body, (0, x), max_steps=8,
                                 kind="checkpointed")[1]


grads = eqx.filter_grad(lambda m: loss_fn(m, state, x, y)[0])(model)
print(json.dumps({
    "losses": losses,
    "params": [p.tolist() for p in jax.tree_util.tree_leaves(params)],
    "grads": [g.tolist() for g in jax.tree_util.tree_leaves(eqx.filter(grads, eqx.is_array))],
    "checked": checked(jnp.arange(3.)).tolist(),
    "while": iterate(jnp.float32(0.3)).tolist(),
    "while_grad": jax.grad(iterate)(jnp.float32(0.3)).tolist(),
}))
