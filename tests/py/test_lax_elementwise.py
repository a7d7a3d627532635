"""Elementwise primitives: eager values (the numpy references) against numpy and JAX, XLA's edge
semantics, abstract evaluation and its errors, JVPs against finite differences and JAX, batching
against a loop, printed jaxprs against JAX's, and transpose rules through the vjp identity."""
import itertools

import jax
import numpy as np
import pytest

import stablejax as sj
from stablejax import core, lax, test_util
from stablejax.core import ShapedArray
from stablejax.interpreters import ad
from stablejax.jaxpr import check_jaxpr
from stablejax.lax import primitive_kit

# jax warns when it casts complex to real; stablejax takes the real part as JAX does.
pytestmark = pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")

F32, F64, I32, U8, C64, BOOL = (np.dtype(t) for t in (np.float32, np.float64, np.int32,
                                                        np.uint8, np.complex64, np.bool_))


class _ReferenceTrace(core.Trace):
  """Evaluates primitives with their numpy references, whatever eager impl is installed."""

  def process_primitive(self, prim, args, params):
    return primitive_kit.evaluate_reference(prim, *args, **params)


@pytest.fixture(autouse=True)
def reference_eval():
  """Every test here evaluates concrete values with the numpy references."""
  with core.set_current_trace(_ReferenceTrace(None)):
    yield


def make_arg(rng, shape, dtype, domain="any"):
  """A random array: `domain` keeps values where the op is defined and smooth."""
  dtype = np.dtype(dtype)
  if domain == "int":  # a small integer exponent
    return rng.integers(-3, 4, shape).astype(I32)
  if dtype.kind in "iu" and domain in ("pos", "nonzero"):
    x = rng.integers(1, 6, shape)
    return (x if domain == "pos" or dtype.kind == "u" else x * rng.choice([-1, 1], shape)
            ).astype(dtype)
  if dtype.kind not in "fc" or domain == "any":
    return test_util.rand(rng, shape, dtype)
  real = {"pos": lambda: np.abs(rng.standard_normal(shape)) + 0.5,
          "nonzero": lambda: (np.abs(rng.standard_normal(shape)) + 0.5) * rng.choice([-1, 1],
                                                                                      shape),
          "log1p": lambda: rng.uniform(-0.5, 2.0, shape),
          "tan": lambda: rng.uniform(-1.2, 1.2, shape),
          "halves": lambda: rng.integers(-6, 7, shape) / 2}[domain]()
  if dtype.kind == "c":
    real = real + 0.3j * rng.standard_normal(shape)
  return np.asarray(real, dtype)


FLOAT, INT, NUM = [F32], [I32, U8], [F32, I32, U8]
ALL = [F32, I32, U8, BOOL]
ORDERED = ALL
# name -> (function of a lax module and arrays, dtypes, domain of each argument). The same
# function runs on stablejax.lax and jax.lax, whose names and signatures agree.
CASES = {
    "neg": (lambda L, x: L.neg(x), [F32, I32, C64], ["any"]),
    "abs": (lambda L, x: L.abs(x), [F32, I32, C64], ["any"]),
    "sign": (lambda L, x: L.sign(x), NUM + [C64], ["any"]),
    "floor": (lambda L, x: L.floor(x), FLOAT, ["halves"]),
    "ceil": (lambda L, x: L.ceil(x), FLOAT, ["halves"]),
    "round": (lambda L, x: L.round(x), FLOAT, ["halves"]),
    "round_even": (lambda L, x: L.round(x, L.RoundingMethod.TO_NEAREST_EVEN), FLOAT,
                   ["halves"]),
    "exp": (lambda L, x: L.exp(x), FLOAT + [C64], ["any"]),
    "log": (lambda L, x: L.log(x), FLOAT + [C64], ["pos"]),
    "log1p": (lambda L, x: L.log1p(x), FLOAT, ["log1p"]),
    "expm1": (lambda L, x: L.expm1(x), FLOAT, ["any"]),
    "sin": (lambda L, x: L.sin(x), FLOAT + [C64], ["any"]),
    "cos": (lambda L, x: L.cos(x), FLOAT + [C64], ["any"]),
    "tan": (lambda L, x: L.tan(x), FLOAT, ["tan"]),
    "tanh": (lambda L, x: L.tanh(x), FLOAT + [C64], ["any"]),
    "logistic": (lambda L, x: L.logistic(x), FLOAT, ["any"]),
    "sqrt": (lambda L, x: L.sqrt(x), FLOAT + [C64], ["pos"]),
    "rsqrt": (lambda L, x: L.rsqrt(x), FLOAT + [C64], ["pos"]),
    "integer_pow": (lambda L, x: L.integer_pow(x, 3), [F32, I32, C64], ["any"]),
    "integer_pow_neg": (lambda L, x: L.integer_pow(x, -2), FLOAT, ["nonzero"]),
    "not": (lambda L, x: L.bitwise_not(x), [BOOL, I32, U8], ["any"]),
    "convert_to_i32": (lambda L, x: L.convert_element_type(x, np.int32), [F32, BOOL, U8],
                       ["any"]),
    "convert_to_f32": (lambda L, x: L.convert_element_type(x, np.float32), [I32, BOOL, C64],
                       ["any"]),
    "convert_to_bool": (lambda L, x: L.convert_element_type(x, np.bool_), [F32, I32], ["any"]),
    "add": (lambda L, x, y: L.add(x, y), NUM + [C64], ["any", "any"]),
    "sub": (lambda L, x, y: L.sub(x, y), NUM + [C64], ["any", "any"]),
    "mul": (lambda L, x, y: L.mul(x, y), NUM + [C64], ["any", "any"]),
    "div": (lambda L, x, y: L.div(x, y), NUM + [C64], ["any", "nonzero"]),
    "rem": (lambda L, x, y: L.rem(x, y), NUM, ["any", "nonzero"]),
    "pow": (lambda L, x, y: L.pow(x, y), FLOAT + [C64], ["pos", "any"]),
    "pow_int_exponent": (lambda L, x, y: L.pow(x, y), FLOAT, ["nonzero", "int"]),
    "max": (lambda L, x, y: L.max(x, y), ALL, ["any", "any"]),
    "min": (lambda L, x, y: L.min(x, y), ALL, ["any", "any"]),
    "eq": (lambda L, x, y: L.eq(x, y), ALL + [C64], ["any", "any"]),
    "ne": (lambda L, x, y: L.ne(x, y), ALL + [C64], ["any", "any"]),
    "lt": (lambda L, x, y: L.lt(x, y), ORDERED, ["any", "any"]),
    "le": (lambda L, x, y: L.le(x, y), ORDERED, ["any", "any"]),
    "gt": (lambda L, x, y: L.gt(x, y), ORDERED, ["any", "any"]),
    "ge": (lambda L, x, y: L.ge(x, y), ORDERED, ["any", "any"]),
    "and": (lambda L, x, y: L.bitwise_and(x, y), [BOOL, I32, U8], ["any", "any"]),
    "or": (lambda L, x, y: L.bitwise_or(x, y), [BOOL, I32, U8], ["any", "any"]),
    "select_n_bool": (lambda L, p, x, y: L.select_n(L.gt(p, np.zeros((), p.dtype)), x, y),
                      [F32, I32], ["any", "any", "any"]),
    "clamp": (lambda L, lo, x, hi: L.clamp(L.min(lo, hi), x, L.max(lo, hi)), ALL,
              ["any", "any", "any"]),
}

