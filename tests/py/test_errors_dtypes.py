"""`stablejax.errors` and `stablejax.dtypes` against `jax.errors` and `jax.dtypes`: the error
classes, their hierarchy and where they are raised; the public dtype functions; and the small
floats and integers (float8, int4, ...) through jnp, compared with JAX on the CPU."""
import jax
import jax.numpy as jnp_jax
from jax._src import dtypes as jax_dtypes_impl  # is_weakly_typed is not public in 0.10.2
import numpy as np
import pytest

import stablejax as sj
import stablejax.numpy as jnp
from stablejax import dtypes, errors
from stablejax.lowering import LoweringError

_ERROR_NAMES = sorted(n for n in dir(jax.errors) if not n.startswith("_"))


# ----------------------------------------------------------------------------------------------
# errors

@pytest.mark.parametrize("name", _ERROR_NAMES)
def test_error_class_has_jax_hierarchy(name):
  ours, theirs = getattr(errors, name), getattr(jax.errors, name)
  builtin = [c for c in theirs.__mro__ if c.__module__ == "builtins"]
  assert [c for c in ours.__mro__ if c.__module__ == "builtins"] == builtin
  jax_bases = {c.__name__ for c in theirs.__mro__ if c.__module__.startswith("jax")}
  ours_bases = {c.__name__ for c in ours.__mro__ if c.__module__.startswith("stablejax")}
  assert jax_bases - {"_JAXErrorMixin"} <= ours_bases | {"JaxRuntimeError"}


def _leaked(mod):
  box = []
  mod.jit(lambda x: box.append(x) or x)(1.0)
  return box[0] + 1.0


_RAISING = {
    "bool": lambda m, np_: m.jit(lambda x: bool(x))(1.0),
    "if": lambda m, np_: m.jit(lambda x: x if x > 0 else -x)(1.0),
    "int": lambda m, np_: m.jit(lambda x: int(x))(1.0),
    "float": lambda m, np_: m.jit(lambda x: float(x))(1.0),
    "list index": lambda m, np_: m.jit(lambda i: [1, 2][i])(1),
    "range": lambda m, np_: m.jit(lambda n: range(n))(2),
    "np.asarray": lambda m, np_: m.jit(lambda x: np.asarray(x))(1.0),
    "np.sin": lambda m, np_: m.jit(lambda x: np.sin(x))(np_.ones(2)),
    "bool mask": lambda m, np_: m.jit(lambda x, k: x[k])(np_.ones(3), np_.ones(3, bool)),
    "leak": lambda m, np_: _leaked(m),
}


@pytest.mark.parametrize("case", sorted(_RAISING))
def test_errors_raised_where_jax_raises_them(case):
  with pytest.raises(Exception) as want:
    _RAISING[case](jax, jnp_jax)
  with pytest.raises(Exception) as got:
    _RAISING[case](sj, jnp)
  assert type(got.value).__name__ == type(want.value).__name__
  assert isinstance(got.value, getattr(errors, type(want.value).__name__))
  assert "errors.html#jax.errors." + type(want.value).__name__ in str(got.value)


def test_old_error_names_stay():
  assert sj.core.ConcretizationTypeError is errors.ConcretizationTypeError
  assert sj.core.UnexpectedTracerError is errors.UnexpectedTracerError
  assert sj.jaxpr.JaxprTypeError is errors.JaxprTypeError
  assert issubclass(errors.TracerBoolConversionError, TypeError)
  with pytest.raises(TypeError, match="lax.cond"):  # still helpful
    sj.jit(lambda x: bool(x))(1.0)


# ----------------------------------------------------------------------------------------------
# dtypes: the public functions

def test_public_names_as_jax():
  assert {n for n in dir(jax.dtypes) if not n.startswith("_")} <= set(dir(dtypes))


_RT_ARGS = [(1, 2.0), (np.float32,), (None,), (np.int8, np.uint8), (1,), (True,), (int,),
            (float, np.int8), (np.int16, 3), (np.float64,), ("bfloat16", 1.0), (np.ones(2),),
            (np.uint32, np.int32), (np.dtype("float8_e4m3fn"), 1.0), ("int4", 1), (complex, 1)]


@pytest.mark.parametrize("args", _RT_ARGS, ids=str)
def test_result_type_as_jax(args):
  assert dtypes.result_type(*args) == jax.dtypes.result_type(*args)
  assert (dtypes.result_type(*args, return_weak_type_flag=True) ==
          jax.dtypes.result_type(*args, return_weak_type_flag=True))


