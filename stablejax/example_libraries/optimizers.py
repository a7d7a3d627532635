"""Optimizers as (init_fun, update_fun, get_params) triples over pytrees, as
jax.example_libraries.optimizers."""
from __future__ import annotations

import functools
from collections import namedtuple
from typing import Any, Callable, NamedTuple

from stablejax import lax, tree_util
from stablejax import numpy as jnp
from stablejax.numpy._promotion import shape

Array = Any
Params = Any
State = Any
Updates = Params
Step = int
Schedule = Callable[[Step], float]
InitFn = Callable[[Params], "OptimizerState"]
UpdateFn = Callable[[Step, Updates, "OptimizerState"], "OptimizerState"]
ParamsFn = Callable[["OptimizerState"], Params]

OptimizerState = namedtuple("OptimizerState", ["packed_state", "tree_def", "subtree_defs"])
tree_util.register_pytree_node(
    OptimizerState,
    lambda xs: ((xs.packed_state,), (xs.tree_def, xs.subtree_defs)),
    lambda data, xs: OptimizerState(xs[0], data[0], data[1]))


class Optimizer(NamedTuple):
  init_fn: InitFn
  update_fn: UpdateFn
  params_fn: ParamsFn


def _flatten_all(trees: list) -> tuple[tuple, tuple]:
  """The leaves and the tree structure of each tree (tuples: the structures are hashed)."""
  pairs = [tree_util.tree_flatten(t) for t in trees]
  return tuple(p[0] for p in pairs), tuple(p[1] for p in pairs)


def _unflatten_all(treedefs: list, leaves: list) -> list:
  return [tree_util.tree_unflatten(d, xs) for d, xs in zip(treedefs, leaves)]


def optimizer(opt_maker: Callable[..., tuple[Callable, Callable, Callable]]
              ) -> Callable[..., Optimizer]:
  """Turn a maker of (init, update, get_params) on single arrays into one on pytrees."""
  @functools.wraps(opt_maker)
  def tree_opt_maker(*args, **kwargs) -> Optimizer:
    init, update, get_params = opt_maker(*args, **kwargs)

    @functools.wraps(init)
    def tree_init(x0_tree: Params) -> OptimizerState:
      x0_flat, tree = tree_util.tree_flatten(x0_tree)
      states_flat, subtrees = _flatten_all([init(x0) for x0 in x0_flat])
      return OptimizerState(states_flat, tree, subtrees)

    @functools.wraps(update)
    def tree_update(i: Step, grad_tree: Updates, opt_state: OptimizerState) -> OptimizerState:
      states_flat, tree, subtrees = opt_state
      grad_flat, tree2 = tree_util.tree_flatten(grad_tree)
      if tree2 != tree:
        raise TypeError("optimizer update function was passed a gradient tree that did not "
                        f"match the parameter tree structure with which it was initialized: "
                        f"parameter tree {tree} and grad tree {tree2}.")
      states = _unflatten_all(subtrees, states_flat)
      new_states = [update(i, g, s) for g, s in zip(grad_flat, states)]
      new_states_flat, subtrees2 = _flatten_all(new_states)
      for subtree, subtree2 in zip(subtrees, subtrees2):
        if subtree2 != subtree:
          raise TypeError("optimizer update function produced an output structure that did "
                          f"not match its input structure: input {subtree} and output "
                          f"{subtree2}.")
      return OptimizerState(new_states_flat, tree, subtrees)

    @functools.wraps(get_params)
    def tree_get_params(opt_state: OptimizerState) -> Params:
      states_flat, tree, subtrees = opt_state
      params = [get_params(s) for s in _unflatten_all(subtrees, states_flat)]
      return tree_util.tree_unflatten(tree, params)

    return Optimizer(tree_init, tree_update, tree_get_params)
  return tree_opt_maker


def _first(state: tuple) -> Any:
  return state[0]


def _with_zeros(count: int) -> Callable[[Any], tuple]:
  """An init function: the parameters and `count` zero arrays like them."""
  return lambda x0: (x0,) + tuple(jnp.zeros_like(x0) for _ in range(count))


@optimizer
def sgd(step_size: float | Schedule) -> Optimizer:
  """Stochastic gradient descent."""
  step_size = make_schedule(step_size)

  def update(i, g, x):
    return x - step_size(i) * g
  return Optimizer(lambda x0: x0, update, lambda x: x)


def _momentum(step_size: float | Schedule, mass: float, nesterov: bool) -> tuple:
  step_size = make_schedule(step_size)

  def update(i, g, state):
    x, velocity = state
    velocity = mass * velocity + g
    direction = mass * velocity + g if nesterov else velocity
    return x - step_size(i) * direction, velocity
  return _with_zeros(1), update, _first


