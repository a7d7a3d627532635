"""The programs the benchmarks run, each written once as a function of a numpy-like module
(`np_`: `stablejax.numpy` or `jax.numpy`), a lax-like module (`lax_`) and the top-level API
(`api`: `stablejax` or `jax`), so one source builds the stablejax and the JAX version."""
from __future__ import annotations

from typing import Callable

import numpy as np


def chain(np_, n_eqns: int, scale: float = 2.0) -> Callable:
  """A fresh program of `n_eqns` equations: repeated sin, multiply by the literal `scale`, add."""
  def f(x):
    for _ in range(n_eqns // 3):
      x = np_.sin(x) * scale + x
    return x
  return f


def scalar_chain(np_, n_eqns: int) -> Callable:
  """`chain` summed to a scalar, to take its gradient."""
  f = chain(np_, n_eqns)
  return lambda x: np_.sum(f(x))


def scan_grad(np_, lax_, grad) -> Callable:
  """A fresh function each call (no cache answers): the gradient of a scan of a 30-equation
  body."""
  def body(c, x):
    for _ in range(10):
      c = lax_.sin(c) * x + 1.0
    return c, c * 2.0
  return grad(lambda xs: np_.sum(lax_.scan(body, xs[0], xs)[1]))


def affine(x):
  """A one-in, one-out program, the same function object on every call."""
  return x * 2.0 + 1.0


def three_in_two_out(x, y, z):
  """The three-in, two-out program for the dispatch rows."""
  return x * y + z, x - z


def mlp_loss(np_) -> Callable:
  """The mean squared error of a tanh MLP given as a list of (w, b) layers."""
  def loss(params, x, y):
    h = x
    for w, b in params[:-1]:
      h = np_.tanh(h @ w + b)
    w, b = params[-1]
    return np_.mean((h @ w + b - y) ** 2)
  return loss


def mlp_step(api, np_, lr: float = 0.01) -> Callable:
  """A fresh jitted SGD step: `step(params, x, y) -> (new_params, loss)`."""
  loss = mlp_loss(np_)

  @api.jit
  def step(params, x, y):
    value, grads = api.value_and_grad(loss)(params, x, y)
    return [(w - lr * gw, b - lr * gb) for (w, b), (gw, gb) in zip(params, grads)], value
  return step


def mlp_data(sizes=(64, 256, 256, 1), batch: int = 128):
  """Deterministic MLP parameters and a batch, as numpy arrays."""
  rng = np.random.default_rng(0)
  params = [(rng.standard_normal((m, n)).astype(np.float32) / np.sqrt(m),
             np.zeros(n, np.float32)) for m, n in zip(sizes[:-1], sizes[1:])]
  x = rng.standard_normal((batch, sizes[0])).astype(np.float32)
  y = rng.standard_normal((batch, sizes[-1])).astype(np.float32)
  return params, x, y


def rnn(api, np_, lax_, scale: float = 1.0) -> Callable:
  """A fresh jitted tanh RNN over a sequence with `lax.scan`:
  `rnn(params, xs) -> (final hidden state, scale * sum of squared outputs)`."""
  @api.jit
  def run(params, xs):
    wx, wh, b = params

    def cell(h, x):
      h = np_.tanh(x @ wx + h @ wh + b)
      return h, h
    h0 = np_.zeros((xs.shape[1], wh.shape[0]), xs.dtype)
    h, hs = lax_.scan(cell, h0, xs)
    return h, scale * np_.sum(hs ** 2)
  return run


def rnn_data(steps: int = 32, batch: int = 16, features: int = 32, hidden: int = 64):
  """Deterministic RNN parameters and a (steps, batch, features) sequence, as numpy arrays."""
  rng = np.random.default_rng(1)
  params = (rng.standard_normal((features, hidden)).astype(np.float32) / np.sqrt(features),
            rng.standard_normal((hidden, hidden)).astype(np.float32) / np.sqrt(hidden),
            np.zeros(hidden, np.float32))
  return params, rng.standard_normal((steps, batch, features)).astype(np.float32)


def eager_cond(np_, lax_) -> Callable:
  """`lax.cond` called outside jit, with the same branch functions on every call."""
  return lambda pred, x: lax_.cond(pred, np_.sin, np_.cos, x)


def eager_while(np_, lax_, trips: int = 10) -> Callable:
  """`lax.while_loop` called outside jit (`trips` steps of sin), the same loop functions on every
  call."""
  def cond_fun(carry):
    return carry[0] < trips

  def body_fun(carry):
    i, x = carry
    return i + 1, np_.sin(x)
  return lambda x: lax_.while_loop(cond_fun, body_fun, (0, x))[1]


def mlp3(np_) -> Callable:
  """A 3-layer tanh MLP's forward pass taking its 7 arrays as arguments:
  `f(w1, b1, w2, b2, w3, b3, x)` (the host-argument dispatch rows)."""
  def f(w1, b1, w2, b2, w3, b3, x):
    h = np_.tanh(x @ w1 + b1)
    h = np_.tanh(h @ w2 + b2)
    return h @ w3 + b3
  return f


def mlp3_data(sizes=(16, 32, 32, 4), batch: int = 8) -> tuple:
  """`mlp3`'s 7 arguments, deterministic numpy arrays (small: the call, not the work, is timed)."""
  rng = np.random.default_rng(2)
  params = [a for m, n in zip(sizes[:-1], sizes[1:])
            for a in ((rng.standard_normal((m, n)) / np.sqrt(m)).astype(np.float32),
                      rng.standard_normal(n).astype(np.float32))]
  return (*params, rng.standard_normal((batch, sizes[0])).astype(np.float32))
