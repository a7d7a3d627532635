"""Sharding on 8 CPU devices against JAX 0.10.2: meshes, device_put with NamedSharding, jit with
in/out shardings (SPMD-partitioned by XLA), with_sharding_constraint and the lowered
annotations. The CPU client is made once per process, so the 8-device tests run in a
subprocess with STABLEJAX_NUM_CPU_DEVICES=8 (and XLA_FLAGS for JAX); in it they run directly."""
import os

import numpy as np
import pytest

import stablejax as sj
from stablejax import test_util
from stablejax import lax, lowering, sharding
from stablejax.sharding import NamedSharding, P

N = 8
ON_8 = os.environ.get("STABLEJAX_NUM_CPU_DEVICES") == str(N)
eight = pytest.mark.skipif(not ON_8, reason="runs in the 8-device subprocess")


def test_on_8_devices_in_a_subprocess():
  if ON_8:
    pytest.skip("already in the 8-device process")
  proc = test_util.run_on_cpu_devices(__file__, N)
  assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-3000:]
  assert " passed" in proc.stdout and "skipped" not in proc.stdout, proc.stdout[-2000:]


def test_partition_spec_and_config():
  assert P("x", None) != P("x") and hash(P("x", None)) == hash(P("x"))
  assert repr(P("x", ("a", "b"), None)) == "P('x', ('a', 'b'), None)" and len(P("x")) == 1
  assert P(("x",)) == P("x") and list(P("x", None)) == ["x", None]
  with pytest.raises(TypeError, match="PartitionSpec"):
    P(3)
  sj.devices()  # the CPU client exists now: the device count is fixed
  with pytest.raises(RuntimeError, match="num_cpu_devices"):
    sj.config.update("num_cpu_devices", 4)


def test_device_functions_match_jax():
  jax = pytest.importorskip("jax")
  assert sj.device_count() == len(sj.devices()) == sj.local_device_count()
  assert sj.process_index() == jax.process_index() == 0
  assert sj.process_count() == 1 and sj.local_devices() == sj.devices()


def _jax_mesh(jax, shape, names):
  return jax.make_mesh(shape, names, axis_types=(jax.sharding.AxisType.Auto,) * len(shape))


@eight
def test_mesh():
  m = sj.make_mesh((2, 4), ("x", "y"))
  assert m.shape == {"x": 2, "y": 4} and list(m.shape) == ["x", "y"] and m.size == 8
  assert m.axis_names == ("x", "y") and m.devices.shape == (2, 4)
  np.testing.assert_array_equal(m.device_ids, np.arange(8).reshape(2, 4))
  devices = np.array(sj.devices()).reshape(2, 4)
  assert m == sharding.Mesh(devices, ("x", "y"), (sharding.AxisType.Explicit,) * 2)
  assert m != sharding.Mesh(devices, ("x", "y"))  # make_mesh's axes are Explicit, as JAX's
  assert str(m) == "Mesh('x': 2, 'y': 4, axis_types=(Explicit, Explicit))"
  with m:
    assert sharding.current_mesh() is m
    a = sj.device_put(np.ones((8, 4)), P("x"))
    assert a.sharding == NamedSharding(m, P("x"))
  assert sharding.current_mesh() is None
  with pytest.raises(ValueError, match="needs 16 devices"):
    sj.make_mesh((4, 4), ("x", "y"))
  with pytest.raises(ValueError, match="not an axis of the mesh"):
    NamedSharding(m, P("z"))
  with pytest.raises(ValueError, match="more than once"):
    NamedSharding(m, P("x", "x"))


SPECS = [P(), P("x"), P("x", "y"), P(None, "y"), P("y", "x"), P(("x", "y")), P(("y", "x"), None)]


@eight
@pytest.mark.parametrize("spec", SPECS, ids=str)
def test_device_put_shards_match_jax(spec):
  jax = pytest.importorskip("jax")
  x = np.arange(8 * 12, dtype=np.float32).reshape(8, 12)
  a = sj.device_put(x, NamedSharding(sj.make_mesh((2, 4), ("x", "y")), spec))
  jspec = jax.sharding.PartitionSpec(*spec)
  b = jax.device_put(x, jax.sharding.NamedSharding(_jax_mesh(jax, (2, 4), ("x", "y")), jspec))
  assert a.is_fully_replicated == b.is_fully_replicated
  assert a.devices() == set(sj.devices()) and len(a.addressable_shards) == 8
  np.testing.assert_array_equal(np.asarray(a), x)
  mine = {s.device.id: s for s in a.addressable_shards}
  for s in b.addressable_shards:
    m = mine[s.device.id]
    assert m.index == s.index and m.replica_id == s.replica_id, (m, s)
    np.testing.assert_array_equal(np.asarray(m.data), np.asarray(s.data))
    assert m.data.devices() == {m.device}
  assert a.sharding.shard_shape(x.shape) == b.sharding.shard_shape(x.shape)
  assert a.device == a.sharding  # as JAX: a multi-device array's `device` is its sharding


