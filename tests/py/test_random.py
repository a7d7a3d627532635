"""stablejax.random against jax.random (threefry-2x32, JAX's default partitionable mode): keys,
split, fold_in, bits and every distribution bit for bit (floats to ~1 ulp; the gamma family to a
few, see below), eagerly, under jit, vmap over keys and parameters, grad, and inside fori_loop;
staged with lax ops only (and `random_gamma`), lowered without custom calls."""
import os

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import stablejax as sj  # noqa: E402
import stablejax.numpy as jnp  # noqa: E402
from stablejax import lax, test_util  # noqa: E402

S, J = sj.random, jax.random
SEEDS = [0, 1, 42, -7, 2 ** 31 + 5]


@pytest.fixture
def x64_both():
  """x64 on in stablejax and in JAX."""
  jax.config.update("jax_enable_x64", True)
  try:
    with test_util.x64(True):
      yield
  finally:
    jax.config.update("jax_enable_x64", False)


def _check(out, expected, ulps: int = 1):
  """Equal dtypes and shapes; equal integers and booleans; floats within `ulps` units in the
  last place."""
  out, expected = np.asarray(out), np.asarray(expected)
  assert out.dtype == expected.dtype, (out.dtype, expected.dtype)
  assert out.shape == expected.shape, (out.shape, expected.shape)
  if out.dtype.kind in "biu":
    np.testing.assert_array_equal(out, expected)
  else:
    np.testing.assert_array_max_ulp(out, expected, maxulp=ulps)


def _keys(seed):
  return S.PRNGKey(seed), J.PRNGKey(seed)


@pytest.mark.parametrize("seed", SEEDS + [np.int32(-1), np.uint32(7), 2 ** 40 + 3])
def test_keys(seed):
  _check(S.PRNGKey(seed), J.PRNGKey(seed))
  _check(S.key_data(S.key(seed)), J.key_data(J.key(seed)))
  _check(S.wrap_key_data(S.PRNGKey(seed)), J.PRNGKey(seed))


def test_key_under_jit_and_x64(x64_both):
  for seed in [np.int64(2 ** 40 + 3), np.int64(-5), 2 ** 33]:
    _check(S.PRNGKey(seed), J.PRNGKey(seed))
  _check(sj.jit(S.PRNGKey)(np.int64(-2 ** 35)), jax.jit(J.PRNGKey)(np.int64(-2 ** 35)))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("num", [2, 3, 5, (2, 3), ()])
def test_split(seed, num):
  k, jk = _keys(seed)
  _check(S.split(k, num), J.split(jk, num))


@pytest.mark.parametrize("seed", SEEDS)
def test_fold_in(seed):
  k, jk = _keys(seed)
  for data in [0, 1, 123456, np.int32(-3), np.uint32(2 ** 32 - 1)]:
    _check(S.fold_in(k, data), J.fold_in(jk, data))
  _check(sj.jit(S.fold_in)(k, np.int32(9)), J.fold_in(jk, 9))


@pytest.mark.parametrize("dtype", [None, np.uint8, np.uint16, np.uint32])
@pytest.mark.parametrize("shape", [(), (1,), (7,), (3, 5), (2, 3, 4)])
def test_bits(shape, dtype):
  for seed in SEEDS[:3]:
    k, jk = _keys(seed)
    _check(S.bits(k, shape, dtype), J.bits(jk, shape, dtype))


@pytest.mark.slow
def test_bits_64(x64_both):
  k, jk = _keys(3)
  _check(S.bits(k, (4, 3)), J.bits(jk, (4, 3)))
  _check(S.bits(k, (5,), np.uint64), J.bits(jk, (5,), np.uint64))


# name -> (stablejax call, jax call) for samplers taking (key, shape, dtype)
_FLOAT_SAMPLERS = ["uniform", "normal", "exponential", "laplace", "logistic", "cauchy", "gumbel"]


