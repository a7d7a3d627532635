"""Tests of stablejax.lowering: module structure, every rule family (lowered, verified, compiled
and run against the numpy references), the rule registry, errors and debug locations."""
import inspect
import re
import shutil
import subprocess
import threading

import numpy as np
import pytest

import stablejax as sj
import stablejax.numpy as jnp
from stablejax import core, dtypes, lax, runtime
from stablejax.interpreters import ad
from stablejax.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var
from stablejax.lax import primitive_kit
from stablejax.lowering import (
    LoweringError, LoweringRuleContext, aval_to_ir_type, call_jaxpr, custom_call, hlo, ir,
    ir_constant, jaxpr_subcomp, lower_fun, lower_jaxpr, make_ir_context, register_lowering)
from stablejax.lowering.module import module_text
from stablejax.lowering.registry import checks_results, lookup_rule

f32, i32, u32 = np.float32, np.int32, np.uint32


def lower(fn, *args, **kwargs) -> ir.Module:
  return lower_jaxpr(sj.make_jaxpr(fn)(*args), "f", **kwargs)


def run(module: ir.Module, *args) -> list[np.ndarray]:
  return [np.asarray(out) for out in runtime.compile_module(str(module))(*args)]


def prim_of(name: str) -> core.Primitive:
  """The primitive `lax.<name>_p` (for the tests parametrized by lax function name)."""
  return getattr(lax, f"{name}_p")


def check_against_reference(prim, fn, args, params=None, rtol=1e-5):
  """Lower `fn`, run it, compare with the numpy reference of `prim` (with `params`)."""
  (got,) = run(lower(fn, *args), *args)
  want = primitive_kit.evaluate_reference(prim, *args, **(params or {}))
  np.testing.assert_allclose(got, np.asarray(want, got.dtype), rtol=rtol, atol=1e-6)
  return got


def new_primitive(name: str, multiple_results: bool = False) -> core.Primitive:
  """A test primitive typed like its first operand (twice, for multiple results)."""
  prim = core.Primitive(name)
  prim.multiple_results = multiple_results
  prim.def_abstract_eval(lambda x, **_: [x, x] if multiple_results else x)
  return prim


def sine_rule(ctx, x):
  return hlo.sine(x)


def cosine_rule(ctx, x):
  return [hlo.cosine(x)]


# ----------------------------------------------------------------------------------------------
# The module, the context, types and constants

def test_module_header_and_main():
  text = str(lower(lambda x, y: lax.add(lax.sin(x), y), np.ones(3, f32), np.ones(3, f32)))
  assert text.startswith("module @jit_f attributes {mhlo.num_partitions = 1 : i32, "
                         "mhlo.num_replicas = 1 : i32} {")
  assert ("func.func public @main(%arg0: tensor<3xf32>, %arg1: tensor<3xf32>) -> "
          "tensor<3xf32>") in text
  assert "stablehlo.sine %arg0" in text and "return" in text


def test_module_name_is_sanitized():
  module = lower_jaxpr(sj.make_jaxpr(lax.neg)(1.0), "<lambda>")
  assert str(module).startswith("module @jit__lambda ")


def test_context_is_created_once_per_thread():
  ctx = make_ir_context()
  assert make_ir_context() is ctx
  module = lower(lax.neg, np.ones(2, f32))
  assert module.context is ctx
  other = []
  thread = threading.Thread(target=lambda: other.append(
      (make_ir_context(), str(lower(lax.neg, np.ones(2, f32))))))
  thread.start()
  thread.join()
  assert other[0][0] is not ctx and "stablehlo.negate" in other[0][1]


@pytest.mark.parametrize("aval, text", [
    (core.ShapedArray((2, 3), f32), "tensor<2x3xf32>"),
    (core.ShapedArray((), np.bool_), "tensor<i1>"),
    (core.ShapedArray((4,), u32), "tensor<4xui32>"),
    (core.ShapedArray((4,), np.uint8), "tensor<4xui8>"),
    (core.ShapedArray((1,), np.int8), "tensor<1xi8>"),
    (core.ShapedArray((2,), np.float16), "tensor<2xf16>"),
    (core.ShapedArray((2,), np.complex64), "tensor<2xcomplex<f32>>"),
])
def test_aval_to_ir_type(aval, text):
  with make_ir_context():
    assert str(aval_to_ir_type(aval)) == text


def constants_text(*values_and_kwargs) -> str:
  with make_ir_context(), ir.Location.unknown():
    module = ir.Module.create()
    with ir.InsertionPoint(module.body):
      types = [str(ir_constant(v, **kw).type) for v, kw in values_and_kwargs]
    return str(module), types


def test_ir_constant():
  text, types = constants_text(
      (np.float32(1.5), {}), (2.0, {"shape": (2, 3)}), (np.array([True, False, True]), {}),
      (np.array([1, 2], u32), {}), (np.array([1 + 2j], np.complex64), {}),
      (np.broadcast_to(np.arange(3, dtype=i32), (4, 3)), {}), (7, {}),
      (np.zeros(2, dtypes.float0), {}))
  assert types == ["tensor<f32>", "tensor<2x3xf32>", "tensor<3xi1>", "tensor<2xui32>",
                   "tensor<1xcomplex<f32>>", "tensor<4x3xi32>", "tensor<i32>", "tensor<2xi1>"]
  assert "stablehlo.constant dense<2.000000e+00> : tensor<f32>" in text
  assert "stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2x3xf32>" in text
  assert "dense<[true, false, true]> : tensor<3xi1>" in text
  assert "dense<[1, 2]> : tensor<2xui32>" in text
  # An array with zero strides is emitted once along its real axes, then broadcast.
  assert "dense<[0, 1, 2]> : tensor<3xi32>" in text
  assert "dims = [1] : (tensor<3xi32>) -> tensor<4x3xi32>" in text


def test_ir_constant_only_broadcasts_scalars():
  with pytest.raises(ValueError, match="only scalars broadcast"):
    constants_text((np.ones(2, f32), {"shape": (3, 2)}))


