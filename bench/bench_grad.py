"""Reverse mode: tracing `grad` of a 3,000-equation program, `jit(grad(f))` end to end, and the
step time of a jitted MLP training step, each beside JAX."""
from __future__ import annotations

import sys
import timeit

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from bench_trace import chain  # noqa: E402
from common import best_time, report, try_import_jax  # noqa: E402

import stablejax as sj  # noqa: E402
import stablejax.numpy as jnp  # noqa: E402


def scalar_chain(np_mod, n: int):
  f = chain(np_mod, n)
  return lambda x: np_mod.sum(f(x))


def mlp_step(api, np_mod, lr: float = 0.01):
  """One SGD step of a 3-layer MLP, written the same way for both libraries."""
  def loss(params, x, y):
    h = x
    for w, b in params[:-1]:
      h = np_mod.tanh(h @ w + b)
    w, b = params[-1]
    return np_mod.mean((h @ w + b - y) ** 2)

  @api.jit
  def step(params, x, y):
    value, grads = api.value_and_grad(loss)(params, x, y)
    return [(w - lr * gw, b - lr * gb) for (w, b), (gw, gb) in zip(params, grads)], value
  return step


def mlp_data(sizes=(64, 256, 256, 1), batch=128):
  rng = np.random.default_rng(0)
  params = [(rng.standard_normal((m, n)).astype(np.float32) / np.sqrt(m),
             np.zeros(n, np.float32)) for m, n in zip(sizes[:-1], sizes[1:])]
  x = rng.standard_normal((batch, sizes[0])).astype(np.float32)
  y = rng.standard_normal((batch, sizes[-1])).astype(np.float32)
  return params, x, y


def step_time(step, params, x, y, put) -> float:
  params, x, y = put(params), put(x), put(y)
  params, value = step(params, x, y)

  def run():
    nonlocal params
    params, value = step(params, x, y)
    value.block_until_ready()
  run()
  return min(timeit.repeat(run, number=50, repeat=7)) / 50


def main() -> None:
  jax, jjnp = try_import_jax()
  x = np.ones((8,), np.float32)
  # A new function each run, so neither library answers from a cache.
  ours = best_time(lambda: sj.make_jaxpr(sj.grad(scalar_chain(jnp, 3000)))(x), repeat=3)
  theirs = (best_time(lambda: jax.make_jaxpr(jax.grad(scalar_chain(jjnp, 3000)))(x), repeat=3)
            if jax else None)
  report("make_jaxpr(grad(f)), 3000-equation f", ours, theirs, "<= 0.33")
  ours = best_time(lambda: sj.make_jaxpr(sj.jit(sj.grad(scalar_chain(jnp, 3000))))(x), repeat=3)
  theirs = (best_time(lambda: jax.make_jaxpr(jax.jit(jax.grad(scalar_chain(jjnp, 3000))))(x),
                      repeat=3) if jax else None)
  report("make_jaxpr(jit(grad(f)))", ours, theirs, "<= 0.33")
  ours = best_time(lambda: sj.jit(sj.grad(scalar_chain(jnp, 3000))).lower(x).as_text(), repeat=3)
  theirs = (best_time(lambda: jax.jit(jax.grad(scalar_chain(jjnp, 3000))).lower(x).as_text(),
                      repeat=3) if jax else None)
  report("jit(grad(f)).lower(x).as_text()", ours, theirs, "<= 0.5")

  params, xb, yb = mlp_data()
  ours = step_time(mlp_step(sj, jnp), params, xb, yb, sj.device_put)
  theirs = step_time(mlp_step(jax, jjnp), params, xb, yb, jax.device_put) if jax else None
  report("MLP training step (jit of value_and_grad)", ours, theirs, "<= 1.05")


if __name__ == "__main__":
  main()