@pytest.mark.parametrize("name", _FLOAT_SAMPLERS)
@pytest.mark.parametrize("shape", [(), (5,), (3, 4)])
def test_float_samplers(name, shape):
  for seed in SEEDS[:4]:
    k, jk = _keys(seed)
    _check(getattr(S, name)(k, shape), getattr(J, name)(jk, shape), ulps=2)


@pytest.mark.parametrize("name", ["uniform", "normal"])
@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_float_dtypes(name, dtype):
  k, jk = _keys(11)
  _check(getattr(S, name)(k, (9,), dtype), getattr(J, name)(jk, (9,), dtype))


@pytest.mark.slow
@pytest.mark.parametrize("name", ["uniform", "normal", "exponential", "gumbel"])
def test_float64(name, x64_both):
  k, jk = _keys(5)
  _check(getattr(S, name)(k, (3, 4)), getattr(J, name)(jk, (3, 4)), ulps=2)
  _check(getattr(S, name)(k, (6,), np.float32), getattr(J, name)(jk, (6,), np.float32), ulps=2)


def test_uniform_bounds():
  k, jk = _keys(2)
  lo, hi = np.float32([-1., 0., 5.]), np.float32([[2.], [3.]])
  _check(S.uniform(k, (2, 3), minval=lo, maxval=hi), J.uniform(jk, (2, 3), minval=lo, maxval=hi))
  _check(S.uniform(k, (4,), minval=-3, maxval=3), J.uniform(jk, (4,), minval=-3, maxval=3))


def test_gumbel_high():
  k, jk = _keys(4)
  _check(S.gumbel(k, (6,), mode="high"), J.gumbel(jk, (6,), mode="high"), ulps=2)


@pytest.mark.parametrize("lower,upper,shape", [(-1., 2., (6,)), (0., 1., (3, 2)),
                                               (np.float32([-2., 0.5]), 3., None)])
def test_truncated_normal(lower, upper, shape):
  for seed in SEEDS[:3]:
    k, jk = _keys(seed)
    _check(S.truncated_normal(k, lower, upper, shape), J.truncated_normal(jk, lower, upper, shape),
           ulps=2)


def test_truncated_normal_clamps_to_open_interval():
  k, _ = _keys(0)
  out = np.asarray(S.truncated_normal(k, 5., 5.5, (200,)))
  assert np.all(out > 5.) and np.all(out < 5.5)


@pytest.mark.parametrize("p,shape,mode", [(0.5, None, "low"), (0.3, (7,), "low"),
                                          (np.float32([0.1, 0.9, 0.5]), (2, 3), "low"),
                                          (0.2, (5,), "high")])
def test_bernoulli(p, shape, mode):
  for seed in SEEDS[:3]:
    k, jk = _keys(seed)
    _check(S.bernoulli(k, p, shape, mode), J.bernoulli(jk, p, shape, mode))


@pytest.mark.parametrize("minval,maxval,dtype", [
    (0, 10, None), (-5, 100, np.int32), (0, 256, np.uint8), (-128, 128, np.int8),
    (3, 3, None), (7, 2, None), (0, 2 ** 31 - 1, np.int32), (-2 ** 31, 2 ** 31 - 1, np.int32),
    (0, 65536, np.uint16), (np.int32([0, 10, 20]), 30, np.int32),
])
def test_randint(minval, maxval, dtype):
  for seed in SEEDS[:3]:
    k, jk = _keys(seed)
    _check(S.randint(k, (4, 3), minval, maxval, dtype),
           J.randint(jk, (4, 3), minval, maxval, dtype))


@pytest.mark.slow
def test_randint_64(x64_both):
  k, jk = _keys(9)
  _check(S.randint(k, (6,), -2 ** 40, 2 ** 41), J.randint(jk, (6,), -2 ** 40, 2 ** 41))


@pytest.mark.slow
def test_rademacher():
  k, jk = _keys(1)
  _check(S.rademacher(k, (8,)), J.rademacher(jk, (8,)))
  _check(S.rademacher(k, (3,), np.float32), J.rademacher(jk, (3,), np.float32))