@optimizer
def momentum(step_size: float | Schedule, mass: float) -> tuple:
  """SGD with momentum."""
  return _momentum(step_size, mass, nesterov=False)


@optimizer
def nesterov(step_size: float | Schedule, mass: float) -> tuple:
  """SGD with Nesterov momentum."""
  return _momentum(step_size, mass, nesterov=True)


def _inverse_sqrt_or_zero(x: Array) -> Array:
  return jnp.where(x > 0, 1. / jnp.sqrt(x), 0.0)


@optimizer
def adagrad(step_size: float | Schedule, momentum: float = 0.9) -> tuple:
  """Adagrad (Duchi et al. 2011), with momentum."""
  step_size = make_schedule(step_size)

  def update(i, g, state):
    x, g_sq, m = state
    g_sq = g_sq + jnp.square(g)
    m = (1. - momentum) * (g * _inverse_sqrt_or_zero(g_sq)) + momentum * m
    return x - step_size(i) * m, g_sq, m
  return _with_zeros(2), update, _first


@optimizer
def rmsprop(step_size: float | Schedule, gamma: float = 0.9, eps: float = 1e-8) -> tuple:
  """RMSProp."""
  step_size = make_schedule(step_size)

  def update(i, g, state):
    x, avg_sq_grad = state
    avg_sq_grad = avg_sq_grad * gamma + jnp.square(g) * (1. - gamma)
    return x - step_size(i) * g / jnp.sqrt(avg_sq_grad + eps), avg_sq_grad
  return _with_zeros(1), update, _first


@optimizer
def rmsprop_momentum(step_size: float | Schedule, gamma: float = 0.9, eps: float = 1e-8,
                     momentum: float = 0.9) -> tuple:
  """RMSProp with momentum."""
  step_size = make_schedule(step_size)

  def update(i, g, state):
    x, avg_sq_grad, mom = state
    avg_sq_grad = avg_sq_grad * gamma + jnp.square(g) * (1. - gamma)
    mom = momentum * mom + step_size(i) * g / jnp.sqrt(avg_sq_grad + eps)
    return x - mom, avg_sq_grad, mom
  return _with_zeros(2), update, _first


def _bias_correction(b: float, like: Array, i: Step) -> Array:
  """1 - b ** (i + 1), in the dtype of `like`."""
  return 1 - jnp.asarray(b, like.dtype) ** (i + 1)


@optimizer
def adam(step_size: float | Schedule, b1: float = 0.9, b2: float = 0.999,
         eps: float = 1e-8) -> tuple:
  """Adam (Kingma and Ba 2014)."""
  step_size = make_schedule(step_size)

  def update(i, g, state):
    x, m, v = state
    m = (1 - b1) * g + b1 * m
    v = (1 - b2) * jnp.square(g) + b2 * v
    mhat = m / _bias_correction(b1, m, i)
    vhat = v / _bias_correction(b2, m, i)
    return x - step_size(i) * mhat / (jnp.sqrt(vhat) + eps), m, v
  return _with_zeros(2), update, _first


@optimizer
def adamax(step_size: float | Schedule, b1: float = 0.9, b2: float = 0.999,
           eps: float = 1e-8) -> tuple:
  """AdaMax, Adam with the infinity norm."""
  step_size = make_schedule(step_size)

  def update(i, g, state):
    x, m, u = state
    m = (1 - b1) * g + b1 * m
    u = jnp.maximum(b2 * u, jnp.abs(g))
    x = x - (step_size(i) / _bias_correction(b1, m, i)) * m / (u + eps)
    return x, m, u
  return _with_zeros(2), update, _first


def _along(ndim: int, v: Array, axis: int) -> Array:
  """A 1-d `v` shaped to broadcast along `axis` of an `ndim`-dimensional array (1-d if that
  array is a scalar)."""
  dims = [1] * ndim
  dims[axis:axis + 1] = [-1]
  return jnp.reshape(v, tuple(dims))


