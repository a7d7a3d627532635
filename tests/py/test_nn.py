"""stablejax.nn against jax.nn: activations (values at random and edge inputs, dtypes, weak types,
jit, vmap of grad), softmax and friends with axis/where, one_hot, dot_product_attention, and the
initializers (the same values as JAX for the same key)."""
import jax
import jax.numpy as jjnp
import numpy as np
import pytest

import stablejax as sj
import stablejax.numpy as jnp
from stablejax import core, nn, test_util
from stablejax.nn import initializers

# jax.nn names not provided: the fp8/fp4 block-scaled matmuls (cuDNN-specific).
UNSUPPORTED = {"scaled_matmul", "scaled_dot_general", "get_scaled_dot_general_config"}

ACTIVATIONS = ["celu", "elu", "gelu", "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh",
               "identity", "leaky_relu", "log_sigmoid", "mish", "relu", "relu6", "selu",
               "sigmoid", "silu", "soft_sign", "softplus", "sparse_plus", "sparse_sigmoid",
               "squareplus", "swish", "tanh"]
EDGES = np.array([-np.inf, -7., -6., -3., -1., -0.5, 0., 0.5, 1., 3., 6., 7., np.inf, np.nan],
                 np.float32)
SMOOTH_POINTS = np.array([-7., -2.5, -1.5, -0.3, 0., 0.2, 1.5, 2.5, 6., 8.], np.float32)


def check_like_jax(actual, expected, rtol=1e-5, atol=1e-6):
  """Same shape, dtype and weak type as JAX's result, and close values (NaN where JAX's is)."""
  assert core.get_aval(actual).shape == expected.shape
  assert actual.dtype == expected.dtype
  assert core.get_aval(actual).weak_type == expected.weak_type
  np.testing.assert_allclose(np.asarray(actual), np.asarray(expected), rtol=rtol, atol=atol)


def test_every_public_name_of_jax_nn():
  names = {n for n in dir(jax.nn) if not n.startswith("_")} - UNSUPPORTED
  assert names <= set(dir(nn))
  init_names = {n for n in dir(jax.nn.initializers) if not n.startswith("_")}
  assert init_names - {"orthogonal", "delta_orthogonal"} <= set(dir(initializers))


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_activation_values(name, rng):
  x = np.concatenate([EDGES, test_util.rand(rng, (50,))])
  check_like_jax(getattr(nn, name)(x), getattr(jax.nn, name)(x))


@pytest.mark.parametrize("name", ACTIVATIONS)
@pytest.mark.parametrize("value", [2.0, -3, np.float32(0.5)], ids=["float", "int", "f32"])
def test_activation_dtypes_and_weak_types(name, value):
  try:
    expected = getattr(jax.nn, name)(value)
  except TypeError:
    with pytest.raises(TypeError):
      getattr(nn, name)(value)
    return
  check_like_jax(getattr(nn, name)(value), expected)


@pytest.mark.parametrize("name", [n for n in ACTIVATIONS if n != "identity"])
def test_activation_jit_and_vmap_of_grad(name):
  """Gradients at kinks are JAX's (relu'(0) = 0, relu6'(6) = 0, softplus'(0) = 1/2, ...)."""
  f, g = getattr(nn, name), getattr(jax.nn, name)
  check_like_jax(sj.jit(f)(SMOOTH_POINTS), g(SMOOTH_POINTS))
  check_like_jax(sj.vmap(sj.grad(f))(SMOOTH_POINTS), jax.vmap(jax.grad(g))(SMOOTH_POINTS),
                 rtol=1e-5, atol=1e-6)


def _staged(api, fn, *args) -> list[str]:
  """The primitives of `fn`'s jaxpr, and those of each nested jit (by name)."""
  jaxpr = api.make_jaxpr(fn)(*args).jaxpr
  out = [e.primitive.name for e in jaxpr.eqns]
  return out + [e.params["name"] for e in jaxpr.eqns if e.primitive.name in ("jit", "pjit")]


@pytest.mark.parametrize("name", ACTIVATIONS + ["log_softmax", "glu", "standardize", "one_hot",
                                                "logmeanexp", "log1mexp"])