# The numpy function computing each case that numpy has under another name.
NUMPY = {
    "neg": np.negative, "abs": np.abs, "floor": np.floor, "ceil": np.ceil, "exp": np.exp,
    "log": np.log, "log1p": np.log1p, "expm1": np.expm1, "sin": np.sin, "cos": np.cos,
    "tan": np.tan, "tanh": np.tanh, "sqrt": np.sqrt, "rsqrt": lambda x: 1 / np.sqrt(x),
    "logistic": lambda x: 1 / (1 + np.exp(-x)), "round_even": np.round,
    "integer_pow": lambda x: x * x * x, "not": np.invert, "add": np.add, "sub": np.subtract,
    "mul": np.multiply, "max": np.maximum, "min": np.minimum, "eq": np.equal,
    "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
    "ge": np.greater_equal, "and": np.bitwise_and, "or": np.bitwise_or,
}

def make_args(rng, name, dtype, shapes=None):
  domains = CASES[name][2]
  shapes = shapes or [(3, 4)] * len(domains)
  return [make_arg(rng, s, dtype, d) for s, d in zip(shapes, domains)]


def run(name, args, L=lax):
  return CASES[name][0](L, *args)


BROADCAST_SHAPES = [[(3, 4), ()], [(), (3, 4)], [(1, 4), (3, 1)], [(3, 1), (3, 4)], [(), ()]]
# (case name, dtype, operand shapes or None for the defaults) -> the operands.
EAGER_KEYS = ([(name, dt, None) for name, (_, dts, _) in CASES.items() for dt in dts] +
              [(name, F32, tuple(shapes)) for shapes in BROADCAST_SHAPES
               for name in ["add", "mul", "pow_int_exponent", "max", "lt", "rem"]])
EAGER_ARGS = {key: make_args(np.random.default_rng(i), key[0], key[1], key[2])
              for i, key in enumerate(EAGER_KEYS)}


@pytest.fixture(scope="module")
def jax_values():
  """JAX's value of every eager case, from one compiled program (one compile, not one per op;
  XLA's backend optimizations, which do not change results, are off to compile it faster)."""
  args = [EAGER_ARGS[k] for k in EAGER_KEYS]
  compiled = jax.jit(lambda args: [run(k[0], a, jax.lax) for k, a in zip(EAGER_KEYS, args)]
                     ).lower(args).compile({"xla_backend_optimization_level": 0,
                                            "xla_llvm_disable_expensive_passes": True})
  return dict(zip(EAGER_KEYS, map(np.asarray, compiled(args))))


def check_same(got, want):
  got, want = np.asarray(got), np.asarray(want)
  assert (got.shape, got.dtype) == (want.shape, want.dtype)
  if got.dtype.kind in "fc":
    test_util.check_close(got, want)
  else:
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("key", EAGER_KEYS, ids=["-".join(map(str, k)) for k in EAGER_KEYS])
def test_eager_matches_jax_and_numpy(key, jax_values):
  name, args = key[0], EAGER_ARGS[key]
  got = run(name, args)
  check_same(got, jax_values[key])
  if name in NUMPY:
    check_same(got, np.asarray(NUMPY[name](*args)).astype(np.asarray(got).dtype))


def _int_operands(dtype):
  if np.dtype(dtype).kind == "u":
    return np.array([7, 5, 0, 255, 3], dtype), np.array([2, 0, 3, 7, 255], dtype)
  m = np.iinfo(dtype).min
  return (np.array([7, -7, 7, -7, 5, m, m, 0, -3], dtype),
          np.array([2, 2, -2, -2, 0, -1, 1, 3, 0], dtype))


