"""flax.nnx: an MLP with Dropout and BatchNorm built from `nnx.Rngs`, trained with
`nnx.Optimizer` (optax adamw) in an `nnx.jit` step; and a Conv followed by a stack of layers
made by `nnx.split_rngs` + `nnx.vmap` and run by `nnx.scan`, trained the same way (optax sgd).
Prints the losses, final parameters and batch statistics as JSON, and writes the lowered
training step (the same step as a pure function of the split graph state) to the path given as
the first argument."""
import json
import sys

import jax
import jax.numpy as jnp
import optax
from flax import nnx


class MLP(nnx.Module):
  def __init__(self, rngs: nnx.Rngs):
    self.linear1 = nnx.Linear(4, 16, rngs=rngs)
    self.norm = nnx.BatchNorm(16, rngs=rngs)
    self.dropout = nnx.Dropout(0.2, rngs=rngs)
    self.linear2 = nnx.Linear(16, 1, rngs=rngs)

  def __call__(self, x):
    return self.linear2(self.dropout(nnx.relu(self.norm(self.linear1(x)))))


def loss_fn(model, x, y):
  return jnp.mean((model(x) - y) ** 2)


@nnx.jit
def train_step(model, optimizer, x, y):
  loss, grads = nnx.value_and_grad(loss_fn)(model, x, y)
  optimizer.update(model, grads)
  return loss


kx, _ = jax.random.split(jax.random.PRNGKey(0))
x = jax.random.normal(kx, (32, 4))
y = jnp.cos(x.sum(axis=1, keepdims=True))
model = MLP(nnx.Rngs(params=0, dropout=1))
optimizer = nnx.Optimizer(model, optax.adamw(1e-2, weight_decay=1e-3), wrt=nnx.Param)
losses = [float(train_step(model, optimizer, x, y)) for _ in range(8)]
model.eval()
evaluated = model(x)

graphdef, state = nnx.split((model, optimizer))


def pure_step(state, x, y):
  model, optimizer = nnx.merge(graphdef, state)
  model.train()
  loss = train_step(model, optimizer, x, y)
  return loss, nnx.state((model, optimizer))


class Stack(nnx.Module):
  def __init__(self, rngs: nnx.Rngs):
    self.conv = nnx.Conv(1, 4, kernel_size=(3,), rngs=rngs)

    @nnx.split_rngs(splits=3)
    @nnx.vmap(in_axes=(0,), out_axes=0)
    def create(rngs):
      return nnx.Linear(4, 4, rngs=rngs)
    self.layers = create(rngs)

  def __call__(self, x):
    @nnx.scan(in_axes=(nnx.Carry, 0), out_axes=nnx.Carry)
    def body(h, layer):
      return nnx.tanh(layer(h))
    return body(self.conv(x[..., None]), self.layers).mean(axis=(1, 2))


stack = Stack(nnx.Rngs(3))
stack_optimizer = nnx.Optimizer(stack, optax.sgd(0.1), wrt=nnx.Param)
stack_losses = [float(train_step(stack, stack_optimizer, x, y[:, 0])) for _ in range(4)]

with open(sys.argv[1], "w") as f:
  f.write(jax.jit(pure_step).lower(state, x, y).as_text())
params = nnx.state(model, nnx.Param)
stats = nnx.state(model, nnx.BatchStat)
print(json.dumps({
    "losses": losses, "eval": evaluated.tolist(), "stack_losses": stack_losses,
    "stack_params": [p.tolist() for p in jax.tree_util.tree_leaves(nnx.state(stack, nnx.Param))],
    "params": [p.tolist() for p in jax.tree_util.tree_leaves(params)],
    "batch_stats": [p.tolist() for p in jax.tree_util.tree_leaves(stats)],
}))
