"""The remaining jax.numpy names against JAX: numpy-2 aliases and dtype predicates, float
decomposition, unique_*, cov/corrcoef, polynomials, trapezoid/interp/gradient/unwrap, windows,
diagonal and index helpers, choose/piecewise/place/put, vectorize and apply_*, r_/c_ and
packbits; values, dtypes, shapes and weak types, eagerly, under jit, vmap and grad."""
import jax
import jax.numpy as jn
import numpy as np
import pytest

import stablejax as sj
import stablejax.numpy as jnp
from stablejax import core, test_util

F32 = np.float32
R = np.random.default_rng(0)
X = R.standard_normal((3, 5)).astype(F32)
V = R.standard_normal(6).astype(F32)
XS = np.sort(R.standard_normal(7).astype(F32))


def _weak(x):
  return core.get_aval(x).weak_type if isinstance(x, (sj.Array, core.Tracer)) else None


def _check(got, want, rtol=2e-5, atol=2e-5):
  got_leaves, want_leaves = jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)
  assert len(got_leaves) == len(want_leaves), (got, want)
  for g, w in zip(got_leaves, want_leaves):
    assert np.shape(g) == np.shape(w) and np.asarray(g).dtype == np.asarray(w).dtype, (g, w)
    if isinstance(w, jax.Array):
      assert _weak(g) == w.weak_type, (g, w)
    np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=rtol, atol=atol)


