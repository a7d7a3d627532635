"""bfloat16 (ml_dtypes.bfloat16) and float16 through the whole stack, against JAX: creation,
casts, elementwise math, promotion, reductions, dot, grad, jit/vmap and the lowered text."""
import pickle

import ml_dtypes
import numpy as np
import pytest

import stablejax as sj
import stablejax.numpy as jnp
from stablejax import dtypes
from stablejax.__main__ import parse_type

jax = pytest.importorskip("jax")
jjnp = jax.numpy

HALF = ["bfloat16", "float16"]
# bfloat16 keeps 8 significant bits, float16 11: a few roundings of either stay within these.
TOL = {"bfloat16": 3e-2, "float16": 4e-3}
OTHERS = ["bool", "int8", "int16", "int32", "uint8", "uint16", "uint32", "float16", "bfloat16",
          "float32", "complex64"]


def _np_value(x):
  return np.asarray(x).astype(np.float32 if not np.iscomplexobj(x) else np.complex64)


def check(ours, theirs, tol):
  """Same dtype, shape and weak type as JAX's result; values within `tol` (relative and
  absolute, computed in float32)."""
  assert ours.dtype == theirs.dtype, (ours.dtype, theirs.dtype)
  assert ours.shape == theirs.shape, (ours.shape, theirs.shape)
  assert ours.weak_type == theirs.weak_type, (ours.weak_type, theirs.weak_type)
  np.testing.assert_allclose(_np_value(ours), _np_value(theirs), rtol=tol, atol=tol)


def both(fn, *args):
  """fn(jnp, *args) with stablejax and with JAX, each on its own arrays of `args`."""
  return (fn(sj, jnp, *[jnp.asarray(a) for a in args]),
          fn(jax, jjnp, *[jjnp.asarray(a) for a in args]))


@pytest.fixture
def data(rng):
  def make(dt, shape=(3, 4)):
    return rng.standard_normal(shape).astype(dt)
  return make


# ----------------------------------------------------------------------------------------------
# the dtype itself

def test_dtype_is_ml_dtypes_bfloat16():
  # as in JAX, the scalar types stand for numpy's (and ml_dtypes') and make arrays when called
  assert jnp.bfloat16 == ml_dtypes.bfloat16 and jnp.float16 == np.float16
  assert np.dtype(jnp.bfloat16) == np.dtype(jjnp.bfloat16) == dtypes.bfloat16
  x = jnp.bfloat16(1.5)
  assert isinstance(x, sj.Array) and x.dtype == dtypes.bfloat16 and not x.weak_type


@pytest.mark.parametrize("name", HALF)
def test_kind_and_predicates(name):
  assert dtypes.kind(name) == "f"
  assert dtypes.is_float(name) and dtypes.is_inexact(name)
  assert not dtypes.is_integer(name) and not dtypes.is_complex(name)
  for cls in (jnp.floating, jnp.inexact, jnp.number):
    assert jnp.issubdtype(name, cls) == jjnp.issubdtype(name, cls) is True
  assert jnp.issubdtype(np.dtype(name), jnp.integer) is False
  assert jnp.isdtype(np.dtype(name), "real floating")


def test_short_name_and_repr():
  x = jnp.array([1.5, 2.0], jnp.bfloat16)
  assert repr(x) == repr(jjnp.array([1.5, 2.0], jjnp.bfloat16))
  assert str(sj.make_jaxpr(lambda v: v * 2.0)(x)) == str(jax.make_jaxpr(lambda v: v * 2.0)(
      jjnp.asarray(x)))


@pytest.mark.parametrize("name", HALF)
def test_finfo(name):
  ours, theirs = jnp.finfo(name), jjnp.finfo(name)
  for field in ("eps", "max", "min", "tiny", "bits", "nmant", "nexp", "smallest_subnormal"):
    assert getattr(ours, field) == getattr(theirs, field), field
  assert ours.dtype == theirs.dtype


# ----------------------------------------------------------------------------------------------
# creation and host round trips

@pytest.mark.parametrize("name", HALF)
@pytest.mark.parametrize("make", [
    lambda m, dt: m.zeros((2, 3), dt), lambda m, dt: m.ones(4, dt),
    lambda m, dt: m.full(3, 2.5, dt), lambda m, dt: m.array([1.5, -2.0, 3.25], dt),
    lambda m, dt: m.arange(5, dtype=dt), lambda m, dt: m.linspace(0, 1, 5, dtype=dt),
    lambda m, dt: m.eye(3, dtype=dt), lambda m, dt: m.asarray(np.float32(0.3), dt),
    lambda m, dt: m.zeros_like(m.ones(2, m.int32), dtype=dt),
], ids=["zeros", "ones", "full", "array", "arange", "linspace", "eye", "asarray", "zeros_like"])
def test_creation(name, make):
  check(make(jnp, name), make(jjnp, name), 0)