@pytest.mark.slow
@pytest.mark.parametrize("axis,shape", [(-1, None), (0, None), (1, (4, 3)), (-1, (2, 3))])
def test_categorical(axis, shape, rng):
  logits = rng.standard_normal((3, 5)).astype(np.float32)
  for seed in SEEDS[:3]:
    k, jk = _keys(seed)
    _check(S.categorical(k, logits, axis, shape), J.categorical(jk, logits, axis, shape))


@pytest.mark.parametrize("x,axis,independent", [
    (10, 0, False), (2000, 0, False), (np.arange(12).reshape(3, 4), 1, False),
    (np.arange(12.).reshape(3, 4), 0, False), (np.arange(12).reshape(3, 4), 1, True),
    (np.arange(24).reshape(2, 3, 4), -1, True),
])
@pytest.mark.slow
def test_permutation(x, axis, independent):
  for seed in SEEDS[:3]:
    k, jk = _keys(seed)
    _check(S.permutation(k, x, axis, independent), J.permutation(jk, x, axis, independent))


@pytest.mark.slow
def test_shuffle():
  k, jk = _keys(8)
  x = np.arange(20).reshape(4, 5)
  _check(S.shuffle(k, x, 1), J.permutation(jk, x, 1, independent=True))


@pytest.mark.parametrize("a,shape,replace,p,axis", [
    (10, (4,), True, None, 0), (10, (2, 3), False, None, 0),
    (np.arange(12).reshape(3, 4), (2,), True, None, 1),
    (np.arange(12).reshape(3, 4), (2,), False, None, 1),
    (4, (5,), True, np.float32([.1, .2, .3, .4]), 0),
    (4, (3,), False, np.float32([.1, .2, .3, .4]), 0),
    (np.arange(8.).reshape(4, 2), (3,), True, np.float32([.4, .1, .2, .3]), 0),
])
@pytest.mark.slow
def test_choice(a, shape, replace, p, axis):
  for seed in SEEDS[:3]:
    k, jk = _keys(seed)
    _check(S.choice(k, a, shape, replace, p, axis), J.choice(jk, a, shape, replace, p, axis))


# ----------------------------------------------------------------------------------------------
# Transforms of uniform and normal samples, with parameters: (name, args after the key)

_PARAM_SAMPLERS = [
    ("lognormal", (0.5, (4,))), ("lognormal", ()), ("maxwell", ((3, 2),)),
    ("double_sided_maxwell", (1., 2., (3,))),
    ("double_sided_maxwell", (np.float32([0., 1.]), 2.)),
    ("pareto", (np.float32([1., 2., 3.]),)), ("pareto", (2., (2, 3))),
    ("rayleigh", (2., (5,))), ("wald", (np.float32([1., 2.]),)), ("wald", (0.5, (3,))),
    ("weibull_min", (1.5, 2., (4,))), ("weibull_min", (1., np.float32([0.5, 3.]), (2,))),
    ("triangular", (0., 1., 3., (6,))), ("triangular", (np.float32([-1., 0.]), 0.5, 2.)),
    ("geometric", (0.3, (7,))), ("geometric", (np.float32([0.1, 0.9]), (3, 2))),
]


@pytest.mark.parametrize("name,args", [
    pytest.param(n, a, id=f"{n}{i}", marks=[pytest.mark.slow] if "maxwell" in n else [])
    for i, (n, a) in enumerate(_PARAM_SAMPLERS)])  # maxwell: 2-5 s to compile
def test_param_samplers(name, args):
  for seed in SEEDS[:3]:
    k, jk = _keys(seed)
    _check(getattr(S, name)(k, *args), getattr(J, name)(jk, *args), ulps=2)


