"""stablejax.example_libraries against JAX's own: optimizers (several jitted steps on a quadratic
and on an MLP give JAX's parameters), schedules and utilities; stax layers (init_fun shapes and
parameters, apply_fun values, with the same keys)."""
import jax
import jax.numpy as jjnp
import numpy as np
import pytest
from jax.example_libraries import optimizers as jax_optimizers
from jax.example_libraries import stax as jax_stax

import stablejax as sj
import stablejax.numpy as jnp
from stablejax import test_util
from stablejax.example_libraries import optimizers, stax

RNG = np.random.RandomState(0)
_A = RNG.randn(4, 4).astype(np.float32)
QUADRATIC = (_A @ _A.T / 4 + np.eye(4)).astype(np.float32)
PARAMS = {"w": RNG.randn(4).astype(np.float32), "b": (RNG.randn(2, 3).astype(np.float32),)}


def quadratic_loss(np_, params):
  w, (b,) = params["w"], params["b"]
  return w @ (QUADRATIC @ w) / 2 + np_.sum(b ** 2) + np_.sum(np_.sin(b))


def run(opt, loss, params, steps, jit=True):
  """`steps` updates of `opt` (init, update, get_params) on `loss`; the final parameters."""
  init, update, get_params = opt
  api = sj if opt[0].__module__.startswith("stablejax") else jax

  def step(i, state):
    return update(i, api.grad(loss)(get_params(state)), state)
  step = api.jit(step) if jit else step
  state = init(params)
  for i in range(steps):
    state = step(i, state)
  return get_params(state)


def both(make):
  """`make(module)` for stablejax's and JAX's module."""
  return make(optimizers), make(jax_optimizers)


OPTIMIZERS = {
    "sgd": lambda m: m.sgd(0.1),
    "momentum": lambda m: m.momentum(0.1, 0.9),
    "nesterov": lambda m: m.nesterov(0.1, 0.9),
    "adagrad": lambda m: m.adagrad(0.3),
    "rmsprop": lambda m: m.rmsprop(0.05),
    "rmsprop_momentum": lambda m: m.rmsprop_momentum(0.05, momentum=0.8),
    "adam": lambda m: m.adam(0.1),
    "adamax": lambda m: m.adamax(0.1),
    "exponential_decay": lambda m: m.sgd(m.exponential_decay(0.1, 3, 0.5)),
    "inverse_time_decay": lambda m: m.sgd(m.inverse_time_decay(0.1, 3, 0.5)),
    "inverse_time_staircase": lambda m: m.sgd(m.inverse_time_decay(0.1, 3, 0.5, True)),
    "polynomial_decay": lambda m: m.momentum(m.polynomial_decay(0.1, 3, 0.01, 2.), 0.5),
    "piecewise_constant": lambda m: m.adam(m.piecewise_constant([2, 4], [0.1, 0.05, 0.01])),
}


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_optimizer_on_a_quadratic(name):
  ours, theirs = both(OPTIMIZERS[name])
  actual = run(ours, lambda p: quadratic_loss(jnp, p), PARAMS, 6)
  expected = run(theirs, lambda p: quadratic_loss(jjnp, p), PARAMS, 6)
  test_util.check_close(actual, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.slow
def test_sm3_eagerly():
  """sm3 keeps the parameter shape in its state, so (as in JAX) it runs without jit."""
  ours, theirs = both(lambda m: m.sm3(0.2))
  params = dict(PARAMS, s=np.float32(1.5))
  actual = run(ours, lambda p: quadratic_loss(jnp, p) + p["s"] ** 2, params, 4, jit=False)
  expected = run(theirs, lambda p: quadratic_loss(jjnp, p) + p["s"] ** 2, params, 4, jit=False)
  test_util.check_close(actual, expected, rtol=1e-5, atol=1e-6)


def mlp_loss(np_, dense, params, x, y):
  h = x
  for w, b in params[:-1]:
    h = np_.tanh(dense(h, w, b))
  w, b = params[-1]
  return np_.mean((dense(h, w, b) - y) ** 2)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["sgd", "momentum", "adam", "rmsprop", "adagrad"])
def test_optimizer_on_an_mlp(name):
  rng = np.random.RandomState(1)
  sizes = [3, 8, 8, 2]
  params = [(rng.randn(m, n).astype(np.float32) / np.sqrt(m), np.zeros(n, np.float32))
            for m, n in zip(sizes[:-1], sizes[1:])]
  x, y = rng.randn(16, 3).astype(np.float32), rng.randn(16, 2).astype(np.float32)
  ours, theirs = both(OPTIMIZERS[name])
  actual = run(ours, lambda p: mlp_loss(jnp, lambda h, w, b: h @ w + b, p, x, y), params, 10)
  expected = run(theirs, lambda p: mlp_loss(jjnp, lambda h, w, b: h @ w + b, p, x, y), params,
                 10)
  test_util.check_close(actual, expected, rtol=1e-4, atol=1e-5)


