"""JAX's serialized Exported, both ways: what stablejax's `Exported.serialize` writes is loaded
by `jax.export.deserialize` and called (eagerly, under `jax.jit`, differentiated through the
serialized VJPs), and what JAX's `Exported.serialize` writes is loaded by
`stablejax.export.deserialize` and called likewise; the custom-call allowlist and the disabled
safety checks as JAX's; the CPU artifacts of JAX's back-compatibility test data run against their
stored outputs."""
import collections
import dataclasses
import functools
import importlib
import pkgutil

import numpy as np
import pytest

import jax
import jax.numpy as jjnp
from jax import export as jax_export
from jax._src.export import _export as jax_export_internal
from jax._src.internal_test_util import export_back_compat_test_data as back_compat_data

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

import stablejax as sj
import stablejax.numpy as jnp
from stablejax import core, export_serialization, lowering
from stablejax.export_custom_calls import STABLE_CUSTOM_CALL_TARGETS
from stablejax.tree_util import tree_flatten

RNG = np.random.default_rng(0)
X = RNG.standard_normal((2, 3)).astype(np.float32)
N = np.arange(4, dtype=np.int32)


def _f(np_, x, n, *, scale):
  return {"y": [np_.sin(x) * scale, None], "n": n * 2, "s": (x * x).sum()}


def f_sj(x, n, *, scale):
  return _f(jnp, x, n, scale=scale)


def f_jax(x, n, *, scale):
  return _f(jjnp, x, n, scale=scale)


def _close(got, want, rtol=1e-6, atol=1e-6):
  got_leaves, got_tree = tree_flatten(got)
  want_leaves, want_tree = jax.tree_util.tree_flatten(want)
  assert str(got_tree).replace("PyTreeDef", "") == str(want_tree).replace("PyTreeDef", "")
  for g, w in zip(got_leaves, want_leaves):
    assert np.asarray(g).dtype == np.asarray(w).dtype
    np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=rtol, atol=atol)


def _types(exported):
  return ([(tuple(map(str, a.shape)), a.dtype.name) for a in exported.in_avals],
          [(tuple(map(str, a.shape)), a.dtype.name) for a in exported.out_avals],
          str(exported.in_tree).replace("PyTreeDef", ""),
          str(exported.out_tree).replace("PyTreeDef", ""))


@pytest.fixture(scope="module")
def sj_exported():
  return sj.export.export(sj.jit(f_sj))(X, N, scale=np.float32(2))


@pytest.fixture(scope="module")
def jax_exported():
  return jax_export.export(jax.jit(f_jax))(X, N, scale=np.float32(2))


# ----------------------------------------------------------------------------------------------
# stablejax -> JAX

def test_jax_reads_and_calls_a_stablejax_artifact(sj_exported, jax_exported):
  back = jax_export.deserialize(bytearray(sj_exported.serialize()))
  assert _types(back) == _types(jax_exported) == _types(sj_exported)
  assert back.fun_name == "f_sj" and back.platforms == sj_exported.platforms
  assert back.calling_convention_version == sj_exported.calling_convention_version == 10
  assert back.nr_devices == 1 and back.module_kept_var_idx == (0, 1, 2)
  assert (jax_export.minimum_supported_calling_convention_version
          <= back.calling_convention_version
          <= jax_export.maximum_supported_calling_convention_version)
  want = f_sj(X, N, scale=np.float32(2))
  _close(back.call(X, N, scale=np.float32(2)), want)
  _close(jax.jit(back.call)(X, N, scale=np.float32(3)), f_sj(X, N, scale=np.float32(3)))
  assert not back.has_vjp()


def test_jax_differentiates_a_stablejax_artifact(sj_exported):
  back = jax_export.deserialize(bytearray(sj_exported.serialize(vjp_order=2)))

  def loss(x):
    out = back.call(x, N, scale=np.float32(2))
    return (out["y"][0] ** 2).sum() + out["s"]

  def loss_jax(x):
    out = f_jax(x, N, scale=np.float32(2))
    return (out["y"][0] ** 2).sum() + out["s"]

  _close(jax.grad(loss)(X), jax.grad(loss_jax)(X), rtol=1e-5)
  _close(jax.jit(jax.grad(loss))(X), jax.grad(loss_jax)(X), rtol=1e-5)
  hvp = lambda f: jax.grad(lambda x: jax.grad(f)(x).sum())(X)  # noqa: E731
  _close(hvp(loss), hvp(loss_jax), rtol=1e-5, atol=1e-5)