def test_closed_over_constants_are_emitted_once():
  big = np.arange(100, dtype=f32)
  ones = np.broadcast_to(np.float32(1), (100,))
  closed = sj.make_jaxpr(lambda x: lax.add(lax.mul(x, big), lax.add(big, ones)))(
      np.ones(100, f32))
  text = str(lower_jaxpr(closed, "f"))
  assert text.count("stablehlo.constant dense<[0.000000e+00, 1.000000e+00") == 1
  assert "dims = [] : (tensor<f32>) -> tensor<100xf32>" in text  # `ones` is not spelled out
  (got,) = run(lower_jaxpr(closed, "f"), np.full(100, 2, f32))
  np.testing.assert_allclose(got, 3 * big + 1)


def test_literal_and_input_outputs():
  x = Var(core.ShapedArray((), f32))
  jaxpr = Jaxpr([], [x], [Literal(2.0, core.ShapedArray((), f32)), x], [])
  module = lower_jaxpr(ClosedJaxpr(jaxpr, []), "f")
  assert "return %cst, %arg0 : tensor<f32>, tensor<f32>" in str(module)
  assert [float(v) for v in run(module, np.float32(5))] == [2.0, 5.0]


def test_literal_constants_keep_their_bits_and_types():
  """Literals are found by value where equal values have equal bits: -0.0 and 0.0 (equal),
  NaNs, a value of another type or dtype and complex numbers each keep their own constant."""
  literals = [-0.0, 0.0, -0.0, np.nan, 1.5, np.float32(1.5), np.float16(1.5), 2, True, 1,
              np.complex64(complex(1, -0.0)), np.complex64(1)]
  avals = [core.get_aval(v) for v in literals] + [core.ShapedArray((), np.dtype(np.float16))]
  literals.append(1.5)  # a weakly typed literal of another dtype
  jaxpr = Jaxpr([], [], [Literal(v, a) for v, a in zip(literals, avals)], [])
  body = str(lower_jaxpr(ClosedJaxpr(jaxpr, []), "f")).split("return")[0]
  constants = re.findall(r"constant dense<(.*?)> : tensor<(.*)>$", body, re.M)
  assert constants == [
      ("-0.000000e+00", "f32"), ("0.000000e+00", "f32"), ("-0.000000e+00", "f32"),
      ("0x7FC00000", "f32"), ("1.500000e+00", "f32"), ("1.500000e+00", "f32"),
      ("1.500000e+00", "f16"), ("2", "i32"), ("true", "i1"), ("1", "i32"),
      ("(1.000000e+00,-0.000000e+00)", "complex<f32>"),
      ("(1.000000e+00,0.000000e+00)", "complex<f32>"), ("1.500000e+00", "f16")]


# ----------------------------------------------------------------------------------------------
# Elementwise rules

def positive(*shape):
  return np.random.default_rng(0).uniform(0.5, 2.0, shape).astype(f32)


def signed(*shape):
  return np.random.default_rng(1).uniform(-2.0, 2.0, shape).astype(f32)


UNARY = [("neg", "negate"), ("abs", "abs"), ("sign", "sign"), ("floor", "floor"),
         ("ceil", "ceil"), ("exp", "exponential"), ("log", "log"), ("log1p", "log_plus_one"),
         ("expm1", "exponential_minus_one"), ("sin", "sine"), ("cos", "cosine"),
         ("tan", "tan"), ("tanh", "tanh"), ("logistic", "logistic"), ("sqrt", "sqrt"),
         ("rsqrt", "rsqrt")]
BINARY = [("add", "add"), ("sub", "subtract"), ("mul", "multiply"), ("div", "divide"),
          ("rem", "remainder"), ("max", "maximum"), ("min", "minimum"), ("pow", "power")]


@pytest.mark.parametrize("name, op", UNARY)
def test_unary_float(name, op):
  x = positive(2, 3) if name in ("log", "sqrt", "rsqrt") else signed(2, 3)
  fn = getattr(lax, name)
  assert f"stablehlo.{op} %arg0 : tensor<2x3xf32>" in str(lower(fn, x))
  check_against_reference(prim_of(name), fn, [x])


@pytest.mark.parametrize("name, op", BINARY)
def test_binary_float(name, op):
  x, y = positive(4), positive(4)
  fn = getattr(lax, name)
  assert f"stablehlo.{op} %arg0, %arg1 : tensor<4xf32>" in str(lower(fn, x, y))
  check_against_reference(prim_of(name), fn, [x, y])


@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "rem", "max", "min"])
@pytest.mark.parametrize("dtype", [i32, u32])
def test_binary_int(name, dtype):
  x = np.array([7, 9, 3, 100], dtype)
  y = np.array([2, 4, 3, 7], dtype)
  check_against_reference(prim_of(name), getattr(lax, name), [x, y])


@pytest.mark.parametrize("name", ["neg", "abs", "sign"])
def test_unary_int(name):
  check_against_reference(prim_of(name), getattr(lax, name), [np.array([-3, 0, 5], i32)])


def test_sign_unsigned_has_no_sign_op():
  x = np.array([0, 3, 7], u32)
  text = str(lower(lax.sign, x))
  assert "stablehlo.sign" not in text and "UNSIGNED" in text
  check_against_reference(lax.sign_p, lax.sign, [x])


@pytest.mark.parametrize("name", ["sin", "cos"])
def test_complex_sin_cos_lower_as_jax_does(name):
  """From sin, cos and expm1 of the parts, op for op as JAX (XLA's complex sine is less exact
  and overflows to other infinities)."""
  jax = pytest.importorskip("jax")
  z = np.array([0.5 + 1e-4j, 1e-7 + 2e-7j, 1000j, 3 - 200j, 5e9 - 2e9j, np.nan + 1j, 0j],
               np.complex64)
  ops = lambda text: re.findall(r"= (stablehlo\.\w+)", text)
  want = jax.jit(getattr(jax.lax, name)).lower(z).as_text()
  assert ops(str(lower(getattr(lax, name), z))) == ops(want)
  np.testing.assert_array_equal(run(lower(getattr(lax, name), z), z)[0],
                                np.asarray(jax.jit(getattr(jax.lax, name))(z)))