@pytest.mark.slow
def test_param_samplers_transformed():
  keys, jkeys = S.split(S.PRNGKey(2), 3), J.split(J.PRNGKey(2), 3)
  for name, args in _PARAM_SAMPLERS[::2]:
    fn, jfn = getattr(S, name), getattr(J, name)
    _check(sj.jit(lambda k: fn(k, *args))(keys[0]), jfn(jkeys[0], *args), ulps=2)
    _check(sj.vmap(lambda k: fn(k, *args))(keys), jax.vmap(lambda k: jfn(k, *args))(jkeys),
           ulps=2)
  scale = np.float32([0.5, 1., 2.])
  _check(sj.vmap(lambda s: S.rayleigh(keys[0], s, (2,)))(scale),
         jax.vmap(lambda s: J.rayleigh(jkeys[0], s, (2,)))(scale), ulps=2)
  _check(sj.grad(lambda s: jnp.sum(S.lognormal(keys[1], s, (3,))))(np.float32(0.7)),
         jax.grad(lambda s: J.lognormal(jkeys[1], s, (3,)).sum())(np.float32(0.7)), ulps=4)
  _check(sj.grad(lambda m: jnp.sum(S.wald(keys[1], m, (3,))))(np.float32(1.3)),
         jax.grad(lambda m: J.wald(jkeys[1], m, (3,)).sum())(np.float32(1.3)), ulps=4)


def test_key_functions():
  k = S.PRNGKey(4)
  assert S.key_impl(k) == J.key_impl(J.PRNGKey(4)) == "threefry2x32"
  assert S.key_impl(S.split(k, 3)) == "threefry2x32"
  _check(S.clone(k), J.clone(J.PRNGKey(4)))
  with pytest.raises(NotImplementedError, match="typed PRNG key"):
    S.key_dtype()


# ----------------------------------------------------------------------------------------------
# The gamma family. JAX's rejection sampler runs here op for op (the same keys, the same loop):
# the samples agree to a few ulps, not to 1, because their log/pow/exp chains and erf_inv are
# rounded by XLA's fused CPU kernels, which fuse this program and JAX's differently.

_GAMMA_ULPS = 4
_GAMMA_FAMILY = [
    ("gamma", (np.float32([0.3, 1., 2.5, 7.]),)), ("gamma", (2., (3, 2))),
    ("loggamma", (np.float32([0.01, 0.3, 1., 5.]),)), ("beta", (0.5, 2., (4,))),
    ("beta", (np.float32([0.2, 3.]), 1.)), ("dirichlet", (np.float32([0.5, 1., 2.]), (2,))),
    ("chisquare", (3., (4,))), ("f", (2., 5., (3,))), ("t", (3., (4,))),
    ("generalized_normal", (1.5, (4,))), ("ball", (3, 2, (2,))), ("ball", (2, 1.))
]


@pytest.mark.slow
@pytest.mark.parametrize("name,args", _GAMMA_FAMILY,
                         ids=[f"{n}{i}" for i, (n, _) in enumerate(_GAMMA_FAMILY)])
def test_gamma_family(name, args):
  for seed in SEEDS[:2]:
    k, jk = _keys(seed)
    _check(getattr(S, name)(k, *args), getattr(J, name)(jk, *args), ulps=_GAMMA_ULPS)


@pytest.mark.slow
def test_gamma_transformed():
  a = np.float32([0.4, 1.5, 3.])
  keys, jkeys = S.split(S.PRNGKey(3), 3), J.split(J.PRNGKey(3), 3)
  _check(sj.jit(lambda k: S.gamma(k, a))(keys[0]), J.gamma(jkeys[0], a), ulps=_GAMMA_ULPS)
  _check(sj.vmap(lambda k: S.gamma(k, a))(keys), jax.vmap(lambda k: J.gamma(k, a))(jkeys),
         ulps=_GAMMA_ULPS)
  _check(sj.vmap(lambda a: S.gamma(keys[0], a))(a), jax.vmap(lambda a: J.gamma(jkeys[0], a))(a),
         ulps=_GAMMA_ULPS)
  _check(sj.vmap(lambda k, a: S.loggamma(k, a, (2,)))(keys, a),
         jax.vmap(lambda k, a: J.loggamma(k, a, (2,)))(jkeys, a), ulps=_GAMMA_ULPS)
  _check(sj.jit(sj.vmap(lambda k: S.beta(k, a, 2.)))(keys),
         jax.vmap(lambda k: J.beta(k, a, 2.))(jkeys), ulps=_GAMMA_ULPS)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["gamma", "loggamma"])