@optimizer
def sm3(step_size: float | Schedule, momentum: float = 0.9) -> tuple:
  """SM3 (Anil et al. 2019): adaptive, with one accumulator per row of each axis."""
  step_size = make_schedule(step_size)

  def init(x0):
    x_shape = shape(x0)
    x0 = jnp.reshape(x0, (1,)) if not x_shape else x0
    return x0, jnp.zeros_like(x0), [jnp.zeros(n, dtype=x0.dtype) for n in shape(x0)], x_shape

  def update(i, g, state):
    x, m, vs, x_shape = state
    vs = [_along(len(shape(g)), v, axis) for axis, v in enumerate(vs)]
    accum = functools.reduce(jnp.minimum, vs) + jnp.square(g)
    m = (1. - momentum) * (g * _inverse_sqrt_or_zero(accum)) + momentum * m
    x = x - step_size(i) * m
    ndim = len(shape(x))
    vs = [jnp.max(accum, tuple(d for d in range(ndim) if d != axis)) for axis in range(ndim)]
    return x, m, vs, x_shape

  def get_params(state):
    x, _, _, x_shape = state
    return jnp.reshape(x, x_shape)
  return init, update, get_params


# Learning-rate schedules.

def constant(step_size: float) -> Schedule:
  """The schedule that is always `step_size`."""
  return lambda i: step_size


def exponential_decay(step_size: float, decay_steps: float, decay_rate: float) -> Schedule:
  """step_size * decay_rate ** (i / decay_steps)."""
  return lambda i: step_size * decay_rate ** (i / decay_steps)


def inverse_time_decay(step_size: float, decay_steps: float, decay_rate: float,
                       staircase: bool = False) -> Schedule:
  """step_size / (1 + decay_rate * i / decay_steps), the quotient floored if `staircase`."""
  if staircase:
    return lambda i: step_size / (1 + decay_rate * jnp.floor(i / decay_steps))
  return lambda i: step_size / (1 + decay_rate * i / decay_steps)


def polynomial_decay(step_size: float, decay_steps: float, final_step_size: float,
                     power: float = 1.0) -> Schedule:
  """From step_size to final_step_size over decay_steps steps along (1 - i / steps) ** power."""
  def schedule(step_num):
    step_num = jnp.minimum(step_num, decay_steps)
    step_mult = (1 - step_num / decay_steps) ** power
    return step_mult * (step_size - final_step_size) + final_step_size
  return schedule


def piecewise_constant(boundaries: Any, values: Any) -> Schedule:
  """values[k] for steps in (boundaries[k-1], boundaries[k]]."""
  boundaries = jnp.array(boundaries)
  values = jnp.array(values)
  if not len(shape(boundaries)) == len(shape(values)) == 1:
    raise ValueError("boundaries and values must be sequences")
  if not shape(boundaries)[0] == shape(values)[0] - 1:
    raise ValueError("boundaries length must be one shorter than values length")

  def schedule(i):
    index = jnp.sum(jnp.asarray(i > boundaries, dtype=jnp.int32))
    return lax.dynamic_slice(values, (index,), (1,))[0]
  return schedule


def make_schedule(scalar_or_schedule: float | Schedule) -> Schedule:
  """A schedule as is, a scalar as the constant schedule."""
  if callable(scalar_or_schedule):
    return scalar_or_schedule
  if not shape(scalar_or_schedule):
    return constant(scalar_or_schedule)
  raise TypeError(type(scalar_or_schedule))


# Utilities.

def l2_norm(tree: Any) -> Array:
  """The l2 norm of a pytree of arrays."""
  leaves = tree_util.tree_leaves(tree)
  return jnp.sqrt(sum(jnp.vdot(x, x) for x in leaves))


def clip_grads(grad_tree: Any, max_norm: float) -> Any:
  """The gradients scaled down so that their l2 norm is at most `max_norm`."""
  norm = l2_norm(grad_tree)
  return tree_util.tree_map(lambda g: jnp.where(norm < max_norm, g, g * (max_norm / norm)),
                            grad_tree)


class JoinPoint:
  """Marks the boundary between two joined (nested) pytrees."""

  def __init__(self, subtree: Any):
    self.subtree = subtree

  def __iter__(self):
    yield self.subtree


def unpack_optimizer_state(opt_state: OptimizerState) -> Any:
  """An OptimizerState as a pytree of JoinPoints (for serialization)."""
  states_flat, tree_def, subtree_defs = opt_state
  subtrees = _unflatten_all(subtree_defs, states_flat)
  return tree_util.tree_unflatten(tree_def, [JoinPoint(s) for s in subtrees])


def pack_optimizer_state(marked_pytree: Any) -> OptimizerState:
  """The inverse of unpack_optimizer_state."""
  sentinels, tree_def = tree_util.tree_flatten(marked_pytree)
  if not all(isinstance(s, JoinPoint) for s in sentinels):
    raise TypeError("pack_optimizer_state: every leaf must be a JoinPoint")
  states_flat, subtree_defs = _flatten_all([s.subtree for s in sentinels])
  return OptimizerState(states_flat, tree_def, subtree_defs)
