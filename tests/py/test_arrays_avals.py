"""Arrays and avals against JAX 0.10.2: `sj.Array` as the type of arrays and tracers alike,
`sharding.Sharding` as a base class, `sharding` on ShapedArray and ShapeDtypeStruct,
`ShapeDtypeStruct.like`, `ShapedArray.to_tangent_aval`, arrays over a 1-device mesh; on 8 CPU
devices (in a subprocess, as tests/py/test_sharding.py): `shard_map` called outside jit and
`reshard`."""
import os

import numpy as np
import pytest

import stablejax as sj
from stablejax import test_util
import stablejax.numpy as jnp
from stablejax import core, runtime
from stablejax.sharding import (AxisType, GSPMDSharding, NamedSharding, P, Sharding,
                                SingleDeviceSharding)

jax = pytest.importorskip("jax")
from jax.sharding import NamedSharding as JNamedSharding, PartitionSpec as JP  # noqa: E402

N = 8
ON_8 = os.environ.get("STABLEJAX_NUM_CPU_DEVICES") == str(N)
eight = pytest.mark.skipif(not ON_8, reason="runs in the 8-device subprocess")
one = pytest.mark.skipif(ON_8, reason="runs in the main process")


def test_on_8_devices_in_a_subprocess():
  if ON_8:
    pytest.skip("already in the 8-device process")
  proc = test_util.run_on_cpu_devices(__file__, N)
  assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-3000:]
  assert " passed" in proc.stdout, proc.stdout[-2000:]


# ----------------------------------------------------------------------------------------------
# sj.Array: the type of concrete arrays and traced values

def _is_array_under(lib, transform):
  seen = []

  def f(x):
    seen.append(isinstance(x, lib.Array))
    return x * 2.0
  if transform == "grad":
    lib.grad(lambda x: f(x).sum())(np.ones(3, np.float32))
  else:
    getattr(lib, transform)(f)(np.ones(3, np.float32))
  return seen


@pytest.mark.parametrize("transform", ["jit", "vmap", "grad"])
def test_a_tracer_is_an_array_as_in_jax(transform):
  assert _is_array_under(sj, transform) == _is_array_under(jax, transform) == [True]


def test_array_type_matches_jax():
  for value in (np.ones(2), 1.0, 3, [1.0]):
    assert isinstance(value, sj.Array) == isinstance(value, jax.Array) is False
  x, jx = jnp.arange(3.0), jax.numpy.arange(3.0)
  assert isinstance(x, sj.Array) and isinstance(jx, jax.Array)
  assert jnp.ndarray is sj.Array and jax.numpy.ndarray is jax.Array
  assert type(x) is runtime.Array and type(x) is not sj.Array  # the concrete class
  assert isinstance(sj.grad(lambda x: x)(1.0), sj.Array)
  assert sj.Array.__module__ == "stablejax" and jax.Array.__module__ == "jax"


# ----------------------------------------------------------------------------------------------
# sharding.Sharding: a base class

def test_sharding_is_the_base_of_every_sharding():
  mesh = sj.make_mesh((1,), ("x",))
  named, single = NamedSharding(mesh, P("x")), SingleDeviceSharding(sj.devices()[0])
  gspmd = sj.jit(lambda a: a + 1)(sj.device_put(np.ones(4), named)).sharding
  for s in (named, single, gspmd):
    assert isinstance(s, Sharding)
  for cls in (NamedSharding, SingleDeviceSharding, GSPMDSharding):
    assert issubclass(cls, Sharding)
  jm = jax.make_mesh((1,), ("x",))
  jnamed = JNamedSharding(jm, JP("x"))
  for s, js in ((named, jnamed), (single, jax.sharding.SingleDeviceSharding(jax.devices()[0]))):
    assert s.shard_shape((4, 2)) == js.shard_shape((4, 2))
    assert s.is_fully_replicated == js.is_fully_replicated
    assert s.is_fully_addressable == js.is_fully_addressable
    assert s.num_devices == js.num_devices
    assert [d.id for d in s.device_set] == [d.id for d in js.device_set]
    assert [d.id for d in s.addressable_devices] == [d.id for d in js.addressable_devices]
    assert (list(s.devices_indices_map((4,)).values()) ==
            list(js.devices_indices_map((4,)).values()))
    assert (list(s.addressable_devices_indices_map((4,)).values()) ==
            list(js.addressable_devices_indices_map((4,)).values()))
    assert s.has_addressable_devices == js.has_addressable_devices
    assert s.is_equivalent_to(s, 1) and js.is_equivalent_to(js, 1)