@pytest.mark.parametrize("dtype", [I32, np.int8, U8, np.uint32])
def test_integer_div_rem_semantics(dtype):
  """Division truncates toward zero, the remainder has the dividend's sign, x / 0 = -1 (all
  bits set), x % 0 = x, INT_MIN / -1 wraps to INT_MIN; as XLA (and JAX) compute them."""
  x, y = _int_operands(dtype)
  if np.dtype(dtype).kind == "i":
    np.testing.assert_array_equal(lax.div(x[:4], y[:4]), np.array([3, -3, -3, 3], dtype))
    np.testing.assert_array_equal(lax.rem(x[:4], y[:4]), np.array([1, -1, 1, -1], dtype))
  want = jax.jit(lambda x, y: (jax.lax.div(x, y), jax.lax.rem(x, y)))(x, y)
  np.testing.assert_array_equal(lax.div(x, y), want[0])
  np.testing.assert_array_equal(lax.rem(x, y), want[1])


def test_float_edge_semantics():
  nan, inf = np.nan, np.inf
  x = np.array([nan, 1.0, -0.0, 2.0], F32)
  y = np.array([0.0, nan, 0.0, 2.0], F32)
  np.testing.assert_array_equal(lax.max(x, y), [nan, nan, 0.0, 2.0])
  np.testing.assert_array_equal(lax.min(x, y), [nan, nan, -0.0, 2.0])
  halves = np.array([0.5, 1.5, 2.5, -0.5, -2.5, 0.49999997, inf, nan], F32)
  np.testing.assert_array_equal(lax.round(halves), [1, 2, 3, -1, -3, 0, inf, nan])
  np.testing.assert_array_equal(lax.round(halves, 1), [0, 2, 2, -0.0, -2, 0, inf, nan])
  s = lax.sign(np.array([-0.0, 0.0, nan, -3.0], F32))
  assert np.signbit(s[0]) and not np.signbit(s[1]) and np.isnan(s[2]) and s[3] == -1
  np.testing.assert_array_equal(lax.sign(np.array([0, 3, 250], U8)), [0, 1, 1])
  np.testing.assert_array_equal(lax.rem(np.array([5.5, -5.5], F32), np.array([2.0, 2.0], F32)),
                                [1.5, -1.5])
  np.testing.assert_array_equal(lax.integer_pow(np.array([2, 3], I32), 0), [1, 1])
  assert lax.integer_pow(np.float32(2), -2) == 0.25
  np.testing.assert_array_equal(lax.logistic(np.array([-1000, 1000], F32)), [0, 1])


def test_convert_element_type_semantics():
  f = np.array([np.nan, np.inf, -np.inf, 3e9, -3e9, 2.7, -2.7], F32)
  targets = (np.int32, np.uint8, np.int8, np.bool_)
  want = jax.jit(lambda f: [jax.lax.convert_element_type(f, dt) for dt in targets])(f)
  for dt, w in zip(targets, want):
    got = lax.convert_element_type(f, dt)
    np.testing.assert_array_equal(got, w)
    assert got.dtype == dt
  assert lax.convert_element_type(np.complex64(1 + 2j), np.float32) == 1.0
  # A 64-bit target narrows without x64, and stays 64-bit with it.
  assert lax.convert_element_type(np.ones(2, I32), np.float64).dtype == F32
  with test_util.x64():
    assert lax.convert_element_type(np.ones(2, I32), np.float64).dtype == F64


def test_select_n_semantics():
  cases = [np.full(5, k, F32) for k in range(3)]
  which = np.array([0, 1, 2, 1, 0], I32)
  np.testing.assert_array_equal(lax.select_n(which, *cases), which.astype(F32))
  np.testing.assert_array_equal(lax.select_n(np.int32(2), *cases), cases[2])
  np.testing.assert_array_equal(lax.select_n(np.array([True, False, True, False, True]),
                                             cases[0], cases[1]), [1, 0, 1, 0, 1])
  np.testing.assert_array_equal(lax.select_n(True, cases[1]), cases[1])


# ----------------------------------------------------------------------------------------------
# Abstract evaluation

ABSTRACT_PARAMS = ([(n, s) for n in ["sub", "div", "pow", "pow_int_exponent", "min", "eq", "and"]
                    for s in BROADCAST_SHAPES] +
                   [(n, [s] * len(CASES[n][2])) for n in ["exp", "convert_to_i32", "round",
                                                          "select_n_bool", "clamp"]
                    for s in [(), (2, 3)]])


@pytest.mark.parametrize("name,shapes", ABSTRACT_PARAMS,
                         ids=[f"{n}-{s}" for n, s in ABSTRACT_PARAMS])
def test_abstract_eval_matches_jax(name, shapes, rng):
  args = make_args(rng, name, CASES[name][1][0], shapes)
  (out,) = sj.make_jaxpr(lambda *a: [run(name, a)])(*args).out_avals
  want = jax.eval_shape(lambda *a: run(name, a, jax.lax), *args)
  assert (out.shape, out.dtype, out.weak_type) == (want.shape, want.dtype, want.weak_type)


@pytest.mark.parametrize("fn", [
    lambda L, x, y: L.add(x, y), lambda L, x, y: L.pow(L.exp(x), y),
    lambda L, x, y: L.select_n(True, L.neg(y), L.mul(x, y)), lambda L, x, y: L.clamp(x, y, 4.0),
    lambda L, x, y: L.max(L.integer_pow(x, 2), L.round(y)),
], ids=["add", "pow_exp", "select_n_neg", "clamp", "max_integer_pow_round"])
@pytest.mark.parametrize("args", [(2.0, 3.0), (np.float32(2.0), 3.0), (2.0, np.ones(2, F32))],
                         ids=["weak-weak", "strong-weak", "weak-array"])
