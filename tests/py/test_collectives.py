"""Collectives (`lax.psum`, `all_gather`, `ppermute`, ...) under `vmap(..., axis_name=)`, and
`shard_map` programs on 8 CPU devices, checked against JAX 0.10.2 on the same programs."""
import os
import subprocess
import sys
import textwrap

import jax
import numpy as np
import pytest
from jax import lax as jlax

import stablejax as sj
import stablejax.numpy as jnp
from stablejax import lax, passes

RNG = np.random.default_rng(0)
X = RNG.standard_normal((4, 3)).astype(np.float32)
Y = RNG.standard_normal((4, 4, 6)).astype(np.float32)
PERM = [(0, 1), (1, 2), (2, 3), (3, 0)]

# (name, function of (lax module, x), input)
CASES = [
    ("psum", lambda L, x: L.psum(x, "i"), X),
    ("psum_const", lambda L, x: L.psum(1, "i") * x, X),
    ("pmean", lambda L, x: L.pmean(x, "i"), X),
    ("pmax", lambda L, x: L.pmax(x, "i"), X),
    ("pmin", lambda L, x: L.pmin(x, "i"), X),
    ("psum_tree", lambda L, x: L.psum({"a": x, "b": 2 * x}, "i")["b"], X),
    ("all_gather", lambda L, x: L.all_gather(x, "i"), X),
    ("all_gather_axis1", lambda L, x: L.all_gather(x, "i", axis=1), X),
    ("all_gather_tiled", lambda L, x: L.all_gather(x, "i", tiled=True), X),
    ("psum_scatter", lambda L, x: L.psum_scatter(x, "i"), Y),
    ("psum_scatter_tiled", lambda L, x: L.psum_scatter(x, "i", scatter_dimension=1, tiled=True),
     Y[:, :, :4]),
    ("ppermute", lambda L, x: L.ppermute(x, "i", PERM), X),
    ("all_to_all", lambda L, x: L.all_to_all(x, "i", 0, 0), Y),
    ("all_to_all_0_1", lambda L, x: L.all_to_all(x, "i", 0, 1), Y),
    ("all_to_all_1_0_tiled", lambda L, x: L.all_to_all(x, "i", 1, 0, tiled=True), Y[..., :4]),
    ("axis_index", lambda L, x: L.axis_index("i") + x, X),
    ("axis_size", lambda L, x: L.axis_size("i") * x, X),
]


@pytest.mark.parametrize("name,fn,x", CASES, ids=[c[0] for c in CASES])
def test_vmap_collective_matches_jax(name, fn, x):
  want = jax.vmap(lambda v: fn(jlax, v), axis_name="i")(x)
  got = sj.vmap(lambda v: fn(lax, v), axis_name="i")(x)
  assert got.shape == want.shape and got.dtype == want.dtype
  np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-5)
  jitted = sj.jit(sj.vmap(sj.jit(lambda v: fn(lax, v)), axis_name="i"))(x)
  np.testing.assert_allclose(np.asarray(jitted), np.asarray(want), rtol=1e-5, atol=1e-5)


GRAD_CASES = [c for c in CASES if c[0] in (
    "psum", "pmean", "all_gather", "all_gather_tiled", "psum_scatter", "ppermute")]
# (JAX 0.10.2 fails to transpose all_to_all under vmap; the 8-device test covers its grad)


@pytest.mark.parametrize("name,fn,x", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_vmap_grad_of_collective_matches_jax(name, fn, x):
  w = RNG.standard_normal(np.shape(jax.vmap(lambda v: fn(jlax, v), axis_name="i")(x))[1:])
  w = w.astype(np.float32)
  want = jax.vmap(jax.grad(lambda v: (fn(jlax, v) * w).sum()), axis_name="i")(x)
  got = sj.vmap(sj.grad(lambda v: (fn(lax, v) * w).sum()), axis_name="i")(x)
  np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-5)


def test_nested_vmaps_name_their_own_axes():
  f = lambda L, V: V(V(lambda v: L.psum(v, "j") + L.axis_index("i"), axis_name="j"),
                     axis_name="i")
  np.testing.assert_allclose(np.asarray(f(lax, sj.vmap)(Y)), np.asarray(f(jlax, jax.vmap)(Y)))


def test_unbound_axis_name_is_a_name_error():
  with pytest.raises(NameError, match="unbound axis name: i"):
    lax.psum(X, "i")
  with pytest.raises(NameError, match="unbound axis name: j"):
    sj.vmap(lambda v: lax.all_gather(v, "j"), axis_name="i")(X)