def test_gamma_grad(name):
  a = np.float32([0.4, 1.5, 3.])
  k, jk = _keys(3)
  fn, jfn = getattr(S, name), getattr(J, name)
  _check(sj.grad(lambda a: jnp.sum(fn(k, a)))(a), jax.grad(lambda a: jfn(jk, a).sum())(a),
         ulps=_GAMMA_ULPS)
  _check(sj.grad(lambda b: jnp.sum(S.beta(k, 2., b, (3,))))(np.float32(1.5)),
         jax.grad(lambda b: J.beta(jk, 2., b, (3,)).sum())(np.float32(1.5)), ulps=_GAMMA_ULPS)
  test_util.check_grads(lambda a: fn(k, a), (np.float32([1.5, 3.]),), order=1)


@pytest.mark.slow
@pytest.mark.parametrize("log_space", [False, True])
def test_random_gamma_against_reference(log_space):
  keys = S.split(S.PRNGKey(5), 2)
  a = np.float32([[0.2, 1., 3.], [0.05, 2., 9.]])
  out = lax.random_gamma_p.bind(keys, a, log_space=log_space)
  expected = sj.lax.primitive_kit.evaluate_reference(lax.random_gamma_p, keys, a, log_space=log_space)
  # the reference computes in numpy's float32 (and scipy's erfinv): log(d) + log(v) may cancel,
  # so the comparison is relative to the magnitude of the terms, not in ulps of the result
  np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)


def test_random_gamma_lowering():
  assert S.random_gamma_p is lax.random_gamma_p
  text = sj.jit(lambda k, a: S.gamma(k, a)).lower(S.PRNGKey(0), np.float32([1., 2.])).as_text()
  assert "stablehlo.while" in text and "chlo.erf_inv" in text and "custom_call" not in text
  closed = sj.make_jaxpr(lambda k, a: S.gamma(k, a))(S.PRNGKey(0), np.float32([1., 2.]))
  assert "random_gamma" in _primitive_names(closed.jaxpr)


# ----------------------------------------------------------------------------------------------
# Poisson, binomial, multinomial: JAX's vectorized inversion and rejection loops

_COUNT_SAMPLERS = [
    ("poisson", (np.float32([0., 0.5, 3., 12., 100.]),), {}), ("poisson", (4., (3, 2)), {}),
    ("poisson", (np.float32([2., 30.]), (2,), np.int16), {}),
    ("binomial", (np.float32([5., 50., 1000.]), np.float32([0.3, 0.7, 0.5])), {}),
    ("binomial", (20., 0.2, (4,)), {}),
    ("binomial", (np.float32([-1., np.inf, 10.]), np.float32([0.5, 0.5, np.nan])), {}),
    ("multinomial", (10., np.float32([0.2, 0.3, 0.5])), {}),
    ("multinomial", (np.float32([5., 100.]), np.float32([0.1, 0.9])), {"shape": (2, 2)}),
]


@pytest.mark.slow
@pytest.mark.parametrize("name,args,kwargs", _COUNT_SAMPLERS,
                         ids=[f"{n}{i}" for i, (n, _, _) in enumerate(_COUNT_SAMPLERS)])
def test_count_samplers(name, args, kwargs):
  jkwargs = kwargs
  if name == "multinomial" and "shape" in kwargs and test_util.after_jax_followed(jax.__version__):
    # JAX after 0.10.2 (seen in 0.12) takes multinomial's `shape` without the trailing category
    # axis; stablejax follows 0.10.2, whose `shape` includes it.
    jkwargs = {**kwargs, "shape": kwargs["shape"][:-1]}
  for seed in SEEDS[:2]:
    k, jk = _keys(seed)
    _check(getattr(S, name)(k, *args, **kwargs), getattr(J, name)(jk, *args, **jkwargs), ulps=2)