def test_weak_types_match_jax(fn, args):
  (out,) = sj.make_jaxpr(lambda *a: [fn(lax, *a)])(*args).out_avals
  want = jax.eval_shape(lambda *a: fn(jax.lax, *a), *args)
  assert (out.shape, out.dtype, out.weak_type) == (want.shape, want.dtype, want.weak_type)


def _aval(shape, dtype=F32, weak=False):
  return ShapedArray(shape, dtype, weak)


@pytest.mark.parametrize("prim,avals,params,want", [
    (lax.add_p, [_aval((), weak=True), _aval((), weak=True)], {}, _aval((), weak=True)),
    (lax.add_p, [_aval((2, 1), weak=True), _aval(())], {}, _aval((2, 1))),
    (lax.mul_p, [_aval((1, 3)), _aval((2, 1))], {}, _aval((2, 3))),
    (lax.lt_p, [_aval((2,), I32), _aval((), I32, True)], {}, _aval((2,), BOOL)),
    (lax.exp_p, [_aval((4,), weak=True)], {}, _aval((4,), weak=True)),
    (lax.abs_p, [_aval((2,), C64)], {}, _aval((2,), F32)),
    (lax.pow_p, [_aval((3,)), _aval((), I32)], {}, _aval((3,))),
    (lax.round_p, [_aval((2,))], dict(rounding_method=lax.RoundingMethod.TO_NEAREST_EVEN),
     _aval((2,))),
    (lax.integer_pow_p, [_aval((2,), I32)], dict(y=3), _aval((2,), I32)),
    (lax.not_p, [_aval((2,), BOOL)], {}, _aval((2,), BOOL)),
    (lax.select_n_p, [_aval((), I32), _aval((2,), weak=True), _aval((2,), weak=True),
                      _aval((2,), weak=True)], {}, _aval((2,), weak=True)),
    (lax.clamp_p, [_aval(()), _aval((2, 3)), _aval((2, 3))], {}, _aval((2, 3))),
    (lax.convert_element_type_p, [_aval((2,))], dict(new_dtype=I32, weak_type=True),
     _aval((2,), I32, True)),
])
def test_abstract_eval(prim, avals, params, want):
  (out,) = prim.out_avals(avals, params)
  assert out == want


@pytest.mark.parametrize("fn,exc,match", [
    (lambda: lax.add(np.ones(3, F32), np.ones(4, F32)), TypeError,
     r"add got incompatible shapes for broadcasting: \(3,\), \(4,\)"),
    (lambda: lax.mul(np.ones(3, F32), np.ones((2, 3), F32)), TypeError,
     r"mul got arrays of different rank: f32\[3\], f32\[2,3\]"),
    (lambda: lax.add(np.ones(3, F32), np.ones(3, I32)), TypeError,
     r"lax.add requires arguments to have the same dtypes, got float32, int32"),
    (lambda: lax.max(np.ones(3, F32), True), TypeError, r"float32, bool"),
    (lambda: lax.sin(np.ones(3, I32)), TypeError, r"sin does not accept dtype int32"),
    (lambda: lax.floor(np.ones(3, C64)), TypeError, r"floor does not accept dtype complex64"),
    (lambda: lax.add(True, False), TypeError, r"add does not accept dtype bool"),
    (lambda: lax.abs(np.ones(3, U8)), TypeError, r"abs does not accept dtype uint8"),
    (lambda: lax.lt(np.ones(3, C64), np.ones(3, C64)), TypeError,
     r"lt does not accept dtype complex64"),
    (lambda: lax.bitwise_not(np.ones(3, F32)), TypeError, r"not does not accept dtype float32"),
    (lambda: lax.rem(np.ones(3, C64), np.ones(3, C64)), TypeError, r"rem does not accept"),
    (lambda: lax.pow(np.ones(3, I32), np.ones(3, I32)), TypeError, r"pow does not accept"),
    (lambda: lax.pow(np.ones(3, F32), np.ones(3, np.float16)), TypeError,
     r"two inexact dtypes must match, but got float32 and float16"),
    (lambda: lax.integer_pow(np.ones(3, I32), -1), TypeError,
     r"Integers cannot be raised to negative powers"),
    (lambda: lax.integer_pow(np.ones(3, F32), 1.5), TypeError, r"integer"),
    (lambda: lax.round(np.ones(3, F32), 2), ValueError, r"RoundingMethod"),
    (lambda: lax.select_n(np.ones(3, F32), np.ones(3, F32)), TypeError,
     r"`which` must be boolean or integer, got f32\[3\]"),
    (lambda: lax.select_n(True, *[np.ones(3, F32)] * 3), TypeError, r"at most 2 cases"),
    (lambda: lax.select_n(np.ones(2, bool), np.ones(3, F32), np.ones(3, F32)), TypeError,
     r"`which` shape \(2,\) and case shape \(3,\)"),
    (lambda: lax.select_n(True, np.ones(3, F32), np.ones(2, F32)), TypeError,
     r"select_n cases must have the same shapes, got \(3,\), \(2,\)"),
    (lambda: lax.select_n(True, np.ones(3, F32), np.ones(3, I32)), TypeError,
     r"same dtypes, got float32, int32"),
    (lambda: lax.select_n(True), ValueError, r"at least one case"),
    (lambda: lax.clamp(np.zeros(2, F32), np.ones(3, F32), np.float32(1)), TypeError,
     r"min.shape=\(2,\), x.shape=\(3,\)"),
    (lambda: lax.clamp(np.float32(0), np.ones(3, F32), np.ones(3, I32)), TypeError,
     r"same dtypes"),
])
def test_errors(fn, exc, match):
  with pytest.raises(exc, match=match):
    fn()