def test_schedules():
  for make in [lambda m: m.constant(0.3), lambda m: m.exponential_decay(0.1, 3, 0.5),
               lambda m: m.inverse_time_decay(0.1, 3, 0.5, staircase=True),
               lambda m: m.polynomial_decay(0.1, 3, 0.01),
               lambda m: m.piecewise_constant([2, 4], [0.1, 0.05, 0.01])]:
    ours, theirs = both(make)
    for i in [0, 2, 3, 5]:
      np.testing.assert_allclose(np.asarray(ours(i)), np.asarray(theirs(i)), rtol=1e-6)
  assert optimizers.make_schedule(0.5)(3) == 0.5
  with pytest.raises(TypeError):
    optimizers.make_schedule(np.ones(2))
  with pytest.raises(ValueError, match="one shorter"):
    optimizers.piecewise_constant([1, 2], [0.1, 0.2])


def test_l2_norm_and_clip_grads():
  grads = {"a": np.full(3, 3., np.float32), "b": np.ones(2, np.float32)}
  test_util.check_close(optimizers.l2_norm(grads), jax_optimizers.l2_norm(grads))
  for max_norm in [1., 100.]:
    test_util.check_close(optimizers.clip_grads(grads, max_norm),
                          jax_optimizers.clip_grads(grads, max_norm))


def test_pack_and_unpack_optimizer_state():
  init, update, get_params = optimizers.adam(0.1)
  state = update(0, PARAMS, init(PARAMS))
  marked = optimizers.unpack_optimizer_state(state)
  assert isinstance(marked["w"], optimizers.JoinPoint)
  repacked = optimizers.pack_optimizer_state(marked)
  assert repacked.tree_def == state.tree_def and repacked.subtree_defs == state.subtree_defs
  test_util.check_close(get_params(repacked), get_params(state))
  with pytest.raises(TypeError, match="JoinPoint"):
    optimizers.pack_optimizer_state({"w": 1.0})


def test_optimizer_state_is_a_pytree_and_tree_mismatch_is_an_error():
  init, update, _ = optimizers.sgd(0.1)
  state = init(PARAMS)
  assert len(sj.tree_util.tree_leaves(state)) == 2
  with pytest.raises(TypeError, match="did not match the parameter tree"):
    update(0, {"w": PARAMS["w"]}, state)


def test_optimizer_decorator_on_a_custom_optimizer():
  @optimizers.optimizer
  def halving():
    return (lambda x0: (x0, 0), lambda i, g, s: (s[0] / 2 - g, s[1] + 1), lambda s: s[0])
  init, update, get_params = halving()
  params = get_params(update(0, {"x": 1.0}, init({"x": np.float32(4.)})))
  np.testing.assert_allclose(np.asarray(params["x"]), 1.)


# stax.

def _layer_pair(make):
  return make(stax), make(jax_stax)


def check_layer(make, input_shape, x, rng_kwarg=False, jit=True):
  """init_fun gives JAX's output shape and parameters; apply_fun gives JAX's values."""
  (init, apply), (jax_init, jax_apply) = _layer_pair(make)
  out_shape, params = init(sj.random.PRNGKey(1), input_shape)
  jax_out_shape, jax_params = jax_init(jax.random.PRNGKey(1), input_shape)
  assert jax.tree.map(int, out_shape) == jax.tree.map(int, jax_out_shape)
  test_util.check_close(jax.tree.leaves(params), jax.tree.leaves(jax_params), rtol=1e-6,
                        atol=1e-7)
  kwargs = {"rng": sj.random.PRNGKey(2)} if rng_kwarg else {}
  jax_kwargs = {"rng": jax.random.PRNGKey(2)} if rng_kwarg else {}
  expected = jax_apply(jax_params, x, **jax_kwargs)
  test_util.check_close(apply(params, x, **kwargs), expected, rtol=1e-5, atol=1e-5)
  if jit:
    test_util.check_close(sj.jit(lambda p, x: apply(p, x, **kwargs))(params, x), expected,
                          rtol=1e-5, atol=1e-5)


def _mlp(m):
  return m.serial(
      m.Dense(8), m.Relu, m.FanOut(2), m.parallel(m.Dense(8), m.serial(m.Dense(8), m.Tanh)),
      m.FanInSum, m.FanOut(2), m.parallel(m.Identity, m.Dense(3)), m.FanInConcat(), m.Gelu,
      m.Elu, m.LeakyRelu, m.Selu, m.Softplus, m.Sigmoid, m.Exp, m.Dense(5), m.Softmax,
      m.LogSoftmax)


