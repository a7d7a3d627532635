"""The demo `python -m stablejax` runs: a small MLP, staged with `jit`, shown as a jaxpr and as
StableHLO, then trained for a few steps with `jit(value_and_grad(...))`."""
from __future__ import annotations

import numpy as np

import stablejax as sj
import stablejax.numpy as jnp


def init_params(rng: np.random.Generator, sizes=(4, 16, 1)) -> list:
  return [(rng.standard_normal((m, n)).astype(np.float32) / np.sqrt(m), np.zeros(n, np.float32))
          for m, n in zip(sizes[:-1], sizes[1:])]


def mlp(params: list, x):
  for w, b in params[:-1]:
    x = jnp.tanh(x @ w + b)
  w, b = params[-1]
  return x @ w + b


def loss(params: list, x, y):
  return jnp.mean((mlp(params, x) - y) ** 2)


def main() -> None:
  rng = np.random.default_rng(0)
  params = init_params(rng)
  x = rng.standard_normal((32, 4)).astype(np.float32)
  y = np.sin(x.sum(axis=1, keepdims=True))

  print("== jaxpr of the MLP's forward pass ==")
  print(sj.make_jaxpr(mlp)(params, x))
  print("\n== its StableHLO ==")
  print(sj.jit(mlp).lower(params, x).as_text())
  print("== result (first 4 rows) ==")
  print(np.asarray(sj.jit(mlp)(params, x))[:4])

  @sj.jit
  def train_step(params, x, y):
    value, grads = sj.value_and_grad(loss)(params, x, y)
    new = sj.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads)
    return new, value

  print("\n== training with jit(value_and_grad(loss)) ==")
  for step in range(10):
    params, value = train_step(params, x, y)
    print(f"step {step:2d}  loss {float(value):.5f}")