@pytest.mark.slow
def test_gamma_and_counts_64(x64_both):
  k, jk = _keys(1)
  _check(S.gamma(k, np.float64([0.3, 2.])), J.gamma(jk, np.float64([0.3, 2.])), ulps=_GAMMA_ULPS)
  _check(S.poisson(k, np.float64([3., 50.])), J.poisson(jk, np.float64([3., 50.])))
  _check(S.binomial(k, 10., 0.3, (3,)), J.binomial(jk, 10., 0.3, (3,)))
  _check(S.geometric(k, 0.2, (3,)), J.geometric(jk, 0.2, (3,)))


@pytest.mark.slow
def test_count_samplers_transformed():
  keys, jkeys = S.split(S.PRNGKey(7), 3), J.split(J.PRNGKey(7), 3)
  lam = np.float32([1., 5., 40.])
  _check(sj.vmap(lambda k: S.poisson(k, lam))(keys), jax.vmap(lambda k: J.poisson(k, lam))(jkeys))
  _check(sj.jit(sj.vmap(lambda lam: S.poisson(keys[0], lam, (2,))))(lam),
         jax.vmap(lambda lam: J.poisson(jkeys[0], lam, (2,)))(lam))
  p = np.float32([0.1, 0.5, 0.8])
  _check(sj.vmap(lambda k, p: S.binomial(k, 30., p, (2,)))(keys, p),
         jax.vmap(lambda k, p: J.binomial(k, 30., p, (2,)))(jkeys, p))
  _check(sj.jit(lambda k: S.multinomial(k, 20., p / p.sum()))(keys[1]),
         J.multinomial(jkeys[1], 20., p / p.sum()))


# ----------------------------------------------------------------------------------------------
# Transformations

def test_transformations_quick():
  keys, jkeys = S.split(S.PRNGKey(0), 3), J.split(J.PRNGKey(0), 3)
  _check(sj.vmap(lambda k: S.normal(k, (2,)))(keys), jax.vmap(lambda k: J.normal(k, (2,)))(jkeys))
  _check(sj.jit(lambda k: S.uniform(k, (2,)))(keys[0]), J.uniform(jkeys[0], (2,)))
  _check(sj.grad(lambda s: jnp.sum(S.normal(keys[0], (2,)) * s))(np.float32(2.)),
         jax.grad(lambda s: jax.numpy.sum(J.normal(jkeys[0], (2,)) * s))(np.float32(2.)), ulps=4)


@pytest.mark.slow
def test_under_jit():
  k, jk = _keys(6)
  for name in _FLOAT_SAMPLERS:
    fn = getattr(S, name)
    _check(sj.jit(lambda k: fn(k, (3, 2)))(k), getattr(J, name)(jk, (3, 2)), ulps=2)
  _check(sj.jit(lambda k: S.split(k, 4))(k), J.split(jk, 4))
  _check(sj.jit(lambda k: S.randint(k, (5,), 0, 9))(k), J.randint(jk, (5,), 0, 9))
  _check(sj.jit(lambda k: S.permutation(k, 9))(k), J.permutation(jk, 9))


