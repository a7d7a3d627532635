"""Issue 40's findings in scipy.special, scipy.stats, nn, random and tree_util.Partial, each
against JAX 0.10.2 (values, dtypes, errors) and gradients against JAX and finite differences."""
import jax
import jax.numpy as jjnp
import jax.scipy.special as jspecial
import numpy as np
import pytest

import stablejax as sj
import stablejax.numpy as jnp
import stablejax.scipy.special as special


def _same(out, expected, rtol=2e-6, atol=1e-7):
  """Same dtypes and shapes as JAX's, values to float32 rounding (nan where JAX has nan)."""
  outs, exps = jax.tree_util.tree_leaves(out), jax.tree_util.tree_leaves(expected)
  assert len(outs) == len(exps)
  for o, e in zip(outs, exps):
    o, e = np.asarray(o), np.asarray(e)
    assert o.dtype == e.dtype and o.shape == e.shape, (o.dtype, e.dtype, o.shape, e.shape)
    np.testing.assert_allclose(o, e, rtol=rtol, atol=atol, equal_nan=True)


# Step 1: silently wrong values and nan gradients.

XY_POINTS = [(0., np.nan), (0., 3.), (0., 0.), (0., -1.), (2., 0.), (np.nan, 1.), (1., np.nan),
             (1.5, 0.5), (-2., 4.)]


@pytest.mark.parametrize("name", ["xlogy", "xlog1py", "rel_entr", "kl_div"])
@pytest.mark.parametrize("x,y", XY_POINTS)
def test_two_argument_values_and_gradients_match_jax(name, x, y):
  ours, theirs = getattr(special, name), getattr(jspecial, name)
  _same(ours(x, y), theirs(x, y))
  for argnum in (0, 1):
    _same(sj.grad(ours, argnum)(x, y), jax.grad(theirs, argnum)(x, y))


def test_xlogy_reported_cases():
  assert np.isnan(special.xlogy(0., np.nan)) and np.isnan(special.xlog1py(0., np.nan))
  np.testing.assert_allclose(sj.grad(special.xlogy)(0., 3.), np.log(3.), rtol=1e-6)
  np.testing.assert_allclose(sj.grad(special.xlog1py)(0., 3.), np.log(4.), rtol=1e-6)


@pytest.mark.parametrize("x", [0., 1e-3, 1., -1., np.inf, np.nan])
def test_entr_gradient_matches_jax(x):
  _same(special.entr(x), jspecial.entr(x))
  _same(sj.grad(special.entr)(x), jax.grad(jspecial.entr)(x))


def test_xlogy_gradient_matches_finite_differences():
  x, y, eps = np.float64(0.7), np.float64(2.5), 1e-6
  with sj.enable_x64(True):
    gx, gy = sj.grad(special.xlogy, (0, 1))(x, y)
  np.testing.assert_allclose(gx, (x * 0 + np.log(y)), rtol=1e-7)
  np.testing.assert_allclose(gy, ((x * np.log(y + eps)) - x * np.log(y - eps)) / (2 * eps),
                             rtol=1e-6)


MASK = np.arange(5) < 4
MASKED_INPUTS = [np.array([0, 0, 0, 0, 100.], np.float32),
                 np.array([0, 1, 0, np.inf, -np.inf], np.float32)]


@pytest.mark.parametrize("name", ["logsumexp", "softmax", "log_softmax"])
@pytest.mark.parametrize("x", MASKED_INPUTS)
def test_masked_reductions_have_jax_gradients(name, x):
  weights = np.arange(5.)

  def loss(module, array_module):
    def f(v):
      out = getattr(module, name)(v, where=MASK)
      return (out * array_module.where(MASK, weights, 0.)).sum()
    return f

  _same(getattr(sj.nn, name)(x, where=MASK), getattr(jax.nn, name)(x, where=MASK))
  _same(sj.grad(loss(sj.nn, jnp))(x), jax.grad(loss(jax.nn, jjnp))(x))


def test_scipy_logsumexp_where_gradient_is_finite():
  x = np.array([0, 0, 0, 0, 100.], np.float32)
  g = sj.grad(lambda v: special.logsumexp(v, where=MASK))(x)
  np.testing.assert_allclose(g, [.25, .25, .25, .25, 0.])