def test_staged_as_jax_stages_it(name):
  """The functions JAX jits are nested jits here too (sigmoid inlined), so XLA fuses, and rounds,
  a program that calls them as it does JAX's: an equinox MLP's gradient was 1 ulp off without."""
  x = np.abs(SMOOTH_POINTS.reshape(2, 5)) + 0.5 if name == "log1mexp" else SMOOTH_POINTS[:8]
  x = x.astype(np.int32) if name == "one_hot" else x
  extra = (4,) if name == "one_hot" else ()
  ours = _staged(sj, lambda v: getattr(nn, name)(v, *extra), x)
  theirs = _staged(jax, lambda v: getattr(jax.nn, name)(v, *extra), x)
  assert [p.replace("pjit", "jit") for p in ours] == [p.replace("pjit", "jit") for p in theirs]
  if name == "relu":
    assert "call @relu" in sj.jit(nn.relu).lower(x).as_text()


@pytest.mark.parametrize("name", ["elu", "leaky_relu", "celu", "squareplus"])
def test_activation_parameters(name, rng):
  x = test_util.rand(rng, (4, 5))
  check_like_jax(getattr(nn, name)(x, 0.3), getattr(jax.nn, name)(x, 0.3))


def test_integer_inputs():
  x = np.array([[-3, 0, 2, 7]], np.int32)
  for name in ["relu", "relu6", "elu", "hard_tanh", "leaky_relu", "soft_sign", "squareplus",
               "hard_sigmoid", "sparse_plus"]:
    check_like_jax(getattr(nn, name)(jnp.asarray(x)), getattr(jax.nn, name)(x))


@pytest.mark.parametrize("approximate", [True, False])
def test_gelu(approximate, rng):
  x = np.concatenate([EDGES, test_util.rand(rng, (30,)) * 3])
  check_like_jax(nn.gelu(x, approximate), jax.nn.gelu(x, approximate))
  x = np.float32(1.5)
  check_like_jax(sj.grad(nn.gelu)(x, approximate), jax.grad(jax.nn.gelu)(x, approximate))


def test_log1mexp(rng):
  x = np.concatenate([[0.01, np.log(2.), 1e-3, 30., np.inf], np.abs(test_util.rand(rng, (20,)))])
  x = x.astype(np.float32)
  check_like_jax(nn.log1mexp(x), jax.nn.log1mexp(x))
  check_like_jax(sj.vmap(sj.grad(nn.log1mexp))(x[:4]), jax.vmap(jax.grad(jax.nn.log1mexp))(x[:4]))


@pytest.mark.parametrize("axis", [-1, 0, 2])
def test_glu(axis, rng):
  x = test_util.rand(rng, (4, 2, 6))
  check_like_jax(nn.glu(x, axis), jax.nn.glu(x, axis))


def test_glu_odd_axis_is_an_error():
  with pytest.raises(AssertionError, match="glu"):
    nn.glu(np.ones((2, 3), np.float32))


AXES = [-1, 0, (0, 2), None]


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("masked", [False, True])
def test_softmax_values_and_gradients(name, axis, masked, rng):
  x = test_util.rand(rng, (3, 4, 5))
  where = rng.random((3, 4, 5)) < 0.7 if masked else None
  f, g = getattr(nn, name), getattr(jax.nn, name)
  check_like_jax(f(x, axis, where), g(x, axis, where))

  def loss(fn, np_):
    def run(x):
      out = fn(x, axis, where)
      return np_.sum((out if where is None else np_.where(where, out, 0.)) * x)
    return run
  check_like_jax(sj.grad(loss(f, jnp))(x), jax.grad(loss(g, jjnp))(x), rtol=1e-5, atol=1e-5)