@pytest.mark.parametrize("name", ["stack", "power"])
def test_numpy_promotes_in_jax_order(name):
  """jnp.stack converts dtypes before adding the axis, jnp.power broadcasts before it converts,
  as JAX's, so XLA fuses (and rounds a fused bfloat16 sum) alike."""
  jax = pytest.importorskip("jax")
  args = ((np.arange(3, dtype=i32), np.ones(3, f32)) if name == "stack" else
          (np.ones((2, 3), f32), np.ones(3, sj.numpy.bfloat16)))
  fns = {lib: (lambda a, b, np_=np_: np_.stack([a, b], axis=-1)) if name == "stack" else
         (lambda a, b, np_=np_: np_.power(a, b + b)) for lib, np_ in (("sj", sj.numpy),
                                                                     ("jax", jax.numpy))}
  ops = lambda text: re.findall(r"= (stablehlo\.\w+)", text)
  assert (ops(sj.jit(fns["sj"]).lower(*args).as_text())
          == ops(jax.jit(fns["jax"]).lower(*args).as_text()))


def test_pow_float_to_int_power_converts_exponent():
  x, y = positive(3), np.array([1, 2, 3], i32)
  try:
    closed = sj.make_jaxpr(lax.pow)(x, y)
  except TypeError:
    pytest.skip("lax.pow takes one dtype here")
  module = lower_jaxpr(closed, "f")
  assert "stablehlo.convert %arg1 : (tensor<3xi32>) -> tensor<3xf32>" in str(module)
  np.testing.assert_allclose(run(module, x, y)[0], x ** y, rtol=1e-6)


@pytest.mark.parametrize("y, muls", [(1, 0), (2, 1), (5, 3), (8, 3), (-2, 1)])
def test_integer_pow_is_a_multiply_chain(y, muls):
  x = signed(5) + 3
  text = str(lower(lambda x: lax.integer_pow(x, y), x))
  assert text.count("stablehlo.multiply") == muls
  assert "stablehlo.power" not in text
  check_against_reference(lax.integer_pow_p, lambda x: lax.integer_pow(x, y), [x], {"y": y})


def test_integer_pow_zero_is_ones():
  (got,) = run(lower(lambda x: lax.integer_pow(x, 0), np.arange(3, dtype=i32)),
               np.arange(3, dtype=i32))
  np.testing.assert_array_equal(got, [1, 1, 1])


@pytest.mark.parametrize("method", [0, 1])
def test_round(method):
  x = np.array([0.5, 1.5, 2.5, -0.5, -1.7], f32)
  text = str(lower(lambda x: lax.round(x, method), x))
  assert ("stablehlo.round_nearest_even" if method else "stablehlo.round_nearest_afz") in text
  check_against_reference(lax.round_p, lambda x: lax.round(x, method), [x],
                          {"rounding_method": method})


@pytest.mark.parametrize("name, direction", [("eq", "EQ"), ("ne", "NE"), ("lt", "LT"),
                                             ("le", "LE"), ("gt", "GT"), ("ge", "GE")])
@pytest.mark.parametrize("dtype, ctype", [(f32, "FLOAT"), (i32, "SIGNED"), (u32, "UNSIGNED"),
                                          (np.bool_, "UNSIGNED")])
def test_comparisons(name, direction, dtype, ctype):
  x = np.array([0, 1, 2, 1], dtype)
  y = np.array([1, 1, 0, 0], dtype)
  fn = getattr(lax, name)
  text = str(lower(fn, x, y))
  assert re.search(rf"stablehlo.compare\s+{direction}, %arg0, %arg1,\s+{ctype}", text)
  check_against_reference(prim_of(name), fn, [x, y])


@pytest.mark.parametrize("fn, name, op", [(lax.bitwise_and, "and", "and"),
                                          (lax.bitwise_or, "or", "or")])
@pytest.mark.parametrize("dtype", [np.bool_, i32])
def test_logical_binary(fn, name, op, dtype):
  x, y = np.array([1, 0, 1, 0], dtype), np.array([1, 1, 0, 0], dtype)
  assert f"stablehlo.{op} %arg0, %arg1" in str(lower(fn, x, y))
  check_against_reference(prim_of(name), fn, [x, y])


@pytest.mark.parametrize("x", [np.array([True, False]), np.array([5, -1], i32)])
def test_not(x):
  assert "stablehlo.not %arg0" in str(lower(lax.bitwise_not, x))
  check_against_reference(lax.not_p, lax.bitwise_not, [x])


def test_implicit_broadcasting_of_rank0_and_size1_operands():
  x, col, s = signed(2, 3), signed(2, 1), np.float32(4.0)
  fn = lambda x, c, s: lax.add(lax.mul(x, c), s)
  text = str(lower(fn, x, col, s))
  assert "stablehlo.broadcast_in_dim %arg1, dims = [0, 1] : (tensor<2x1xf32>) -> tensor<2x3xf32>" \
      in text
  assert "stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<f32>) -> tensor<2x3xf32>" in text
  (got,) = run(lower(fn, x, col, s), x, col, s)
  np.testing.assert_allclose(got, x * col + s, rtol=1e-6)


def test_add_any():
  closed = sj.make_jaxpr(lambda x, y: ad.add_jaxvals_p.bind(x, y))(signed(3), signed(3))
  module = lower_jaxpr(closed, "f")
  assert "stablehlo.add %arg0, %arg1" in str(module)
  np.testing.assert_allclose(run(module, signed(3), positive(3))[0], signed(3) + positive(3))


def test_select_n_two_cases():
  p, a, b = np.array([True, False, True]), signed(3), positive(3)
  text = str(lower(lax.select_n, p, a, b))
  assert "stablehlo.select %arg0, %arg2, %arg1" in text
  check_against_reference(lax.select_n_p, lax.select_n, [p, a, b])


