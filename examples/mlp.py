"""A small MLP, for `stablejax lower examples/mlp.py::predict --arg f32[4,16] --arg f32[16]
--arg f32[8,4]` and as a complete program: train it with jit + value_and_grad."""
import numpy as np

import stablejax as sj
import stablejax.numpy as jnp


def predict(w, b, x):
  return jnp.tanh(x @ w + b)


def loss(params, x, y):
  w, b = params
  return jnp.mean((predict(w, b, x) - y) ** 2)


@sj.jit
def sgd_step(params, x, y):
  value, grads = sj.value_and_grad(loss)(params, x, y)
  return sj.tree_util.tree_map(lambda p, g: p - 0.5 * g, params, grads), value


if __name__ == "__main__":
  rng = np.random.default_rng(0)
  x = rng.standard_normal((64, 4)).astype(np.float32)
  y = np.tanh(x @ rng.standard_normal((4, 16)).astype(np.float32))
  params = (np.zeros((4, 16), np.float32), np.zeros(16, np.float32))
  for step in range(20):
    params, value = sgd_step(params, x, y)
    if step % 5 == 0:
      print(f"step {step:2d}  loss {float(value):.4f}")