@pytest.mark.parametrize("name", HALF)
def test_host_round_trip(name, data):
  x = data(name)
  a = sj.device_put(x)
  assert a.dtype == x.dtype and not a.weak_type
  back = np.asarray(a)
  assert back.dtype == x.dtype
  np.testing.assert_array_equal(back.view(np.uint16), x.view(np.uint16))  # bit exact
  assert a[1, 2].item() == x[1, 2].item()
  assert float(a[0, 0]) == float(x[0, 0])
  assert a.tolist() == x.tolist()
  again = pickle.loads(pickle.dumps(a))
  assert again.dtype == x.dtype
  np.testing.assert_array_equal(np.asarray(again).view(np.uint16), x.view(np.uint16))


@pytest.mark.parametrize("name", HALF)
def test_numpy_scalar_operands(name):
  s = np.asarray(1.5, name)[()]  # an ml_dtypes / numpy scalar is strongly typed
  x = np.ones(3, np.float32)
  ours, theirs = both(lambda _, m, v: m.multiply(s, v), x)
  check(ours, theirs, 0)
  ours, theirs = both(lambda _, m, v: m.asarray(s) + 1, x)
  check(ours, theirs, 0)


# ----------------------------------------------------------------------------------------------
# casts

@pytest.mark.parametrize("name", HALF)
@pytest.mark.parametrize("other", OTHERS)
def test_casts_both_ways(name, other, data):
  x = data(name) * 3
  ours, theirs = both(lambda _, m, v: v.astype(other), x)
  check(ours, theirs, 0)
  y = (data("float32") * 3).astype(other)
  if other != "complex64":  # JAX drops the imaginary part with a warning
    ours, theirs = both(lambda _, m, v: v.astype(name), y)
    check(ours, theirs, 0)
  ours, theirs = both(lambda s, m, v: s.lax.convert_element_type(v, other), x)
  check(ours, theirs, 0)


@pytest.mark.parametrize("name", HALF)
def test_bitcast(name, data):
  x = data(name)
  ours, theirs = both(lambda s, m, v: s.lax.bitcast_convert_type(v, m.uint16), x)
  check(ours, theirs, 0)
  ours, theirs = both(lambda s, m, v: s.lax.bitcast_convert_type(v, name), ours)
  check(ours, theirs, 0)


# ----------------------------------------------------------------------------------------------
# promotion

@pytest.mark.parametrize("name", HALF)
@pytest.mark.parametrize("other", OTHERS)
def test_promotion_table(name, other):
  assert jnp.promote_types(name, other) == jjnp.promote_types(name, other)
  assert jnp.promote_types(other, name) == jjnp.promote_types(other, name)
  x, y = np.ones(2, name), np.ones(2, other)
  ours, theirs = both(lambda _, m, a, b: a + b, x, y)
  check(ours, theirs, 0)


@pytest.mark.parametrize("name", HALF)
@pytest.mark.parametrize("scalar", [True, 2, 2.5, 1 + 2j], ids=["bool", "int", "float", "complex"])
def test_python_scalar_promotion(name, scalar):
  x = np.ones(3, name)
  for fn in (lambda _, m, v: v * scalar, lambda _, m, v: scalar - v,
             lambda _, m, v: m.where(v > 0, v, scalar)):
    ours, theirs = both(fn, x)
    check(ours, theirs, 0)
  assert jnp.result_type(scalar, name) == jjnp.result_type(scalar, name)


def test_weak_half_stays_weak():
  ours, theirs = both(lambda _, m, v: m.asarray(2.0) + v, np.ones(2, "bfloat16"))
  check(ours, theirs, 0)
  ours = jnp.asarray(1.5, jnp.bfloat16) * 2.0
  theirs = jjnp.asarray(1.5, jjnp.bfloat16) * 2.0
  check(ours, theirs, 0)


# ----------------------------------------------------------------------------------------------
# elementwise math

UNARY = ["sin", "cos", "tan", "exp", "expm1", "log1p", "tanh", "arctan", "sinh", "abs",
         "negative", "sign", "floor", "ceil", "round", "square", "reciprocal", "cbrt", "signbit",
         "isnan", "isfinite", "exp2", "rint", "trunc", "deg2rad"]
POSITIVE = ["log", "sqrt", "log2", "log10", "arccosh", "rsqrt"]