def _mlp(params, x):
  w1, b1, w2 = params
  h = sj.numpy.tanh(x @ w1 + b1)
  return h @ w2


def _mlp_jax(params, x):
  import jax.numpy as jnp
  w1, b1, w2 = params
  return jnp.tanh(x @ w1 + b1) @ w2


def _params(rng):
  return (rng.normal(size=(6, 16)).astype(np.float32), rng.normal(size=(16,)).astype(np.float32),
          rng.normal(size=(16, 3)).astype(np.float32))


@eight
def test_jit_in_out_shardings_match_single_device_and_jax(rng):
  jax = pytest.importorskip("jax")
  params, x = _params(rng), rng.normal(size=(16, 6)).astype(np.float32)
  mesh = sj.make_mesh((4, 2), ("data", "model"), axis_types=(sharding.AxisType.Auto,) * 2)
  batch, repl = NamedSharding(mesh, P("data")), NamedSharding(mesh, P())
  cols, vec = NamedSharding(mesh, P(None, "model")), NamedSharding(mesh, P("model"))
  rows = NamedSharding(mesh, P("model", None))
  f = sj.jit(_mlp, in_shardings=((cols, vec, rows), batch), out_shardings=batch)
  out = f(params, x)
  assert out.sharding == batch and not out.is_fully_replicated
  want = sj.jit(_mlp)(params, x)
  np.testing.assert_allclose(np.asarray(out), np.asarray(want), rtol=1e-5, atol=1e-5)
  jm = _jax_mesh(jax, (4, 2), ("data", "model"))
  jb = jax.sharding.NamedSharding(jm, jax.sharding.PartitionSpec("data"))
  jr = jax.sharding.NamedSharding(jm, jax.sharding.PartitionSpec())
  jnamed = lambda *spec: jax.sharding.NamedSharding(jm, jax.sharding.PartitionSpec(*spec))
  jout = jax.jit(_mlp_jax, in_shardings=((jnamed(None, "model"), jnamed("model"),
                                          jnamed("model", None)), jb), out_shardings=jb)(params, x)
  np.testing.assert_allclose(np.asarray(out), np.asarray(jout), rtol=1e-5, atol=1e-5)
  # sharded arguments without in_shardings: jit takes their shardings, as JAX
  xs = sj.device_put(x, batch)
  out2 = sj.jit(_mlp)(params, xs)
  np.testing.assert_allclose(np.asarray(out2), np.asarray(want), rtol=1e-5, atol=1e-5)
  assert out2.sharding == batch == jax_spec_as_mine(
      jax.jit(_mlp_jax)(params, jax.device_put(x, jb)).sharding, mesh)
  # a single sharding applies to every argument; results come back where XLA put them
  g = sj.jit(lambda a, b: (a * b, a.sum()), in_shardings=batch)
  y, s = g(x, x)
  assert y.sharding == batch and s.sharding == repl
  np.testing.assert_allclose(np.asarray(y), x * x)
  np.testing.assert_allclose(float(s), x.sum(), rtol=1e-5)


def jax_spec_as_mine(s, mesh):
  return NamedSharding(mesh, P(*s.spec))


@eight
def test_with_sharding_constraint_under_jit_grad_vmap(rng):
  mesh = sj.make_mesh((2, 4), ("x", "y"))
  s = NamedSharding(mesh, P("x", "y"))
  x = rng.normal(size=(8, 4)).astype(np.float32)

  def f(x):
    return (lax.with_sharding_constraint(x * 2.0, s) ** 2).sum()

  assert abs(float(sj.jit(f)(x)) - float((4 * x * x).sum())) < 1e-3
  g = sj.jit(sj.grad(f))(x)
  np.testing.assert_allclose(np.asarray(g), 8 * x, rtol=1e-5)
  v = sj.jit(sj.vmap(lambda r: lax.with_sharding_constraint(r * 3.0, NamedSharding(mesh, P("y")))))
  out = v(x)
  np.testing.assert_allclose(np.asarray(out), 3 * x, rtol=1e-6)
  assert "sharding_constraint" in str(sj.make_jaxpr(sj.vmap(
      lambda r: lax.with_sharding_constraint(r, NamedSharding(mesh, P("y")))))(x))
  eager = lax.with_sharding_constraint(x, s)  # outside jit: put there
  assert eager.sharding == s
  np.testing.assert_array_equal(np.asarray(eager), x)
  with pytest.raises(ValueError, match="rank"):
    lax.with_sharding_constraint(np.ones(3), s)