def test_a_user_sharding_subclass_must_define_the_abstract_members_as_in_jax():
  class Mine(Sharding):
    pass

  class JMine(jax.sharding.Sharding):
    pass
  for obj in (Mine(), JMine()):
    for name in ("device_set", "is_fully_replicated", "is_fully_addressable", "num_devices",
                 "memory_kind"):
      with pytest.raises(NotImplementedError):
        getattr(obj, name)
    with pytest.raises(NotImplementedError):
      obj.with_memory_kind("device")


# ----------------------------------------------------------------------------------------------
# ShapedArray and ShapeDtypeStruct: sharding, like, to_tangent_aval

@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.bool_, np.complex64, np.float16])
@pytest.mark.parametrize("weak_type", [False, True])
def test_to_tangent_aval_matches_jax(dtype, weak_type):
  got = core.ShapedArray((2, 3), dtype, weak_type).to_tangent_aval()
  want = jax.core.ShapedArray((2, 3), dtype, weak_type).to_tangent_aval()
  assert got.shape == want.shape and got.weak_type == want.weak_type
  assert str(got.dtype) == str(want.dtype)  # float0 for integers and booleans


def test_shaped_array_takes_and_keeps_a_sharding():
  s = NamedSharding(sj.make_mesh((1,), ("x",)), P("x"))
  aval = core.ShapedArray((4,), np.float32, sharding=s)
  assert aval.sharding is s and aval.update(shape=(8,)).sharding is s
  assert aval.to_tangent_aval().sharding is s
  assert core.ShapedArray((4,), np.float32).sharding is None


def _sds_fields(sds):
  spec = None if sds.sharding is None else tuple(sds.sharding.spec)
  return sds.shape, str(sds.dtype), sds.weak_type, spec


@one
def test_shape_dtype_struct_like_matches_jax():
  mesh, jm = sj.make_mesh((1,), ("x",)), jax.make_mesh((1,), ("x",))
  cases = [(np.zeros((2, 3), np.float32),) * 2, (2.0, 2.0), (3, 3),
           (jnp.arange(4), jax.numpy.arange(4)),
           (sj.device_put(np.ones(4, np.float32), NamedSharding(mesh, P("x"))),
            jax.device_put(np.ones(4, np.float32), JNamedSharding(jm, JP("x"))))]
  for x, jx in cases:
    assert _sds_fields(sj.ShapeDtypeStruct.like(x)) == _sds_fields(jax.ShapeDtypeStruct.like(jx))
  seen = []
  sj.jit(lambda t: seen.append(_sds_fields(sj.ShapeDtypeStruct.like(t))) or t)(np.ones(2))
  jax.jit(lambda t: seen.append(_sds_fields(jax.ShapeDtypeStruct.like(t))) or t)(np.ones(2))
  assert seen[0][:3] == seen[1][:3]