@pytest.mark.slow
def test_vmap_over_keys():
  keys, jkeys = S.split(S.PRNGKey(0), 5), J.split(J.PRNGKey(0), 5)
  _check(sj.vmap(lambda k: S.normal(k, (3,)))(keys), jax.vmap(lambda k: J.normal(k, (3,)))(jkeys))
  _check(sj.vmap(S.split)(keys), jax.vmap(J.split)(jkeys))
  _check(sj.vmap(lambda k: S.fold_in(k, 3))(keys), jax.vmap(lambda k: J.fold_in(k, 3))(jkeys))
  _check(sj.vmap(lambda k: S.bits(k, (2,)))(keys), jax.vmap(lambda k: J.bits(k, (2,)))(jkeys))
  _check(sj.vmap(lambda k: S.randint(k, (4,), 0, 50))(keys),
         jax.vmap(lambda k: J.randint(k, (4,), 0, 50))(jkeys))
  _check(sj.vmap(lambda k: S.permutation(k, 6))(keys),
         jax.vmap(lambda k: J.permutation(k, 6))(jkeys))
  _check(sj.jit(sj.vmap(lambda k: S.uniform(k, (2,))))(keys),
         jax.vmap(lambda k: J.uniform(k, (2,)))(jkeys))
  data = np.arange(5, dtype=np.int32)
  _check(sj.vmap(S.fold_in, in_axes=(None, 0))(keys[0], data),
         jax.vmap(J.fold_in, in_axes=(None, 0))(jkeys[0], data))
  _check(sj.vmap(S.PRNGKey)(data), jax.vmap(J.PRNGKey)(data))


@pytest.mark.slow
def test_vmap_over_params():
  k, jk = _keys(3)
  lo = np.float32([0., 1., 2.])
  _check(sj.vmap(lambda m: S.uniform(k, (2,), minval=m, maxval=m + 1))(lo),
         jax.vmap(lambda m: J.uniform(jk, (2,), minval=m, maxval=m + 1))(lo))
  p = np.float32([0.1, 0.5, 0.9])
  _check(sj.vmap(lambda p: S.bernoulli(k, p, (4,)))(p),
         jax.vmap(lambda p: J.bernoulli(jk, p, (4,)))(p))


@pytest.mark.slow
def test_grad_of_samples():
  k, jk = _keys(1)
  sigma = np.float32(1.7)
  _check(sj.grad(lambda s: jnp.sum(S.normal(k, (5,)) * s))(sigma),
         jax.grad(lambda s: jax.numpy.sum(J.normal(jk, (5,)) * s))(sigma), ulps=4)
  bounds = (np.float32(-2.), np.float32(3.))
  _check(sj.grad(lambda a, b: jnp.sum(S.uniform(k, (4,), minval=a, maxval=b)), (0, 1))(*bounds),
         jax.grad(lambda a, b: jax.numpy.sum(J.uniform(jk, (4,), minval=a, maxval=b)),
                  (0, 1))(*bounds), ulps=4)


@pytest.mark.slow
def test_inside_fori_loop():
  def body(i, carry):
    key, total = carry
    key, sub = S.split(key)
    return key, total + S.normal(sub, (3,))

  def jbody(i, carry):
    key, total = carry
    key, sub = J.split(key)
    return key, total + J.normal(sub, (3,))
  k, jk = _keys(0)
  out = lax.fori_loop(0, 4, body, (k, np.zeros(3, np.float32)))
  expected = jax.lax.fori_loop(0, 4, jbody, (jk, np.zeros(3, np.float32)))
  _check(out[0], expected[0])
  _check(out[1], expected[1], ulps=4)
  out = sj.jit(lambda k: lax.fori_loop(0, 3, lambda i, k: S.fold_in(k, i), k))(k)
  _check(out, jax.lax.fori_loop(0, 3, lambda i, k: J.fold_in(k, i), jk))


# ----------------------------------------------------------------------------------------------
# Staging and lowering

def _primitive_names(jaxpr):
  names = set()
  for eqn in jaxpr.eqns:
    names.add(eqn.primitive.name)
    for sub in sj.jaxpr.subjaxprs(eqn):
      names |= _primitive_names(getattr(sub, "jaxpr", sub))
  return names


@pytest.mark.parametrize("fn", [lambda k: S.split(k, 3), lambda k: S.fold_in(k, 5)],
                         ids=["split", "fold_in"])
def test_split_and_fold_in_stage_lax_ops(fn):
  closed = sj.make_jaxpr(fn)(S.PRNGKey(0))
  names = _primitive_names(closed.jaxpr)
  lax_names = {p.name for p in test_util.lax_primitives()}
  assert names <= lax_names, names - lax_names
  assert {"xor", "shift_left", "shift_right_logical", "add"} <= names