# name -> (function of the numpy module, arguments); jitted when every argument is an array.
CASES = {
    "cov": (lambda m, x: m.cov(x), (X,)),
    "cov_rowvar_bias": (lambda m, x: m.cov(x, rowvar=False, bias=True), (X,)),
    "cov_y": (lambda m, x, y: m.cov(x, y), (X[0], X[1])),
    "cov_ddof": (lambda m, x: m.cov(x, ddof=2), (X,)),
    "cov_weights": (lambda m, x, a: m.cov(x, fweights=np.array([1, 2, 3, 1, 1]), aweights=a),
                    (X, np.arange(1.0, 6.0, dtype=F32))),
    "cov_int": (lambda m, x: m.cov(x), (np.arange(12).reshape(3, 4),)),
    "corrcoef": (lambda m, x: m.corrcoef(x), (X,)),
    "corrcoef_1d": (lambda m, x: m.corrcoef(x), (X[0],)),
    "corrcoef_complex": (lambda m, x: m.corrcoef(x), (X[:2] + 1j * X[1:],)),
    "polyval": (lambda m, p, x: m.polyval(p, x), (V, X)),
    "polyval_int_scalar": (lambda m, p: m.polyval(p, 2.0), (np.array([1, 2, 3]),)),
    "polyadd": (lambda m, a, b: m.polyadd(a, b), (V[:3], V)),
    "polysub": (lambda m, a, b: m.polysub(a, b), (V, V[:2])),
    "polymul": (lambda m, a, b: m.polymul(a, b), (V, V[:3])),
    "polymul_int": (lambda m, a, b: m.polymul(a, b), (np.arange(3), np.arange(1, 4))),
    "polydiv": (lambda m, a, b: m.polydiv(a, b), (V, V[:3])),
    "polyder": (lambda m, p: m.polyder(p, 2), (V,)),
    "polyder_int": (lambda m, p: m.polyder(p), (np.arange(5),)),
    "polyint": (lambda m, p: m.polyint(p, 2, k=3.0), (V,)),
    "polyint_k": (lambda m, p, k: m.polyint(p, 2, k=k), (V, V[:2])),
    "poly": (lambda m, r: m.poly(r), (V[:4],)),
    "trapezoid": (lambda m, y: m.trapezoid(y), (X,)),
    "trapezoid_x": (lambda m, y, x: m.trapezoid(y, x), (X, X[0])),
    "trapezoid_x2d": (lambda m, y, x: m.trapezoid(y, x, axis=0), (X, X * 2)),
    "trapezoid_dx": (lambda m, y: m.trapezoid(y, dx=0.5, axis=0), (X,)),
    "trapezoid_int": (lambda m, y: m.trapezoid(y), (np.arange(6),)),
    "interp": (lambda m, x, xp, fp: m.interp(x, xp, fp), (X * 2, XS, V[:1].repeat(7) + XS)),
    "interp_left_right": (lambda m, x, xp, fp: m.interp(x, xp, fp, left=-1.0, right=2.0),
                          (X * 2, XS, XS ** 2)),
    "interp_extrapolate": (lambda m, x, xp, fp: m.interp(x, xp, fp, left="extrapolate",
                                                         right="extrapolate"),
                           (X * 2, XS, XS ** 2)),
    "interp_period": (lambda m, x, xp, fp: m.interp(x, xp, fp, period=2.0), (X * 3, V, V ** 2)),
    "gradient": (lambda m, f: m.gradient(f), (X,)),
    "gradient_axis": (lambda m, f: m.gradient(f, 0.5, axis=1), (X,)),
    "gradient_coords": (lambda m, f, h: m.gradient(f, 2.0, h), (X, np.cumsum(np.abs(X[0]) + .1))),
    "gradient_int": (lambda m, f: m.gradient(f), (np.arange(6) ** 2,)),
    "unwrap": (lambda m, p: m.unwrap(p), (X * 4,)),
    "unwrap_axis": (lambda m, p: m.unwrap(p, discont=2.0, axis=0), (X * 4,)),
    "unwrap_int": (lambda m, p: m.unwrap(p, period=7), (np.arange(10) * 3,)),
    "frexp": (lambda m, x: m.frexp(x), (np.array([0., 1., -3.5, 1e-20, np.inf, 6.5e4, np.nan],
                                                 F32),)),
    "frexp_int": (lambda m, x: m.frexp(x), (np.arange(-3, 4),)),
    "ldexp": (lambda m, x, e: m.ldexp(x, e), (X, np.arange(15).reshape(3, 5) - 7)),
    "modf": (lambda m, x: m.modf(x), (X * 3,)),
    "divmod": (lambda m, x, y: m.divmod(x, y), (X * 3, np.float32(1.3))),
    "divmod_int": (lambda m, x, y: m.divmod(x, y), (np.arange(-5, 5), np.int32(3))),
    "spacing": (lambda m, x: m.spacing(x), (X,)),
    "fabs": (lambda m, x: m.fabs(x), (np.arange(-3, 3),)),
    "matvec": (lambda m, a, b: m.matvec(a, b), (R.standard_normal((2, 3, 4)).astype(F32),
                                                 X[0, :4])),
    "vecmat": (lambda m, a, b: m.vecmat(a, b),
               (X[0, :3], R.standard_normal((2, 3, 4)).astype(F32))),
    "astype": (lambda m, x: m.astype(x, np.int32), (X,)),
    "astype_none": (lambda m, x: m.astype(x, None), (np.arange(3),)),
    "astype_complex_bool": (lambda m, x: m.astype(x, bool), (np.array([0j, 1j]),)),
    "asin": (lambda m, x: m.asin(x), (X / 3,)),
    "acosh": (lambda m, x: m.acosh(x), (X ** 2 + 1,)),
    "atan2": (lambda m, x: m.atan2(x, 1.0), (X,)),
    "bitwise_not": (lambda m, x: (m.bitwise_not(x), m.bitwise_invert(x)), (np.arange(4),)),
    "iscomplex": (lambda m, x: (m.iscomplex(x), m.isreal(x)), (np.array([1 + 1j, 2]),)),
    "isreal_real": (lambda m, x: m.isreal(x), (X,)),
    "sort_complex": (lambda m, x: m.sort_complex(x), (X,)),
    "diagflat": (lambda m, v: (m.diagflat(v, -1), m.diagflat(v, 2)), (X[:2, :2],)),
    "fill_diagonal": (lambda m, a: m.fill_diagonal(a, 7.0, inplace=False), (X,)),
    "fill_diagonal_vals": (lambda m, a, v: m.fill_diagonal(a, v, inplace=False), (X, X[0, :2])),
    "fill_diagonal_3d": (lambda m, a: m.fill_diagonal(a, 2, inplace=False),
                         (np.zeros((3, 3, 3), np.int32),)),
    "choose": (lambda m, a, b, c: m.choose(np.array([0, 1, 2, 1, 0]), [a, b, c]),
               (X[0], X[1], X[2])),
    "choose_wrap": (lambda m, a, b: m.choose(np.array([0, 4, -2, 1, 0]), [a, b, 3.0], mode="wrap"),
                    (X[0], X[1])),
    "choose_clip": (lambda m, i, a, b: m.choose(i, [a, b], mode="clip"),
                    (np.array([0, 4, -2, 1, 0]), X[0], X[1])),
    "piecewise": (lambda m, x: m.piecewise(x, [x < 0, x > 0.5], [lambda v: -v, 2.0, 7.0]), (X,)),
    "piecewise_default": (lambda m, x: m.piecewise(x, [x < 0], [lambda v: v * 2]), (X,)),
    "place": (lambda m, x: m.place(x, x > 0, np.array([1.0, 2.0], F32), inplace=False), (X,)),
    "put": (lambda m, x: m.put(x, np.array([0, 3, 20]), np.array([9.0, 8.0], F32),
                               inplace=False), (X,)),
    "put_wrap": (lambda m, x: m.put(x, np.array([0, 3, 20]), np.float32(8.0), mode="wrap",
                                    inplace=False), (X,)),
    "put_clip": (lambda m, x: m.put(x, np.array([-1, 30]), np.array([9.0, 8.0], F32),
                                    mode="clip", inplace=False), (X,)),
    "packbits": (lambda m, x: m.packbits(x, axis=1), (np.array([[1, 0, 1], [0, 1, 1]]),)),
    "packbits_little": (lambda m, x: m.packbits(x > 0, bitorder="little"), (X,)),
    "unpackbits": (lambda m, x: m.unpackbits(x, axis=0), (np.array([[3, 200]], np.uint8),)),
    "unpackbits_count": (lambda m, x: m.unpackbits(x, count=11, bitorder="little"),
                         (np.array([3, 200], np.uint8),)),
    "apply_along_axis": (lambda m, x: m.apply_along_axis(lambda v: v.sum() * v[0], 1, x), (X,)),
    "apply_along_axis_0": (lambda m, x: m.apply_along_axis(lambda v: v[::-1], 0, x), (X,)),
    "apply_over_axes": (lambda m, x: m.apply_over_axes(m.sum, x, [0, 1]), (X,)),
    "vectorize": (lambda m, x, y: m.vectorize(lambda a, b: a * b + 1)(x, y), (X, X[0])),
    "vectorize_signature": (lambda m, x: m.vectorize(lambda a: a.sum(), signature="(n)->()")(x),
                            (X,)),
    "vectorize_excluded": (lambda m, x: m.vectorize(lambda a, k: a * k, excluded={1})(x, 3.0),
                           (X,)),
    "r_": (lambda m, x: m.r_[x, 0, 1:4, -1:1:5j], (X[0],)),
    "r_directive": (lambda m, x, y: m.r_["0,2", x, y], (X[0], X[1])),
    "c_": (lambda m, x, y: m.c_[x, y], (X[0], X[1])),
    "kaiser": (lambda m, b: m.kaiser(7, b), (np.float32(2.0),)),
    "polyfit": (lambda m, x, y: m.polyfit(x, y, 2), (XS, XS ** 2 - V[0] * XS)),
    "polyfit_full": (lambda m, x, y: m.polyfit(x, y, 3, full=True), (XS, np.sin(XS))),
    "polyfit_w_cov": (lambda m, x, y, w: m.polyfit(x, y, 1, w=w, cov=True),
                      (XS, np.cos(XS), XS ** 2 + 1)),
    "polyfit_2d_unscaled": (lambda m, x, y: m.polyfit(x, y, 2, rcond=1e-3, cov="unscaled"),
                            (XS, np.stack([XS, np.cos(XS)], 1))),
    "polyfit_int": (lambda m, x, y: m.polyfit(x, y, 1), (XS, np.arange(7))),
}