def test_jax_reads_several_platforms_and_dtypes():
  def g(a, b, c):
    return a.astype(jnp.float32) * 2, jnp.logical_not(b), c + 1

  args = (np.ones((2,), jnp.bfloat16), np.array([True, False]), np.arange(3, dtype=np.uint8))
  e = sj.export.export(sj.jit(g), platforms=("cuda", "cpu"))(*args)
  back = jax_export.deserialize(bytearray(e.serialize()))
  assert back.platforms == ("cuda", "cpu")
  assert [a.dtype.name for a in back.in_avals] == ["bfloat16", "bool", "uint8"]
  _close(back.call(*args), g(*args))


# ----------------------------------------------------------------------------------------------
# JAX -> stablejax

def test_stablejax_reads_and_calls_a_jax_artifact(jax_exported):
  got = sj.export.deserialize(jax_exported.serialize())
  assert _types(got) == _types(jax_exported)
  assert got.fun_name == jax_exported.fun_name and got.platforms == jax_exported.platforms
  assert got.calling_convention_version == jax_exported.calling_convention_version
  want = f_jax(X, N, scale=np.float32(2))
  _close(got.call(X, N, scale=np.float32(2)), want)
  _close(sj.jit(got.call)(X, N, scale=np.float32(2)), want)
  xs = np.stack([X, 2 * X])
  batched = sj.vmap(lambda x: got.call(x, N, scale=np.float32(2))["s"])(xs)
  np.testing.assert_allclose(batched, [(x * x).sum() for x in xs], rtol=1e-6)
  with pytest.raises(ValueError, match="vjp_order=0"):
    sj.grad(lambda x: got.call(x, N, scale=np.float32(2))["s"])(X)


def test_stablejax_differentiates_a_jax_artifact(jax_exported):
  got = sj.export.deserialize(bytes(jax_exported.serialize(vjp_order=2)))
  assert got.has_vjp() and got.vjp().has_vjp()

  def loss(call, x):
    out = call(x, N, scale=np.float32(2))
    return (out["y"][0] ** 2).sum() + out["s"]

  want = jax.grad(lambda x: loss(f_jax, x))(X)
  _close(sj.grad(lambda x: loss(got.call, x))(X), want, rtol=1e-5)
  _close(sj.jit(sj.grad(lambda x: loss(got.call, x)))(X), want, rtol=1e-5)
  hess = jax.grad(lambda x: jax.grad(lambda x: loss(f_jax, x))(x).sum())(X)
  _close(sj.grad(lambda x: sj.grad(lambda x: loss(got.call, x))(x).sum())(X), hess,
         rtol=1e-5, atol=1e-5)


def test_unused_arguments_dropped_by_jax():
  e = jax_export.export(jax.jit(lambda a, b, c: a * c))(np.float32(1), X, np.float32(3))
  assert e.module_kept_var_idx == (0, 2)
  got = sj.export.deserialize(e.serialize())
  assert got.module_kept_var_idx == (0, 2)
  assert float(got.call(np.float32(2), X, np.float32(3))) == 6
  assert float(sj.jit(got.call)(np.float32(2), X, np.float32(3))) == 6
  # and written back as JAX reads it
  again = jax_export.deserialize(bytearray(got.serialize()))
  assert again.module_kept_var_idx == (0, 2)
  assert float(again.call(np.float32(2), X, np.float32(3))) == 6