@pytest.mark.parametrize("name", HALF)
@pytest.mark.parametrize("op", UNARY + POSITIVE)
def test_unary(name, op, data):
  x = data(name)
  if op in POSITIVE:
    x = (np.abs(x.astype(np.float32)) + 1).astype(name)
  if op == "rsqrt":
    ours, theirs = both(lambda s, m, v: s.lax.rsqrt(v), x)
  else:
    ours, theirs = both(lambda _, m, v: getattr(m, op)(v), x)
  check(ours, theirs, TOL[name])


@pytest.mark.parametrize("name", HALF)
@pytest.mark.parametrize("op", ["add", "subtract", "multiply", "divide", "maximum", "minimum",
                                "power", "arctan2", "floor_divide", "remainder", "hypot",
                                "logaddexp", "nextafter", "copysign", "greater", "equal"])
def test_binary(name, op, data):
  x, y = data(name), data(name)
  if op == "power":
    x = np.abs(x.astype(np.float32)).astype(name)
  ours, theirs = both(lambda _, m, a, b: getattr(m, op)(a, b), x, y)
  check(ours, theirs, TOL[name] * (4 if op in ("floor_divide", "remainder") else 1))


@pytest.mark.parametrize("name", HALF)
def test_integer_pow_clip_where(name, data):
  x = data(name)
  for fn in (lambda _, m, v: v ** 3, lambda _, m, v: m.clip(v, -0.5, 0.5),
             lambda _, m, v: m.where(v > 0, v, -v), lambda _, m, v: m.nan_to_num(v / 0.0),
             lambda s, m, v: s.nn.relu(v), lambda s, m, v: s.nn.gelu(v),
             lambda s, m, v: s.nn.sigmoid(v), lambda s, m, v: s.nn.softmax(v),
             lambda s, m, v: s.scipy.special.erf(v)):
    ours, theirs = both(fn, x)
    check(ours, theirs, TOL[name])


# ----------------------------------------------------------------------------------------------
# reductions (jnp accumulates half types in float32, as JAX)

@pytest.mark.parametrize("name", HALF)
@pytest.mark.parametrize("op", ["sum", "mean", "prod", "max", "min", "var", "std", "argmax",
                                "argmin", "cumsum", "cumprod", "all", "any", "nansum"])
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_reductions(name, op, axis, data):
  x = data(name, (6, 5))
  ours, theirs = both(lambda _, m, v: getattr(m, op)(v, axis=axis), x)
  check(ours, theirs, TOL[name])


@pytest.mark.parametrize("name", HALF)
def test_reductions_with_dtype_and_lax(name, data):
  x = data(name, (64, 3))
  for fn in (lambda _, m, v: m.sum(v, dtype=m.float32), lambda _, m, v: m.mean(v, 0, dtype=name),
             lambda s, m, v: s.lax.reduce_max(v, (0,)), lambda s, m, v: s.lax.reduce_sum(v, (1,)),
             lambda s, m, v: s.nn.logsumexp(v, axis=0), lambda s, m, v: m.linalg.norm(v),
             lambda _, m, v: m.sort(v, axis=0), lambda _, m, v: m.argsort(v, axis=1)):
    ours, theirs = both(fn, x)
    check(ours, theirs, TOL[name])


@pytest.mark.parametrize("name", HALF)
def test_sum_accumulates_in_float32(name):
  x = np.full(4096, 1.0, name)  # 4096 ones: a bfloat16 accumulator would stop at 256
  ours, theirs = both(lambda _, m, v: m.sum(v), x)
  check(ours, theirs, 0)
  assert float(ours) == 4096.0
  text = sj.jit(jnp.sum).lower(x).as_text()
  short = dtypes.short_name(np.dtype(name))
  assert f"tensor<4096x{short}>) -> tensor<4096xf32>" in text  # the upcast


# ----------------------------------------------------------------------------------------------
# dot

@pytest.mark.parametrize("name", HALF)
def test_dot_and_matmul(name, data):
  a, b, v = data(name, (3, 8)), data(name, (8, 2)), data(name, (8,))
  for fn in (lambda _, m, x, y, z: x @ y, lambda _, m, x, y, z: m.dot(x, z),
             lambda _, m, x, y, z: m.einsum("ij,jk->ik", x, y),
             lambda _, m, x, y, z: m.matmul(x, y, preferred_element_type=m.float32),
             lambda s, m, x, y, z: s.lax.dot_general(x, y, (((1,), (0,)), ((), ())),
                                                     preferred_element_type=m.float32),
             lambda _, m, x, y, z: m.dot(x, y.astype(m.float32)),
             lambda _, m, x, y, z: m.vdot(z, z), lambda _, m, x, y, z: m.outer(z, z)):
    ours, theirs = both(fn, a, b, v)
    check(ours, theirs, TOL[name] * 2)


# ----------------------------------------------------------------------------------------------
# transformations