@pytest.mark.slow
def test_softmax_jit_vmap_and_edges():
  x = np.array([[0., -np.inf, 1.], [np.inf, 1., 2.], [-np.inf] * 3], np.float32)
  for name in ["softmax", "log_softmax"]:
    f, g = getattr(nn, name), getattr(jax.nn, name)
    check_like_jax(f(x), g(x))
    check_like_jax(sj.jit(f)(x[:1]), g(x[:1]))
    batched = np.arange(12, dtype=np.float32).reshape(3, 4)
    check_like_jax(sj.vmap(sj.grad(lambda v: f(v)[1]))(batched),
                   jax.vmap(jax.grad(lambda v: g(v)[1]))(batched))


@pytest.mark.slow
def test_softmax_derivative_against_finite_differences(rng):
  x = test_util.rand(rng, (3, 4))
  test_util.check_grads(lambda x: nn.softmax(x, 0), (x,), order=2)
  test_util.check_grads(lambda x: nn.logsumexp(x, 1), (x,), order=2)


@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("keepdims", [False, True])
def test_logsumexp(axis, keepdims, rng):
  x = test_util.rand(rng, (3, 4, 5))
  b = test_util.rand(rng, (3, 4, 5))
  where = rng.random((3, 4, 5)) < 0.7
  for kwargs in [{}, {"where": where}, {"b": b}, {"b": np.abs(b)}]:
    check_like_jax(nn.logsumexp(x, axis, keepdims=keepdims, **kwargs),
                   jax.nn.logsumexp(x, axis, keepdims=keepdims, **kwargs))
  out, sign = nn.logsumexp(x, axis, b=b, keepdims=keepdims, return_sign=True)
  jout, jsign = jax.nn.logsumexp(x, axis, b=b, keepdims=keepdims, return_sign=True)
  check_like_jax(out, jout)
  check_like_jax(sign, jsign)
  check_like_jax(nn.logmeanexp(x, axis, where, keepdims),
                 jax.nn.logmeanexp(x, axis, where, keepdims))


@pytest.mark.slow
def test_logsumexp_edges_and_gradient():
  x = np.array([[-np.inf, -np.inf], [np.inf, 1.], [1e30, 1e30], [0., np.nan]], np.float32)
  check_like_jax(nn.logsumexp(x, 1), jax.nn.logsumexp(x, 1))
  check_like_jax(nn.logsumexp(3), jax.nn.logsumexp(3))
  y = np.array([[1., 2., 2.], [-1., 5., 0.]], np.float32)
  check_like_jax(sj.grad(lambda v: nn.logsumexp(v, 1).sum())(y),
                 jax.grad(lambda v: jax.nn.logsumexp(v, 1).sum())(y))


@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("algorithm", ["fast", "stable"])
def test_standardize(axis, algorithm, rng):
  x = test_util.rand(rng, (3, 4, 5)) + 2.
  check_like_jax(nn.standardize(x, axis, algorithm=algorithm),
                 jax.nn.standardize(x, axis, algorithm=algorithm), rtol=1e-4, atol=1e-4)
  where = rng.random((3, 4, 5)) < 0.7
  check_like_jax(nn.standardize(x, axis, where=where, algorithm="stable"),
                 jax.nn.standardize(x, axis, where=where, algorithm="stable"),
                 rtol=1e-4, atol=1e-4)
  mean, variance = np.float32(1.), np.float32(4.)
  check_like_jax(nn.standardize(x, axis, mean, variance, epsilon=0.1),
                 jax.nn.standardize(x, axis, mean, variance, epsilon=0.1))


def test_standardize_unknown_algorithm():
  with pytest.raises(ValueError, match="Unknown algorithm"):
    nn.standardize(np.ones(3, np.float32), algorithm="slow")


@pytest.mark.parametrize("axis", [-1, 0, 1, -2])
@pytest.mark.parametrize("dtype", [None, np.int32, np.bool_, np.float16])
def test_one_hot(axis, dtype):
  x = np.array([[0, 2, -1], [3, 1, 5]], np.int32)
  check_like_jax(nn.one_hot(x, 4, dtype=dtype, axis=axis),
                 jax.nn.one_hot(x, 4, dtype=dtype, axis=axis))


def test_one_hot_jit_and_vmap():
  x = np.array([1, 0, 3], np.int32)
  expected = jax.nn.one_hot(x, 4)
  check_like_jax(sj.jit(lambda x: nn.one_hot(x, 4))(x), expected)
  check_like_jax(sj.vmap(lambda x: nn.one_hot(x, 4))(x), expected)