def test_select_n_int_index_is_a_tree_of_selects():
  which = np.array([0, 1, 2, 2, 1], i32)
  cases = [np.full(5, float(k), f32) for k in range(3)]
  text = str(lower(lax.select_n, which, *cases))
  assert text.count("stablehlo.select") == 2 and len(re.findall(r"compare\s+LT", text)) == 2
  check_against_reference(lax.select_n_p, lax.select_n, [which, *cases])


def test_select_n_scalar_predicate_stays_scalar():
  text = str(lower(lax.select_n, np.bool_(True), signed(3), positive(3)))
  assert "stablehlo.select %arg0, %arg2, %arg1 : tensor<i1>, tensor<3xf32>" in text


@pytest.mark.parametrize("x, dtype", [
    (np.array([1.7, -2.2, 0.0], f32), i32), (np.array([1.7, -0.0, 0.0, 0.3], f32), np.bool_),
    (np.array([3, 0, -1], i32), f32), (np.array([True, False]), f32),
    (np.array([3, 0, 255], i32), np.uint8), (np.array([1 + 2j, 3j], np.complex64), f32)])
def test_convert_element_type(x, dtype):
  fn = lambda x: lax.convert_element_type(x, dtype)
  text = str(lower(fn, x))
  if dtype == np.bool_:
    assert re.search(r"stablehlo.compare\s+NE", text) and "stablehlo.convert" not in text
  (got,) = run(lower(fn, x), x)
  np.testing.assert_array_equal(got, (x.real if x.dtype.kind == "c" else x).astype(dtype))


def test_convert_to_same_dtype_is_free():
  closed = sj.make_jaxpr(lambda x: lax.convert_element_type(x, f32))(np.ones(2, f32))
  assert "stablehlo.convert" not in str(lower_jaxpr(closed, "f"))


def test_clamp_with_scalar_bounds():
  x = signed(5)
  fn = lambda x: lax.clamp(np.float32(-0.5), x, np.float32(0.5))
  assert "stablehlo.clamp" in str(lower(fn, x))
  (got,) = run(lower(fn, x), x)
  np.testing.assert_allclose(got, np.clip(x, -0.5, 0.5))


# ----------------------------------------------------------------------------------------------
# Structural rules

STRUCTURAL = [
    ("broadcast_in_dim", lambda x: lax.broadcast_in_dim(x, (4, 2, 3), (1, 2)), "broadcast_in_dim",
     {"shape": (4, 2, 3), "broadcast_dimensions": (1, 2)}),
    ("reshape", lambda x: lax.reshape(x, (3, 2)), "reshape",
     {"new_sizes": (3, 2), "dimensions": None}),
    ("reshape", lambda x: lax.reshape(x, (6,), (1, 0)), "transpose",
     {"new_sizes": (6,), "dimensions": (1, 0)}),
    ("transpose", lambda x: lax.transpose(x, (1, 0)), "transpose", {"permutation": (1, 0)}),
    ("expand_dims", lambda x: lax.expand_dims(x, (0, 3)), "reshape", {"dimensions": (0, 3)}),
    ("slice", lambda x: lax.slice(x, (0, 1), (2, 3), (1, 1)), "slice",
     {"start_indices": (0, 1), "limit_indices": (2, 3), "strides": (1, 1)}),
    ("slice", lambda x: lax.slice(x, (1, 0), (2, 3), (1, 2)), "slice",
     {"start_indices": (1, 0), "limit_indices": (2, 3), "strides": (1, 2)}),
    ("pad", lambda x: lax.pad(x, np.float32(-1), ((1, 0, 0), (-1, 2, 1))), "pad",
     {"padding_config": ((1, 0, 0), (-1, 2, 1))}),
]


@pytest.mark.parametrize("name, fn, op, params", STRUCTURAL)
def test_structural(name, fn, op, params):
  x = signed(2, 3)
  assert f"stablehlo.{op}" in str(lower(fn, x))
  (got,) = run(lower(fn, x), x)
  args = [x, np.float32(-1)] if name == "pad" else [x]
  np.testing.assert_allclose(got, primitive_kit.evaluate_reference(prim_of(name), *args, **params))


def test_squeeze():
  x = signed(2, 1, 3, 1)
  fn = lambda x: lax.squeeze(x, (1, 3))
  assert "stablehlo.reshape %arg0 : (tensor<2x1x3x1xf32>) -> tensor<2x3xf32>" in str(lower(fn, x))
  check_against_reference(lax.squeeze_p, fn, [x], {"dimensions": (1, 3)})


def test_concatenate():
  a, b = signed(2, 3), positive(2, 1)
  fn = lambda a, b: lax.concatenate([a, b, a], 1)
  assert "stablehlo.concatenate %arg0, %arg1, %arg0, dim = 1" in str(lower(fn, a, b))
  (got,) = run(lower(fn, a, b), a, b)
  np.testing.assert_allclose(got, primitive_kit.evaluate_reference(lax.concatenate_p, a, b, a,
                                                            dimension=1))


def test_dynamic_slice_and_update():
  x, u = signed(4, 5), positive(2, 2)
  i, j = np.int32(3), np.int32(1)
  fn = lambda x, i, j: lax.dynamic_slice(x, (i, j), (2, 2))
  assert re.search(r"stablehlo.dynamic_slice %arg0, %\d+, %\d+, sizes = \[2, 2\]",
                   str(lower(fn, x, i, j)))
  (got,) = run(lower(fn, x, i, j), x, i, j)
  np.testing.assert_allclose(got, x[2:4, 1:3])  # the start is clamped into bounds
  fn = lambda x, u, i, j: lax.dynamic_update_slice(x, u, (i, j))
  assert "stablehlo.dynamic_update_slice" in str(lower(fn, x, u, i, j))
  (got,) = run(lower(fn, x, u, i, j), x, u, i, j)
  want = x.copy()
  want[2:4, 1:3] = u
  np.testing.assert_allclose(got, want)