def test_shape_dtype_struct_sharding_as_jax():
  mesh, jm = sj.make_mesh((1,), ("x",)), jax.make_mesh((1,), ("x",))
  s = NamedSharding(mesh, P("x"))
  sds = sj.ShapeDtypeStruct((4, 2), np.float32, sharding=s)
  jsds = jax.ShapeDtypeStruct((4, 2), np.float32, sharding=JNamedSharding(jm, JP("x")))
  assert sds.sharding is s and _sds_fields(sds) == _sds_fields(jsds)
  assert sds == sj.ShapeDtypeStruct((4, 2), np.float32, sharding=s)
  assert sds != sj.ShapeDtypeStruct((4, 2), np.float32)
  assert "sharding=NamedSharding" in repr(sds) and "sharding=NamedSharding" in repr(jsds)
  assert sj.ShapeDtypeStruct((), np.float32, weak_type=True).weak_type
  assert sj.jit(lambda a: a * 2).trace(sds).jaxpr.out_avals[0].shape == (4, 2)
  for lib, bad in ((sj, 3), (jax, 3)):
    with pytest.raises(ValueError, match="sharding should be an instance"):
      lib.ShapeDtypeStruct((4,), np.float32, sharding=bad)
  with pytest.raises(ValueError):
    sj.ShapeDtypeStruct((4,), None)
  with pytest.raises(ValueError):
    jax.ShapeDtypeStruct((4,), None)
  # a PartitionSpec is resolved against the mesh in use when read
  psds, jpsds = (sj.ShapeDtypeStruct((4,), np.float32, sharding=P("x")),
                 jax.ShapeDtypeStruct((4,), np.float32, sharding=JP("x")))
  for obj in (psds, jpsds):
    with pytest.raises(TypeError, match="mesh"):
      obj.sharding
  with mesh:
    assert psds.sharding == s.update(spec=P("x"))


# ----------------------------------------------------------------------------------------------
# A jit over NamedSharding arrays on a 1-device mesh: its result reads back

@one
def test_reading_a_jit_result_over_a_one_device_mesh_as_jax():
  mesh, jm = sj.make_mesh((1,), ("x",)), jax.make_mesh((1,), ("x",))
  value = np.arange(8.0, dtype=np.float32).reshape(4, 2)
  x = sj.device_put(value, NamedSharding(mesh, P("x")))
  jx = jax.device_put(value, JNamedSharding(jm, JP("x")))
  y, jy = sj.jit(lambda a: a * 2 + 1)(x), jax.jit(lambda a: a * 2 + 1)(jx)
  np.testing.assert_array_equal(np.asarray(y), np.asarray(jy))
  assert str(y) == str(jy) and repr(y) == repr(jy)
  assert isinstance(y.sharding, NamedSharding) and y.device == sj.devices()[0]
  assert y.devices() == {sj.devices()[0]} and y.is_fully_replicated == jy.is_fully_replicated
  (shard,), (jshard,) = y.addressable_shards, jy.addressable_shards
  assert shard.index == jshard.index and shard.replica_id == jshard.replica_id
  np.testing.assert_array_equal(np.asarray(shard.data), np.asarray(jshard.data))
  np.testing.assert_array_equal(np.asarray(y + 1), np.asarray(jy + 1))  # eager use
  np.testing.assert_array_equal(np.asarray(sj.jit(lambda a: a.sum())(y)), np.asarray(jy.sum()))
  assert [np.asarray(r).tolist() for r in y] == np.asarray(jy).tolist()


# ----------------------------------------------------------------------------------------------
# 8 devices: shard_map outside jit, reshard

def _meshes(axis_type):
  mesh = sj.make_mesh((4, 2), ("x", "y"), axis_types=(getattr(AxisType, axis_type),) * 2)
  jm = jax.make_mesh((4, 2), ("x", "y"),
                     axis_types=(getattr(jax.sharding.AxisType, axis_type),) * 2)
  return mesh, jm


def _smap(lib, mesh, P_):
  body = lambda a, b: (lib.lax.psum(a * 2.0, "y"), b.sum(keepdims=True))
  return lib.shard_map(body, mesh=mesh, in_specs=(P_("x", "y"), P_("x")),
                       out_specs=(P_("x"), P_("x")))


