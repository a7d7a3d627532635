"""Lowering and calling programs with symbolic shapes, against JAX's `jax.export` on the same
programs: the modules' key features (dynamic argument types, `get_dimension_size`,
`@shape_assertion`, the `jax.uses_shape_polymorphism` mark), values of `Exported.call` for several
concrete sizes, the errors of bad calls (types and texts), and static lowerings unchanged."""
import dataclasses
import re

import numpy as np
import pytest

import jax
import jax.numpy as jjnp
from jax import export as jexport

import stablejax as sj
import stablejax.numpy as jnp
from stablejax import export
from test_shape_poly import KERAS_LIKE, keras_spec

# name -> program of (library, its numpy, x: f32[b, 4])
PROGRAMS = {
    "sin": lambda sj_, np_, x: np_.sin(x) * 2.0,
    "mul_dim": lambda sj_, np_, x: x * x.shape[0],
    "div_dim": lambda sj_, np_, x: x / x.shape[0],
    "ones": lambda sj_, np_, x: x + np_.ones((x.shape[0], 4)),
    "arange": lambda sj_, np_, x: x + np_.arange(x.shape[0])[:, None],
    "arange_from": lambda sj_, np_, x: np_.arange(2, x.shape[0], 3) * 1.0,
    "sum": lambda sj_, np_, x: np_.sum(x, axis=0),
    "mean": lambda sj_, np_, x: np_.mean(x, axis=0),
    "reshape": lambda sj_, np_, x: x.reshape(-1),
    "reshape2": lambda sj_, np_, x: x.reshape((-1, 2)),
    "dot": lambda sj_, np_, x: x @ np_.ones((4, 3)),
    "gram": lambda sj_, np_, x: x.T @ x,
    "outer": lambda sj_, np_, x: x @ x.T,
    "concat": lambda sj_, np_, x: np_.concatenate([x, x[:1]], axis=0),
    "expand": lambda sj_, np_, x: x[:, None],
    "broadcast_to": lambda sj_, np_, x: np_.broadcast_to(x[None], (3, x.shape[0], 4)),
    "slice": lambda sj_, np_, x: x[1:],
    "half": lambda sj_, np_, x: x[: x.shape[0] // 2],
    "step": lambda sj_, np_, x: x[::2],
    "reversed": lambda sj_, np_, x: x[::-1],
    "index": lambda sj_, np_, x: x[0],
    "last": lambda sj_, np_, x: x[-1],
    "pad": lambda sj_, np_, x: np_.pad(x, ((1, 2), (0, 1))),
    "flip": lambda sj_, np_, x: np_.flip(x, 0),
    "cumsum": lambda sj_, np_, x: np_.cumsum(x, axis=0),
    "where": lambda sj_, np_, x: np_.where(x > 3, x, 0.),
    "softmax": lambda sj_, np_, x: sj_.nn.softmax(x, axis=0),
    "var": lambda sj_, np_, x: np_.var(x, axis=0),
    "argmax": lambda sj_, np_, x: np_.argmax(x, axis=0),
    "take": lambda sj_, np_, x: np_.take(x, np_.array([0, 1]), axis=0),
    "gather": lambda sj_, np_, x: x[np_.array([0, -1])],
    "dynamic_slice": lambda sj_, np_, x: sj_.lax.dynamic_slice_in_dim(x, 1, 1, axis=0),
    "dynamic_slice_dim": lambda sj_, np_, x: sj_.lax.dynamic_slice_in_dim(
        np_.concatenate([x, x]), 1, x.shape[0], axis=0),
    "sort": lambda sj_, np_, x: np_.sort(-x, axis=0),
    "stack": lambda sj_, np_, x: np_.stack([x, x]),
    "tile": lambda sj_, np_, x: np_.tile(x, (2, 1)),
    "eye": lambda sj_, np_, x: np_.eye(x.shape[0]),
    "grad": lambda sj_, np_, x: sj_.grad(lambda x: np_.sum(np_.sin(x)))(x),
    "vmap": lambda sj_, np_, x: sj_.vmap(lambda r: r @ np_.ones((4,)))(x),
    "scan": lambda sj_, np_, x: sj_.lax.scan(lambda c, r: (c + r, c * 2), np_.zeros(4), x),
    "scan_reverse": lambda sj_, np_, x: sj_.lax.scan(lambda c, r: (c * 0.5 + r, c), np_.zeros(4),
                                                     x, reverse=True),
    "fori_to_dim": lambda sj_, np_, x: sj_.lax.fori_loop(0, x.shape[0], lambda i, c: c + x[i],
                                                         np_.zeros(4)),
    "cond": lambda sj_, np_, x: sj_.lax.cond(x.shape[0] > 0, lambda x: x, lambda x: -x, x),
    "jit": lambda sj_, np_, x: sj_.jit(lambda y: y + y.shape[0])(x),
    "layer_norm": lambda sj_, np_, x: (x - x.mean(-1, keepdims=True)) / np_.sqrt(
        x.var(-1, keepdims=True) + 1e-5),
    "roll": lambda sj_, np_, x: np_.roll(x, 1, axis=0),
    "window_sum": lambda sj_, np_, x: sj_.lax.reduce_window(x, 0., sj_.lax.add, (2, 1), (1, 1),
                                                            "VALID"),
    "mod_dim": lambda sj_, np_, x: x * (x.shape[0] % 3) + x.shape[0] // 2,
    "sign": lambda sj_, np_, x: np_.sign(x) + sj_.lax.integer_pow(x + 2, -2) + x ** 0,
    "to_bool": lambda sj_, np_, x: x.astype(bool),
    "select_n": lambda sj_, np_, x: sj_.lax.select_n((x > 0).astype(np.int32) + (x > 1), x,
                                                     -x, 2 * x),
    "split_keys": lambda sj_, np_, x: sj_.random.uniform(
        sj_.random.split(sj_.random.key(0), x.shape[0])[-1], (4,)) * x,
    "unique_size": lambda sj_, np_, x: np_.unique(x.astype(np.int32), size=3, fill_value=0),
    "segment_sum": lambda sj_, np_, x: sj_.ops.segment_sum(x, np_.zeros(x.shape[0], np.int32), 2),
    "interp": lambda sj_, np_, x: np_.interp(x[:, 0], np_.arange(4.), np_.arange(4.) ** 2),
    "take_along": lambda sj_, np_, x: np_.take_along_axis(x, np_.argsort(x, 0), 0),
    "int_rem": lambda sj_, np_, x: sj_.lax.rem(x.astype(np.int32), (x + 1).astype(np.int32)),
    "update_at_dim": lambda sj_, np_, x: sj_.lax.dynamic_update_slice(x, np_.ones((1, 4)),
                                                                      (x.shape[0] - 1, 0)),
    "update_at_traced": lambda sj_, np_, x: sj_.lax.dynamic_update_slice(
        x, np_.ones((1, 2)), (np_.argmax(x[:, 0]), 1)),
    "update_of_dim": lambda sj_, np_, x: sj_.lax.dynamic_update_slice(
        np_.zeros((x.shape[0] + 2, 4)), x, (1, 0)),
    "update_index": lambda sj_, np_, x: sj_.lax.dynamic_update_index_in_dim(
        x, np_.ones(4), np_.argmin(x[:, 1]), 0),
    "at_set_traced": lambda sj_, np_, x: x.at[np_.argmax(x[:, 0])].set(0.),
    "at_add_last": lambda sj_, np_, x: x.at[-1, 1:].add(1.),
    "slice_at_dim": lambda sj_, np_, x: sj_.lax.dynamic_slice(x, (x.shape[0] // 2, 1), (1, 2)),
    "update_grad": lambda sj_, np_, x: sj_.grad(lambda x: np_.sum(sj_.lax.dynamic_update_slice(
        x, np_.ones((1, 4)), (x.shape[0] - 1, 0)) ** 2))(x),
    "update_vmap": lambda sj_, np_, x: sj_.vmap(
        lambda r, i: sj_.lax.dynamic_update_index_in_dim(r, 0., i, 0))(x, np_.argmax(x, 1)),
    "segment_max": lambda sj_, np_, x: sj_.ops.segment_max(x, np_.arange(x.shape[0]) % 3, 3),
    "segment_min": lambda sj_, np_, x: sj_.ops.segment_min(x, np_.arange(x.shape[0]) % 3, 3),
    "segment_prod": lambda sj_, np_, x: sj_.ops.segment_prod(x, np_.arange(x.shape[0]) % 3, 3),
    "segment_sum_sorted": lambda sj_, np_, x: sj_.ops.segment_sum(
        x, np_.arange(x.shape[0]) // 2, 3, indices_are_sorted=True),
    "associative_scan_static_axis": lambda sj_, np_, x: sj_.lax.associative_scan(
        sj_.lax.add, x, axis=1),
}

SIZES = (1, 2, 5)


def _export(mod, fn, spec="b, 4", constraints=()):
  shape = mod.export.symbolic_shape(spec, constraints=constraints)
  return mod.export.export(mod.jit(fn))(mod.ShapeDtypeStruct(shape, np.float32))


def _sj_program(name):
  return lambda x: PROGRAMS[name](sj, jnp, x)


def _jax_program(name):
  return lambda x: PROGRAMS[name](jax, jjnp, x)


@pytest.mark.parametrize("name", PROGRAMS)
def test_values_for_several_sizes_as_jax(name):
  ours, theirs = _export(sj, _sj_program(name)), _export(jax, _jax_program(name))
  assert [(str(a.shape), a.dtype) for a in ours.out_avals] == \
      [(str(a.shape), a.dtype) for a in theirs.out_avals]
  for n in SIZES:
    x = np.arange(n * 4, dtype=np.float32).reshape(n, 4) / 7 - 1
    got = sj.tree_util.tree_leaves(ours.call(x))
    want = jax.tree_util.tree_leaves(theirs.call(x))
    assert len(got) == len(want)
    for g, w in zip(got, want):
      assert g.shape == w.shape and g.dtype == w.dtype, (n, g.shape, w.shape)
      np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6, atol=1e-6)


# name -> linear algebra of (library, its numpy, x: f32[b, 4, 4]): LAPACK custom calls over a
# symbolic batch, their result shapes passed as operands
LINALG = {
    "inv": lambda sj_, np_, x: np_.linalg.inv(x),
    "solve": lambda sj_, np_, x: np_.linalg.solve(x, x[..., :2]),
    "det": lambda sj_, np_, x: np_.linalg.det(x),
    "cholesky": lambda sj_, np_, x: np_.linalg.cholesky(x @ np_.swapaxes(x, -1, -2)),
    "qr": lambda sj_, np_, x: np_.linalg.qr(x),
    "eigh": lambda sj_, np_, x: np_.linalg.eigh(x + np_.swapaxes(x, -1, -2)),
    "svd": lambda sj_, np_, x: np_.linalg.svd(x),
    "svd_values": lambda sj_, np_, x: np_.linalg.svd(x, compute_uv=False),
    "lu": lambda sj_, np_, x: sj_.lax.linalg.lu(x),
    "triangular_solve": lambda sj_, np_, x: sj_.lax.linalg.triangular_solve(
        x, x[..., :2], left_side=True, lower=True),
    "triangular_solve_right": lambda sj_, np_, x: sj_.lax.linalg.triangular_solve(
        x, x[:, :2], lower=False, transpose_a=True),
    "eig": lambda sj_, np_, x: np_.abs(np_.linalg.eigvals(x)),
    "grad_inv": lambda sj_, np_, x: sj_.grad(lambda x: np_.linalg.inv(x).sum())(x),
    "svd_no_rows": lambda sj_, np_, x: np_.linalg.svd(x[:, :0]),
    "svd_no_columns_economic": lambda sj_, np_, x: np_.linalg.svd(x[..., :0],
                                                                  full_matrices=False),
    "vmap_inv": lambda sj_, np_, x: sj_.vmap(np_.linalg.inv)(x),
    "cho_solve": lambda sj_, np_, x: sj_.scipy.linalg.cho_solve(
        (np_.linalg.cholesky(x @ np_.swapaxes(x, -1, -2)), True), x),
}
# ... of x: f32[n, n], a symbolic matrix size
LINALG_SQUARE = {
    "inv": lambda sj_, np_, x: np_.linalg.inv(x),
    "cholesky": lambda sj_, np_, x: np_.linalg.cholesky(x @ x.T),
    "eigvalsh": lambda sj_, np_, x: np_.linalg.eigvalsh(x + x.T),
    "lu": lambda sj_, np_, x: sj_.lax.linalg.lu(x),
    "svd_no_columns": lambda sj_, np_, x: np_.linalg.svd(x[:, :0]),
    "svd_no_rows_economic": lambda sj_, np_, x: np_.linalg.svd(x[:0], full_matrices=False),
}


def _export_linalg(mod, np_, name, spec="b, 4, 4"):
  programs = LINALG if spec == "b, 4, 4" else LINALG_SQUARE
  return _export(mod, lambda x: programs[name](mod, np_, x), spec)


@pytest.mark.parametrize("name, spec", [(k, "b, 4, 4") for k in LINALG] +
                         [(k, "n, n") for k in LINALG_SQUARE])
def test_linalg_values_for_several_sizes_as_jax(name, spec):
  ours, theirs = _export_linalg(sj, jnp, name, spec), _export_linalg(jax, jjnp, name, spec)
  assert [(str(a.shape), a.dtype) for a in ours.out_avals] == \
      [(str(a.shape), a.dtype) for a in theirs.out_avals]
  for n in SIZES:
    shape = (n, 4, 4) if spec == "b, 4, 4" else (n, n)
    x = (np.arange(np.prod(shape), dtype=np.float32).reshape(shape) % 7) / 3 - 1 + \
        3 * np.eye(shape[-1])
    got = sj.tree_util.tree_leaves(ours.call(x.astype(np.float32)))
    want = jax.tree_util.tree_leaves(theirs.call(x.astype(np.float32)))
    for g, w in zip(got, want, strict=True):
      assert g.shape == w.shape and g.dtype == w.dtype
      np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-5, atol=1e-5)


def _custom_calls(text, target="lapack"):
  """The module's custom calls of targets starting with `target`, without value names and
  locations."""
  return [re.sub(r"%[\w#:]+", "%", re.sub(r" loc\(.*?\)$", "", line.strip()))
          for line in text.splitlines() if f"custom_call @{target}" in line]


@pytest.mark.parametrize("name", ["cholesky", "inv", "qr", "eigh", "svd", "triangular_solve"])
def test_linalg_custom_calls_as_jax(name):
  """The shape operands and `indices_of_shape_operands` as JAX emits them."""
  ours = _custom_calls(_export_linalg(sj, jnp, name).mlir_module())
  theirs = _custom_calls(_export_linalg(jax, jjnp, name).mlir_module())
  assert ours == theirs and ours and all("indices_of_shape_operands" in c for c in ours)


def test_ffi_call_result_shapes_as_jax():
  def call(mod):
    b, = mod.export.symbolic_shape("b")
    fn = lambda x: mod.ffi.ffi_call("my_target", mod.ShapeDtypeStruct(x.shape, x.dtype))(x)
    return _custom_calls(mod.jit(fn).lower(mod.ShapeDtypeStruct((b, 4), np.float32)).as_text(),
                         "my_target")
  ours, theirs = call(sj), call(jax)
  assert ours == theirs and "indices_of_shape_operands = dense<1>" in ours[0]


def _main_signature(text):
  return re.search(r"func\.func public @main\((.*?)\) ->", text).group(1)


def test_module_features_as_jax():
  fn = PROGRAMS["arange"]
  ours = _export(sj, lambda x: fn(sj, jnp, x)).mlir_module()
  theirs = _export(jax, lambda x: fn(jax, jjnp, x)).mlir_module()
  for text in (ours, theirs):
    assert "jax.uses_shape_polymorphism = true" in text
    assert "tensor<?x4xf32>" in _main_signature(text)
    assert "stablehlo.get_dimension_size %arg0, dim = 0" in text
    assert 'jax.global_constant = "b"' in text
    assert "@_wrapped_jax_export_main" in text
    assert "stablehlo.dynamic_iota" in text and "stablehlo.dynamic_broadcast_in_dim" in text
  assertion = re.compile(r'@shape_assertion\(.*error_message = "(.*?)"')
  assert assertion.findall(ours) == assertion.findall(theirs)


@pytest.mark.parametrize("op, name", [
    ("stablehlo.dynamic_reshape", "reshape"), ("stablehlo.real_dynamic_slice", "slice"),
    ("stablehlo.dynamic_iota", "arange"), ("stablehlo.dynamic_broadcast_in_dim", "ones"),
    ("stablehlo.dynamic_pad", None), ("stablehlo.dynamic_gather", None),
])
def test_dynamic_ops(op, name):
  b, = export.symbolic_shape("b")
  spec = sj.ShapeDtypeStruct((b, 4), np.float32)
  fn = {None: None, **{k: _sj_program(k) for k in PROGRAMS}}[name]
  if op == "stablehlo.dynamic_pad":
    fn = lambda x: sj.lax.pad(x, 0., ((x.shape[0], 0, 0), (0, 0, 0)))
  if op == "stablehlo.dynamic_gather":
    fn = lambda x: sj.lax.gather(
        x, jnp.zeros((1,), np.int32), sj.lax.GatherDimensionNumbers(
            offset_dims=(0, 1), collapsed_slice_dims=(), start_index_map=(0,)),
        slice_sizes=(x.shape[0], 4), mode="promise_in_bounds")
  text = sj.jit(fn).lower(spec).as_text()
  assert op in text and "tensor<?x4xf32>" in _main_signature(text)
  exp = export.export(sj.jit(fn))(spec)
  x = np.arange(12, dtype=np.float32).reshape(3, 4)
  np.testing.assert_allclose(np.asarray(exp.call(x)), np.asarray(sj.jit(fn)(x)))


def test_lower_shows_dimension_variables_as_jax():
  ours = sj.jit(_sj_program("sin")).lower(
      sj.ShapeDtypeStruct(export.symbolic_shape("b, 4"), np.float32)).as_text()
  theirs = jax.jit(_jax_program("sin")).lower(
      jax.ShapeDtypeStruct(jexport.symbolic_shape("b, 4"), np.float32)).as_text()
  assert _main_signature(ours) == re.sub(r" loc\(.*?\)", "", _main_signature(theirs))


def _outcome(fn):
  try:
    fn()
  except Exception as e:  # the error is the answer
    return type(e).__name__, str(e)
  return None


@pytest.mark.parametrize("spec, constraints, shape", [
    ("b, 4", (), (0, 4)), ("b, 4", (), (3, 5)), ("b, 4", (), (3,)), ("b, b", (), (2, 3)),
    ("2*b, b + 1", (), (3, 3)), ("2*b, b + 1", (), (4, 1)), ("a, b", ("a >= b",), (2, 3)),
    ("a, b", ("a == 2*b",), (2, 3)), ("a, b", ("a <= 5",), (6, 1)),
    ("b, mod(b, 2) + 1", (), (3, 1)),
])
def test_bad_calls_as_jax(spec, constraints, shape):
  ours = _export(sj, lambda x: jnp.sum(x), spec, constraints)
  theirs = _export(jax, lambda x: jjnp.sum(x), spec, constraints)
  x = np.ones(shape, np.float32)
  got, want = _outcome(lambda: ours.call(x)), _outcome(lambda: theirs.call(x))
  assert got == want and got is not None


def test_good_calls_with_constraints_as_jax():
  for spec, constraints, shape in [("a, b", ("a >= b",), (3, 2)), ("2*b, b + 1", (), (4, 3)),
                                   ("a, b", ("a == 2*b",), (4, 2))]:
    ours = _export(sj, lambda x: jnp.sum(x, 0) * x.shape[1], spec, constraints)
    theirs = _export(jax, lambda x: jjnp.sum(x, 0) * x.shape[1], spec, constraints)
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    np.testing.assert_allclose(np.asarray(ours.call(x)), np.asarray(theirs.call(x)))


def test_two_arguments_and_compiled_once_per_shape():
  a, b = export.symbolic_shape("a, b", constraints=("a >= b",))
  fn = lambda x, y: x[:y.shape[0]] + y
  exp = export.export(sj.jit(fn))(sj.ShapeDtypeStruct((a,), np.float32),
                                  sj.ShapeDtypeStruct((b,), np.float32))
  compiles = []
  listener = lambda event, duration, **kw: compiles.append(event == sj.monitoring.
                                                           BACKEND_COMPILE_EVENT)
  sj.monitoring.register_event_duration_secs_listener(listener)
  try:
    for n, m in [(3, 2), (5, 5), (3, 2), (5, 5), (4, 2)]:
      x, y = np.arange(n, dtype=np.float32), np.ones(m, np.float32)
      np.testing.assert_array_equal(np.asarray(exp.call(x, y)), x[:m] + y)
  finally:
    sj.monitoring.unregister_event_duration_listener(listener)
  assert sum(compiles) == 3  # once per concrete shape
  with pytest.raises(ValueError, match="symbolic shape constraint a >= b"):
    exp.call(np.ones(2, np.float32), np.ones(3, np.float32))


def test_called_under_jit_and_from_a_static_program():
  exp = _export(sj, _sj_program("mul_dim"))
  x = np.ones((3, 4), np.float32)
  np.testing.assert_allclose(np.asarray(sj.jit(lambda x: exp.call(x) + 1)(x)), x * 3 + 1)
  text = sj.jit(lambda x: exp.call(x)).lower(x).as_text()
  assert "jax.uses_shape_polymorphism = true" in text and "tensor<3x4xf32>" in text


def test_unsolvable_dimension_variable_as_jax():
  def both(mod, np_):
    return _outcome(lambda: _export(mod, lambda x: np_.sum(x), "a + b, 4"))
  got, want = both(sj, jnp), both(jax, jjnp)
  assert got[0] == want[0] == "ValueError" and "Cannot solve for values of dimension" in got[1]


def test_static_lowering_has_no_dimension_variables():
  text = sj.jit(lambda x: jnp.sin(x)[1:] + 1).lower(np.ones((3, 4), np.float32)).as_text()
  assert "?" not in text and "global_constant" not in text
  assert "uses_shape_polymorphism" not in text


def test_module_assertions_checked_when_compiled():
  """The module's own `@shape_assertion`s fail at compile time (jaxlib's shape refinement),
  with their message, for sizes the caller did not check."""
  exp = _export(sj, _sj_program("mul_dim"))
  text = sj.jit(exp.call).lower(np.ones((3, 4), np.float32)).as_text()
  with sj.lowering.make_ir_context():
    good = sj.lowering.ir.Module.parse(text)
    bad = sj.lowering.ir.Module.parse(text.replace("3x4", "0x4"))
  assert "?" not in str(sj.lowering.refine_shapes(good))
  with pytest.raises(ValueError, match="Expected value >= 1 for dimension variable 'b'"):
    sj.lowering.refine_shapes(bad)


def _jax_specs(mod):
  a, b = mod.export.symbolic_shape("a, b", constraints=["a >= b"])
  return mod.ShapeDtypeStruct((a, 4), np.float32), mod.ShapeDtypeStruct((b,), np.float32)


def _two_args(np_):
  return lambda x, y: np_.sum(x[:y.shape[0]], axis=1) * y + x.shape[0]


def test_jax_calls_our_module():
  ours = export.export(sj.jit(_two_args(jnp)))(*_jax_specs(sj))
  jexp = jexport.export(jax.jit(_two_args(jjnp)))(*_jax_specs(jax))
  theirs = dataclasses.replace(jexp, mlir_module_serialized=ours.mlir_module_serialized)
  for n, m in [(5, 3), (2, 2)]:
    x, y = np.arange(n * 4, dtype=np.float32).reshape(n, 4), np.ones(m, np.float32)
    np.testing.assert_array_equal(np.asarray(theirs.call(x, y)), np.asarray(jexp.call(x, y)))


def test_we_call_jax_module():
  jexp = jexport.export(jax.jit(_two_args(jjnp)))(*_jax_specs(jax))
  scope = export.SymbolicScope(["a >= b"])
  aval = lambda a: sj.core.ShapedArray(export.symbolic_shape(str(a.shape), scope=scope), a.dtype)
  tree = lambda x: sj.tree_util.tree_flatten(x)[1]
  ours = export.Exported(jexp.fun_name, tree(((1, 2), {})), list(map(aval, jexp.in_avals)),
                         tree(1), list(map(aval, jexp.out_avals)), jexp.platforms,
                         jexp.mlir_module_serialized, jexp.calling_convention_version, None)
  x, y = np.arange(20, dtype=np.float32).reshape(5, 4), np.ones(3, np.float32)
  np.testing.assert_array_equal(np.asarray(ours.call(x, y)), np.asarray(jexp.call(x, y)))
  got, want = _outcome(lambda: ours.call(x[:2], y)), _outcome(lambda: jexp.call(x[:2], y))
  assert got == want and got is not None


def test_grad_of_symbolic_call_as_jax():
  def grads(mod, np_):
    exp = _export(mod, lambda x: np_.sin(x) * x.shape[0])
    return [mod.grad(lambda x: exp.call(x).sum())(np.ones((n, 4), np.float32)) for n in SIZES]
  for got, want in zip(grads(sj, jnp), grads(jax, jjnp)):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)


@pytest.mark.parametrize("name", KERAS_LIKE)
def test_keras_like_layers_values_as_jax(name):
  arg, fn = KERAS_LIKE[name]

  def values(mod, np_):
    spec = keras_spec(mod, arg)
    exp = mod.export.export(mod.jit(lambda x: fn(mod, np_, x)))(spec)
    out = []
    for n in (2, 3):
      shape = {"img": (n, 8, 8, 3), "seq": (n, n, 5), "ids": (n, 7)}[arg]
      x = (np.arange(np.prod(shape)) % 10).reshape(shape).astype(spec.dtype)
      out += [np.asarray(o) for o in mod.tree_util.tree_leaves(exp.call(x))]
    return out

  for got, want in zip(values(sj, jnp), values(jax, jjnp)):
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_several_platforms_with_symbolic_shapes():
  fn = PROGRAMS["cumsum"]
  def exported(mod, np_):
    b, = mod.export.symbolic_shape("b")
    return mod.export.export(mod.jit(lambda x: fn(mod, np_, x) * x.shape[0]),
                             platforms=("cpu", "cuda"))(mod.ShapeDtypeStruct((b, 4), np.float32))
  ours, jexp = exported(sj, jnp), exported(jax, jjnp)
  assert _main_signature(ours.mlir_module()) == re.sub(r" loc\(.*?\)", "",
                                                       _main_signature(jexp.mlir_module()))
  theirs = dataclasses.replace(jexp, mlir_module_serialized=ours.mlir_module_serialized)
  x = np.arange(12, dtype=np.float32).reshape(3, 4)
  np.testing.assert_allclose(np.asarray(ours.call(x)), np.asarray(jexp.call(x)))
  np.testing.assert_allclose(np.asarray(theirs.call(x)), np.asarray(jexp.call(x)))


def test_compiling_a_symbolic_lowering_fails_as_jax():
  def outcome(mod, np_):
    b, = mod.export.symbolic_shape("b")
    lowered = mod.jit(np_.sin).lower(mod.ShapeDtypeStruct((b, 4), np.float32))
    return _outcome(lowered.compile)
  got, want = outcome(sj, jnp), outcome(jax, jjnp)
  assert got[0] == want[0] == "ValueError" and got[1].startswith("Error refining shapes")