def _attention_args(rng, b=2, t=5, s=6, n=4, k=2, h=8):
  return (test_util.rand(rng, (b, t, n, h)), test_util.rand(rng, (b, s, k, h)),
          test_util.rand(rng, (b, s, k, h)))


ATTENTION_OPTIONS = {
    "plain": lambda rng: {},
    "bias": lambda rng: {"bias": test_util.rand(rng, (2, 4, 5, 6))},
    "bias_one_head": lambda rng: {"bias": test_util.rand(rng, (2, 1, 5, 6))},
    "mask": lambda rng: {"mask": rng.random((2, 1, 5, 6)) < 0.7},
    "causal": lambda rng: {"is_causal": True},
    "everything": lambda rng: {"bias": test_util.rand(rng, (1, 4, 5, 6)),
                               "mask": rng.random((2, 4, 5, 6)) < 0.7, "is_causal": True,
                               "scale": 0.3},
    "seq_lengths": lambda rng: {"query_seq_lengths": np.array([3, 5], np.int32),
                                "key_value_seq_lengths": np.array([6, 2], np.int32)},
    "window": lambda rng: {"local_window_size": (1, 2)},
    "window_int": lambda rng: {"local_window_size": 1, "implementation": "xla"},
}


@pytest.mark.parametrize("option", ATTENTION_OPTIONS)
def test_dot_product_attention(option, rng):
  q, k, v = _attention_args(rng)
  kwargs = ATTENTION_OPTIONS[option](rng)
  check_like_jax(nn.dot_product_attention(q, k, v, **kwargs),
                 jax.nn.dot_product_attention(q, k, v, **kwargs), rtol=1e-5, atol=1e-5)