def test_bad_arguments_are_clear_errors():
  with pytest.raises(ValueError, match="all_to_all requires"):
    sj.vmap(lambda v: lax.all_to_all(v, "i", 1, 0), axis_name="i")(Y)
  with pytest.raises(ValueError, match="ppermute"):
    sj.vmap(lambda v: lax.ppermute(v, "i", [(0, 4)]), axis_name="i")(X)
  with pytest.raises(NotImplementedError, match="axis_index_groups"):
    sj.vmap(lambda v: lax.psum(v, "i", axis_index_groups=[[0, 1], [2, 3]]), axis_name="i")(X)


def test_pmax_is_not_differentiable_as_in_jax():
  with pytest.raises(NotImplementedError, match="pmax"):
    sj.vmap(sj.grad(lambda v: lax.pmax(v, "i").sum()), axis_name="i")(X)


# ----------------------------------------------------------------------------------------------
# shard_map on 8 CPU devices: the same program run by stablejax and by JAX, in subprocesses

PROGRAMS = textwrap.dedent('''
  import sys
  import numpy as np
  if sys.argv[1] == "jax":
    import jax as J
    from jax import lax as L
  else:
    import stablejax as J
    from stablejax import lax as L
  from_sharding = J.sharding
  Mesh, P, NS = from_sharding.Mesh, from_sharding.PartitionSpec, from_sharding.NamedSharding
  mesh = Mesh(np.array(J.devices()), ("i",))
  mesh2 = Mesh(np.array(J.devices()).reshape(2, 4), ("a", "b"))
  rng = np.random.default_rng(1)
  x = rng.standard_normal((16, 3)).astype(np.float32)
  w = rng.standard_normal((3, 8)).astype(np.float32)
  results = {}

  def run(name, f, in_specs, out_specs, *args, m=mesh):
    sf = J.shard_map(f, mesh=m, in_specs=in_specs, out_specs=out_specs, check_vma=False)
    specs = in_specs if isinstance(in_specs, tuple) else (in_specs,)
    placed = [J.device_put(a, NS(m, s)) for a, s in zip(args, specs)]
    out = J.jit(sf)(*placed)
    for i, o in enumerate(out if isinstance(out, (tuple, list)) else [out]):
      results[f"{name}_{i}"] = np.asarray(o)
    return sf, placed

  run("psum", lambda v: L.psum(v, "i"), P("i"), P(), x)
  run("pmean", lambda v: L.pmean(v, "i"), P("i"), P(), x)
  run("pmax", lambda v: L.pmax(v, "i"), P("i"), P(), x)
  run("pmin", lambda v: L.pmin(v, "i"), P("i"), P(), x)
  run("all_gather", lambda v: L.all_gather(v, "i"), P("i"), P(), x)
  run("all_gather_tiled", lambda v: L.all_gather(v, "i", axis=1, tiled=True), P("i"), P("i"), x)
  run("psum_scatter", lambda v: L.psum_scatter(v, "i", tiled=True), P(), P("i"), x)
  run("ppermute", lambda v: L.ppermute(v, "i", [(j, (j + 3) % 8) for j in range(8)]),
      P("i"), P("i"), x)
  run("ppermute_partial", lambda v: L.ppermute(v, "i", [(0, 5), (5, 2)]), P("i"), P("i"), x)
  run("all_to_all", lambda v: L.all_to_all(v, "i", 0, 0, tiled=True), P("i"), P("i"),
      rng.standard_normal((64, 2)).astype(np.float32))
  run("axis_index", lambda v: v + L.axis_index("i"), P("i"), P("i"), x)
  run("mesh2_psum_b", lambda v: L.psum(v, "b") + L.axis_index("a"), P(("a", "b")), P("a"), x,
      m=mesh2)
  run("mesh2_gather_a", lambda v: L.all_gather(v, "a", tiled=True) * L.axis_index("b"),
      P(("a", "b")), P("b"), x, m=mesh2)
  # tensor parallelism: w column-sharded, each device its columns, then the psum of a loss
  run("tp_matmul", lambda v, wv: (v @ wv, L.psum(((v @ wv) ** 2).sum(), "i")),
      (P(), P(None, "i")), (P(None, "i"), P()), x, w)
  # grad through shard_map with psum
  sf, placed = run("loss", lambda v: L.psum((v * v).sum(), "i"), P("i"), P(), x)
  results["grad_psum"] = np.asarray(J.jit(J.grad(lambda v: sf(v)))(placed[0]))
  sf, placed = run("rep", lambda v, c: L.psum(v * c, "i"), (P("i"), P()), P(), x, w[:, :1].T)
  gx, gc = J.jit(J.grad(lambda v, c: (sf(v, c) ** 2).sum(), argnums=(0, 1)))(*placed)
  results["grad_rep_x"], results["grad_rep_c"] = np.asarray(gx), np.asarray(gc)
  results["grad_gather"] = np.asarray(J.jit(J.grad(lambda v: (J.shard_map(
      lambda u: L.all_gather(u, "i", tiled=True) ** 3, mesh=mesh, in_specs=P("i"),
      out_specs=P(), check_vma=False)(v)).sum()))(placed[0]))
  results["grad_all_to_all"] = np.asarray(J.jit(J.grad(lambda v: (J.shard_map(
      lambda u: L.all_to_all(u, "i", 0, 1, tiled=True) ** 3, mesh=mesh, in_specs=P("i"),
      out_specs=P("i"), check_vma=False)(v) * np.arange(16 * 24).reshape(16, -1)).sum()))(
          np.arange(16 * 24, dtype=np.float32).reshape(16 * 8, 3)))
  results["vmap_shard_map"] = np.asarray(J.jit(J.vmap(J.shard_map(
      lambda u: L.psum(u, "i"), mesh=mesh, in_specs=P("i"), out_specs=P(),
      check_vma=False)))(np.stack([x, 2 * x])))
  results["vmap_axis1_shard_map"] = np.asarray(J.jit(J.vmap(J.shard_map(
      lambda u, c: L.psum(u * c, "i"), mesh=mesh, in_specs=(P("i"), P()), out_specs=P(),
      check_vma=False), in_axes=(1, None)))(np.stack([x, 2 * x], axis=1), w[:, :1].T))
  results["jvp_shard_map"] = np.asarray(J.jit(lambda v, t: J.jvp(J.shard_map(
      lambda u: L.psum(J.numpy.sin(u), "i"), mesh=mesh, in_specs=P("i"), out_specs=P(),
      check_vma=False), (v,), (t,))[1])(x, 2 * x))
  results["dce_shard_map"] = np.asarray(J.jit(lambda v: J.shard_map(
      lambda u: (L.psum(u, "i"), u * 2), mesh=mesh, in_specs=P("i"), out_specs=(P(), P("i")),
      check_vma=False)(v)[1])(x))
  np.savez(sys.argv[2], **results)
''')