def test_symbolic_shapes_are_read_as_jax_writes_them():
  b, = jax_export.symbolic_shape("b")
  spec = jax.ShapeDtypeStruct((b, 2 * b + 1, 3), np.float32)
  e = jax_export.export(jax.jit(lambda x: x.sum(axis=2)))(spec)
  got = export_serialization.deserialize(bytes(e.serialize()))
  assert [tuple(map(str, a.shape)) for a in got.in_avals] == [("b", "2*b + 1", "3")]
  assert [tuple(map(str, a.shape)) for a in got.out_avals] == [("b", "2*b + 1")]
  assert sj.export.is_symbolic_dim(got.in_avals[0].shape[0])
  assert got.in_avals[0].shape[0] == got.out_avals[0].shape[0]  # (one scope)


def _symbolic_program(np_, x):
  return np_.tanh(x).sum(axis=1) * x.shape[0] + x[:, 1]


@pytest.mark.parametrize("constraints", [(), ("b >= 2",)])
def test_symbolic_artifacts_both_ways(constraints):
  """One export for every batch size: stablejax's is called by JAX, JAX's by stablejax, each
  for several sizes, with the values JAX's own export gives."""
  ours = sj.export.export(sj.jit(lambda x: _symbolic_program(jnp, x)))(sj.ShapeDtypeStruct(
      sj.export.symbolic_shape("b, 3", constraints=constraints), np.float32))
  theirs = jax_export.export(jax.jit(lambda x: _symbolic_program(jjnp, x)))(jax.ShapeDtypeStruct(
      jax_export.symbolic_shape("b, 3", constraints=constraints), np.float32))
  in_jax = jax_export.deserialize(ours.serialize())
  in_sj = sj.export.deserialize(bytes(theirs.serialize()))
  assert str(in_jax.in_avals[0].shape) == str(theirs.in_avals[0].shape) == "(b, 3)"
  for b in (2, 5, 9):
    x = np.linspace(-2, 2, 3 * b, dtype=np.float32).reshape(b, 3)
    want = np.asarray(theirs.call(x))
    for got in (in_jax.call(x), in_sj.call(x), ours.call(x)):
      np.testing.assert_array_equal(np.asarray(got), want)
  with pytest.raises(ValueError, match="b"):  # a wrong shape names the dimension, as JAX
    in_sj.call(np.ones((4, 2), np.float32))


# ----------------------------------------------------------------------------------------------
# PRNG keys and custom pytree nodes, registered for serialization on both sides under one name

Point = collections.namedtuple("Point", ["x", "y"])


class Tagged:
  """A custom node with auxdata (its tag)."""

  def __init__(self, tag, value):
    self.tag, self.value = tag, value


for _lib in (jax, sj):
  _lib.tree_util.register_pytree_node(Tagged, lambda t: ((t.value,), t.tag),
                                      lambda tag, kids: Tagged(tag, *kids))
  _lib.export.register_namedtuple_serialization(Point, serialized_name="test.Point")
  _lib.export.register_pytree_node_serialization(
      Tagged, serialized_name="test.Tagged", serialize_auxdata=str.encode,
      deserialize_auxdata=bytes.decode)


def _nodes_program(lib, np_, key, p, t):
  k1, k2 = lib.random.split(key)
  u = lib.random.uniform(k2, (3,))
  return (Point(x=k1, y=(u * p.x * p.y).sum()),
          collections.OrderedDict(b=Tagged(t.tag, t.value * 2), a=np_.sin(p.y)))


_nodes_jax = jax.jit(functools.partial(_nodes_program, jax, jjnp))


def _nodes_args(lib):
  return lib.random.key(7), Point(X[0], X[1]), Tagged("scale", np.float32(3))


def _key_data(x):
  if str(x.dtype) != "key<fry>":
    return x
  return (sj.random if isinstance(x, sj.Array) else jax.random).key_data(x)


def _nodes_close(got, want):
  """Equal trees and values, keys (of either library) compared by their data."""
  _close(jax.tree_util.tree_map(_key_data, got), jax.tree_util.tree_map(_key_data, want))


