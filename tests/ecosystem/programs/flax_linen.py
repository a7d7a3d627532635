"""flax.linen: a small CNN trained with optax, and a transformer stack (`nn.scan` over
`nn.remat` blocks with self-attention, BatchNorm and Dropout) trained with its batch statistics
and dropout keys; prints the losses and final parameters as JSON, and writes the transformer's
lowered training step to the path given as the first argument."""
import json
import sys

import flax.linen as nn
import jax
import jax.numpy as jnp
import optax


class CNN(nn.Module):
  @nn.compact
  def __call__(self, x):
    x = nn.relu(nn.Conv(8, (3, 3))(x))
    x = nn.avg_pool(x, (2, 2), strides=(2, 2))
    x = nn.relu(nn.Conv(8, (3, 3), padding="VALID")(x))
    return nn.Dense(4)(x.reshape(x.shape[0], -1))


class Block(nn.Module):
  train: bool

  @nn.compact
  def __call__(self, x, _):
    h = nn.SelfAttention(num_heads=2, qkv_features=16, deterministic=True)(nn.LayerNorm()(x))
    x = x + nn.Dropout(0.1, deterministic=not self.train)(h)
    h = nn.Dense(16)(nn.BatchNorm(use_running_average=not self.train)(x))
    return x + nn.Dense(x.shape[-1])(nn.gelu(h)), None


class Transformer(nn.Module):
  train: bool = True

  @nn.compact
  def __call__(self, x):
    stack = nn.scan(nn.remat(Block), variable_axes={"params": 0, "batch_stats": 0},
                    split_rngs={"params": True, "dropout": True}, length=2)
    x, _ = stack(self.train)(x, None)
    return nn.Dense(1)(x.mean(axis=1))


def train_cnn(steps=5):
  kx, kp = jax.random.split(jax.random.PRNGKey(0))
  x = jax.random.normal(kx, (8, 8, 8, 1))
  y = jnp.arange(8) % 4
  model = CNN()
  params = model.init(kp, x)
  tx = optax.adam(1e-2)
  state = tx.init(params)

  @jax.jit
  def step(params, state):
    def loss_fn(p):
      return optax.softmax_cross_entropy_with_integer_labels(model.apply(p, x), y).mean()
    loss, grads = jax.value_and_grad(loss_fn)(params)
    updates, state = tx.update(grads, state, params)
    return optax.apply_updates(params, updates), state, loss

  losses = []
  for _ in range(steps):
    params, state, loss = step(params, state)
    losses.append(float(loss))
  return losses, params


def train_transformer(steps=4):
  kx, kp, kd = jax.random.split(jax.random.PRNGKey(1), 3)
  x = jax.random.normal(kx, (4, 6, 8))
  y = jnp.sin(x.sum(axis=(1, 2)))[:, None]
  model = Transformer()
  variables = model.init({"params": kp, "dropout": kd}, x)
  params, batch_stats = variables["params"], variables["batch_stats"]
  tx = optax.sgd(1e-2, momentum=0.9)
  opt_state = tx.init(params)

  @jax.jit
  def step(params, batch_stats, opt_state, key):
    def loss_fn(p):
      out, updates = model.apply({"params": p, "batch_stats": batch_stats}, x,
                                 rngs={"dropout": key}, mutable=["batch_stats"])
      return jnp.mean((out - y) ** 2), updates["batch_stats"]
    (loss, batch_stats), grads = jax.value_and_grad(loss_fn, has_aux=True)(params)
    updates, opt_state = tx.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), batch_stats, opt_state, loss

  losses = []
  for i in range(steps):
    args = (params, batch_stats, opt_state, jax.random.fold_in(kd, i))
    params, batch_stats, opt_state, loss = step(*args)
    losses.append(float(loss))
  evaluated = Transformer(train=False).apply({"params": params, "batch_stats": batch_stats}, x)
  return losses, params, batch_stats, evaluated, step.lower(*args).as_text()


cnn_losses, cnn_params = train_cnn()
tf_losses, tf_params, tf_stats, tf_eval, text = train_transformer()
with open(sys.argv[1], "w") as f:
  f.write(text)
leaves = jax.tree_util.tree_leaves
print(json.dumps({
    "cnn_losses": cnn_losses, "cnn_params": [p.tolist() for p in leaves(cnn_params)],
    "transformer_losses": tf_losses,
    "transformer_params": [p.tolist() for p in leaves(tf_params)],
    "transformer_batch_stats": [p.tolist() for p in leaves(tf_stats)],
    "transformer_eval": tf_eval.tolist(),
}))