def test_dynamic_slice_mixed_index_types_are_widened():
  x = Var(core.ShapedArray((4, 5), f32))
  i, j = Var(core.ShapedArray((), np.int8)), Var(core.ShapedArray((), i32))
  out = Var(core.ShapedArray((2, 2), f32))
  eqn = JaxprEqn([x, i, j], [out], lax.dynamic_slice_p, {"slice_sizes": (2, 2)})
  module = lower_jaxpr(ClosedJaxpr(Jaxpr([], [x, i, j], [out], [eqn]), []), "f")
  assert "stablehlo.convert %arg1 : (tensor<i8>) -> tensor<i32>" in str(module)
  xs = signed(4, 5)
  np.testing.assert_allclose(run(module, xs, np.int8(1), np.int32(2))[0], xs[1:3, 2:4])


@pytest.mark.parametrize("dtype, element", [(i32, "i32"), (f32, "f32")])
def test_iota(dtype, element):
  fn = lambda: lax.broadcasted_iota(dtype, (2, 3), 1)
  assert f"stablehlo.iota dim = 1 : tensor<2x3x{element}>" in str(lower(fn))
  (got,) = run(lower(fn))
  np.testing.assert_array_equal(got, np.broadcast_to(np.arange(3, dtype=dtype), (2, 3)))


# ----------------------------------------------------------------------------------------------
# Reductions and dot_general

@pytest.mark.parametrize("name, op", [("reduce_sum", "add"), ("reduce_max", "maximum"),
                                      ("reduce_min", "minimum"), ("reduce_prod", "multiply")])
@pytest.mark.parametrize("dtype", [f32, i32])
def test_reductions(name, op, dtype):
  x = (signed(2, 3, 4) * 3).astype(dtype)
  fn = lambda x: getattr(lax, name)(x, (0, 2))
  text = str(lower(fn, x))
  assert "stablehlo.reduce(%arg0 init: %c" in text
  assert f"applies stablehlo.{op} across dimensions = [0, 2]" in text
  check_against_reference(prim_of(name), fn, [x], {"axes": (0, 2)})


def test_reduce_region_holds_the_combining_op():
  module = lower(lambda x: lax.reduce_sum(x, (0,)), signed(3))
  generic = module.operation.get_asm(print_generic_op_form=True)
  assert re.search(r'"stablehlo.reduce".*\n.*\^bb0.*\n.*"stablehlo.add".*\n.*"stablehlo.return"',
                   generic)


def test_reduce_max_of_bool():
  x = np.array([[True, False], [False, False]])
  check_against_reference(lax.reduce_max_p, lambda x: lax.reduce_max(x, (1,)), [x], {"axes": (1,)})


@pytest.mark.parametrize("name, direction", [("argmax", "GT"), ("argmin", "LT")])
def test_argmax_argmin(name, direction):
  x = np.array([[1.0, 3.0, 3.0, -1.0], [np.nan, 2.0, np.nan, 0.0], [2.0, 2.0, 2.0, 2.0]], f32)
  fn = lambda x: getattr(lax, name)(x, 1, np.int32)
  text = str(lower(fn, x))
  assert re.search(r"stablehlo.reduce\(%arg0 init: %cst\), \(%0 init: %c\) across dimensions "
                   r"= \[1\]", text)
  assert re.search(rf"stablehlo.compare\s+{direction}", text)
  check_against_reference(prim_of(name), fn, [x], {"axes": (1,), "index_dtype": np.int32})


def test_argmax_of_ints_has_no_nan_check():
  text = str(lower(lambda x: lax.argmax(x, 0, np.int32), np.arange(4, dtype=i32)))
  assert not re.search(r"compare\s+NE", text)


@pytest.mark.parametrize("reverse", [False, True])
def test_cumsum(reverse):
  x = signed(3, 4)
  fn = lambda x: lax.cumsum(x, 1, reverse)
  text = str(lower(fn, x))
  pad = "[0, 0], [0, 3]" if reverse else "[0, 0], [3, 0]"
  assert '"stablehlo.reduce_window"' in text and f"padding = dense<[{pad}]>" in text
  assert "window_dimensions = array<i64: 1, 4>" in text
  check_against_reference(lax.cumsum_p, fn, [x], {"axis": 1, "reverse": reverse})


@pytest.mark.parametrize("lhs_shape, rhs_shape, dims", [
    ((2, 3), (3, 4), (((1,), (0,)), ((), ()))),
    ((5, 2, 3), (5, 3, 4), (((2,), (1,)), ((0,), (0,)))),
    ((3,), (3,), (((0,), (0,)), ((), ()))),
])
def test_dot_general(lhs_shape, rhs_shape, dims):
  lhs, rhs = signed(*lhs_shape), positive(*rhs_shape)
  fn = lambda a, b: lax.dot_general(a, b, dims)
  text = str(lower(fn, lhs, rhs))
  assert "stablehlo.dot_general %arg0, %arg1" in text
  assert f"contracting_dims = [{dims[0][0][0]}] x [{dims[0][1][0]}]" in text
  check_against_reference(lax.dot_general_p, fn, [lhs, rhs],
                          {"dimension_numbers": dims, "preferred_element_type": None})


def test_dot_general_batch_dims_text():
  text = str(lower(lambda a, b: lax.dot_general(a, b, (((2,), (1,)), ((0,), (0,)))),
                   signed(5, 2, 3), signed(5, 3, 4)))
  assert "batching_dims = [0] x [0], contracting_dims = [2] x [1]" in text


def test_dot_general_mixed_operand_types_compute_in_the_result_type():
  a, b = signed(2, 3), np.arange(6, dtype=i32).reshape(3, 2)
  fn = lambda a, b: lax.dot_general(a, b, (((1,), (0,)), ((), ())))
  assert "stablehlo.convert %arg1 : (tensor<3x2xi32>) -> tensor<3x2xf32>" in str(lower(fn, a, b))
  np.testing.assert_allclose(run(lower(fn, a, b), a, b)[0], a @ b.astype(f32), rtol=1e-5)


