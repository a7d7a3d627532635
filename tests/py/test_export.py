"""stablejax.export against jax.export: exporting a jitted function, serializing it and calling
the Exported eagerly and under jit, vmap and grad; the errors for bad calls and bad blobs."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import jax
import jax.numpy as jnp_jax
from jax import export as jax_export

import stablejax as sj
import stablejax.numpy as jnp
from stablejax import lowering, runtime, test_util
from stablejax.lax import call_exported_p, primitive_kit

REPO = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir)


def _f(np_, x, y):
  return np_.sin(x) * y, {"a": x.sum(), "b": [np_.cos(y)]}


def f_sj(x, y):
  return _f(jnp, x, y)


def f_jax(x, y):
  return _f(jnp_jax, x, y)


def _args(seed=0):
  rng = np.random.default_rng(seed)
  return test_util.rand(rng, (3,)), np.float32(rng.standard_normal())


@pytest.fixture(scope="module")
def exported():
  x, y = _args()
  return sj.export.export(sj.jit(f_sj))(x, y)


def _avals(avals):
  return [(a.shape, np.dtype(a.dtype), a.weak_type) for a in avals]


def _check_close(got, want):
  got_leaves, got_tree = sj.tree_util.tree_flatten(got)
  want_leaves, want_tree = jax.tree_util.tree_flatten(want)
  assert str(got_tree).replace("PyTreeDef", "") == str(want_tree).replace("PyTreeDef", "")
  for g, w in zip(got_leaves, want_leaves):
    assert np.asarray(g).dtype == np.asarray(w).dtype
    np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-5, atol=1e-6)


def test_exported_types_and_trees_match_jax(exported):
  x, y = _args()
  want = jax_export.export(jax.jit(f_jax))(x, 2.0)
  got = sj.export.export(sj.jit(f_sj))(x, 2.0)
  assert _avals(got.in_avals) == _avals(want.in_avals)
  assert _avals(got.out_avals) == _avals(want.out_avals)
  assert str(got.in_tree) == str(want.in_tree) and str(got.out_tree) == str(want.out_tree)
  assert got.platforms == want.platforms == (sj.export.default_export_platform(),)
  assert got.fun_name == "f_sj" and got.calling_convention_version == 10
  assert got.nr_devices == want.nr_devices == 1
  assert isinstance(got.mlir_module_serialized, bytes)
  assert got.has_vjp()


def test_module_text(exported):
  text = exported.mlir_module()
  assert "func.func public @main(%arg0: tensor<3xf32>, %arg1: tensor<f32>)" in text
  assert "stablehlo.sine" in text and "stablehlo.cosine" in text


def test_serialize_round_trip(exported):
  blob = exported.serialize()
  assert isinstance(blob, bytes)
  back = sj.export.deserialize(blob)
  for name in ("fun_name", "in_tree", "out_tree", "platforms", "calling_convention_version",
               "mlir_module_serialized", "nr_devices"):
    assert getattr(back, name) == getattr(exported, name), name
  assert _avals(back.in_avals) == _avals(exported.in_avals)
  assert _avals(back.out_avals) == _avals(exported.out_avals)
  assert back.mlir_module() == exported.mlir_module()
  assert not back.has_vjp()
  assert sj.export.deserialize(bytearray(blob)).fun_name == "f_sj"


def test_call_eager_and_under_jit(exported):
  x, y = _args(1)
  want = f_jax(x, y)
  _check_close(exported.call(x, y), want)
  _check_close(sj.jit(exported.call)(x, y), want)
  _check_close(sj.export.deserialize(exported.serialize()).call(x, y), want)
  g = sj.jit(lambda x, y: exported.call(x * 2, y)[0] + exported.call(x, y)[1]["a"])
  np.testing.assert_allclose(g(x, y), jax.jit(lambda x, y: f_jax(x * 2, y)[0] +
                                              f_jax(x, y)[1]["a"])(x, y), rtol=1e-5)
  text = g.lower(x, y).as_text()
  # one private function for the two calls, called twice from main
  assert text.count("func.func private @call_exported_f_sj(") == 1
  assert text.count("call @call_exported_f_sj(") == 2


def test_call_with_kwargs_and_symbol_clashes():
  inner = sj.jit(lambda x: x * 2)

  def g(x, n, *, s):
    return inner(x) * n + s, n + 1

  x = np.arange(3, dtype=np.float32)
  e = sj.export.export(sj.jit(g))(x, np.int32(2), s=np.float32(1))
  h = sj.jit(lambda x: inner(e.call(inner(x), np.int32(3), s=np.float32(1))[0]))
  np.testing.assert_allclose(h(x), (x * 2 * 2 * 3 + 1) * 2)
  text = h.lower(x).as_text()
  assert "func.func private @_lambda_(" in text  # the caller's nested jit keeps its name
  assert "func.func private @call_exported_g__lambda_(" in text  # the callee's is renamed
  out, n = sj.export.deserialize(e.serialize()).call(x, np.int32(3), s=np.float32(1))
  assert n.dtype == np.int32 and int(n) == 4


@pytest.mark.parametrize("in_axes", [(0, None), (1, 0), (0, 0)])
def test_call_under_vmap(exported, in_axes):
  rng = np.random.default_rng(2)
  xs = test_util.rand(rng, (3, 4) if in_axes[0] == 1 else (4, 3))
  ys = test_util.rand(rng, (4,)) if in_axes[1] == 0 else np.float32(0.5)
  want = jax.vmap(f_jax, in_axes)(xs, ys)
  _check_close(sj.vmap(exported.call, in_axes)(xs, ys), want)
  _check_close(sj.jit(sj.vmap(exported.call, in_axes))(xs, ys), want)


@pytest.mark.slow
def test_call_under_grad(exported):
  x, y = _args(3)

  def loss(call, np_):
    return lambda x, y: np_.sum(call(x, y)[0] ** 2) + call(x, y)[1]["b"][0]

  want = jax.grad(loss(f_jax, jnp_jax), argnums=(0, 1))(x, y)
  for e in (exported, sj.export.deserialize(exported.serialize(vjp_order=1))):
    _check_close(sj.grad(loss(e.call, jnp), argnums=(0, 1))(x, y), want)
    _check_close(sj.jit(sj.grad(loss(e.call, jnp), argnums=(0, 1)))(x, y), want)
  xs = test_util.rand(np.random.default_rng(4), (2, 3))
  _check_close(sj.vmap(sj.grad(loss(exported.call, jnp)), (0, None))(xs, y),
               jax.vmap(jax.grad(loss(f_jax, jnp_jax)), (0, None))(xs, y))


def test_second_order_grad_through_serialized_vjps():
  f = sj.jit(lambda x: jnp.sin(x) * x)
  x = np.float32(0.7)
  e = sj.export.deserialize(sj.export.export(f)(x).serialize(vjp_order=2))
  got = sj.grad(sj.grad(e.call))(x)
  np.testing.assert_allclose(got, jax.grad(jax.grad(lambda x: jnp_jax.sin(x) * x))(x),
                             rtol=1e-5)
  with pytest.raises(ValueError, match="'vjp_vjp_<lambda>'.*vjp_order"):
    sj.grad(sj.grad(sj.grad(e.call)))(x)


def test_grad_without_vjp_names_what_is_missing(exported):
  x, y = _args()
  e = sj.export.deserialize(exported.serialize())
  with pytest.raises(ValueError, match="vjp_order"):
    sj.grad(lambda x: e.call(x, y)[0].sum())(x)
  with pytest.raises(ValueError, match="No VJP is available"):
    e.vjp()


def test_exported_vjp_signature(exported):
  vjp = exported.vjp()
  assert _avals(vjp.in_avals)[:2] == _avals(exported.in_avals)
  assert [a.shape for a in vjp.in_avals[2:]] == [a.shape for a in exported.out_avals]
  assert [a.shape for a in vjp.out_avals] == [a.shape for a in exported.in_avals]
  assert vjp.platforms == exported.platforms


def test_integer_arguments_and_results_in_grad():
  f = sj.jit(lambda x, n: (x * n, n + 1))
  e = sj.export.export(f)(np.ones(3, np.float32), np.int32(2))
  x = np.arange(3, dtype=np.float32)
  np.testing.assert_allclose(sj.grad(lambda x: e.call(x, np.int32(3))[0].sum())(x), [3, 3, 3])
  assert e.vjp().in_avals[3].dtype == np.bool_  # float0 cotangents are booleans, as in HLO


@pytest.mark.parametrize("args, match", [
    ((np.ones(3, np.float32),), "same pytree structure"),
    ((np.ones(4, np.float32), np.float32(1)), r"Shape mismatch for args\[0\].*\(3,\).*\(4,\)"),
    ((np.ones(3, np.int32), np.float32(1)), r"Dtype mismatch for args\[0\].*float32.*int32"),
    ((np.ones(3, np.float32), np.ones(2, np.float32)), r"Rank mismatch for args\[1\]"),
])
def test_bad_calls(exported, args, match):
  with pytest.raises(ValueError, match=match):
    exported.call(*args)
  with pytest.raises(ValueError, match=match):
    sj.jit(exported.call)(*args)


def test_export_needs_a_jitted_function():
  with pytest.raises(ValueError, match="must be the result of `jit`"):
    sj.export.export(f_sj)
  with pytest.raises(ValueError, match="must be the result of `jit`"):
    jax_export.export(f_jax)


def _corrupt(blob: bytes, what: str, module: bytes) -> bytes:
  if what == "module":  # the module's bytecode header zeroed
    return blob.replace(module[:16], b"\x00" * 16)
  if what == "old container":  # stablejax's container before JAX's format
    return b"stablejax.export\x00" + blob
  return {"garbage": b"garbage", "truncated": blob[:-20], "empty": b""}[what]


@pytest.mark.parametrize("what, match", [
    ("garbage", "not a serialized Exported"), ("truncated", "truncated"),
    ("empty", "not a serialized Exported"),
    ("module", "StableHLO module of 'f_sj' cannot be read"),
    ("old container", "container of stablejax before it wrote JAX's format"),
])
def test_bad_blobs(exported, what, match):
  with pytest.raises(ValueError, match=match):
    sj.export.deserialize(_corrupt(exported.serialize(), what,
                                   exported.mlir_module_serialized))


def test_unregistered_custom_pytree_nodes_cannot_be_serialized():
  class Pair:
    def __init__(self, a, b):
      self.a, self.b = a, b

  sj.tree_util.register_pytree_node(Pair, lambda p: ((p.a, p.b), None),
                                    lambda _, c: Pair(*c))
  e = sj.export.export(sj.jit(lambda p: p.a + p.b))(Pair(np.float32(1), np.float32(2)))
  assert float(e.call(Pair(np.float32(1), np.float32(2)))) == 3
  with pytest.raises(ValueError, match="Cannot serialize PyTreeDef containing an unregistered "
                                       "type `.*Pair'>` \\(in the in_tree"):
    e.serialize()


def test_effects_cannot_be_exported():
  def g(x):
    sj.debug.callback(lambda v: None, x)
    return x

  with pytest.raises(ValueError, match="cannot export 'g': it has effects"):
    sj.export.export(sj.jit(g))(np.float32(1))


def test_export_for_cuda_without_a_gpu():
  x, y = _args()
  e = sj.export.export(sj.jit(f_sj), platforms=("cuda",))(x, y)
  assert e.platforms == ("cuda",)
  text = sj.export.deserialize(e.serialize()).mlir_module()
  assert "func.func public @main(%arg0: tensor<3xf32>, %arg1: tensor<f32>)" in text
  assert "stablehlo.sine" in text
  if "cuda" in runtime.available_platforms():
    _check_close(e.call(sj.device_put(x, sj.devices("cuda")[0]), y), f_jax(x, y))
  else:
    with pytest.raises(lowering.LoweringError, match=r"exported for platforms \('cuda',\).*'cpu'"):
      e.call(x, y)


def _multi_platform_supported() -> bool:
  try:
    sj.export.export(sj.jit(jnp.sin), platforms=("cpu", "cuda"))(np.float32(1))
  except (TypeError, ValueError, AttributeError, lowering.LoweringError):
    return False
  return True


@pytest.mark.skipif(not _multi_platform_supported(),
                    reason="lower_jaxpr does not take several platforms yet")
def test_multi_platform_export():
  x, y = _args()
  e = sj.export.export(sj.jit(f_sj), platforms=("cpu", "cuda"))(x, y)
  assert e.platforms == ("cpu", "cuda")
  text = e.mlir_module()
  assert "@main(%arg0: tensor<i32>" in text
  assert "%arg1: tensor<3xf32>, %arg2: tensor<f32>) -> (" in text
  back = sj.export.deserialize(e.serialize(vjp_order=1))
  _check_close(back.call(x, y), f_jax(x, y))
  lowered = sj.jit(back.call).lower(x, y).as_text()
  assert "stablehlo.constant dense<0> : tensor<i32>" in lowered  # the cpu index
  _check_close(sj.vmap(back.call, (0, None))(np.stack([x, x]), y),
               jax.vmap(f_jax, (0, None))(np.stack([x, x]), y))
  _check_close(sj.grad(lambda x: back.call(x, y)[0].sum())(x),
               jax.grad(lambda x: f_jax(x, y)[0].sum())(x))
  # called from a function exported for the platforms in the other order: the callee's index
  # is selected from the caller's with a `case`
  outer = sj.export.export(sj.jit(lambda x, y: back.call(x, y)[0] + 1),
                           platforms=("cuda", "cpu"))(x, y)
  assert "stablehlo.case" in outer.mlir_module()
  np.testing.assert_allclose(outer.call(x, y), f_jax(x, y)[0] + 1, rtol=1e-5)
  cpu_only = sj.export.export(sj.jit(back.call))(x, y)
  with pytest.raises(lowering.LoweringError, match=r"exported for platforms \('cpu',\) but it is "
                     r"used on \['cuda'\]"):
    sj.export.export(sj.jit(cpu_only.call), platforms=("cpu", "cuda"))(x, y)


def test_numpy_reference_runs_the_module_alone(exported):
  x, y = _args(5)
  got = primitive_kit.evaluate_reference(call_exported_p, x, y, exported=exported)
  _check_close(tuple(got), tuple(jax.tree_util.tree_leaves(f_jax(x, y))))


@pytest.mark.slow
def test_blob_runs_in_a_fresh_process(tmp_path, exported):
  x, y = _args(6)
  path = tmp_path / "f.bin"
  path.write_bytes(exported.serialize(vjp_order=1))
  code = (
      "import json, sys, numpy as np, stablejax as sj\n"
      "e = sj.export.deserialize(open(sys.argv[1], 'rb').read())\n"
      f"x, y = np.array({x.tolist()!r}, np.float32), np.float32({float(y)!r})\n"
      "out = e.call(x, y)\n"
      "g = sj.grad(lambda x: e.call(x, y)[0].sum())(x)\n"
      "print(json.dumps([np.asarray(out[0]).tolist(), float(out[1]['a']), "
      "np.asarray(g).tolist()]))\n")
  proc = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True,
                        cwd=REPO)
  assert proc.returncode == 0, proc.stderr
  out0, a, g = json.loads(proc.stdout)
  want = f_jax(x, y)
  np.testing.assert_allclose(out0, want[0], rtol=1e-5)
  np.testing.assert_allclose(a, want[1]["a"], rtol=1e-5)
  np.testing.assert_allclose(g, jax.grad(lambda x: f_jax(x, y)[0].sum())(x), rtol=1e-5)