@pytest.mark.slow
def test_dot_product_attention_jit_grad_and_3d(rng):
  q, k, v = _attention_args(rng)
  check_like_jax(nn.dot_product_attention(q[0], k[0], v[0]),
                 jax.nn.dot_product_attention(q[0], k[0], v[0]), rtol=1e-5, atol=1e-5)
  check_like_jax(sj.jit(nn.dot_product_attention)(q, k, v),
                 jax.nn.dot_product_attention(q, k, v), rtol=1e-5, atol=1e-5)

  def loss(attention):
    return lambda q, k, v: (attention(q, k, v, is_causal=True) ** 2).sum()
  actual = sj.grad(loss(nn.dot_product_attention), argnums=(0, 1, 2))(q, k, v)
  expected = jax.grad(loss(jax.nn.dot_product_attention), argnums=(0, 1, 2))(q, k, v)
  test_util.check_close(actual, expected, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("causal", [False, True])
def test_dot_product_attention_residual(causal, rng):
  q, k, v = _attention_args(rng)
  actual = nn.dot_product_attention(q, k, v, is_causal=causal, return_residual=True)
  expected = jax.nn.dot_product_attention(q, k, v, is_causal=causal, return_residual=True)
  for a, e in zip(actual, expected):
    check_like_jax(a, e, rtol=1e-5, atol=1e-5)


def test_dot_product_attention_errors(rng):
  q, k, v = _attention_args(rng)
  with pytest.raises(ValueError, match="value dtype"):
    nn.dot_product_attention(q, k, v.astype(np.float16))
  with pytest.raises(ValueError, match="multiple of key/value heads"):
    nn.dot_product_attention(q[:, :, :3], k, v)
  with pytest.raises(ValueError, match="mask dtype"):
    nn.dot_product_attention(q, k, v, mask=np.ones((2, 1, 5, 6), np.float32))
  with pytest.raises(ValueError, match="Unsupported implementation"):
    nn.dot_product_attention(q, k, v, implementation="flash")


# Initializers.

SHAPE = (3, 3, 4, 5)


def _pair(name, *args, **kwargs):
  return getattr(initializers, name)(*args, **kwargs), getattr(jax.nn.initializers, name)(
      *args, **kwargs)


def _check_init(ours, theirs, shape, dtype=None):
  actual = ours(sj.random.PRNGKey(7), shape, dtype)
  expected = theirs(jax.random.PRNGKey(7), shape, dtype)
  assert actual.shape == expected.shape and actual.dtype == expected.dtype
  np.testing.assert_allclose(np.asarray(actual), np.asarray(expected), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", ["zeros", "ones"])
@pytest.mark.parametrize("dtype", [None, np.float16, np.int32])
def test_constant_initializers(name, dtype):
  _check_init(getattr(initializers, name), getattr(jax.nn.initializers, name), (2, 3), dtype)
  _check_init(*_pair("constant", -7.5), (2, 3), dtype)


@pytest.mark.parametrize("name,args", [("uniform", ()), ("uniform", (3.,)), ("normal", ()),
                                       ("normal", (2.,)), ("truncated_normal", ()),
                                       ("truncated_normal", (2., None, -1., 0.5))])
def test_random_initializers(name, args):
  ours, theirs = _pair(name, *args)
  if name == "normal" and test_util.after_jax_followed(jax.__version__):
    # JAX after 0.10.2 (seen in 0.12) computes `normal(stddev)` as (sqrt(2) * stddev) *
    # erf_inv(u), rounding differently (by an ulp in float16) from 0.10.2's
    # `random.normal(key) * stddev`, which stablejax follows.
    stddev = args[0] if args else 1e-2
    theirs = lambda key, shape, dtype=None: jax.random.normal(  # noqa: E731
        key, shape, dtype or np.float32) * jjnp.array(stddev, dtype or np.float32)
  _check_init(ours, theirs, (4, 5))
  _check_init(ours, theirs, (3,), np.float16)


@pytest.mark.parametrize("name", ["glorot_uniform", "glorot_normal", "xavier_uniform",
                                  "xavier_normal", "he_uniform", "he_normal", "kaiming_uniform",
                                  "kaiming_normal", "lecun_uniform", "lecun_normal"])
def test_variance_scaling_presets(name):
  _check_init(*_pair(name), SHAPE)
  _check_init(*_pair(name, in_axis=0, out_axis=(1, 2), batch_axis=3), SHAPE)


@pytest.mark.parametrize("mode", ["fan_in", "fan_out", "fan_avg", "fan_geo_avg"])
@pytest.mark.parametrize("distribution", ["truncated_normal", "normal", "uniform"])
def test_variance_scaling(mode, distribution):
  _check_init(*_pair("variance_scaling", 0.5, mode, distribution), SHAPE)


@pytest.mark.parametrize("distribution,scale", [("truncated_normal", 2.0), ("normal", 1.0),
                                                ("uniform", 3.0)])
def test_variance_scaling_statistics(distribution, scale):
  fan_in, fan_out = 200, 300
  w = np.asarray(initializers.variance_scaling(scale, "fan_avg", distribution)(
      sj.random.PRNGKey(0), (fan_in, fan_out)))
  assert abs(w.mean()) < 0.01
  np.testing.assert_allclose(w.var(), scale / ((fan_in + fan_out) / 2), rtol=0.05)


def test_initializer_errors():
  key = sj.random.PRNGKey(0)
  with pytest.raises(ValueError, match="invalid mode"):
    initializers.variance_scaling(1., "fan_max", "normal")(key, (2, 3))
  with pytest.raises(ValueError, match="invalid distribution"):
    initializers.variance_scaling(1., "fan_in", "cauchy")(key, (2, 3))
  with pytest.raises(ValueError, match="at least 2D"):
    initializers.glorot_uniform()(key, (3,))


def test_initializers_are_initializers_and_run_under_jit():
  assert isinstance(initializers.he_normal(), initializers.Initializer)
  init = initializers.glorot_normal()
  actual = sj.jit(lambda k: init(k, (4, 6)))(sj.random.PRNGKey(3))
  expected = jax.nn.initializers.glorot_normal()(jax.random.PRNGKey(3), (4, 6))
  np.testing.assert_allclose(np.asarray(actual), np.asarray(expected), rtol=1e-6)