def test_errors_at_trace_time():
  with pytest.raises(TypeError, match=r"\(2, 3\), \(3, 2\)"):
    sj.make_jaxpr(lax.sub)(np.ones((2, 3), F32), np.ones((3, 2), F32))


def test_convert_element_type_of_constants_stages_nothing():
  def f(x):
    three = lax.convert_element_type(3, np.float32)
    assert type(three) is np.ndarray and three.dtype == F32
    weak = lax.convert_element_type(np.int32(2), np.float32, weak_type=True)
    assert type(weak) is float and weak == 2.0  # a Python float: weakly typed
    assert lax.convert_element_type(x, np.float32) is x
    return lax.mul(lax.add(x, three), weak)
  jaxpr = sj.make_jaxpr(f)(np.ones(3, F32))
  assert [e.primitive.name for e in jaxpr.eqns] == ["add", "mul"]
  assert jaxpr.eqns[1].invars[1].aval.weak_type


# ----------------------------------------------------------------------------------------------
# JVPs

JVP_CASES = {  # name -> shapes (binary ops also run with broadcast operands)
    name: shapes for name, shapes in [
        ("neg", None), ("abs", None), ("exp", None), ("log", None), ("log1p", None),
        ("expm1", None), ("sin", None), ("cos", None), ("tan", None), ("tanh", None),
        ("logistic", None), ("sqrt", None), ("rsqrt", None), ("integer_pow", None),
        ("integer_pow_neg", None), ("add", BROADCAST_SHAPES), ("sub", BROADCAST_SHAPES),
        ("mul", BROADCAST_SHAPES), ("div", BROADCAST_SHAPES), ("rem", BROADCAST_SHAPES),
        ("pow", BROADCAST_SHAPES), ("pow_int_exponent", BROADCAST_SHAPES),
        ("max", BROADCAST_SHAPES), ("min", BROADCAST_SHAPES), ("select_n_bool", None),
        ("clamp", None), ("floor", None), ("round", None), ("sign", None)]}
JVP_PARAMS = [(name, s) for name, shapes in JVP_CASES.items() for s in (shapes or [None])]


@pytest.mark.parametrize("name,shapes", JVP_PARAMS, ids=[f"{n}-{s}" for n, s in JVP_PARAMS])
def test_jvp_finite_differences(name, shapes, rng, x64):
  args = make_args(rng, name, F64, shapes)
  if name in ("floor", "round"):  # away from the jumps at integers and halves
    args = [np.round(a) + 0.25 for a in args]
  if name == "rem":  # stay away from the jumps of rem, where x / y is an integer
    args[0] = np.abs(args[0]) % 0.8 + 0.1
    args[1] = np.abs(args[1]) + 1.0
  if name == "pow_int_exponent":  # differentiate only the float base
    test_util.check_jvp(lambda x: run(name, [x, args[1]]), args[:1], eps=1e-5)
  else:
    test_util.check_jvp(lambda *a: run(name, a), args, eps=1e-5)


def _f32(*xs):
  return [np.asarray(x, F32) for x in xs]


@pytest.mark.parametrize("fn,primals,tangents", [
    (lambda L, x, y: L.max(x, y), _f32([1, 2, 3], [1, 0, 3]), _f32([1, 1, 1], [3, 5, -1])),
    (lambda L, x, y: L.min(x, y), _f32([1, 2], 1), _f32([4, 2], 2)),
    (lambda L, lo, x, hi: L.clamp(lo, x, hi), _f32([0] * 5, [-1, 0, 0.5, 1, 2], [1] * 5),
     _f32([3] * 5, [1] * 5, [5] * 5)),
    (lambda L, x: L.pow(x, np.array([0, 2, 3], I32)), _f32([0, 0, 2]), _f32([1, 1, 1])),
    (lambda L, x, y: L.pow(x, y), _f32([0.5, 2], [0, 3]), _f32([1, 1], [1, 1])),
    (lambda L, x: L.abs(x), _f32([-1, 0, 2]), _f32([1, 1, 1])),
    (lambda L, x: L.integer_pow(x, 0), _f32([0, 2]), _f32([1, 1])),
], ids=["max_ties", "min_ties", "clamp_edges", "pow_int_zero", "pow_zero", "abs", "x**0"])
def test_jvp_special_points_match_jax(fn, primals, tangents):
  got = sj.jvp(lambda *a: fn(lax, *a), primals, tangents)
  want = jax.jit(lambda p, t: jax.jvp(lambda *a: fn(jax.lax, *a), p, t))(primals, tangents)
  test_util.check_close(got, tuple(np.asarray(w) for w in want))


def test_jvp_clamp_scalar_bounds():
  """Scalar bounds get the tangent (broadcast) where they are the result (JAX's rule fails)."""
  x = np.array([-1, 0, 0.5, 1, 2], F32)
  _, t = sj.jvp(lax.clamp, _f32(0, x, 1), _f32(3, np.ones(5), 5))
  np.testing.assert_array_equal(t, [3, 0, 1, 0, 5])


@pytest.mark.parametrize("f,dtype", [
    (lambda x: lax.convert_element_type(x, np.int32), sj.dtypes.float0),
    (lambda x: lax.lt(x, np.float32(0)), sj.dtypes.float0), (lax.floor, F32), (lax.sign, F32)])
def test_jvp_zero_tangents(f, dtype):
  _, t = sj.jvp(f, (np.array([1.5, -2.0], F32),), (np.ones(2, F32),))
  assert np.shape(t) == (2,) and np.asarray(t).dtype == dtype
  assert dtype == sj.dtypes.float0 or not np.any(t)