def _main_signature(text: str) -> list[str]:
  """The module's lines about shardings."""
  keep = ("sdy.", "mhlo.num_partitions", "func.func public @main")
  return [line.strip() for line in text.splitlines()
          if any(k in line for k in keep)]


@eight
def test_lowered_annotations_match_jax():
  jax = pytest.importorskip("jax")
  x = np.ones((8, 4), np.float32)
  mesh, jm = sj.make_mesh((2, 4), ("x", "y")), _jax_mesh(jax, (2, 4), ("x", "y"))
  JP = jax.sharding.PartitionSpec

  def program(lib, wsc, named, m):
    return lib.jit(lambda x: wsc(x * 2, named(m, ("x", None))),
                   in_shardings=named(m, (None, "y")), out_shardings=named(m, ()))

  mine = program(sj, lax.with_sharding_constraint, lambda m, s: NamedSharding(m, P(*s)), mesh)
  theirs = program(jax, jax.lax.with_sharding_constraint,
                   lambda m, s: jax.sharding.NamedSharding(m, JP(*s)), jm)
  a, b = mine.lower(x).as_text(), theirs.lower(x).as_text()
  assert 'sdy.mesh @mesh = <["x"=2, "y"=4]>' in a
  assert '#sdy.sharding<@mesh, [{}, {"y"}]>' in a and "mhlo.num_partitions = 8" in a
  assert 'sdy.sharding_constraint' in a and '<@mesh, [{"x"}, {}]>' in a
  strip = lambda lines: [line.replace(', jax.result_info = "result"', "").replace(
      'jax.result_info = "result", ', "") for line in lines]
  assert strip(_main_signature(a)) == strip(_main_signature(b))
  np.testing.assert_allclose(np.asarray(mine(x)), np.asarray(theirs(x)))


@eight
def test_lowered_compile_runs_over_the_mesh_as_jax(rng, monkeypatch):
  """`jit(f, in_shardings=s).lower(x).compile()(x)` ran on one device (its module lowered
  again, without the shardings `as_text()` showed): it compiles the partitioned module once,
  and its results are laid out as JAX's."""
  jax = pytest.importorskip("jax")
  lowered_count, real_lower = [], lowering.lower_jaxpr
  monkeypatch.setattr(lowering, "lower_jaxpr",
                      lambda *a, **k: lowered_count.append(1) or real_lower(*a, **k))
  x = rng.normal(size=(16, 4)).astype(np.float32)
  mesh, jm = sj.make_mesh((4, 2), ("x", "y")), _jax_mesh(jax, (4, 2), ("x", "y"))
  JP = jax.sharding.PartitionSpec
  for spec, out_spec in [(("x", "y"), None), (("x",), ("y",))]:
    s = NamedSharding(mesh, P(*spec))
    out_s = None if out_spec is None else NamedSharding(mesh, P(*out_spec))
    lowered = sj.jit(lambda x: (x * 2, x.sum(0)), in_shardings=s,
                     out_shardings=None if out_s is None else (s, out_s)).lower(x)
    assert '#sdy.sharding<@mesh, [{"x"}' in lowered.as_text()
    y, total = lowered.compile()(x)
    np.testing.assert_allclose(np.asarray(y), 2 * x)
    np.testing.assert_allclose(np.asarray(total), x.sum(0), rtol=1e-5)
    js = jax.sharding.NamedSharding(jm, JP(*spec))
    jout = None if out_spec is None else (js, jax.sharding.NamedSharding(jm, JP(*out_spec)))
    jy, jtotal = jax.jit(lambda x: (x * 2, x.sum(0)), in_shardings=js,
                         out_shardings=jout).lower(x).compile()(x)
    assert y.sharding == s == jax_spec_as_mine(jy.sharding, mesh)
    assert len(y.addressable_shards) == 8 and not y.is_fully_replicated
    assert total.sharding == jax_spec_as_mine(jtotal.sharding, mesh)
  assert len(lowered_count) == 2  # one lowering per program