A = np.array([[1., 2., 3.], [0., -np.inf, 5.]], np.float32)
LSE_CASES = [dict(), dict(b=np.array([1 + 1j, 2, -1j], np.complex64)),
             dict(b=np.array([1, 0, -2.], np.float32)), dict(b=-np.ones(3, np.float32)),
             dict(axis=1, b=np.array([1, 0, -2.], np.float32)), dict(axis=0, keepdims=True),
             dict(where=np.array([True, False, True])),
             dict(axis=1, where=np.array([False, False, False]))]


@pytest.mark.parametrize("kwargs", LSE_CASES)
@pytest.mark.parametrize("return_sign", [False, True])
@pytest.mark.parametrize("a", [A, A.astype(np.complex64) + 1j], ids=["real", "complex"])
def test_logsumexp_matches_jax(kwargs, return_sign, a):
  expected = jax.nn.logsumexp(a, return_sign=return_sign, **kwargs)
  _same(sj.nn.logsumexp(a, return_sign=return_sign, **kwargs), expected, rtol=1e-6)
  _same(special.logsumexp(a, return_sign=return_sign, **kwargs), expected, rtol=1e-6)


def test_logsumexp_complex_b_gradient_matches_jax():
  b = np.array([1 + 1j, 2, -1j], np.complex64)
  _same(sj.grad(lambda v: special.logsumexp(v, b=b).real)(A[0]),
        jax.grad(lambda v: jspecial.logsumexp(v, b=b).real)(A[0]), rtol=1e-5)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_scipy_softmax_reduces_all_axes_by_default(name):
  x = np.array([[1., 2.], [3., 5.]], np.float32)
  _same(getattr(special, name)(x), getattr(jspecial, name)(x))
  _same(getattr(special, name)(x, axis=1), getattr(jspecial, name)(x, axis=1))


# Step 2: complex dtypes.

@pytest.mark.parametrize("dtype", [np.complex64, np.float32, np.float16])
@pytest.mark.parametrize("shape", [(), (3, 4)])
def test_normal_draws_jax_bits(dtype, shape):
  ours = np.asarray(sj.random.normal(sj.random.PRNGKey(3), shape, dtype))
  theirs = np.asarray(jax.random.normal(jax.random.PRNGKey(3), shape, dtype))
  assert ours.dtype == theirs.dtype and ours.tobytes() == theirs.tobytes()


def test_complex128_normal_draws_jax_bits():
  with sj.enable_x64(True), jax.enable_x64(True):
    ours = np.asarray(sj.random.normal(sj.random.PRNGKey(1), (5,), np.complex128))
    theirs = np.asarray(jax.random.normal(jax.random.PRNGKey(1), (5,), np.complex128))
  assert ours.dtype == theirs.dtype and np.array_equal(ours, theirs)


def test_complex_normal_has_unit_variance():
  z = np.asarray(sj.random.normal(sj.random.PRNGKey(0), (20000,), np.complex64))
  np.testing.assert_allclose([z.real.var(), z.imag.var()], [0.5, 0.5], rtol=0.05)


@pytest.mark.parametrize("dtype", [np.int32, np.bool_])
def test_normal_refuses_non_inexact_dtypes(dtype):
  with pytest.raises(ValueError, match="float or complex"):
    sj.random.normal(sj.random.PRNGKey(0), (2,), dtype)
  with pytest.raises(ValueError):
    jax.random.normal(jax.random.PRNGKey(0), (2,), dtype)


INITIALIZERS = [("normal", ()), ("glorot_uniform", ()), ("glorot_normal", ()),
                ("lecun_normal", ()), ("lecun_uniform", ()), ("he_uniform", ()), ("he_normal", ()),
                ("orthogonal", ()), ("delta_orthogonal", ()), ("zeros", None),
                ("variance_scaling", (2., "fan_avg", "normal")),
                ("variance_scaling", (1., "fan_out", "uniform")),
                ("variance_scaling", (1., "fan_geo_avg", "truncated_normal"))]