def test_jvp_of_convert_element_type():
  x = np.array([1.5, -2.0], F32)
  _, t = sj.jvp(lambda x: lax.convert_element_type(x, np.float16), (x,), (np.ones(2, F32),))
  assert t.dtype == np.float16 and (t == 1).all()


# ----------------------------------------------------------------------------------------------
# Batching against a Python loop

B = 3


def _batch(x, axis):
  """B variations of `x` stacked along a new axis `axis`."""
  x = np.asarray(x)
  xs = [x ^ bool(i % 2) if x.dtype == BOOL else x + x.dtype.type(i) for i in range(B)]
  return np.moveaxis(np.stack(xs), 0, axis)


# (per-example shapes, in_axes): unbatched operands, rank-0 operands, size-1 axes, batch axes
# anywhere (an axis of None leaves the operand unbatched).
VMAP_LAYOUTS = [
    ([(3, 4), (3, 4)], (0, 0)), ([(3, 4), (3, 4)], (1, 2)), ([(3, 4), (3, 4)], (0, None)),
    ([(3, 4), (3, 4)], (None, 1)), ([(), (3, 4)], (0, None)), ([(), (3, 4)], (0, 2)),
    ([(3, 4), ()], (None, 0)), ([(), ()], (0, None)), ([(1, 4), (3, 1)], (1, 0)),
    ([(1, 4), (3, 4)], (None, 1)),
]
VMAP_BINARY = ["add", "sub", "mul", "div", "max", "lt", "pow_int_exponent", "and"]
VMAP_PARAMS = [(n, s, a) for n in VMAP_BINARY for s, a in VMAP_LAYOUTS]


@pytest.mark.parametrize("name,shapes,in_axes", VMAP_PARAMS,
                         ids=[f"{n}-{s}-{a}" for n, s, a in VMAP_PARAMS])
def test_vmap_binary_matches_loop(name, shapes, in_axes, rng):
  dtype = BOOL if name == "and" else F32
  args = [x if ax is None else _batch(x, ax)
          for x, ax in zip(make_args(rng, name, dtype, shapes), in_axes)]
  test_util.check_vmap(lambda *a: run(name, a), args, in_axes)


@pytest.mark.parametrize("name", ["exp", "round", "integer_pow", "convert_to_i32", "not",
                                  "sign", "abs"])
@pytest.mark.parametrize("axis", [0, 1, 2])
def test_vmap_unary_matches_loop(name, axis, rng):
  dtype = CASES[name][1][0]
  x = _batch(make_args(rng, name, dtype)[0], axis)
  test_util.check_vmap(lambda x: run(name, [x]), [x], [axis])


# (which shape, which dtype, case shapes) per example; each operand unbatched, batched at 0 or
# batched at its last axis.
SELECT_LAYOUTS = [((), BOOL, (3,)), ((3,), BOOL, (3,)), ((), I32, ()), ((2, 3), I32, (2, 3)),
                  ((), I32, (2, 3))]


def _axes_options(shapes):
  options = [[None, 0] + ([len(s)] if s else []) for s in shapes]
  return [a for a in itertools.product(*options) if any(x is not None for x in a)]


SELECT_PARAMS = [(w, wdt, c, axes) for w, wdt, c in SELECT_LAYOUTS
                 for axes in _axes_options([w, c, c, c][:4 if wdt == I32 else 3])]


@pytest.mark.parametrize("which_shape,which_dtype,case_shape,in_axes", SELECT_PARAMS,
                         ids=[f"{w}-{d.name}-{c}-{a}" for w, d, c, a in SELECT_PARAMS])
def test_vmap_select_n_matches_loop(which_shape, which_dtype, case_shape, in_axes, rng):
  which = (rng.random(which_shape) < 0.5 if which_dtype == BOOL
           else rng.integers(0, 3, which_shape).astype(I32))
  cases = [make_arg(rng, case_shape, F32) for _ in in_axes[1:]]
  args = [x if ax is None else _batch_select(x, ax, rng) for x, ax in zip([which] + cases,
                                                                            in_axes)]
  test_util.check_vmap(lax.select_n, args, in_axes)


def _batch_select(x, axis, rng):
  if np.asarray(x).dtype == BOOL:
    return np.moveaxis(rng.random((B,) + np.shape(x)) < 0.5, 0, axis)
  if np.asarray(x).dtype == I32:
    return np.moveaxis(rng.integers(0, 3, (B,) + np.shape(x)).astype(I32), 0, axis)
  return _batch(x, axis)


CLAMP_PARAMS = [(s, axes) for s in [((), (2, 3), ()), ((2, 3), (2, 3), (2, 3)),
                                    ((), (2, 3), (2, 3)), ((), (), ())]
                for axes in _axes_options(s)]


@pytest.mark.parametrize("shapes,in_axes", CLAMP_PARAMS,
                         ids=[f"{s}-{a}" for s, a in CLAMP_PARAMS])
def test_vmap_clamp_matches_loop(shapes, in_axes, rng):
  lo, x, hi = (make_arg(rng, s, F32) for s in shapes)
  lo, hi = lo - 1, hi + 1
  args = [a if ax is None else _batch(a, ax) for a, ax in zip([lo, x, hi], in_axes)]
  test_util.check_vmap(lax.clamp, args, in_axes)