@pytest.mark.parametrize("name", list(CASES))
def test_against_jax(name):
  fn, args = CASES[name]
  want = fn(jn, *args)
  _check(fn(jnp, *args), want)


JIT_CASES = [n for n in CASES if n not in ("r_", "frexp")]


@pytest.mark.parametrize("name", [n for n in JIT_CASES if not n.startswith(("choose", "c_",
                                                                              "r_d"))])
def test_under_jit(name):
  fn, args = CASES[name]
  _check(sj.jit(lambda *a: fn(jnp, *a))(*args), jax.jit(lambda *a: fn(jn, *a))(*args))


@pytest.mark.parametrize("name", ["bartlett", "blackman", "hamming", "hanning"])
@pytest.mark.parametrize("m", [0, 1, 2, 7, 8])
def test_windows(name, m):
  _check(getattr(jnp, name)(m), getattr(jn, name)(m), atol=1e-6)


@pytest.mark.parametrize("m", [0, 1, 6])
def test_kaiser(m):
  _check(jnp.kaiser(m, 3.0), jn.kaiser(m, 3.0), rtol=1e-5)


def test_scalar_weak_types():
  for fn in (lambda m: m.polyval(np.array([1.0, 2.0], F32), 2.0), lambda m: m.asin(0.5),
             lambda m: m.trapezoid(np.arange(4)), lambda m: m.fabs(-2),
             lambda m: m.modf(2.5), lambda m: m.spacing(1.0)):
    _check(fn(jnp), fn(jn))