@eight
def test_shard_map_called_outside_jit_matches_jax():
  mesh, jm = _meshes("Auto")
  f, jf = _smap(sj, mesh, P), _smap(jax, jm, JP)
  x = np.arange(32, dtype=np.float32).reshape(8, 4)
  y = np.arange(8, dtype=np.float32)
  for got, want in zip(f(x, y), jf(x, y)):
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(np.asarray(got), np.asarray(want))
    assert got.sharding.spec == P(*want.sharding.spec) and got.sharding.mesh == mesh
  g = sj.grad(lambda a: (f(a, y)[0] ** 2).sum())(x)
  jg = jax.grad(lambda a: (jf(a, y)[0] ** 2).sum())(x)
  np.testing.assert_allclose(np.asarray(g), np.asarray(jg))
  xs = np.stack([x, x + 1])
  np.testing.assert_allclose(np.asarray(sj.vmap(lambda a: f(a, y)[0])(xs)),
                             np.asarray(jax.vmap(lambda a: jf(a, y)[0])(xs)))
  # sharded arguments, and a second call (compiled again for the new body, same values)
  xs8 = sj.device_put(x, NamedSharding(mesh, P("x", "y")))
  np.testing.assert_allclose(np.asarray(f(xs8, y)[0]), np.asarray(jf(x, y)[0]))


def _spec_of(s, ndim):
  parts = list(s.spec) + [None] * (ndim - len(s.spec))
  return tuple(parts)


@eight
def test_reshard_matches_jax():
  mesh, jm = _meshes("Explicit")
  x = np.arange(16, dtype=np.float32).reshape(8, 2)
  for spec in [("x",), (None, "y"), (("x", "y"),), ()]:
    got = sj.reshard(x, NamedSharding(mesh, P(*spec)))
    want = jax.reshard(x, JNamedSharding(jm, JP(*spec)))
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    assert _spec_of(got.sharding, 2) == _spec_of(want.sharding, 2)
    assert ([s.index for s in got.addressable_shards] ==
            [s.index for s in want.addressable_shards])
  with mesh:
    got = sj.reshard(x, P("x"))
  with jax.set_mesh(jm):
    want = jax.reshard(x, JP("x"))
  assert _spec_of(got.sharding, 2) == _spec_of(want.sharding, 2)
  pair = sj.reshard((x, x), (NamedSharding(mesh, P("x")), NamedSharding(mesh, P())))
  jpair = jax.reshard((x, x), (JNamedSharding(jm, JP("x")), JNamedSharding(jm, JP())))
  assert [_spec_of(a.sharding, 2) for a in pair] == [_spec_of(a.sharding, 2) for a in jpair]
  jitted = sj.jit(lambda a: sj.reshard(a * 2, NamedSharding(mesh, P(None, "y"))))(x)
  with jax.set_mesh(jm):
    jjitted = jax.jit(lambda a: jax.reshard(a * 2, JP(None, "y")))(x)
  np.testing.assert_array_equal(np.asarray(jitted), np.asarray(jjitted))
  assert _spec_of(jitted.sharding, 2) == _spec_of(jjitted.sharding, 2)
  g = sj.grad(lambda a: (sj.reshard(a, NamedSharding(mesh, P("x"))) ** 2).sum())(x)
  with jax.set_mesh(jm):  # (JAX needs the mesh in context here)
    jg = jax.grad(lambda a: (jax.reshard(a, JNamedSharding(jm, JP("x"))) ** 2).sum())(x)
  np.testing.assert_array_equal(np.asarray(g), np.asarray(jg))


@eight
def test_reshard_errors_match_jax():
  mesh, jm = _meshes("Explicit")
  auto, jauto = _meshes("Auto")
  x = np.ones((8, 2), np.float32)
  cases = [(None, None, ValueError), (P("x"), JP("x"), ValueError), (3, 3, TypeError),
           (SingleDeviceSharding(sj.devices()[0]),
            jax.sharding.SingleDeviceSharding(jax.devices()[0]), TypeError),
           (NamedSharding(auto, P("x")), JNamedSharding(jauto, JP("x")), ValueError)]
  for s, js, error in cases:
    with pytest.raises(error) as got:
      sj.reshard(x, s)
    with pytest.raises(error) as want:
      jax.reshard(x, js)
    assert type(got.value) is type(want.value)
  with pytest.raises(ValueError, match="Auto or Manual"):
    sj.reshard(x, NamedSharding(auto, P("x")))