def _mlp(lib, m, dt):
  def loss(params, x, y):
    (w1, b1), (w2, b2) = params
    h = lib.nn.relu(x @ w1 + b1)
    out = h @ w2 + b2
    return m.mean((out - y) ** 2)
  return loss


@pytest.mark.parametrize("name", HALF)
def test_grad_of_mlp(name, rng):
  shapes = [((4, 8), (8,)), ((8, 2), (2,))]
  params = [tuple((rng.standard_normal(s) * 0.5).astype(name) for s in layer)
            for layer in shapes]
  x, y = rng.standard_normal((5, 4)).astype(name), rng.standard_normal((5, 2)).astype(name)
  ours = sj.jit(sj.value_and_grad(_mlp(sj, jnp, name)))(params, x, y)
  theirs = jax.jit(jax.value_and_grad(_mlp(jax, jjnp, name)))(params, x, y)
  for o, t in zip(jax.tree_util.tree_leaves(ours), jax.tree_util.tree_leaves(theirs)):
    check(o, t, TOL[name] * 2)
  eager = sj.grad(_mlp(sj, jnp, name))(params, x, y)
  for o, t in zip(jax.tree_util.tree_leaves(eager), jax.tree_util.tree_leaves(theirs[1])):
    check(o, t, TOL[name] * 2)


@pytest.mark.parametrize("name", HALF)
def test_grad_elementwise_and_jvp(name, data):
  x = data(name, (5,))
  for fn in (lambda m, v: (m.sin(v) * v).sum(), lambda m, v: v.astype("float32").sum(),
             lambda m, v: (v * 2.0).max()):
    ours = sj.grad(lambda v: fn(jnp, v))(jnp.asarray(x))
    theirs = jax.grad(lambda v: fn(jjnp, v))(jjnp.asarray(x))
    check(ours, theirs, TOL[name])
  ours = sj.jvp(jnp.tanh, (jnp.asarray(x),), (jnp.ones(5, name),))
  theirs = jax.jvp(jjnp.tanh, (jjnp.asarray(x),), (jjnp.ones(5, name),))
  for o, t in zip(ours, theirs):
    check(o, t, TOL[name])


@pytest.mark.parametrize("name", HALF)
def test_jit_and_vmap(name, data):
  x = data(name, (4, 3))
  f = lambda m: lambda v: m.exp(v) * v.sum() + 1.0  # noqa: E731
  check(sj.jit(f(jnp))(x), jax.jit(f(jjnp))(x), TOL[name])
  check(sj.vmap(f(jnp))(x), jax.vmap(f(jjnp))(x), TOL[name])
  check(sj.jit(sj.vmap(f(jnp), in_axes=1))(x), jax.jit(jax.vmap(f(jjnp), in_axes=1))(x),
        TOL[name])


@pytest.mark.parametrize("name", HALF)
def test_control_flow(name, data):
  x = data(name, (4,))
  def body(lib, m):
    def f(v):
      v = lib.lax.fori_loop(0, 3, lambda i, c: c * 0.5 + 1.0, v)
      return lib.lax.cond(v.sum() > 0, lambda u: u * 2.0, lambda u: u - 1.0, v)
    return f
  check(sj.jit(body(sj, jnp))(x), jax.jit(body(jax, jjnp))(x), TOL[name])


@pytest.mark.parametrize("name", HALF)
def test_random(name):
  for fn in ("uniform", "normal"):
    ours = getattr(sj.random, fn)(sj.random.PRNGKey(3), (6,), name)
    theirs = getattr(jax.random, fn)(jax.random.PRNGKey(3), (6,), name)
    check(ours, theirs, 0)


# ----------------------------------------------------------------------------------------------
# lowering

@pytest.mark.parametrize("name", HALF)
def test_lowered_text(name):
  short = dtypes.short_name(np.dtype(name))
  text = sj.jit(lambda v: v * 2.0 + 1).lower(np.ones(4, name)).as_text()
  assert f"%arg0: tensor<4x{short}>" in text
  assert f"stablehlo.constant dense<2.000000e+00> : tensor<{short}>" in text
  assert f"stablehlo.multiply %arg0, %0 : tensor<4x{short}>" in text
  dot = sj.jit(jnp.dot).lower(np.ones((2, 3), name), np.ones(3, name)).as_text()
  assert "stablehlo.dot_general" in dot and f"-> tensor<2x{short}>" in dot


def test_short_names():
  assert dtypes.short_name(dtypes.bfloat16) == "bf16"
  assert str(sj.core.ShapedArray((2,), dtypes.bfloat16).str_short()) == "bf16[2]"


def test_cli_type_spec():
  assert parse_type("bf16[2,3]").array().dtype == dtypes.bfloat16