def test_normal_lowering():
  text = sj.jit(lambda k: S.normal(k, (4,))).lower(S.PRNGKey(0)).as_text()
  for op in ["stablehlo.shift_right_logical", "stablehlo.shift_left", "stablehlo.xor",
             "stablehlo.bitcast_convert", "chlo.erf_inv"]:
    assert op in text, op
  assert "custom_call" not in text


# ----------------------------------------------------------------------------------------------
# Errors

@pytest.mark.parametrize("fn,exc,match", [
    (lambda: S.normal(np.zeros(3, np.uint32)), TypeError, "normal: expected a PRNG key"),
    (lambda: S.uniform(np.zeros(2, np.int32)), TypeError, "uniform: expected a PRNG key"),
    (lambda: S.normal(np.zeros((3, 2), np.uint32)), ValueError, "single key"),
    (lambda: S.PRNGKey(np.arange(3)), TypeError, "scalar seed"),
    (lambda: S.PRNGKey(1.5), TypeError, "integer"),
    (lambda: S.bits(S.PRNGKey(0), (2,), np.int32), ValueError, "unsigned"),
    (lambda: S.uniform(S.PRNGKey(0), (2,), np.int32), ValueError, "float dtype"),
    (lambda: S.randint(S.PRNGKey(0), (2,), 0, 3, np.float32), TypeError, "integer dtypes"),
    (lambda: S.bernoulli(S.PRNGKey(0), 1), TypeError, "floating dtype"),
    (lambda: S.fold_in(S.PRNGKey(0), np.arange(2)), TypeError, "scalar"),
    (lambda: S.fold_in(S.PRNGKey(0), -3), OverflowError, "uint32"),  # as JAX
    (lambda: S.choice(S.PRNGKey(0), 3, (5,), replace=False), ValueError, "larger sample"),
    (lambda: S.gumbel(S.PRNGKey(0), mode="bad"), ValueError, "mode"),
    (lambda: S.geometric(S.PRNGKey(0), 0.5, dtype=np.float32), ValueError, "int dtype"),
    (lambda: S.gamma(S.PRNGKey(0), 1., dtype=np.int32), ValueError, "float dtype"),
    (lambda: S.pareto(S.PRNGKey(0), np.float32(1.), (3,), np.float16), ValueError,
     "safely cast"),
    (lambda: S.pareto(S.PRNGKey(0), np.ones(2, np.float32), (3,)), ValueError, "broadcast"),
    (lambda: S.dirichlet(S.PRNGKey(0), 1.), ValueError, "alpha.ndim >= 1"),
    (lambda: S.poisson(S.PRNGKey(0), 1., dtype=np.float32), ValueError, "int dtype"),
    (lambda: S.binomial(S.PRNGKey(0), 3., 0.5, dtype=np.int32), ValueError, "float dtype"),
    (lambda: S.gamma(np.zeros(3, np.uint32), 1.), TypeError, "gamma: expected a PRNG key"),
])
def test_errors(fn, exc, match):
  with pytest.raises(exc, match=match):
    fn()


def test_bernoulli_out_sharding_lays_out_the_same_bits():
  # flax's nnx.Dropout passes `out_sharding=jax.typeof(x).sharding`, as JAX accepts
  mesh = sj.make_mesh((1,), ("x",))
  sharding = sj.sharding.NamedSharding(mesh, sj.sharding.PartitionSpec("x"))
  key = sj.random.PRNGKey(3)
  want = jax.random.bernoulli(jax.random.PRNGKey(3), 0.3, (8,))
  for out_sharding in (None, sharding):
    got = sj.jit(lambda k: sj.random.bernoulli(k, 0.3, (8,), out_sharding=out_sharding))(key)
    np.testing.assert_array_equal(got, want)
  assert sj.random.bernoulli(key, 0.3, (8,), out_sharding=sharding).sharding == sharding