def test_vmap_of_jvp_and_jvp_of_vmap(rng):
  x, y = make_arg(rng, (3, 4), F32), make_arg(rng, (4,), F32, "pos")

  def f(L, x, y):
    return L.max(L.mul(L.sin(x), L.pow(y, x)), L.clamp(-0.5, x, y))

  def jvp_f(api, L):
    return lambda x, y: api.jvp(lambda a, b: f(L, a, b), (x, y), (x, y))[1]
  want = np.asarray(jax.jit(jax.vmap(jvp_f(jax, jax.lax), in_axes=(0, None)))(x, y))
  test_util.check_close(sj.vmap(jvp_f(sj, lax), in_axes=(0, None))(x, y), want)
  vf = sj.vmap(lambda a, b: f(lax, a, b), in_axes=(0, None))
  test_util.check_close(sj.jvp(vf, (x, y), (x, y))[1], want)


# ----------------------------------------------------------------------------------------------
# Printed jaxprs

X, Y = np.ones((2, 3), F32), np.ones((2, 3), F32)
JAXPR_CASES = {
    "arith": (lambda L, x, y: L.add(L.mul(L.sin(x), 3.0), L.div(L.neg(y), L.exp(x))), [X, Y]),
    "compare_select": (lambda L, x, y: L.select_n(L.lt(x, y), L.max(x, y), L.abs(x)), [X, Y]),
    "params": (lambda L, x: L.integer_pow(L.round(x, 1), 3), [X]),
    "convert": (lambda L, x: L.convert_element_type(L.floor(x), np.int32), [X]),
    "clamp": (lambda L, x: L.clamp(0.0, x, 1.0), [X]),
    "logic": (lambda L, x, y: L.bitwise_not(L.bitwise_or(L.ge(x, y), L.eq(x, y))), [X, Y]),
    "broadcast": (lambda L, x, y: L.sub(x, L.rsqrt(y)), [np.ones((1, 3), F32), np.float32(2)]),
    "jvp_max": (lambda L, x, y: _jvp(L)(L.max, x, y), [X, Y]),
    "jvp_select_abs": (lambda L, x: _jvp(L)(lambda a: L.select_n(L.gt(a, 0.0), a, L.abs(a)), x),
                       [X]),
    "jvp_exp_log": (lambda L, x: _jvp(L)(lambda a: L.log(L.exp(a)), x), [X]),
    "jvp_div": (lambda L, x, y: _jvp(L)(L.div, x, y), [X, Y]),
    "jvp_add_broadcast": (lambda L, x, y: _jvp(L)(L.add, x, y),
                          [np.ones((1, 3), F32), np.ones((2, 3), F32)]),
    "jvp_integer_pow": (lambda L, x: _jvp(L)(lambda a: L.integer_pow(a, 3), x), [X]),
    "jvp_convert": (lambda L, x: _jvp(L)(lambda a: L.convert_element_type(a, np.float16), x),
                    [X]),
}


def _jvp(L):
  """jvp of f with tangents equal to the primals, on stablejax or JAX."""
  jvp = jax.jvp if L is jax.lax else sj.jvp
  return lambda f, *xs: jvp(f, xs, xs)


# Cases whose jaxpr JAX changed after 0.10.2, as JAX 0.10.2 prints them. JAX 0.12 rewrote max's
# JVP rule: it compares the operands (`gt a b`, `eq a b`, ties selecting 0.5) where 0.10.2
# compares each operand with the output and divides by the number of ties. The values agree
# (test_jvp_special_points_match_jax checks ties against JAX); the jaxprs do not, and stablejax
# stages 0.10.2's. On 0.10.2 the live JAX text must still equal the recorded one.
JAXPR_AS_IN_0_10_2 = {"jvp_max": """\
{ lambda ; a:f32[2,3] b:f32[2,3]. let
    c:f32[2,3] = max a b
    d:bool[2,3] = eq a c
    e:f32[2,3] = broadcast_in_dim 1.0:f32[]
    f:f32[2,3] = broadcast_in_dim 0.0:f32[]
    g:f32[2,3] = select_n d f e
    h:bool[2,3] = eq b c
    i:f32[2,3] = broadcast_in_dim 2.0:f32[]
    j:f32[2,3] = broadcast_in_dim 1.0:f32[]
    k:f32[2,3] = select_n h j i
    l:f32[2,3] = div g k
    m:f32[2,3] = mul a l
    n:bool[2,3] = eq b c
    o:f32[2,3] = broadcast_in_dim 1.0:f32[]
    p:f32[2,3] = broadcast_in_dim 0.0:f32[]
    q:f32[2,3] = select_n n p o
    r:bool[2,3] = eq a c
    s:f32[2,3] = broadcast_in_dim 2.0:f32[]
    t:f32[2,3] = broadcast_in_dim 1.0:f32[]
    u:f32[2,3] = select_n r t s
    v:f32[2,3] = div q u
    w:f32[2,3] = mul b v
    x:f32[2,3] = add_any m w
  in (c, x) }"""}


@pytest.mark.parametrize("name", sorted(JAXPR_CASES))
def test_make_jaxpr_prints_like_jax(name, jax_text, jax_after_0_10_2):
  fn, args = JAXPR_CASES[name]
  got = sj.make_jaxpr(lambda *a: fn(lax, *a))(*args)
  check_jaxpr(got.jaxpr)
  want = jax_text(jax.make_jaxpr(lambda *a: fn(jax.lax, *a))(*args))
  if name in JAXPR_AS_IN_0_10_2:
    assert jax_after_0_10_2 or want == JAXPR_AS_IN_0_10_2[name]
    want = JAXPR_AS_IN_0_10_2[name]
  assert str(got) == want


# ----------------------------------------------------------------------------------------------
# Transpose rules: <ct, f(t)> == <f^T(ct), t> for f linear in its undefined operands

def _vdot(a, b):
  return float(np.sum(np.asarray(a, np.float64) * np.asarray(b, np.float64)))


