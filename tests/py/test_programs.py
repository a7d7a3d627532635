"""Whole programs run through stablejax and through JAX: the same code, written against a numpy
module (`stablejax.numpy` or `jax.numpy`) and a transformation API (`stablejax` or `jax`).
Checks: the numbers agree (eagerly and under jit), derivatives against finite differences, and
the multiset of StableHLO ops of `jit(f).lower(...)` is JAX's."""
from __future__ import annotations

import collections
import re

import numpy as np
import pytest

import stablejax as sj
import stablejax.numpy as sjnp
from stablejax.test_util import check_close, check_grads, x64 as enable_x64

jax = pytest.importorskip("jax")
import jax.numpy as jaxnp  # noqa: E402

LIBS = {"stablejax": (sj, sjnp), "jax": (jax, jaxnp)}


# ----------------------------------------------------------------------------------------------
# The programs: `make(api, np_)` returns the function

def make_mlp(api, np_):
  """An MLP forward pass; its parameters are flat (w1, b1, w2, b2, w3, b3)."""
  def mlp(x, *params):
    for w, b in zip(params[:-2:2], params[1:-2:2]):
      x = np_.tanh(x @ w + b)
    return x @ params[-2] + params[-1]
  return mlp


def make_softmax(api, np_):
  """A numerically stable softmax over the last axis (the row maximum subtracted first)."""
  def softmax(x):
    z = x - np_.max(x, axis=-1, keepdims=True)
    e = np_.exp(z)
    return e / np_.sum(e, axis=-1, keepdims=True)
  return softmax


def make_physics_step(api, np_):
  """One velocity-Verlet step of N particles with softened pairwise gravity."""
  dt, softening = 0.01, 0.1

  def accelerations(pos, mass):
    d = pos[None, :, :] - pos[:, None, :]              # d[i, j] = pos[j] - pos[i]
    r2 = np_.sum(d * d, axis=-1) + softening
    strength = r2 ** -1.5 * mass[None, :]
    return np_.sum(d * strength[:, :, None], axis=1)

  def step(pos, vel, mass):
    vel_half = vel + 0.5 * dt * accelerations(pos, mass)
    new_pos = pos + dt * vel_half
    new_vel = vel_half + 0.5 * dt * accelerations(new_pos, mass)
    return new_pos, new_vel
  return step


def make_train_step(api, np_):
  """jit(value_and_grad(loss)) of an MLP's mean squared error, then an SGD update."""
  mlp = make_mlp(api, np_)

  def loss(params, x, y):
    return np_.mean((mlp(x, *params) - y) ** 2)

  @api.jit
  def train_step(params, x, y):
    value, grads = api.value_and_grad(loss)(params, x, y)
    return [p - 0.1 * g for p, g in zip(params, grads)], value
  return train_step


def mlp_args(rng, dtype=np.float32):
  sizes = (4, 16, 8, 2)
  params = []
  for m, n in zip(sizes[:-1], sizes[1:]):
    params += [rng.standard_normal((m, n)) / np.sqrt(m), 0.1 * rng.standard_normal(n)]
  x = rng.standard_normal((6, 4))
  return [np.asarray(a, dtype) for a in [x] + params]


def softmax_args(rng, dtype=np.float32, scale=40.0):
  # Large logits: a softmax without the max subtraction would overflow exp in float32.
  return [np.asarray(rng.standard_normal((5, 7)) * scale + 1.5 * scale, dtype)]


def physics_args(rng, dtype=np.float32):
  pos = rng.standard_normal((6, 3))
  vel = 0.1 * rng.standard_normal((6, 3))
  mass = rng.uniform(0.5, 1.5, 6)
  return [np.asarray(a, dtype) for a in (pos, vel, mass)]


def train_args(rng, dtype=np.float32):
  x, *params = mlp_args(rng, dtype)
  y = np.asarray(np.sin(x.sum(axis=1, keepdims=True)) * np.ones((1, 2)), dtype)
  return [params, x, y]


FORWARD = {"mlp": (make_mlp, mlp_args), "softmax": (make_softmax, softmax_args),
           "physics_step": (make_physics_step, physics_args)}
PROGRAMS = dict(FORWARD, train_step=(make_train_step, train_args))


def run(lib, name, args, jit=False):
  api, np_ = LIBS[lib]
  make, _ = PROGRAMS[name]
  fn = make(api, np_)
  return (api.jit(fn) if jit and name != "train_step" else fn)(*args)


def to_numpy(tree):
  return sj.tree_util.tree_map(np.asarray, tree)


# ----------------------------------------------------------------------------------------------
# Numbers: stablejax (eager and jit) against JAX (eager and jit)