def test_dot_general_preferred_element_type():
  a, b = np.arange(6, dtype=np.int8).reshape(2, 3), np.ones((3, 2), np.int8)
  fn = lambda a, b: lax.dot_general(a, b, (((1,), (0,)), ((), ())), preferred_element_type=i32)
  text = str(lower(fn, a, b))
  assert "(tensor<2x3xi8>, tensor<3x2xi8>) -> tensor<2x2xi32>" in text
  cpu = runtime.devices("cpu")[0]
  on_cpu = runtime.compile_module(text, cpu)(*(runtime.device_put(x, cpu) for x in (a, b)))[0]
  np.testing.assert_array_equal(np.asarray(on_cpu), a.astype(i32) @ b.astype(i32))
  # XLA on an H100 doubles int8 x int8 -> int32 products (JAX too): compare with JAX there
  jax = pytest.importorskip("jax")
  np.testing.assert_array_equal(np.asarray(sj.jit(fn)(a, b)), np.asarray(jax.jit(
      lambda a, b: jax.lax.dot_general(a, b, (((1,), (0,)), ((), ())),
                                       preferred_element_type=i32))(a, b)))


# ----------------------------------------------------------------------------------------------
# The registry: platform overrides, unknown platforms, missing rules

def test_platform_rule_overrides_default_on_that_platform_only():
  prim = new_primitive("test_override")
  register_lowering(prim, sine_rule)
  register_lowering(prim, cosine_rule, platform="cuda")
  closed = sj.make_jaxpr(prim.bind)(np.ones(2, f32))
  assert "stablehlo.sine" in str(lower_jaxpr(closed, "f", platform="cpu"))
  assert "stablehlo.cosine" in str(lower_jaxpr(closed, "f", platform="cuda"))
  assert "stablehlo.sine" in str(lower_jaxpr(closed, "f", platform="rocm"))


def test_gpu_platform_covers_cuda_and_rocm():
  prim = new_primitive("test_gpu")
  register_lowering(prim, sine_rule)
  register_lowering(prim, cosine_rule, platform="gpu")
  closed = sj.make_jaxpr(prim.bind)(np.ones(2, f32))
  for platform, op in [("cuda", "cosine"), ("rocm", "cosine"), ("gpu", "cosine"),
                       ("tpu", "sine"), ("cpu", "sine")]:
    assert f"stablehlo.{op}" in str(lower_jaxpr(closed, "f", platform=platform))


def test_unknown_platform_is_rejected():
  prim = new_primitive("test_unknown_platform")
  with pytest.raises(ValueError, match="unknown platform 'metal'"):
    register_lowering(prim, sine_rule, platform="metal")
  closed = sj.make_jaxpr(lax.neg)(1.0)
  with pytest.raises(ValueError, match="unknown platform 'metal'"):
    lower_jaxpr(closed, "f", platform="metal")


def test_missing_rule_names_primitive_and_platform():
  prim = new_primitive("test_no_rule")
  closed = sj.make_jaxpr(prim.bind)(np.ones(2, f32))
  # no rule at all: JAX's NotImplementedError (its exact type, as JAX's primitives doc checks)
  with pytest.raises(NotImplementedError, match="MLIR translation rule for primitive "
                     "'test_no_rule' not found for platform cpu") as info:
    lower_jaxpr(closed, "f")
  assert type(info.value) is NotImplementedError
  register_lowering(prim, sine_rule, platform="cpu")
  assert "stablehlo.sine" in str(lower_jaxpr(closed, "f"))
  with pytest.raises(LoweringError, match="'test_no_rule' on platform 'cuda'"):
    lower_jaxpr(closed, "f", platform="cuda")


def test_register_lowering_checks_its_arguments():
  with pytest.raises(TypeError, match="core.Primitive"):
    register_lowering("sin", sine_rule)
  with pytest.raises(TypeError, match="not callable"):
    register_lowering(new_primitive("test_not_callable"), None)


def test_rule_context_and_multiple_results():
  prim = new_primitive("test_multi", multiple_results=True)
  seen = []

  def rule(ctx: LoweringRuleContext, x, *, scale):
    seen.append((ctx.primitive, ctx.avals_in, ctx.avals_out, ctx.platform, scale))
    assert isinstance(ctx.module_context.module, ir.Module)
    return (hlo.sine(x), hlo.cosine(x))
  register_lowering(prim, rule)
  closed = sj.make_jaxpr(lambda x: prim.bind(x, scale=2))(np.ones(2, f32))
  module = lower_jaxpr(closed, "f", platform="tpu")
  aval = core.ShapedArray((2,), f32)
  assert seen == [(prim, [aval], [aval, aval], "tpu", 2)]
  assert "-> (tensor<2xf32>, tensor<2xf32>)" in str(module)


# ----------------------------------------------------------------------------------------------
# Errors from bad rules name the primitive

def test_verifier_failure_names_the_primitive():
  prim = new_primitive("test_broken")

  def broken(ctx, x):  # the right result type, but dimension 5 does not exist
    return hlo.broadcast_in_dim(aval_to_ir_type(ctx.avals_out[0]), x, [5])
  register_lowering(prim, broken)
  closed = sj.make_jaxpr(lambda x: lax.sin(prim.bind(lax.neg(x))))(np.ones(3, f32))
  with pytest.raises(LoweringError, match=r"failed verification:\n  built by the lowering rule "
                     r"of primitive 'test_broken': .*broadcast_dimensions"):
    lower_jaxpr(closed, "f")