def test_result_type_of_values_and_errors():
  x, xj = jnp.ones(2, jnp.bfloat16), jnp_jax.ones(2, jnp_jax.bfloat16)
  assert dtypes.result_type(x, 2.0, return_weak_type_flag=True) == \
      jax.dtypes.result_type(xj, 2.0, return_weak_type_flag=True)
  assert sj.jit(lambda v: v * 0 + dtypes.result_type(v, 1).itemsize)(x).dtype == jnp.bfloat16
  with pytest.raises(ValueError, match="at least one"):
    dtypes.result_type()
  for pair in [("float8_e4m3fn", "float32"), ("int4", "int8"), ("float8_e5m2", "bfloat16")]:
    with pytest.raises(jax.dtypes.TypePromotionError):
      jax.dtypes.result_type(*pair)
    with pytest.raises(dtypes.TypePromotionError, match="no available implicit"):
      dtypes.result_type(*pair)
  assert issubclass(dtypes.TypePromotionError, ValueError)


@pytest.mark.parametrize("dt", ["float64", "int64", "uint64", "complex128", "float32", "int4",
                                "bfloat16", "float8_e5m2", np.float64, int, float])
def test_canonicalize_dtype_as_jax(dt, request):
  assert dtypes.canonicalize_dtype(dt) == jax.dtypes.canonicalize_dtype(dt)


def test_canonicalize_dtype_x64(x64):
  assert dtypes.canonicalize_dtype("int64") == np.int64
  with pytest.raises(TypeError, match="not understood"):
    dtypes.canonicalize_dtype("nope")


_SUB = [("float8_e4m3fn", np.floating), ("float8_e4m3fn", np.inexact), ("float8_e4m3fn",
        np.integer), ("int4", np.signedinteger), ("int4", np.integer), ("uint4",
        np.signedinteger), ("uint2", np.unsignedinteger), ("bfloat16", np.floating),
        ("bfloat16", np.number), (np.float32, np.floating), (np.int32, np.floating),
        ("float4_e2m1fn", "float4_e2m1fn"), ("float8_e5m2", "float8_e4m3fn"),
        (np.float32, "extended"), (np.float32, "prng_key"), ("int4", np.generic)]


@pytest.mark.parametrize("a, b", _SUB, ids=str)
def test_issubdtype_as_jax(a, b):
  ours = getattr(dtypes, b) if b in ("extended", "prng_key") else b
  theirs = getattr(jax.dtypes, b) if b in ("extended", "prng_key") else b
  assert dtypes.issubdtype(a, ours) == jax.dtypes.issubdtype(a, theirs)
  assert jnp.issubdtype(a, ours) == jnp_jax.issubdtype(a, theirs)


def test_extended_dtypes_are_subclassable():
  class key_scalar(dtypes.prng_key):
    pass

  class KeyDType:  # a stand-in for a PRNG key type: its scalar class says what it is
    type = key_scalar

  key = KeyDType()
  assert issubclass(dtypes.prng_key, dtypes.extended)
  assert dtypes.issubdtype(key, dtypes.prng_key) and dtypes.issubdtype(key, dtypes.extended)
  assert not dtypes.issubdtype(key, np.floating)
  assert not dtypes.issubdtype(np.uint32, dtypes.prng_key)
  assert dtypes.canonicalize_dtype(key, allow_extended_dtype=True) is key
  with pytest.raises(TypeError):
    dtypes.canonicalize_dtype(key)


def test_scalar_helpers_as_jax():
  for name in ["float32", "int4", "bool", "complex64", "float8_e4m3fn", "bfloat16", "uint8"]:
    assert dtypes.scalar_type_of(jnp.ones(2, name)) == jax.dtypes.scalar_type_of(
        jnp_jax.ones(2, name))
    assert dtypes.itemsize_bits(name) == jax.dtypes.itemsize_bits(name)
  for mk in [lambda m: 1.0, lambda m: m.numpy.ones(2) * 2, lambda m: m.numpy.float32(1) * 2,
             lambda m: True, lambda m: np.float32(1), lambda m: m.numpy.asarray(3)]:
    assert dtypes.is_weakly_typed(mk(sj)) == jax_dtypes_impl.is_weakly_typed(mk(jax))
  assert sj.jit(lambda x: dtypes.is_weakly_typed(x * 1) and x)(jnp.ones(2)) is not None
  with pytest.raises(ValueError):
    dtypes.itemsize_bits(dtypes.float0)
  assert dtypes.float0 == jax.dtypes.float0
  assert np.dtype(dtypes.bfloat16) == np.dtype(jax.dtypes.bfloat16)
  for name in ["float8_e4m3fn", "bfloat16", "float4_e2m1fn"]:
    assert float(dtypes.finfo(name).max) == float(jax.dtypes.finfo(name).max)
  assert dtypes.iinfo("int4").min == jax.dtypes.iinfo("int4").min == -8