@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_numbers_match_jax(name):
  args = PROGRAMS[name][1](np.random.default_rng(0))
  want = to_numpy(run("jax", name, args, jit=True))
  check_close(to_numpy(run("jax", name, args, jit=False)), want)  # JAX agrees with itself
  for jit in (False, True):
    got = to_numpy(run("stablejax", name, args, jit=jit))
    check_close(got, want)


def test_softmax_is_stable_and_normalised():
  (x,) = softmax_args(np.random.default_rng(1))
  got = np.asarray(sj.jit(make_softmax(sj, sjnp))(x))
  assert np.all(np.isfinite(got))
  check_close(got.sum(axis=-1), np.ones(x.shape[0], np.float32))
  z = x.astype(np.float64) - x.max(axis=-1, keepdims=True)
  check_close(got, np.exp(z) / np.exp(z).sum(axis=-1, keepdims=True))


def test_physics_step_conserves_momentum():
  """Pairwise forces are equal and opposite, so the total momentum is unchanged."""
  pos, vel, mass = physics_args(np.random.default_rng(2), np.float64)
  with enable_x64():
    new_pos, new_vel = sj.jit(make_physics_step(sj, sjnp))(pos, vel, mass)
  momentum = lambda v: (mass[:, None] * np.asarray(v)).sum(axis=0)  # noqa: E731
  np.testing.assert_allclose(momentum(new_vel), momentum(vel), atol=1e-12)


def test_training_loss_falls_like_jax():
  params, x, y = train_args(np.random.default_rng(3))
  losses = {}
  for lib in LIBS:
    step = make_train_step(*LIBS[lib])
    p, values = params, []
    for _ in range(5):
      p, value = step(p, x, y)
      values.append(float(value))
    losses[lib] = values
  check_close(np.array(losses["stablejax"]), np.array(losses["jax"]))
  assert losses["stablejax"][-1] < losses["stablejax"][0]


# ----------------------------------------------------------------------------------------------
# Derivatives against finite differences

GRAD_ORDERS = {"mlp": 2, "softmax": 2, "physics_step": 2, "train_step": 1}
# Logits of order 1, where the softmax is far from one-hot and its derivatives are not tiny.
GRAD_ARG_KW = {"softmax": dict(scale=1.0)}


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
@pytest.mark.parametrize("name", sorted(FORWARD))
def test_check_grads_forward_programs(name, jit, x64):
  make, make_args = FORWARD[name]
  fn = make(sj, sjnp)
  args = make_args(np.random.default_rng(4), np.float64, **GRAD_ARG_KW.get(name, {}))
  check_grads(sj.jit(fn) if jit else fn, args, order=GRAD_ORDERS[name])


def test_check_grads_train_step(x64):
  """The training step's derivative is the loss's second derivative (through the jit)."""
  params, x, y = train_args(np.random.default_rng(5), np.float64)
  step = make_train_step(sj, sjnp)
  n = len(params)
  check_grads(lambda *flat: step(list(flat[:n]), flat[n], y), [*params, x],
              order=GRAD_ORDERS["train_step"])


def test_grad_of_loss_matches_jax():
  params, x, y = train_args(np.random.default_rng(6))
  grads = {}
  for lib, (api, np_) in LIBS.items():
    mlp = make_mlp(api, np_)
    loss = lambda p: np_.mean((mlp(x, *p) - y) ** 2)  # noqa: E731
    grads[lib] = to_numpy(api.jit(api.grad(loss))(params))
  check_close(grads["stablejax"], grads["jax"])


# ----------------------------------------------------------------------------------------------
# The emitted StableHLO: the same ops as JAX's

def stablehlo_ops(text: str) -> collections.Counter:
  """Each `stablehlo.*` name in the module text (ops, and reduce regions' `applies stablehlo.add`,
  which both libraries print the same way)."""
  return collections.Counter(re.findall(r"\bstablehlo\.[a-z_]+", text))


@pytest.mark.parametrize("name", sorted(FORWARD))
def test_stablehlo_ops_match_jax(name):
  make, make_args = FORWARD[name]
  args = make_args(np.random.default_rng(7))
  ours = sj.jit(make(sj, sjnp)).lower(*args).as_text()
  theirs = jax.jit(make(jax, jaxnp)).lower(*args).as_text()
  # JAX wraps some jax.numpy functions in inner jits, which lower to `func.call`s of private
  # functions; none of these programs uses one, so there is nothing to normalise (checked).
  assert "func.call" not in theirs and "func.call" not in ours
  assert stablehlo_ops(ours) == stablehlo_ops(theirs), f"ours:\n{ours}\nJAX's:\n{theirs}"