def _run(which: str, path: str, tmp_path) -> dict:
  script = tmp_path / "programs.py"
  script.write_text(PROGRAMS)
  env = dict(os.environ, STABLEJAX_NUM_CPU_DEVICES="8",
             XLA_FLAGS="--xla_force_host_platform_device_count=8")
  proc = subprocess.run([sys.executable, str(script), which, path], env=env, capture_output=True,
                        text=True, timeout=300)
  assert proc.returncode == 0, proc.stderr[-4000:]
  return dict(np.load(path))


@pytest.mark.slow
def test_shard_map_programs_on_8_devices_match_jax(tmp_path):
  want = _run("jax", str(tmp_path / "jax.npz"), tmp_path)
  got = _run("stablejax", str(tmp_path / "sj.npz"), tmp_path)
  assert sorted(got) == sorted(want)
  for name in want:
    assert got[name].shape == want[name].shape, name
    np.testing.assert_allclose(got[name], want[name], rtol=1e-5, atol=1e-5, err_msg=name)


def test_experimental_shard_map_is_the_positional_spelling():
  from stablejax.experimental.shard_map import shard_map
  from stablejax.sharding import Mesh, PartitionSpec as P
  mesh = Mesh(np.array(sj.devices()[:1]), ("i",))
  f = shard_map(lambda v: lax.psum(v, "i"), mesh, P("i"), P())
  text = str(sj.make_jaxpr(f)(X))
  assert "shard_map[" in text and "psum[axes=('i',) axis_index_groups=None]" in text


def test_dce_prunes_unused_shard_map_outputs_with_their_specs():
  from stablejax.sharding import Mesh, PartitionSpec as P
  mesh = Mesh(np.array(sj.devices()[:1]), ("i",))
  f = sj.shard_map(lambda u, c: (lax.psum(u * c, "i"), jnp.exp(u)), mesh=mesh,
                   in_specs=(P("i"), P()), out_specs=(P(), P("i")))
  out = passes.dce_closed_jaxpr(sj.make_jaxpr(lambda v, c: f(v, c)[1])(X, X))
  (eqn,) = [e for e in out.eqns if e.primitive.name == "shard_map"]
  assert (eqn.params["in_specs"], eqn.params["out_specs"]) == ((P("i"),), (P("i"),))
  assert "psum" not in str(out) and len(eqn.invars) == 1


def test_shard_map_outside_jit_runs_over_its_mesh():
  """(More in test_arrays_avals.py, on 8 devices against JAX.)"""
  mesh = sj.sharding.Mesh(np.array(sj.devices()[:1]), ("i",))
  f = sj.shard_map(lambda x: lax.psum(x, "i"), mesh=mesh, in_specs=sj.sharding.P("i"),
                   out_specs=sj.sharding.P())
  np.testing.assert_array_equal(np.asarray(f(np.arange(4.0, dtype=np.float32))),
                                np.arange(4.0, dtype=np.float32))