# ----------------------------------------------------------------------------------------------
# float8, int4 & co through jnp

_WORKING = ["float8_e4m3fn", "float8_e5m2", "float8_e4m3b11fnuz", "float8_e4m3fnuz",
            "float8_e5m2fnuz", "float8_e3m4", "float8_e4m3", "float8_e8m0fnu", "float4_e2m1fn",
            "int4", "uint4", "int2", "uint2"]
_REFUSED = ["float6_e2m3fn", "float6_e3m2fn", "int1", "uint1"]

_OPS = {
    "asarray": lambda m, t: m.asarray(np.array([1, 0, 1]), t),
    "add": lambda m, t: m.asarray([1, 0, 1], t) + m.asarray([1, 2, 1], t),
    "weak mul": lambda m, t: m.asarray([1, 0, 1], t) * 2,
    "to f32": lambda m, t: m.asarray([1, 0, 1], t).astype(m.float32),
    "from f32": lambda m, t: m.asarray([1.5, -0.25, 3.0], m.float32).astype(t),
    "scalar": lambda m, t: getattr(m, t)(1),
    "max": lambda m, t: m.maximum(m.asarray([1, 0, 1], t), m.asarray([0, 1, 1], t)),
}


def _same(ours, theirs):
  assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
  np.testing.assert_array_equal(np.asarray(ours).astype(np.float32),
                                np.asarray(theirs).astype(np.float32))


@pytest.mark.parametrize("op", sorted(_OPS))
@pytest.mark.parametrize("name", _WORKING)
def test_small_dtypes_as_jax(name, op):
  _same(_OPS[op](jnp, name), _OPS[op](jnp_jax, name))


@pytest.mark.parametrize("name", _WORKING)
def test_small_dtypes_jit_jaxpr_and_mlir(name):
  x = np.array([1, 0, 1], name)
  _same(sj.jit(lambda a: a + a)(x), jax.jit(lambda a: a + a)(x))
  assert str(sj.make_jaxpr(lambda a: a * 2)(x)) == str(jax.make_jaxpr(lambda a: a * 2)(x))
  ir_type = str(jax.jit(lambda a: a).lower(x).compiler_ir()).split("tensor<3x")[1].split(">")[0]
  assert f"tensor<3x{ir_type}>" in sj.jit(lambda a: a).lower(x).as_text()
  assert getattr(jnp, name) == getattr(jnp_jax, name) and jnp.dtype(name) == np.dtype(name)


@pytest.mark.parametrize("name", ["int4", "uint4", "int2", "uint2"])
def test_small_int_sum_refused_as_jax(name):
  with pytest.raises(ValueError):
    jnp_jax.sum(jnp_jax.ones(3, name))
  with pytest.raises(ValueError, match="astype"):
    jnp.sum(jnp.ones(3, name))


@pytest.mark.parametrize("name", _REFUSED)
def test_dtypes_jax_refuses_on_cpu_are_refused(name):
  with pytest.raises(jax.errors.JaxRuntimeError):
    jnp_jax.asarray(np.zeros(3), name)
  with pytest.raises(errors.JaxRuntimeError, match=name):
    jnp.asarray(np.zeros(3), name)
  with pytest.raises((errors.JaxRuntimeError, LoweringError)):  # uint1: XLA has no convert
    sj.jit(lambda a: a.astype(name))(np.zeros(3, np.float32))


@pytest.mark.parametrize("a, b", [("float8_e4m3fn", "float32"), ("int4", "int32"),
                                  ("float8_e5m2", "float8_e4m3fn"), ("uint4", "int4")])
def test_small_dtypes_do_not_promote(a, b):
  with pytest.raises(jax.dtypes.TypePromotionError):
    jnp_jax.ones(2, a) + jnp_jax.ones(2, b)
  with pytest.raises(dtypes.TypePromotionError):
    jnp.ones(2, a) + jnp.ones(2, b)


def test_small_dtype_promotion_with_weak_and_bool():
  for name in ["float8_e4m3fn", "int4", "uint2"]:
    for other in [1, True, np.ones(2, bool)]:
      want = jax.dtypes.result_type(name, other, return_weak_type_flag=True)
      assert dtypes.result_type(name, other, return_weak_type_flag=True) == want
  assert dtypes.result_type("float8_e4m3fn", np.int8) == jax.dtypes.result_type(
      "float8_e4m3fn", np.int8)