DENSE_LAYERS = {
    "mlp": pytest.param(_mlp, marks=pytest.mark.slow),
    "batchnorm": lambda m: m.serial(m.BatchNorm(axis=(0,)), m.Flatten, m.Dense(3)),
    "batchnorm_scale_only": lambda m: m.serial(m.BatchNorm(axis=0, center=False), m.Dense(2)),
    "batchnorm_center_only": lambda m: m.BatchNorm(axis=0, scale=False),
    "shape_dependent": lambda m: m.serial(m.shape_dependent(lambda s: m.Dense(s[-1] * 2)),
                                          m.Relu),
}


@pytest.mark.parametrize("make", DENSE_LAYERS.values(), ids=DENSE_LAYERS)
def test_dense_layers(make):
  x = np.random.RandomState(0).randn(7, 4).astype(np.float32)
  check_layer(make, (7, 4), x)


def test_dense_output_shape_with_unknown_batch():
  (init, _), (jax_init, _) = _layer_pair(lambda m: m.serial(m.Dense(3), m.Relu, m.Dense(2)))
  assert init(sj.random.PRNGKey(0), (-1, 5))[0] == jax_init(jax.random.PRNGKey(0), (-1, 5))[0]


def test_dropout():
  x = np.random.RandomState(0).randn(7, 4).astype(np.float32)
  check_layer(lambda m: m.serial(m.Dense(3), m.Dropout(0.5)), (7, 4), x, rng_kwarg=True)
  check_layer(lambda m: m.Dropout(0.7, mode="test"), (7, 4), x, rng_kwarg=True)
  _, apply = stax.Dropout(0.5)
  with pytest.raises(ValueError, match="PRNG key"):
    apply((), x)


CONV_LAYERS = {
    "conv": lambda m: m.serial(m.Conv(4, (3, 3)), m.Relu),
    "conv_strided_same": lambda m: m.Conv(4, (3, 2), (2, 1), "SAME"),
    "conv_transpose": lambda m: m.ConvTranspose(4, (3, 3), (2, 2), "SAME"),
    "conv_transpose_valid": lambda m: m.ConvTranspose(2, (2, 3)),
    "general_conv": lambda m: m.GeneralConv(("NHWC", "OIHW", "NHWC"), 5, (2, 2),
                                            padding=((1, 0), (0, 1))),
}

POOL_LAYERS = {
    "max_pool": lambda m: m.MaxPool((2, 2)),
    "max_pool_same": lambda m: m.MaxPool((3, 2), (2, 2), "SAME"),
    "sum_pool": lambda m: m.SumPool((2, 3), (1, 2)),
    "avg_pool": lambda m: m.AvgPool((3, 3), (2, 2), "SAME"),
    "avg_pool_spec": lambda m: m.AvgPool((3, 3), (2, 2), "SAME", spec="NHWC"),
    "cnn": lambda m: m.serial(m.Conv(4, (3, 3), padding="SAME"), m.BatchNorm(), m.Relu,
                              m.AvgPool((2, 2), (2, 2)), m.Flatten, m.Dense(3), m.LogSoftmax),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", CONV_LAYERS)
def test_conv_layers(name):
  x = np.random.RandomState(0).randn(2, 9, 8, 3).astype(np.float32)
  check_layer(CONV_LAYERS[name], (2, 9, 8, 3), x, jit=False)
  (init, _), (jax_init, _) = _layer_pair(CONV_LAYERS[name])
  unknown_batch = init(sj.random.PRNGKey(0), (-1, 9, 8, 3))[0]
  assert unknown_batch == tuple(map(int, jax_init(jax.random.PRNGKey(0), (-1, 9, 8, 3))[0]))


@pytest.mark.parametrize("name", POOL_LAYERS)
def test_pooling_layers(name):
  x = np.random.RandomState(0).randn(2, 9, 8, 3).astype(np.float32)
  check_layer(POOL_LAYERS[name], (2, 9, 8, 3), x, jit=name == "cnn")


@pytest.mark.slow
def test_training_a_cnn_with_stax_and_adam():
  """A few jitted adam steps on a small CNN give JAX's parameters."""
  rng = np.random.RandomState(3)
  x, y = rng.randn(4, 6, 6, 1).astype(np.float32), np.eye(3, dtype=np.float32)[[0, 1, 2, 1]]

  def train(m, opt_mod, api, np_):
    init, apply = m.serial(m.Conv(3, (3, 3), padding="SAME"), m.Relu, m.MaxPool((2, 2)),
                           m.Flatten, m.Dense(3), m.LogSoftmax)
    _, params = init(api.random.PRNGKey(0), x.shape)
    return run(opt_mod.adam(0.01), lambda p: -np_.mean(np_.sum(apply(p, x) * y, axis=1)),
               params, 3)
  test_util.check_close(train(stax, optimizers, sj, jnp),
                        train(jax_stax, jax_optimizers, jax, jjnp), rtol=1e-4, atol=1e-5)