@pytest.mark.parametrize("name", ["cov", "polyval", "interp", "trapezoid_x", "gradient",
                                  "unwrap", "corrcoef", "polymul", "spacing"])
def test_vmap(name):
  fn, args = CASES[name]
  batched = tuple(np.stack([a, a * 0.5 + 0.25]) for a in args)
  if name == "interp":
    batched = (batched[0], args[1], batched[2])
    in_axes = (0, None, 0)
  else:
    in_axes = 0
  _check(sj.vmap(lambda *a: fn(jnp, *a), in_axes)(*batched),
         jax.vmap(lambda *a: fn(jn, *a), in_axes)(*batched), rtol=1e-4, atol=1e-4)


GRAD_CASES = {
    "cov": lambda m, x: m.cov(x).sum(),
    "corrcoef": lambda m, x: (m.corrcoef(x) * np.arange(9).reshape(3, 3)).sum(),
    "polyval": lambda m, x: m.polyval(x[0], x[1:]).sum(),
    "interp": lambda m, x: m.interp(x[0] * 2, XS, x[1, :1] * XS).sum(),
    "trapezoid": lambda m, x: m.trapezoid(x ** 2, x[0]).sum(),
    "gradient": lambda m, x: (m.gradient(x, axis=1) ** 2).sum(),
    "unwrap": lambda m, x: (m.unwrap(x * 4) ** 2).sum(),
    "polyint": lambda m, x: m.polyint(x[0], 2, k=x[1, :2]).sum(),
    "polyfit": lambda m, x: (m.polyfit(x[0], x[1], 2) ** 2).sum(),
}


@pytest.mark.parametrize("name", list(GRAD_CASES))
def test_grad(name):
  fn = GRAD_CASES[name]
  _check(sj.grad(lambda x: fn(jnp, x))(X), jax.grad(lambda x: fn(jn, x))(X), rtol=1e-4,
         atol=1e-4)
  test_util.check_grads(lambda x: fn(jnp, x), (X.astype(np.float64),), order=1, modes=("rev",),
                        rtol=2e-2, atol=2e-2)


@pytest.mark.slow
def test_unique_family():
  x = np.array([3, 1, 3, 2, 1, 7])
  for name in ("unique_all", "unique_counts", "unique_inverse"):
    got, want = getattr(jnp, name)(x), getattr(jn, name)(x)
    assert got._fields == want._fields
    _check(tuple(got), tuple(want))
  _check(jnp.unique_values(x), jn.unique_values(x))
  _check(sj.jit(lambda v: tuple(jnp.unique_all(v, size=6, fill_value=0)))(x),
         tuple(jn.unique_all(x, size=6, fill_value=0)))


@pytest.mark.slow
def test_index_helpers():
  for name, arg in [("diag_indices_from", np.ones((3, 3, 3))), ("tril_indices_from", X),
                    ("triu_indices_from", X)]:
    _check(getattr(jnp, name)(arg), getattr(jn, name)(arg))
  _check(jnp.tril_indices_from(X, 1), jn.tril_indices_from(X, 1))
  _check(jnp.mask_indices(4, jnp.triu, 1), jn.mask_indices(4, jn.triu, 1))
  assert jnp.s_[1:3, ::2] == jn.s_[1:3, ::2] and jnp.index_exp[2] == jn.index_exp[2]
  t = np.array([0, 0, 1, 2, 0, 3, 0])
  _check(jnp.trim_zeros(t), jn.trim_zeros(t))
  z = np.array([[0, 0], [1, 0], [0, 0]])
  _check(jnp.trim_zeros(z, "f"), jn.trim_zeros(z, "f"))
  _check(jnp.trim_zeros(z, "b", axis=0), jn.trim_zeros(z, "b", axis=0))