TRANSPOSE_CASES = {  # name -> (primitive, operand shapes, indices of the linear operands)
    "add": (lax.add_p, [(3, 4), (3, 4)], [0, 1]),
    "add_broadcast": (lax.add_p, [(3, 4), ()], [0, 1]),
    "add_size1": (lax.add_p, [(1, 4), (3, 1)], [0, 1]),
    "sub_broadcast": (lax.sub_p, [(), (3, 4)], [0, 1]),
    "neg": (lax.neg_p, [(3, 4)], [0]),
    "mul_left": (lax.mul_p, [(3, 4), (3, 4)], [0]),
    "mul_right_broadcast": (lax.mul_p, [(3, 4), (3, 1)], [1]),
    "mul_scalar": (lax.mul_p, [(), (3, 4)], [0]),
    "div": (lax.div_p, [(3, 4), (3, 4)], [0]),
    "div_broadcast": (lax.div_p, [(1, 4), (3, 4)], [0]),
}


@pytest.mark.parametrize("name", sorted(TRANSPOSE_CASES))
def test_transpose_rule_vjp_identity(name, rng, x64):
  prim, shapes, linear = TRANSPOSE_CASES[name]
  args = [make_arg(rng, s, F64, "nonzero") for s in shapes]
  out = prim.bind(*args)
  ct = make_arg(rng, np.shape(out), F64)
  ins = [ad.UndefinedPrimal(core.get_aval(a)) if i in linear else a for i, a in enumerate(args)]
  cts = ad.primitive_transposes[prim](ct, *ins)
  assert all((cts[i] is None) == (i not in linear) for i in range(len(args)))
  assert all(np.shape(cts[i]) == shapes[i] for i in linear)
  assert _vdot(ct, out) == pytest.approx(sum(_vdot(cts[i], args[i]) for i in linear))


def test_transpose_select_n_and_convert(rng, x64):
  x, y = make_arg(rng, (5,), F64), make_arg(rng, (5,), F64)
  ct = make_arg(rng, (5,), F64)
  for which in (np.array([True, False, True, True, False]), np.array([0, 1, 1, 0, 1], I32)):
    _, ct_x, ct_y = ad.primitive_transposes[lax.select_n_p](
        ct, which, ad.UndefinedPrimal(core.get_aval(x)), ad.UndefinedPrimal(core.get_aval(y)))
    np.testing.assert_array_equal(ct_x, np.where(which.astype(bool), 0, ct))
    np.testing.assert_array_equal(ct_y, np.where(which.astype(bool), ct, 0))
  cts = ad.primitive_transposes[lax.select_n_p](ct, np.int32(1), x,
                                                ad.UndefinedPrimal(core.get_aval(y)))
  assert cts[:2] == [None, None]
  np.testing.assert_array_equal(cts[2], ct)
  (ct_x,) = ad.primitive_transposes[lax.convert_element_type_p](
      ct.astype(F32), ad.UndefinedPrimal(core.get_aval(x)), new_dtype=F32, weak_type=False)
  assert ct_x.dtype == F64
  (ct_i,) = ad.primitive_transposes[lax.convert_element_type_p](
      ct, ad.UndefinedPrimal(ShapedArray((5,), I32)), new_dtype=F64, weak_type=False)
  assert type(ct_i) is ad.Zero and ct_i.aval.dtype == np.dtype(sj.dtypes.float0)


@pytest.mark.parametrize("prim,args", [
    (lax.add_p, [None, None]), (lax.sub_p, [None, np.ones(3)]), (lax.mul_p, [np.ones(3), None]),
    (lax.div_p, [None, np.ones(3)]), (lax.neg_p, [None]),
    (lax.select_n_p, [np.bool_(True), None, None]),
    (lax.convert_element_type_p, [None]),
])
def test_transpose_of_zero_cotangent(prim, args):
  aval = ShapedArray((3,), F32)
  params = dict(new_dtype=F32, weak_type=False) if prim is lax.convert_element_type_p else {}
  ins = [ad.UndefinedPrimal(aval) if a is None else a for a in args]
  cts = ad.primitive_transposes[prim](ad.Zero(aval), *ins, **params)
  for a, c in zip(args, cts):
    assert (type(c) is ad.Zero and c.aval == aval) if a is None else c is None


@pytest.mark.parametrize("prim,args", [(lax.mul_p, 2), (lax.div_p, 1)])
def test_transpose_nonlinear_errors(prim, args):
  aval = ShapedArray((3,), F32)
  ins = [ad.UndefinedPrimal(aval), ad.UndefinedPrimal(aval)] if args == 2 else [
      np.ones(3, F32), ad.UndefinedPrimal(aval)]
  with pytest.raises(ValueError, match=prim.name):
    ad.primitive_transposes[prim](np.ones(3, F32), *ins)


def test_grad_matches_jax(rng):
  x, y = make_arg(rng, (3, 4), F32), make_arg(rng, (1, 4), F32, "pos")

  def f(L, x, y):
    z = L.add(L.mul(L.sin(x), y), L.div(L.sub(x, 2.0), y))
    z = L.select_n(L.gt(x, 0.0), L.neg(z), L.convert_element_type(z, np.float32))
    return L.reduce_sum(L.max(L.tanh(z), L.logistic(x)), (0, 1))
  got = sj.grad(lambda x, y: f(lax, x, y), argnums=(0, 1))(x, y)
  want = jax.jit(jax.grad(lambda x, y: f(jax.lax, x, y), argnums=(0, 1)))(x, y)
  test_util.check_close(got, tuple(np.asarray(w) for w in want))