def test_keys_and_custom_nodes_from_jax():
  e = jax_export.export(_nodes_jax)(*_nodes_args(jax))
  got = sj.export.deserialize(e.serialize(vjp_order=1))
  assert _types(got) == _types(e)  # (key<fry>[], and the custom nodes)
  assert got.in_avals[0].dtype == sj.random.key(0).dtype
  want = _nodes_jax(*_nodes_args(jax))
  _nodes_close(got.call(*_nodes_args(sj)), want)
  grad = lambda lib, call: lib.grad(  # noqa: E731
      lambda y: call(lib.random.key(7), Point(X[0], y), Tagged("scale", np.float32(1)))[0].y)(X[1])
  _close(grad(sj, got.call), grad(jax, _nodes_jax), rtol=1e-5)


def test_keys_and_custom_nodes_to_jax():
  ours = sj.export.export(sj.jit(functools.partial(_nodes_program, sj, jnp)))(*_nodes_args(sj))
  back = jax_export.deserialize(bytearray(ours.serialize(vjp_order=1)))
  assert _types(back) == _types(ours)
  assert back.in_avals[0].dtype == jax.random.key(0).dtype
  want = _nodes_jax(*_nodes_args(jax))
  _nodes_close(back.call(*_nodes_args(jax)), want)  # (stablejax's random bits are JAX's)
  grad = lambda call: jax.grad(  # noqa: E731
      lambda y: call(jax.random.key(7), Point(X[0], y), Tagged("scale", np.float32(1)))[0].y)(X[1])
  _close(grad(back.call), grad(_nodes_jax), rtol=1e-5)


def test_unregistered_and_unsupported_on_read():
  class OnlyInJax(Tagged):
    pass

  jax.tree_util.register_pytree_node(OnlyInJax, lambda t: ((t.value,), t.tag),
                                     lambda tag, kids: OnlyInJax(tag, *kids))
  jax_export.register_pytree_node_serialization(
      OnlyInJax, serialized_name="test.OnlyInJax", serialize_auxdata=str.encode,
      deserialize_auxdata=bytes.decode)
  e = jax_export.export(jax.jit(lambda t: t.value))(OnlyInJax("a", np.float32(1)))
  with pytest.raises(ValueError, match="Cannot deserialize a PyTreeDef containing an "
                                       "unregistered type `test.OnlyInJax`"):
    sj.export.deserialize(e.serialize())
  rbg = jax_export.export(jax.jit(jax.random.key_data))(jax.random.key(0, impl="rbg"))
  with pytest.raises(ValueError, match="PRNG keys of the rbg implementation"):
    sj.export.deserialize(rbg.serialize())


def test_serialization_registrations_are_checked():
  with pytest.raises(ValueError, match="Duplicate serialization registration for type"):
    sj.export.register_namedtuple_serialization(Point, serialized_name="test.Point2")
  with pytest.raises(ValueError, match="Duplicate serialization registration for "
                                       "serialized_name `test.Point`"):
    sj.export.register_namedtuple_serialization(collections.namedtuple("Q", "a"),
                                                serialized_name="test.Point")
  with pytest.raises(ValueError, match="types other than `collections.namedtuple`"):
    sj.export.register_namedtuple_serialization(Tagged, serialized_name="test.T")
  with pytest.raises(ValueError, match="you must call first `tree_util.register_pytree_node`"):
    sj.export.register_pytree_node_serialization(
        dict.__class__, serialized_name="test.type", serialize_auxdata=str.encode,
        deserialize_auxdata=bytes.decode)


# ----------------------------------------------------------------------------------------------
# Shardings: JAX's artifacts for one device (their meshes and sharding annotations) are called;
# those for several are read (JAX's stored ones, of serialization versions 4 to 11) but not
# called nor written back

def test_one_device_shardings_from_jax():
  mesh = jax.sharding.Mesh(np.array(jax.devices()[:1]), ("a",))
  s = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec("a"))
  f = jax.jit(lambda x: jax.lax.with_sharding_constraint(jjnp.sin(x), s) * 2,
              in_shardings=s, out_shardings=s)
  e = jax_export.export(f)(X[0])
  assert "sdy.mesh @mesh" in e.mlir_module()
  got = sj.export.deserialize(e.serialize())
  np.testing.assert_allclose(got.call(X[0]), np.sin(X[0]) * 2, rtol=1e-6)
  np.testing.assert_allclose(sj.jit(lambda x: got.call(x) + got.call(x))(X[0]),
                             np.sin(X[0]) * 4, rtol=1e-6)  # (the mesh inserted once)
  back = jax_export.deserialize(bytearray(got.serialize()))
  np.testing.assert_allclose(back.call(X[0]), np.sin(X[0]) * 2, rtol=1e-6)