def test_dtype_predicates_and_aliases():
  for dt in (np.float32, np.int8, np.uint16, np.bool_, np.complex64):
    for kind in ("bool", "signed integer", "unsigned integer", "integral", "real floating",
                 "complex floating", "numeric", np.float32, ("bool", np.int8)):
      assert jnp.isdtype(dt, kind) == jn.isdtype(dt, kind), (dt, kind)
    for to in (np.float32, np.int64, np.int8):
      assert jnp.can_cast(dt, to) == jn.can_cast(dt, to)
  with pytest.raises(ValueError, match="kind"):
    jnp.isdtype(np.float32, "floaty")
  assert jnp.can_cast(jnp.asarray(X), np.float64) == jn.can_cast(jn.asarray(X), np.float64)
  for v in (1, 1.0, 1j, np.float32(1), X, X + 0j, [1, 2], None, "a", np.float32(1.0), 1.0j):
    assert jnp.iscomplexobj(v) == jn.iscomplexobj(v) and jnp.isrealobj(v) == jn.isrealobj(v)
    assert jnp.isscalar(v) == jn.isscalar(v), v
    assert jnp.iterable(v) == jn.iterable(v)
    if isinstance(v, (int, float, complex, np.generic, np.ndarray)):
      assert jnp.isscalar(jnp.asarray(v)) == jn.isscalar(jn.asarray(v))
  for name in ("bool", "double", "single", "cdouble", "csingle", "complex_", "uint"):
    assert np.dtype(getattr(jnp, name)) == np.dtype(getattr(jn, name)), name
  for name in ("character", "flexible", "object_", "euler_gamma", "ComplexWarning"):
    assert getattr(jnp, name) is getattr(jn, name) or getattr(jnp, name) == getattr(jn, name)
  for ops in [(X, X.T), (X, X.T, X)]:
    spec = "ij,jk->ik" if len(ops) == 2 else "ij,jk,kl->il"
    for opt in ("auto", False, True):
      want = jn.einsum_path(spec, *ops, optimize=opt)[0]
      assert jnp.einsum_path(spec, *ops, optimize=opt)[0] == want
  with jnp.printoptions(precision=3):
    assert jnp.get_printoptions()["precision"] == 3


@pytest.mark.parametrize("fn, exc", [
    (lambda m: m.fill_diagonal(X, 1.0), NotImplementedError),
    (lambda m: m.place(X, X > 0, X), ValueError),
    (lambda m: m.put(X, np.array([0]), 1.0), ValueError),
    (lambda m: m.fabs(X + 1j), TypeError),
    (lambda m: m.spacing(X + 1j), ValueError),
    (lambda m: m.frexp(X + 1j), TypeError),
    (lambda m: m.ldexp(X, X), ValueError),
    (lambda m: m.cov(np.ones((2, 2, 2))), ValueError),
    (lambda m: m.cov(X, dtype=np.int32), ValueError),
    (lambda m: m.cov(X, fweights=np.ones(5)), TypeError),
    (lambda m: m.cov(X, aweights=np.ones(4)), RuntimeError),
    (lambda m: m.interp(X, XS, XS[:3]), ValueError),
    (lambda m: m.interp(X[0], XS, XS, left="x"), ValueError),
    (lambda m: m.gradient(np.ones(1)), ValueError),
    (lambda m: m.unwrap(X + 1j), ValueError),
    (lambda m: m.polyder(V, -1), ValueError),
    (lambda m: m.polyint(V, -1), ValueError),
    (lambda m: m.choose(np.array([0, 5]), [V[:2], V[:2]]), ValueError),
    (lambda m: m.choose(np.array([0.0]), [V[:1]]), ValueError),
    (lambda m: m.piecewise(X, [X > 0], [1, 2, 3]), ValueError),
    (lambda m: m.diag_indices_from(X), ValueError),
    (lambda m: m.tril_indices_from(V), ValueError),
    (lambda m: m.packbits(X), TypeError),
    (lambda m: m.unpackbits(np.arange(3)), TypeError),
])
def test_errors(fn, exc):
  with pytest.raises(exc):
    fn(jn)
  with pytest.raises(exc):
    fn(jnp)


def test_concrete_only_under_jit():
  with pytest.raises(sj.core.ConcretizationTypeError):
    sj.jit(jnp.trim_zeros)(V)
  with pytest.raises(sj.core.ConcretizationTypeError):
    sj.jit(lambda i: jnp.choose(i, [V[:2], V[:2]]))(np.array([0, 1]))