@pytest.mark.parametrize("name,args", INITIALIZERS)
def test_complex_initializers_match_jax(name, args):
  shape = (3, 3, 4) if name == "delta_orthogonal" else (3, 4)

  def draw(initializers, random):
    init = getattr(initializers, name)
    init = init if args is None else init(*args)
    return init(random.PRNGKey(0), shape, np.complex64)

  _same(draw(sj.nn.initializers, sj.random), draw(jax.nn.initializers, jax.random),
        rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", ["uniform", "truncated_normal"])
def test_real_only_initializers_refuse_complex_like_jax(name):
  with pytest.raises(ValueError, match="float dtype"):
    getattr(sj.nn.initializers, name)()(sj.random.PRNGKey(0), (2,), np.complex64)
  with pytest.raises(ValueError, match="float dtype"):
    getattr(jax.nn.initializers, name)()(jax.random.PRNGKey(0), (2,), np.complex64)


COMPLEX_Z = np.array([0.5 + 0.5j, 1, -0.5, -1, 0, -3.3 + 2j, 10 + 20j, -20.5 - 0.1j,
                      1e-3 - 1e-3j, 3.7, -2.5 + 1e-4j, np.nan, complex(np.inf, 0),
                      complex(-np.inf, 0), complex(0, np.inf), -150.3 + 3j], np.complex64)


@pytest.mark.parametrize("name", ["gamma", "loggamma", "erfcx"])
def test_complex_gamma_loggamma_erfcx_match_jax(name):
  ours, theirs = getattr(special, name), getattr(jspecial, name)
  expected = theirs(COMPLEX_Z)
  _same(ours(COMPLEX_Z), expected, rtol=2e-5, atol=1e-6)
  _same(sj.jit(ours)(COMPLEX_Z), expected, rtol=2e-5, atol=1e-6)
  z, t = np.complex64(2 + 1j), np.complex64(1 - 0.5j)
  _same(sj.jvp(ours, (z,), (t,)), jax.jvp(theirs, (z,), (t,)), rtol=2e-5)


def test_complex_gamma_derivative_matches_finite_differences():
  z, eps = np.complex128(1.3 + 0.7j), 1e-6
  with sj.enable_x64(True):
    _, slope = sj.jvp(special.gamma, (z,), (np.complex128(1),))
    numeric = (special.gamma(z + eps) - special.gamma(z - eps)) / (2 * eps)
  np.testing.assert_allclose(slope, numeric, rtol=1e-6)


# Step 3: zeta's derivative in x, one_hot of a list, nested Partials.

ZETA_POINTS = [(3., 1.), (2., 3.), (4.5, 0.5), (1.5, 10.), (10., 2.)]


@pytest.mark.parametrize("x,q", ZETA_POINTS)
def test_zeta_gradients_match_jax(x, q):
  _same(sj.grad(special.zeta, (0, 1))(x, q), jax.grad(jspecial.zeta, (0, 1))(x, q), rtol=1e-5)
  _same(sj.jvp(special.zeta, (x, q), (1., 0.5)), jax.jvp(jspecial.zeta, (x, q), (1., 0.5)),
        rtol=1e-5)


def test_zeta_reported_gradient_and_finite_differences():
  np.testing.assert_allclose(sj.grad(special.zeta)(3., 1.), -0.19812626, rtol=1e-6)
  eps = 1e-6
  with sj.enable_x64(True):
    slope = sj.grad(special.zeta)(3., 1.)
    numeric = (special.zeta(3. + eps, 1.) - special.zeta(3. - eps, 1.)) / (2 * eps)
  np.testing.assert_allclose(slope, numeric, rtol=1e-7)


def test_zeta_gradient_batches():
  x, q = np.array([3., 4.], np.float32), np.array([1., 2.], np.float32)
  _same(sj.vmap(sj.grad(special.zeta))(x, q), jax.vmap(jax.grad(jspecial.zeta))(x, q), rtol=1e-5)


@pytest.mark.parametrize("x", [[1, 0, 2], (1, 0), 2, [[0, 3], [1, 1]]])
@pytest.mark.parametrize("axis", [-1, 0])
def test_one_hot_of_python_sequences(x, axis):
  _same(sj.nn.one_hot(x, 3, axis=axis), jax.nn.one_hot(x, 3, axis=axis))


def test_one_hot_of_floats_warns_like_jax():
  x = np.array([1.7, 0.], np.float32)
  with pytest.warns(DeprecationWarning, match="integer-typed"):
    ours = sj.nn.one_hot(x, 3)
  with pytest.warns(DeprecationWarning, match="integer-typed"):
    theirs = jax.nn.one_hot(x, 3)
  _same(ours, theirs)


def _abc(a, b, c, d=0):
  return (a, b, c, d)


@pytest.mark.parametrize("build", [
    lambda P: P(P(_abc, 1), 2), lambda P: P(P(_abc, 1, d=5), 2), lambda P: P(P(P(_abc, 1), 2), 3)],
    ids=["two", "keywords", "three"])
def test_nested_partials_are_not_merged(build):
  ours, theirs = build(sj.tree_util.Partial), build(jax.tree_util.Partial)
  assert ours.args == theirs.args and ours.keywords == theirs.keywords
  assert sj.tree_util.tree_leaves(ours) == jax.tree_util.tree_leaves(theirs)
  rest = (3,) * (3 - len(theirs.args) - len(theirs.func.args))
  assert ours(*rest) == theirs(*rest)
  scaled = sj.tree_util.tree_map(lambda v: v * 10, ours)
  assert scaled(*rest) == jax.tree_util.tree_map(lambda v: v * 10, theirs)(*rest)
  _same(sj.jit(lambda p: p(*rest))(ours), jax.jit(lambda p: p(*rest))(theirs))


# Step 4: jax.scipy.stats' gaussian_kde, mode, rankdata and truncnorm.

TRUNCNORM_X = np.array([-3, -1.5, -0.5, 0, 0.3, 1, 2.5, 4, np.nan], np.float32)


@pytest.mark.parametrize("name", ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"])
@pytest.mark.parametrize("a,b,loc,scale", [(-1, 2, 0, 1), (0.5, 3, 0.2, 1.5), (-4, -1, 0, 1),
                                           (2, 1, 0, 1), (-np.inf, 1, 0, 1), (1, np.inf, 0, 2)])
def test_truncnorm_matches_jax(name, a, b, loc, scale):
  ours = getattr(sj.scipy.stats.truncnorm, name)(TRUNCNORM_X, a, b, loc, scale)
  _same(ours, getattr(jax.scipy.stats.truncnorm, name)(TRUNCNORM_X, a, b, loc, scale), rtol=1e-5,
        atol=1e-6)


def test_truncnorm_gradient_matches_jax():
  def loss(stats):
    return lambda v: stats.truncnorm.logcdf(v, -1., 2.).sum() + stats.truncnorm.logpdf(
        v, -1., 2.).sum()
  x = TRUNCNORM_X[2:7]
  _same(sj.grad(loss(sj.scipy.stats))(x), jax.grad(loss(jax.scipy.stats))(x), rtol=1e-5)


def test_log_ndtr_matches_jax_bits_and_errors():
  x = np.array([np.nan, -np.inf, np.inf, -30, -12, -10, -5, 0, 3, 5, 6, 10], np.float32)
  for order in (0, 3, 7):
    _same(special.log_ndtr(x, order), jspecial.log_ndtr(x, order), rtol=0, atol=0)
  grad_of = lambda s, m: m.grad(lambda v: s.log_ndtr(v).sum())(x)  # noqa: E731
  _same(grad_of(special, sj), grad_of(jspecial, jax), rtol=1e-6)
  for args, error in [((np.float16(1),), TypeError), ((1., 2.5), TypeError), ((1., 31), ValueError)]:
    with pytest.raises(error):
      special.log_ndtr(*args)
    with pytest.raises(error):
      jspecial.log_ndtr(*args)


MODE_DATA = [np.array([[1, 2, 2, 3], [3, 3, 1, 1], [0, 5, 5, 5]], np.float32),
             np.array([[4, 1, 1], [2, 2, 7]], np.int32)]


@pytest.mark.parametrize("data", MODE_DATA, ids=["float", "int"])
@pytest.mark.parametrize("kwargs", [dict(), dict(axis=1), dict(axis=None),
                                    dict(axis=None, keepdims=True), dict(axis=-1, keepdims=True)])
def test_mode_matches_jax(data, kwargs):
  ours, theirs = sj.scipy.stats.mode(data, **kwargs), jax.scipy.stats.mode(data, **kwargs)
  assert type(ours).__name__ == "ModeResult"
  _same(tuple(ours), tuple(theirs))


@pytest.mark.parametrize("data", MODE_DATA + [np.array([1., np.nan, 2., 2.], np.float32)],
                         ids=["float", "int", "nan"])
@pytest.mark.parametrize("method", ["average", "min", "max", "dense", "ordinal"])
@pytest.mark.parametrize("axis", [None, 0, -1])
def test_rankdata_matches_jax(data, method, axis):
  _same(sj.scipy.stats.rankdata(data, method, axis=axis),
        jax.scipy.stats.rankdata(data, method, axis=axis))


def test_rankdata_and_mode_errors_match_jax():
  data = MODE_DATA[0]
  for call, error in [(lambda s: s.mode(data, nan_policy="omit"), NotImplementedError),
                      (lambda s: s.mode(data, nan_policy="x"), ValueError),
                      (lambda s: s.rankdata(data, "foo"), ValueError),
                      (lambda s: s.rankdata(data, nan_policy="raise"), NotImplementedError),
                      (lambda s: s.rankdata([1, 2]), TypeError)]:
    with pytest.raises(error):
      call(sj.scipy.stats)
    with pytest.raises(error):
      call(jax.scipy.stats)


_RNG = np.random.RandomState(0)
KDE_1D, KDE_2D = _RNG.randn(30).astype(np.float32), _RNG.randn(2, 40).astype(np.float32)
KDE_WEIGHTS = _RNG.rand(40).astype(np.float32)
KDE_CASES = [(KDE_1D, {}), (KDE_2D, {}), (KDE_2D, dict(weights=KDE_WEIGHTS)),
             (KDE_1D, dict(bw_method="silverman")), (KDE_1D, dict(bw_method=0.3)),
             (KDE_2D, dict(bw_method=lambda kde: 0.5))]


@pytest.mark.parametrize("data,kwargs", KDE_CASES)
def test_gaussian_kde_matches_jax(data, kwargs):
  ours, theirs = sj.scipy.stats.gaussian_kde(data, **kwargs), jax.scipy.stats.gaussian_kde(
      data, **kwargs)
  _same(sj.tree_util.tree_leaves(ours), jax.tree_util.tree_leaves(theirs), rtol=1e-5)
  points = np.linspace(-3, 3, 7, dtype=np.float32) if data.ndim == 1 else KDE_2D[:, :5] + 0.1
  for method in ("evaluate", "pdf", "logpdf", "__call__"):
    _same(getattr(ours, method)(points), getattr(theirs, method)(points), rtol=2e-5)
  _same(sj.jit(lambda kde, p: kde.logpdf(p))(ours, points), theirs.logpdf(points), rtol=2e-5)
  mean, cov = np.zeros(ours.d, np.float32), np.eye(ours.d, dtype=np.float32)
  _same(ours.integrate_gaussian(mean, cov), theirs.integrate_gaussian(mean, cov), rtol=2e-5)
  half = data[..., :20]
  _same(ours.integrate_kde(sj.scipy.stats.gaussian_kde(half)),
        theirs.integrate_kde(jax.scipy.stats.gaussian_kde(half)), rtol=2e-5)
  if ours.d == 1:
    _same(ours.integrate_box_1d(-1., 0.5), theirs.integrate_box_1d(-1., 0.5), rtol=2e-5)
  _same(ours.resample(sj.random.PRNGKey(0), (4,)), theirs.resample(jax.random.PRNGKey(0), (4,)),
        rtol=1e-4, atol=1e-5)


def test_gaussian_kde_errors_match_jax():
  for args, error in [((np.float32([1.]),), ValueError), ((np.complex64([1, 2]),), NotImplementedError),
                      ((KDE_1D, "nope"), ValueError)]:
    with pytest.raises(error):
      sj.scipy.stats.gaussian_kde(*args)
    with pytest.raises(error):
      jax.scipy.stats.gaussian_kde(*args)
  with pytest.raises(ValueError, match="dimension"):
    sj.scipy.stats.gaussian_kde(KDE_2D)(np.zeros((3, 2), np.float32))
  with pytest.raises(NotImplementedError):
    sj.scipy.stats.gaussian_kde(KDE_1D).integrate_box(0., 1.)


# Step 5: a sweep of scipy.special at edge points against JAX.

EDGE_POINTS = np.array([0., -0., 1., -1., 0.5, -2.5, 3., 10., -10., 1e-3, np.inf, -np.inf, np.nan],
                       np.float32)
SWEPT = ["erf", "erfc", "erfinv", "gammaln", "digamma", "i0e", "i1e", "expit", "logit", "entr",
         "ndtr", "ndtri", "log_ndtr", "gamma", "loggamma", "gammasgn", "factorial", "i0", "i1",
         "erfcx", "dawsn", "spence", "exp1", "expi", "sici", "fresnel"]


@pytest.mark.parametrize("name", SWEPT)
def test_unary_special_functions_match_jax_at_edge_points(name):
  _same(getattr(special, name)(EDGE_POINTS), getattr(jspecial, name)(EDGE_POINTS), rtol=1e-4,
        atol=1e-6)


@pytest.mark.parametrize("x", [0., 1., 0.25])
def test_logit_derivative_matches_jax(x):
  _same(sj.grad(special.logit)(x), jax.grad(jspecial.logit)(x))