def _stored_serializations():
  for name in ("export_with_memory_space", "export_with_multiple_meshes",
               "export_with_specified_sharding", "export_with_unspecified_sharding"):
    module = importlib.import_module(f"{back_compat_data.__name__}.{name}")
    for d in module.serializations:
      yield pytest.param(d["exported_serialized"],
                         id=f"{name}-v{d['serialization_version']}")


@pytest.mark.parametrize("blob", list(_stored_serializations()))
def test_jax_stored_serializations_are_read(blob):
  want = jax_export.deserialize(blob)
  if any(str(a).split("[")[0].endswith("<host>") for a in want.in_avals):
    with pytest.raises(ValueError, match="lives in host memory"):
      sj.export.deserialize(bytes(blob))
    return
  got = sj.export.deserialize(bytes(blob))
  assert _types(got) == _types(want)
  assert (got.fun_name, got.platforms, got.nr_devices) == (
      want.fun_name, want.platforms, want.nr_devices) and got.nr_devices == 2
  with pytest.raises(ValueError, match="exported for 2 devices and is called in a context "
                                       "with 1 devices"):
    got.call(*[np.zeros(a.shape, a.dtype) for a in got.in_avals])
  with pytest.raises(ValueError, match="exported for 2 devices, and stablejax keeps"):
    got.serialize()


# ----------------------------------------------------------------------------------------------
# Errors and safety checks

def test_custom_call_allowlist_is_jaxs():
  assert STABLE_CUSTOM_CALL_TARGETS == jax_export_internal._CUSTOM_CALL_TARGETS_GUARANTEED_STABLE


def _ffi_fun(x):
  return sj.ffi.ffi_call("my_unstable_target", sj.ShapeDtypeStruct(x.shape, x.dtype))(x)