S = R.standard_normal((40, 3)).astype(F32)
W = R.random(40).astype(F32)
HIST_CASES = {
    "dd": lambda m, s, w: m.histogramdd(s),
    "dd_weights_density": lambda m, s, w: m.histogramdd(s, bins=[3, 4, 5], weights=w,
                                                        density=True),
    "dd_range": lambda m, s, w: m.histogramdd(s, bins=4, range=[(-1, 1), None, (0, 2)]),
    "2d": lambda m, s, w: m.histogram2d(s[:, 0], s[:, 1]),
    "2d_weights": lambda m, s, w: m.histogram2d(s[:, 0], s[:, 1], bins=[3, 5], weights=w,
                                                density=True),
    "2d_edges": lambda m, s, w: m.histogram2d(s[:, 0], s[:, 1], bins=np.linspace(-2, 2, 5)),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(HIST_CASES))
def test_histograms(name):
  fn = HIST_CASES[name]
  _check(fn(jnp, S, W), fn(jn, S, W), rtol=1e-5, atol=1e-6)
  _check(sj.jit(lambda s, w: fn(jnp, s, w))(S, W), jax.jit(lambda s, w: fn(jn, s, w))(S, W),
         rtol=1e-5, atol=1e-6)


def test_io(tmp_path):
  path = tmp_path / "x.npy"
  jnp.save(path, X)
  got = jnp.load(path)
  assert isinstance(got, sj.Array)
  _check(got, jn.load(path))
  _check(jnp.fromstring("1 2 3", sep=" "), jn.fromstring("1 2 3", sep=" "))
  for name in ("fromfile", "fromiter"):
    with pytest.raises(NotImplementedError, match=name):
      getattr(jnp, name)(iter([1]))
  assert jnp.array_str(X) == jn.array_str(X) and jnp.savez is jn.savez


_METHOD_CASES = [
    ("real", None), ("imag", None), ("mT", None), ("itemsize", None), ("nbytes", None),
    ("conj", ()), ("conjugate", ()), ("cumprod", (1,)), ("sort", ()), ("argsort", ()),
    ("diagonal", ()), ("nonzero", ()), ("take", (np.array([0, 2]),)), ("repeat", (2,)),
    ("searchsorted", (np.float32(0.5),)), ("compress", (np.array([True, False]),)),
]


@pytest.mark.parametrize("name,args", _METHOD_CASES, ids=[c[0] for c in _METHOD_CASES])
def test_array_methods_and_properties_match_jax(name, args):
  rng = np.random.default_rng(0)
  x = (rng.standard_normal((2, 3)) + 1j * rng.standard_normal((2, 3))).astype(np.complex64)
  if name in ("cumprod", "sort", "argsort", "searchsorted", "nonzero", "repeat"):
    x = np.sort(x.real.ravel()) if name == "searchsorted" else x.real
  ours, theirs = sj.device_put(x), jn.asarray(x)
  got, want = getattr(ours, name), getattr(theirs, name)
  if args is not None:
    got, want = got(*args), want(*args)
  for g, w in zip(*(t if isinstance(t, tuple) else (t,) for t in (got, want))):
    np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6)
    assert np.asarray(g).dtype == np.asarray(w).dtype


def test_real_and_imag_properties_differentiate():
  assert float(sj.grad(lambda v: (v * 2.0).real.sum())(1.0)) == 2.0
  f = lambda v: (v * (1 + 2j)).imag
  assert float(sj.grad(f)(1.0)) == float(jax.grad(f)(1.0)) == 2.0


@pytest.mark.parametrize("fn", [
    lambda m: m.polyfit(XS, XS, -1),
    lambda m: m.polyfit(X, X, 1),
    lambda m: m.polyfit(XS[:0], XS[:0], 1),
    lambda m: m.polyfit(XS, X, 1),
    lambda m: m.polyfit(XS, XS[1:], 1),
    lambda m: m.polyfit(XS, XS, 1, w=X),
    lambda m: m.polyfit(XS, XS, 1, w=XS[1:]),
    lambda m: m.polyfit(XS[:3], XS[:3], 2, cov=True),
    lambda m: m.polyfit([1.0, 2.0], XS[:2], 1),
    lambda m: m.roots(X),
    lambda m: m.roots([1.0, 2.0]),
    lambda m: jax.jit(m.roots)(V) if m is jn else sj.jit(m.roots)(V),
])
def test_polyfit_and_roots_errors_match_jax(fn):
  with pytest.raises(Exception) as want:
    fn(jn)
  with pytest.raises(Exception) as got:
    fn(jnp)
  assert type(got.value).__name__ == want.type.__name__, got.value