@pytest.mark.parametrize("check_builtin_rules", [True, False])
def test_rule_returning_the_wrong_type_is_reported(check_builtin_rules, monkeypatch):
  # a user's rule is checked whether or not stablejax's own are (config.check_lowering_rules)
  monkeypatch.setattr(sj.config, "check_lowering_rules", check_builtin_rules)
  prim = new_primitive("test_wrong_type")
  register_lowering(prim, lambda ctx, x: hlo.convert(
      aval_to_ir_type(core.ShapedArray(ctx.avals_in[0].shape, i32)), x))
  closed = sj.make_jaxpr(prim.bind)(np.ones(3, f32))
  with pytest.raises(LoweringError, match=r"rule for 'test_wrong_type' returned "
                     r"\[tensor<3xi32>\]; the primitive's outputs are \[f32\[3\]"):
    lower_jaxpr(closed, "f")


def test_only_users_rules_are_type_checked_by_default(monkeypatch):
  builtin = lookup_rule(lax.sin_p, "cpu")
  users = lambda ctx, x: x  # noqa: E731
  monkeypatch.setattr(sj.config, "check_lowering_rules", False)
  assert not checks_results(builtin) and checks_results(users)
  monkeypatch.setattr(sj.config, "check_lowering_rules", True)
  assert checks_results(builtin) and checks_results(users)


def test_rule_building_an_ill_typed_op_is_reported():
  prim = new_primitive("test_bad_operands")
  register_lowering(prim, lambda ctx, x: hlo.add(x, ir_constant(np.int32(1))))
  closed = sj.make_jaxpr(prim.bind)(np.ones(3, f32))
  with pytest.raises(LoweringError, match="rule for 'test_bad_operands' failed to build an op"):
    lower_jaxpr(closed, "f")


def test_rule_returning_too_many_values_is_reported():
  prim = new_primitive("test_two_values")
  register_lowering(prim, lambda ctx, x: [x, x])
  closed = sj.make_jaxpr(prim.bind)(np.ones(3, f32))
  with pytest.raises(LoweringError, match="'test_two_values' returned 2 values"):
    lower_jaxpr(closed, "f")


# ----------------------------------------------------------------------------------------------
# Locations and debug info

def _line_of(fn, text: str) -> int:
  lines, start = inspect.getsourcelines(fn)
  return start + next(i for i, line in enumerate(lines) if text in line)


def test_every_op_has_a_name_location():
  asm = lower(lambda x: lax.integer_pow(lax.sin(x), 3), signed(3)).operation.get_asm(
      enable_debug_info=True)
  assert 'loc("sin")' in asm and 'loc("integer_pow")' in asm
  assert __file__ not in asm


def user_program(x):
  y = lax.sin(x)
  return lax.mul(y, 2.0)


def test_debug_info_shows_user_source_lines():
  module = lower(user_program, signed(3), debug_info=True)
  asm = module.operation.get_asm(enable_debug_info=True)
  for prim, text in [("sin", "lax.sin"), ("mul", "lax.mul")]:
    line = _line_of(user_program, text)
    assert re.search(rf'loc\("jit\(\w+\)/{prim}"\(#loc\d+\)\)', asm)
    assert re.search(rf'loc\("{re.escape(__file__)}":{line}:\d+ to :\d+\)', asm)


def sines_in_places(x):
  for _ in range(2):
    x = lax.sin(x)  # twice from one line
  with sj.named_scope("inner"):
    x = lax.sin(x)
  return lax.sin(lax.mul(x, 2.0))


def test_each_equation_has_the_name_and_line_of_its_own_place():
  text = sj.jit(sines_in_places).lower(signed(3)).as_text(debug_info="inline")
  places = re.findall(r'stablehlo\.(sine|multiply) .*loc\("jit\(\w+\)/([\w/]+)"\(callsite\('
                      rf'"sines_in_places"\("{re.escape(__file__)}":(\d+):', text)
  line = _line_of(sines_in_places, "lax.sin(x)")
  assert places == [("sine", "sin", str(line)), ("sine", "sin", str(line)),
                    ("sine", "inner/sin", str(line + 2)), ("multiply", "mul", str(line + 3)),
                    ("sine", "sin", str(line + 3))]


def test_locations_are_kept_per_thread_and_reused_across_modules():
  """Locations belong to the thread's MLIR context and are built once per thread: the same
  program lowered again, under another name or in another thread has the same locations."""
  closed = sj.make_jaxpr(user_program)(signed(3))

  def asm(name):
    return lower_jaxpr(closed, name, debug_info=True).operation.get_asm(enable_debug_info=True)
  first, again, renamed = asm("a"), asm("a"), asm("b")
  other = []
  thread = threading.Thread(target=lambda: other.append(asm("a")))
  thread.start()
  thread.join()
  assert first == again == other[0]
  assert 'loc("jit(a)/sin"' in first and 'loc("jit(b)/sin"' in renamed
  assert renamed.replace("jit(b)", "jit(a)").replace("jit_b", "jit_a") == first


def test_module_text_is_the_printers_text_without_locations():
  """`module_text` prints in local scope (no alias walk): the same text as MLIR's own print of
  the module, for programs with regions, tokens, several platforms and a function printed
  alone."""
  x = np.arange(4, dtype=np.float32)

  def f(x):
    sj.debug.print("x={}", x, ordered=True)
    return lax.scan(lambda c, y: (c + y, jnp.sin(c * y)), 0.0, x)[1] @ jnp.ones((4, 3))
  for low in (sj.jit(f).lower(x), sj.jit(jnp.cumsum).lower(x, platforms=("cpu", "cuda"))):
    module = low.compiler_ir()
    assert low.as_text() == module_text(module) == module.operation.get_asm(
        assume_verified=True)
    main = next(op for op in module.body.operations if op.operation.name == "func.func")
    assert module_text(main) == main.get_asm(assume_verified=True)


def test_lower_fun_inlines_a_traced_function():
  prim = new_primitive("test_lower_fun")
  register_lowering(prim, lower_fun(lambda x, *, k: lax.mul(lax.sin(x), np.float32(k))))
  closed = sj.make_jaxpr(lambda x: prim.bind(x, k=3.0))(signed(3))
  module = lower_jaxpr(closed, "f")
  text = str(module)
  assert "stablehlo.sine" in text and "stablehlo.multiply" in text and "call" not in text
  asm = module.operation.get_asm(enable_debug_info=True)
  assert 'loc("test_lower_fun/sin")' in asm and 'loc("test_lower_fun/mul")' in asm
  np.testing.assert_allclose(run(module, signed(3))[0], np.sin(signed(3)) * 3, rtol=1e-6)