def test_unstable_custom_calls_are_refused_unless_allowed():
  match = "(?s)Cannot serialize code with custom calls whose targets have no compatibility " \
          "guarantees.*my_unstable_target"
  with pytest.raises(ValueError, match=match):
    sj.export.export(sj.jit(_ffi_fun))(X)
  jax_ffi = lambda x: jax.ffi.ffi_call(  # noqa: E731
      "my_unstable_target", jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
  with pytest.raises(ValueError, match=match):
    jax_export.export(jax.jit(jax_ffi))(X)
  check = sj.export.DisabledSafetyCheck.custom_call("my_unstable_target")
  e = sj.export.export(sj.jit(_ffi_fun), disabled_checks=[check])(X)
  back = jax_export.deserialize(bytearray(e.serialize()))
  assert back.disabled_safety_checks == (jax_export.DisabledSafetyCheck.custom_call(
      "my_unstable_target"),)
  # LAPACK's targets are stable
  sj.export.export(sj.jit(jnp.linalg.cholesky))(np.eye(3, dtype=np.float32))


def test_disabled_platform_check_both_ways():
  x = np.arange(3, dtype=np.float32)
  checks = [jax_export.DisabledSafetyCheck.platform()]
  e = jax_export.export(jax.jit(jjnp.sin), platforms=("tpu",), disabled_checks=checks)(x)
  got = sj.export.deserialize(e.serialize())
  assert got.disabled_safety_checks == (sj.export.DisabledSafetyCheck.platform(),)
  np.testing.assert_allclose(got.call(x), np.sin(x), rtol=1e-6)
  np.testing.assert_allclose(e.call(x), np.sin(x), rtol=1e-6)  # (JAX runs it too)

  strict = sj.export.deserialize(
      jax_export.export(jax.jit(jjnp.sin), platforms=("tpu",))(x).serialize())
  with pytest.raises(lowering.LoweringError, match=r"exported for platforms \('tpu',\)"):
    strict.call(x)
  mine = sj.export.export(sj.jit(jnp.sin), platforms=("tpu",),
                          disabled_checks=[sj.export.DisabledSafetyCheck.platform()])(x)
  back = jax_export.deserialize(bytearray(mine.serialize()))
  np.testing.assert_allclose(back.call(x), np.sin(x), rtol=1e-6)


def test_dict_keys_must_be_strings():
  match = "Serialization is supported only for dictionaries with string keys. Found key 1"
  e = sj.export.export(sj.jit(lambda d: d[1] * 2))({1: np.float32(1)})
  with pytest.raises(TypeError, match=match):
    e.serialize()
  with pytest.raises(TypeError, match=match):  # (as JAX)
    jax_export.export(jax.jit(lambda d: d[1] * 2))({1: np.float32(1)}).serialize()


def test_vjp_order_beyond_what_was_deserialized(jax_exported):
  got = sj.export.deserialize(jax_exported.serialize(vjp_order=0))
  with pytest.raises(ValueError, match="no VJP"):
    got.serialize(vjp_order=1)


def test_unsupported_calling_convention():
  e = jax_export.export(jax.jit(jjnp.sin))(np.float32(1))
  old = dataclasses.replace(e, calling_convention_version=8)
  with pytest.raises(ValueError, match="calling convention version 8; stablejax calls "
                                       "versions 9 to 10"):
    sj.export.deserialize(old.serialize())


# ----------------------------------------------------------------------------------------------
# JAX's back-compatibility artifacts (the CPU ones, static and symbolic), built as JAX's harness
# builds them, run against their stored outputs and JAX's own run of the same module

def _artifacts(x):
  if isinstance(x, dict) and "testdata_version" in x:
    yield x
  elif isinstance(x, (dict, list)):
    for v in (x.values() if isinstance(x, dict) else x):
      yield from _artifacts(v)


def _cpu_artifacts():
  for info in pkgutil.iter_modules(back_compat_data.__path__):
    if info.ispkg:
      continue
    module = importlib.import_module(f"{back_compat_data.__name__}.{info.name}")
    for name in dir(module):
      if name.startswith("data_"):
        for i, data in enumerate(_artifacts(getattr(module, name))):
          if data["platform"] == "cpu":
            yield pytest.param(data, id=f"{info.name}-{name}-{i}")


CPU_ARTIFACTS = list(_cpu_artifacts())

# The polymorphic shapes JAX's harness gives the symbolic artifacts (they are in JAX's test, not
# in the wheel): jax-ml/jax tests/export_back_compat_test.py, test_stablehlo_dynamic_top_k,
# test_dynamic_approx_top_k and test_stablehlo_dynamic_rbg_bit_generator, keyed by the first
# custom-call target the artifact lists after shape_assertion. An artifact not listed gets specs
# derived from its module (`_derived_specs`).
JAX_POLYMORPHIC_SHAPES = {
    "stablehlo.dynamic_top_k": ("_, b",),
    "stablehlo.dynamic_approx_top_k": ("b + 4,",),
    "stablehlo.dynamic_rng_bit_generator": (None, "b0, b1"),
}


def _main_dynamic_dims(data):
  """Per argument of the artifact module's `main`, which dimensions are `?`."""
  ctx = lowering.make_ir_context()
  with ctx:
    module = hlo.deserialize_portable_artifact(ctx, data["mlir_module_serialized"])
    main, = [op for op in module.body.operations
             if ir.StringAttr(op.attributes["sym_name"]).value == "main"]
    types = ir.FunctionType(ir.TypeAttr(main.attributes["function_type"]).value).inputs
    return [tuple(map(ir.RankedTensorType(t).is_dynamic_dim, range(ir.RankedTensorType(t).rank)))
            for t in types]


def _derived_specs(data):
  """A fresh dimension variable for each `?` of `main`'s arguments, `_` for the rest."""
  return tuple(", ".join(f"d{i}_{j}" if dyn else "_" for j, dyn in enumerate(dims)) + ","
               for i, dims in enumerate(_main_dynamic_dims(data)))


def _polymorphic_shapes(data):
  if not any(map(any, _main_dynamic_dims(data))):
    return None
  targets = [t for t in data["custom_call_targets"] if t != "shape_assertion"]
  return JAX_POLYMORPHIC_SHAPES.get(targets[0] if targets else None) or _derived_specs(data)


def test_the_cpu_artifacts_are_found():
  assert len(CPU_ARTIFACTS) >= 48 and len(_symbolic(CPU_ARTIFACTS)) >= 4


@pytest.mark.parametrize("target", JAX_POLYMORPHIC_SHAPES)
def test_jax_polymorphic_shapes_match_the_modules(target):
  """JAX's hand-written specs make symbolic exactly the dimensions the module has as `?`."""
  for p in CPU_ARTIFACTS:
    data = p.values[0]
    if target in data["custom_call_targets"]:
      specs = sj.export.symbolic_args_specs(tuple(data["inputs"]),
                                            JAX_POLYMORPHIC_SHAPES[target])
      assert [tuple(map(sj.export.is_symbolic_dim, s.shape)) for s in specs] \
          == _main_dynamic_dims(data)


def _from_artifact(data, specs):
  """The Exported JAX's harness (`run_serialized`) builds for an artifact: its in avals from
  the inputs, made symbolic by `specs` (None: static); its out avals from the expected
  outputs."""
  inputs, outputs = tuple(data["inputs"]), tuple(data["expected_outputs"])
  scope = sj.export.SymbolicScope()
  specs = specs or (None,) * len(inputs)
  in_avals = [core.ShapedArray(sj.export.symbolic_shape(spec, like=x.shape, scope=scope),
                               x.dtype) for x, spec in zip(inputs, specs)]
  aval = lambda a: core.ShapedArray(np.shape(a), np.asarray(a).dtype)  # noqa: E731
  _, in_tree = tree_flatten((inputs, {}))
  out_leaves, out_tree = tree_flatten(outputs)
  return sj.export.Exported("run_serialized", in_tree, in_avals, out_tree,
                            list(map(aval, out_leaves)), (data["platform"],),
                            data["mlir_module_serialized"], data["xla_call_module_version"],
                            None, nr_devices=data.get("nr_devices", 1))


def _symbolic(artifacts):
  return [p for p in artifacts if any(map(any, _main_dynamic_dims(p.values[0])))]


@pytest.mark.parametrize("data", CPU_ARTIFACTS)
def test_back_compat_artifact(data):
  _check_artifact(data, _from_artifact(data, _polymorphic_shapes(data)))


@pytest.mark.parametrize("data", _symbolic(CPU_ARTIFACTS))
def test_back_compat_artifact_with_derived_specs(data):
  """The symbolic artifacts run as well with specs read from their modules alone."""
  exported = _from_artifact(data, _derived_specs(data))
  assert any(map(sj.export.is_symbolic_dim, exported.in_avals[-1].shape))
  _check_artifact(data, exported)


def _check_artifact(data, exported):
  with sj.enable_x64(True), jax.enable_x64(True):  # (as JAX's harness runs them)
    got = sj.jit(exported.call)(*data["inputs"])
    jax_got = jax_export.deserialize(bytearray(exported.serialize())).call(*data["inputs"])
  for g, j, want in zip(got, jax_got, data["expected_outputs"]):
    assert np.asarray(g).dtype == want.dtype and np.shape(g) == want.shape
    np.testing.assert_allclose(np.asarray(g), np.asarray(j), rtol=1e-5, atol=1e-6)
    rtol = 1e-3 if want.dtype in (np.float32, np.complex64) else 1e-9
    if np.allclose(np.asarray(j), want, rtol=rtol, atol=rtol):
      # (eigenvectors and singular vectors are unique up to phase; where JAX's run of the
      # module matches the stored outputs, stablejax's must too)
      np.testing.assert_allclose(np.asarray(g), want, rtol=rtol, atol=rtol)