@pytest.mark.parametrize("p", [np.array([2.0], F32), np.zeros(3, F32), np.arange(1, 2),
                               np.array([0.0, 0.0, 1.0], F32)])
def test_roots_without_eigenvalues(p):
  """Polynomials of degree 0 once stripped: no eigenvalue problem."""
  _check(jnp.roots(p), jn.roots(p))


@pytest.mark.parametrize("p,strip", [(np.array([1.0, -3.0, 2.0], F32), True),
                                     (np.array([0.0, 1.0, 0.0, -4.0], F32), True),
                                     (np.array([0.0, 1.0, 0.0, -4.0], F32), False),
                                     (np.array([1, 0, 1]), True)])
def test_roots_match_jax(p, strip):
  def by_value(r):  # (eigenvalues come in no fixed order)
    r = np.asarray(r)
    return r[np.lexsort((r.imag, r.real))]
  want = jn.roots(p, strip_zeros=strip)
  got = jnp.roots(p, strip_zeros=strip)
  assert got.dtype == want.dtype
  np.testing.assert_allclose(by_value(got), by_value(want), rtol=1e-4, atol=1e-4)
  jitted = sj.jit(lambda q: jnp.roots(q, strip_zeros=False))(p)
  np.testing.assert_allclose(by_value(jitted), by_value(jn.roots(p, strip_zeros=False)),
                             rtol=1e-4, atol=1e-4)


def test_from_dlpack():
  a = np.arange(6, dtype=F32).reshape(2, 3)
  for x in (a, jn.asarray(a), jnp.asarray(a)):
    _check(jnp.from_dlpack(x), jn.from_dlpack(jn.asarray(a)))
  _check(jnp.from_dlpack(a, device=sj.devices()[0], copy=True), jn.asarray(a))
  with pytest.raises(TypeError):
    jnp.from_dlpack([1, 2])


@pytest.mark.parametrize("a", [np.array([[1., 2.], [3., 4.]], F32),
                               np.array([[1., 2.], [3., 4j]], np.complex64)])
def test_poly_of_a_square_matrix_is_its_characteristic_polynomial(a):
  got, want = jnp.poly(a), jn.poly(a)
  assert got.dtype == want.dtype
  np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_einsum_contracts_with_the_callers_dot_general():
  # flax's attention passes its own `_dot_general`: einsum calls it as JAX's does
  def recorder(calls, dot_general):
    def record(a, b, dims, precision=None, **kwargs):
      calls.append(([[list(axes) for axes in pair] for pair in dims], sorted(kwargs)))
      return dot_general(a, b, dims, precision, **kwargs)
    return record

  ours, theirs = [], []
  q, k = np.random.RandomState(0).randn(2, 2, 3, 2, 4).astype(np.float32)
  spec = "...qhd,...khd->...hqk"
  got = jnp.einsum(spec, q, k, _dot_general=recorder(ours, sj.lax.dot_general))
  want = jn.einsum(spec, q, k, _dot_general=recorder(theirs, jax.lax.dot_general))
  np.testing.assert_allclose(got, want, rtol=1e-6)
  assert ours == theirs and len(ours) == 1


class _SelfConverting:
  """A framework's variable type: not an array, but it converts itself (`__jax_array__`)."""

  def __init__(self, value):
    self.value = value

  def __jax_array__(self):
    return self.value


def test_jax_array_protocol_as_jax():
  """jnp.array and jnp.asarray take objects with `__jax_array__`, also in lists and under a
  trace where it gives a traced value, as JAX's (keras's variables)."""
  x = np.arange(6, dtype=np.float32).reshape(2, 3)

  def f(np_, wrap):
    v = wrap(x)
    return (np_.asarray(v), np_.array([[v], (v,)]), np_.array(v, dtype=np.int32),
            np_.asarray(v, dtype=np.float16))
  want = f(jn, _SelfConverting)
  for got in (f(jnp, _SelfConverting),
              sj.jit(lambda y: f(jnp, lambda _: _SelfConverting(y)))(x)):
    for g, w in zip(got, want):
      assert g.dtype == w.dtype
      np.testing.assert_array_equal(g, w)