def test_lower_fun_multiple_results_and_closed_over_arrays():
  prim = new_primitive("test_lower_fun_multi", multiple_results=True)
  table = np.arange(3, dtype=f32)
  register_lowering(prim, lower_fun(lambda x: (lax.add(x, table), lax.neg(x)),
                                    multiple_results=True))
  closed = sj.make_jaxpr(prim.bind)(signed(3))
  got = run(lower_jaxpr(closed, "f"), signed(3))
  np.testing.assert_allclose(got[0], signed(3) + table)
  np.testing.assert_allclose(got[1], -signed(3))


def test_jaxpr_subcomp_lowers_into_a_region_of_a_rule():
  prim = new_primitive("test_subcomp")
  inner = sj.make_jaxpr(lambda x: lax.cos(lax.neg(x)))(np.float32(0))

  def rule(ctx, x):
    return jaxpr_subcomp(ctx.module_context, inner.jaxpr, inner.consts, [x],
                         name_stack=ctx.name_stack)
  register_lowering(prim, rule)
  asm = lower(prim.bind, np.float32(1)).operation.get_asm(enable_debug_info=True)
  assert 'loc("test_subcomp/cos")' in asm and 'loc("test_subcomp/neg")' in asm


def test_call_jaxpr_lowers_each_callee_once():
  prim = new_primitive("test_call")
  callee = sj.make_jaxpr(lambda x: lax.sin(x))(signed(3))
  register_lowering(prim, lambda ctx, x: call_jaxpr(ctx, callee, "callee", [x]))
  other = new_primitive("test_call_other")
  other_callee = sj.make_jaxpr(lambda x: lax.cos(x))(signed(3))
  register_lowering(other, lambda ctx, x: call_jaxpr(ctx, other_callee, "callee", [x]))
  module = lower(lambda x: other.bind(prim.bind(prim.bind(x))), signed(3))
  text = str(module)
  assert text.count("func.func private @callee(") == 1
  assert text.count("func.func private @callee_0(") == 1
  assert text.count("call @callee(") == 2 and text.count("call @callee_0(") == 1
  assert text.index("@main") < text.index("@callee(")
  np.testing.assert_allclose(run(module, signed(3))[0], np.cos(np.sin(np.sin(signed(3)))),
                             rtol=1e-6)


# ----------------------------------------------------------------------------------------------
# Custom calls

def custom_call_module(**kwargs) -> str:
  prim = new_primitive("test_custom_call")
  register_lowering(prim, lambda ctx, x: custom_call(
      "my_target", [aval_to_ir_type(ctx.avals_out[0])], [x], **kwargs))
  return str(lower(prim.bind, np.ones((2, 3), f32)))


def test_custom_call_typed_ffi_form():
  text = custom_call_module(backend_config={"alpha": np.float32(2.0), "n": 3})
  assert ('stablehlo.custom_call @my_target(%arg0) {backend_config = "", mhlo.backend_config = '
          '{alpha = 2.000000e+00 : f32, n = 3 : i64}, operand_layouts = [dense<[1, 0]> : '
          'tensor<2xindex>], result_layouts = [dense<[1, 0]> : tensor<2xindex>]}') in text


def test_custom_call_older_api_and_side_effects():
  text = custom_call_module(backend_config="opaque", api_version=2, has_side_effect=True)
  assert "api_version = 2 : i32" in text and 'backend_config = "opaque"' in text
  assert "has_side_effect = true" in text
  with pytest.raises(TypeError, match="dictionary backend_config"):
    custom_call_module(backend_config="opaque")


FFI_KERNEL = r"""
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;
static ffi::Error Impl(ffi::Buffer<ffi::F32> x, float alpha, ffi::ResultBuffer<ffi::F32> y) {
  for (size_t i = 0; i < x.element_count(); ++i) y->typed_data()[i] = alpha * x.typed_data()[i];
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(ScaleBy, Impl, ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>()
                              .Attr<float>("alpha").Ret<ffi::Buffer<ffi::F32>>());
"""


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++ to build an FFI kernel")
def test_custom_call_runs_a_typed_ffi_kernel(tmp_path):
  import ctypes
  import os
  import jaxlib
  from jaxlib import xla_client
  (tmp_path / "k.cc").write_text(FFI_KERNEL)
  include = os.path.join(os.path.dirname(jaxlib.__file__), "include")
  subprocess.run(["g++", "-std=c++17", "-shared", "-fPIC", "-w", "-I", include, "-o",
                  str(tmp_path / "k.so"), str(tmp_path / "k.cc")], check=True)
  lib = ctypes.cdll.LoadLibrary(str(tmp_path / "k.so"))
  new_capsule = ctypes.pythonapi.PyCapsule_New
  new_capsule.restype = ctypes.py_object
  new_capsule.argtypes = (ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p)
  capsule = new_capsule(ctypes.cast(lib.ScaleBy, ctypes.c_void_p).value,
                        b"xla._CUSTOM_CALL_TARGET", None)
  xla_client.register_custom_call_target("test_scale_by", capsule, "cpu", api_version=1)
  prim = new_primitive("test_ffi_scale")
  register_lowering(prim, lambda ctx, x, *, alpha: custom_call(
      "test_scale_by", [aval_to_ir_type(ctx.avals_out[0])], [x],
      backend_config={"alpha": np.float32(alpha)}))
  x = signed(2, 3)
  module = lower(lambda x: prim.bind(x, alpha=3.0), x, platform="cpu")
  cpu = runtime.devices("cpu")[0]  # a CPU kernel: on the CPU also where the default is a GPU
  out = runtime.compile_module(str(module), cpu)(runtime.device_put(x, cpu))[0]
  np.testing.assert_allclose(np.asarray(out), 3 * x, rtol=1e-6)
