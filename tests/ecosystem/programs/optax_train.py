"""optax: a small MLP regression trained with adam, then adamw with global-norm clipping and a
warmup-cosine schedule; prints the losses and final parameters as JSON, and writes the lowered
training step to the path given as the first argument."""
import json
import sys

import jax
import jax.numpy as jnp
import optax


def init(key, sizes):
  params = []
  for n_in, n_out in zip(sizes[:-1], sizes[1:]):
    key, k = jax.random.split(key)
    params.append((jax.random.normal(k, (n_in, n_out)) / jnp.sqrt(n_in), jnp.zeros(n_out)))
  return params


def loss_fn(params, x, y):
  for w, b in params[:-1]:
    x = jnp.tanh(x @ w + b)
  w, b = params[-1]
  return jnp.mean((x @ w + b - y) ** 2)


def train(optimizer, steps=20):
  key = jax.random.PRNGKey(0)
  kx, kp = jax.random.split(key)
  x = jax.random.normal(kx, (64, 4))
  y = jnp.sin(x.sum(axis=1, keepdims=True))
  params = init(kp, [4, 16, 1])
  state = optimizer.init(params)

  @jax.jit
  def step(params, state):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    updates, state = optimizer.update(grads, state, params)
    return optax.apply_updates(params, updates), state, loss

  losses = []
  for _ in range(steps):
    params, state, loss = step(params, state)
    losses.append(float(loss))
  return losses, params, step.lower(params, state).as_text()


schedule = optax.warmup_cosine_decay_schedule(0.0, 1e-2, warmup_steps=5, decay_steps=20)
adam_losses, adam_params, _ = train(optax.adam(1e-2))
adamw_losses, adamw_params, text = train(
    optax.chain(optax.clip_by_global_norm(1.0), optax.adamw(schedule, weight_decay=1e-3)))
with open(sys.argv[1], "w") as f:
  f.write(text)
print(json.dumps({
    "adam_losses": adam_losses, "adamw_losses": adamw_losses,
    "adam_params": [p.tolist() for p in jax.tree_util.tree_leaves(adam_params)],
    "adamw_params": [p.tolist() for p in jax.tree_util.tree_leaves(adamw_params)],
}))
