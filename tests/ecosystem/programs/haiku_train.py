"""dm-haiku: an MLP with BatchNorm (transform_with_state) trained with optax, an LSTM unrolled
over a sequence with a rematerialised cell, and hk.vmap; prints losses, parameters and
outputs as JSON and writes the lowered training step to the path given as the first argument."""
import json
import sys

import haiku as hk
import jax
import jax.numpy as jnp
import optax


def mlp(x, is_training):
  x = hk.Linear(16)(x)
  x = hk.BatchNorm(create_scale=True, create_offset=True, decay_rate=0.9)(x, is_training)
  return hk.Linear(1)(jax.nn.relu(x))


def lstm_model(xs):
  core = hk.LSTM(8)
  outs, _ = hk.dynamic_unroll(hk.remat(core), xs, core.initial_state(xs.shape[1]))
  return hk.Linear(1)(outs[-1])


def per_example(x):
  return hk.vmap(lambda v: hk.Linear(3)(v), split_rng=False)(x)


key = jax.random.PRNGKey(42)
x = jax.random.normal(key, (32, 4))
y = jnp.sum(x ** 2, axis=1, keepdims=True)

model = hk.transform_with_state(mlp)
params, state = model.init(key, x, is_training=True)
optimizer = optax.sgd(1e-2, momentum=0.9)
opt_state = optimizer.init(params)


def loss_fn(params, state, x, y):
  pred, state = model.apply(params, state, None, x, is_training=True)
  return jnp.mean((pred - y) ** 2), state


@jax.jit
def step(params, state, opt_state):
  (loss, state), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, state, x, y)
  updates, opt_state = optimizer.update(grads, opt_state, params)
  return optax.apply_updates(params, updates), state, opt_state, loss


losses = []
for _ in range(10):
  params, state, opt_state, loss = step(params, state, opt_state)
  losses.append(float(loss))
with open(sys.argv[1], "w") as f:
  f.write(step.lower(params, state, opt_state).as_text())

lstm = hk.transform(lstm_model)
xs = jax.random.normal(jax.random.PRNGKey(1), (5, 3, 2))  # time, batch, features
lstm_params = lstm.init(key, xs)
lstm_out = jax.jit(lstm.apply)(lstm_params, None, xs)
lstm_grad = jax.grad(lambda p: jnp.sum(lstm.apply(p, None, xs)))(lstm_params)

vm = hk.transform(per_example)
vm_params = vm.init(key, x[:4])
print(json.dumps({
    "losses": losses,
    "params": [p.tolist() for p in jax.tree_util.tree_leaves(params)],
    "state": [s.tolist() for s in jax.tree_util.tree_leaves(state)],
    "lstm_params": [p.tolist() for p in jax.tree_util.tree_leaves(lstm_params)],
    "lstm_out": lstm_out.tolist(),
    "lstm_grad": [g.tolist() for g in jax.tree_util.tree_leaves(lstm_grad)],
    "vmap_out": vm.apply(vm_params, None, x[:4]).tolist(),
}))