@eight
def test_host_callbacks_in_a_partitioned_program_run_once_as_jax(capfd):
  """`debug.print` inside `jit(f, in_shardings=s)` died in XLA ("Side-effect HLO must have
  sharding"): host callbacks run once, on device 0, on whole values (as JAX's), inside a
  nested jit too; an ordered one as well (which JAX refuses over several devices)."""
  jax = pytest.importorskip("jax")
  x = np.arange(16, dtype=np.float32)
  mesh, jm = sj.make_mesh((8,), ("x",)), _jax_mesh(jax, (8,), ("x",))
  s = NamedSharding(mesh, P("x"))
  js = jax.sharding.NamedSharding(jm, jax.sharding.PartitionSpec("x"))

  def program(lib, ordered=False):
    def f(x):
      lib.debug.print("sum={s}", s=x.sum())
      if ordered:
        lib.debug.print("first {a}", a=x[0], ordered=True)
      y = lib.pure_callback(lambda a: np.asarray(a) * 3, lib.ShapeDtypeStruct(x.shape, x.dtype),
                            x)
      return lib.jit(lambda v: (lib.debug.print("inner"), v + 1)[1])(y)
    return f

  out = np.asarray(sj.jit(program(sj), in_shardings=s)(x))  # (the program has finished)
  mine = capfd.readouterr().out
  want = np.asarray(jax.jit(program(jax), in_shardings=js)(x))
  lines = lambda out: sorted(out.splitlines())  # (unordered callbacks: in any order)
  assert lines(mine) == lines(capfd.readouterr().out) == ["inner", "sum=120.0"]
  np.testing.assert_allclose(out, want)
  ordered = program(sj, True)  # (alive while it runs: its jaxpr holds the callbacks)
  np.testing.assert_allclose(np.asarray(sj.jit(ordered, in_shardings=s)(x)), 3 * x + 1)
  assert lines(capfd.readouterr().out) == ["first 0.0", "inner", "sum=120.0"]


@eight
def test_a_host_callback_inside_shard_map_runs_per_block_as_jax(capfd):
  """A host callback in a shard_map body (fully manual) runs on every device with its block,
  as JAX's (without a sharding on its custom call XLA crashed)."""
  jax = pytest.importorskip("jax")
  x = np.arange(16, dtype=np.float32)
  # (Auto axes on both sides: on Explicit ones a numpy argument's type is unsplit, which
  # in_specs=P("x") contradicts, an error in both)
  mesh = sj.make_mesh((8,), ("x",), axis_types=(sj.sharding.AxisType.Auto,))
  jm = _jax_mesh(jax, (8,), ("x",))

  def body(lib):
    return lambda b: (lib.debug.print("block {b}", b=b), b * 2)[1]

  out = np.asarray(sj.jit(sj.shard_map(body(sj), mesh=mesh, in_specs=P("x"),
                                       out_specs=P("x")))(x))
  mine = sorted(capfd.readouterr().out.splitlines())
  JP = jax.sharding.PartitionSpec
  want = np.asarray(jax.jit(jax.shard_map(body(jax), mesh=jm, in_specs=JP("x"),
                                          out_specs=JP("x")))(x))
  assert mine == sorted(capfd.readouterr().out.splitlines()) and len(mine) == 8
  np.testing.assert_array_equal(out, want)


@eight
def test_jit_compiler_options_reach_the_spmd_compile():
  mesh = sj.make_mesh((N,), ("x",))
  x = np.arange(2 * N, dtype=np.float32)
  f = lambda x: x * 3
  shard = NamedSharding(mesh, P("x"))
  got = sj.jit(f, in_shardings=shard, compiler_options={"xla_embed_ir_in_executable": True})(x)
  np.testing.assert_array_equal(got, x * 3)
  assert got.sharding == shard
  # an option XLA does not know raises over the mesh, as on one device (and as in JAX)
  with pytest.raises(Exception, match="xla_no_such_option"):
    sj.jit(f, in_shardings=shard, compiler_options={"xla_no_such_option": True})(x)
  with pytest.raises(Exception, match="xla_no_such_option"):
    sj.jit(f, compiler_options={"xla_no_such_option": True})(np.float32(1))


def test_shardings_of_nones_only_are_none_given():
  # as in JAX (flax's nnx.jit passes such prefixes): a single-device call, no mesh needed
  f = sj.jit(lambda x, y: (x * 2, y + 1), in_shardings=(None, None), out_shardings=(None, None))
  x = np.arange(4.0, dtype=np.float32)
  out = f(x, x)
  np.testing.assert_array_equal(out[0], x * 2)
  np.testing.assert_array_equal(out[1], x + 1)
  assert "sharding" not in f.lower(x, x).as_text()
