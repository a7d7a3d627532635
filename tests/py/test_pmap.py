"""`pmap` against JAX 0.10.2: the same programs run by stablejax and by JAX on 8 CPU devices, in
subprocesses (the CPU client's device count is fixed per process), compared by values, dtypes,
shapes, result shardings and errors; and the lowered module, JAX's `jit` of a `shard_map`."""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import stablejax as sj
from stablejax import lax
from stablejax.pmap import pmap

PROGRAMS = textwrap.dedent('''
  import functools, json, sys
  import numpy as np
  if sys.argv[1] == "jax":
    import jax as J
    from jax import lax as L, numpy as jnp
    pmap = J.pmap
  else:
    import stablejax as J
    from stablejax import lax as L, numpy as jnp
    from stablejax.pmap import pmap
  rng = np.random.default_rng(0)
  x = rng.standard_normal((8, 3)).astype(np.float32)
  y = rng.standard_normal((3, 4)).astype(np.float32)
  values, meta = {}, {}

  def keep(name, out):
    for i, o in enumerate(J.tree_util.tree_leaves(out)):
      values[f"{name}_{i}"] = np.asarray(o)
      s = o.sharding
      meta[f"{name}_{i}"] = [str(o.dtype), list(o.shape), str(s.spec),
                             [[str(k), v] for k, v in s.mesh.shape.items()],
                             [d.id for d in s.mesh.devices.flat]]

  def error(name, thunk):
    try:
      thunk()
    except Exception as e:
      meta[name] = [type(e).__name__, isinstance(e, ValueError), isinstance(e, TypeError)]
    else:
      meta[name] = "no error"

  keep("plain", pmap(lambda v: v * 2 + 1)(x))
  keep("psum", pmap(lambda v: v / L.psum(v, "i"), axis_name="i")(x))
  keep("pmean", pmap(lambda v: L.pmean(v, "i") - v, "i")(x))
  keep("pmax", pmap(lambda v: (L.pmax(v, "i"), L.pmin(v, "i")), "i")(x))
  keep("all_gather", pmap(lambda v: L.all_gather(v, "i"), "i")(x))
  keep("ppermute", pmap(lambda v: L.ppermute(v, "i", [(j, (j + 1) % 8) for j in range(8)]),
                        "i")(x))
  keep("axis_index", pmap(lambda v: v + L.axis_index("i"), "i")(x))
  keep("in_axes", pmap(lambda a, b: a @ b, in_axes=(0, None))(x, y))
  keep("in_axes_1", pmap(lambda a, b: a * b, in_axes=(1, None), out_axes=1)(y, 2.0))
  keep("out_axes_none", pmap(lambda v: L.psum(v, "i"), "i", out_axes=None)(x))
  keep("tree", pmap(lambda d: {"s": d["a"] + d["b"][0], "t": (d["b"][1] * 2,)},
                    in_axes=({"a": 0, "b": (0, None)},))(
                        {"a": x, "b": (x[:, 0], y)}))
  keep("kwargs", pmap(lambda a, *, k: a - k)(x, k=x[:, :1]))
  keep("static", pmap(lambda a, n, b: a * n + b, static_broadcasted_argnums=1)(x, 3, x))
  keep("static_again", pmap(lambda a, n, b: a * n + b, static_broadcasted_argnums=(1,))(x, 4, x))
  keep("int", pmap(lambda v: v * 3)(np.arange(8, dtype=np.int32)))
  keep("four_devices", pmap(lambda v: L.psum(v, "i"), "i")(x[:4]))
  keep("devices", pmap(lambda v: v + 1, devices=J.devices()[2:6])(x[:4]))
  keep("grad_inside", pmap(lambda v: L.psum(J.grad(lambda u: (jnp.sin(u) ** 2).sum())(v), "i"),
                           "i")(x))
  keep("grad_through", J.grad(lambda v: (pmap(lambda u: jnp.sin(u) * L.psum(u, "i"), "i")(v)
                                         ** 2).sum())(x))
  keep("vmap_of_pmap", J.vmap(pmap(lambda u: L.psum(u, "i"), "i"), in_axes=1)(x))
  keep("jit_of_pmap", J.jit(pmap(lambda u: jnp.cos(u) * L.psum(u, "i"), "i"))(x))
  keep("value_and_grad", pmap(J.value_and_grad(lambda u: (u * u).sum()))(x))
  error("too_many", lambda: pmap(lambda v: v)(np.ones(9, np.float32)))
  error("no_mapped", lambda: pmap(lambda v: v, in_axes=None)(x))
  error("bad_in_axes", lambda: pmap(lambda v: v, in_axes=1.5))
  error("bad_out_axes", lambda: pmap(lambda v: v, out_axes="a"))
  error("not_callable", lambda: pmap(3))
  error("static_missing", lambda: pmap(lambda a, b: a, static_broadcasted_argnums=1)(x))
  error("in_axes_prefix", lambda: pmap(lambda a, b: a, in_axes=(0, 0, 0))(x, x))
  error("axis_size", lambda: pmap(lambda a: a, axis_size=4)(x))
  error("unbound_axis", lambda: pmap(lambda a: L.psum(a, "j"), "i")(x))
  error("no_devices", lambda: pmap(lambda a: a, devices=[]))
  meta["lowered"] = pmap(lambda v: v * 2, "i").lower(x).as_text()
  np.savez(sys.argv[2], **values)
  with open(sys.argv[2] + ".json", "w") as f:
    json.dump(meta, f)
''')


def _run(which: str, tmp_path) -> tuple[dict, dict]:
  script, out = tmp_path / "programs.py", str(tmp_path / f"{which}.npz")
  script.write_text(PROGRAMS)
  env = dict(os.environ, STABLEJAX_NUM_CPU_DEVICES="8", JAX_PLATFORMS="cpu",
             XLA_FLAGS="--xla_force_host_platform_device_count=8")
  proc = subprocess.run([sys.executable, str(script), which, out], env=env, capture_output=True,
                        text=True, timeout=400)
  assert proc.returncode == 0, proc.stderr[-4000:]
  with open(out + ".json") as f:
    return dict(np.load(out)), json.load(f)


@pytest.fixture(scope="module")
def both(tmp_path_factory):
  pytest.importorskip("jax")
  tmp = tmp_path_factory.mktemp("pmap")
  return _run("jax", tmp), _run("stablejax", tmp)


def test_values_dtypes_shapes_and_shardings_match_jax(both):
  (want, want_meta), (got, got_meta) = both
  assert sorted(got) == sorted(want)
  for name in want:
    assert got_meta[name] == want_meta[name], name  # dtype, shape, spec, mesh, devices
    np.testing.assert_allclose(got[name], want[name], rtol=2e-5, atol=2e-5, err_msg=name)


def test_errors_match_jax(both):
  (_, want), (_, got) = both
  names = ["too_many", "no_mapped", "bad_in_axes", "bad_out_axes", "not_callable",
           "static_missing", "in_axes_prefix", "axis_size", "unbound_axis", "no_devices"]
  for name in names:
    assert want[name] != "no error", name
    assert got[name][1:] == want[name][1:], (name, got[name], want[name])


def test_lowered_as_jax_lowers_it(both):
  """JAX 0.10.2's pmap is jit of a shard_map: an `sdy.manual_computation` over a one-axis mesh,
  the arguments and results sharded along it."""
  (_, want), (_, got) = both
  for text in (want["lowered"], got["lowered"]):
    assert "module @jit__fun" in text
    assert 'sdy.mesh @mesh = <["i"=8]>' in text
    assert 'manual_axes={"i"}' in text
    assert 'sdy.sharding = #sdy.sharding<@mesh, [{"i"}, {}]>' in text
    assert "(%arg1: tensor<1x3xf32>)" in text and "stablehlo.multiply" in text


def test_pmap_is_a_shard_map_in_the_jaxpr():
  x = np.ones((1, 3), np.float32)  # one device in this process
  text = str(sj.make_jaxpr(pmap(lambda v: lax.psum(v, "i"), "i"))(x))
  assert "shard_map[" in text and "psum[axes=('i',)" in text
  out = pmap(lambda v, k: v * k, static_broadcasted_argnums=1)(x, 2)
  # (its value is read in the 8-device programs: reading a 1-device NamedSharding result is
  # the bug of issue 33 fixed elsewhere)
  assert out.shape == x.shape and out.sharding.spec == sj.sharding.P("_internal_pmap_axis_name")


def test_bad_arguments_are_clear_errors():
  x = np.ones((1, 3), np.float32)
  with pytest.raises(ValueError, match="in_axes 2 is out of range"):
    pmap(lambda v: v, in_axes=2)(x)
  with pytest.raises(ValueError, match="hashable"):
    pmap(lambda v, s: v, static_broadcasted_argnums=1)(x, [1])
  with pytest.raises(ValueError, match="only 1 devices"):
    pmap(lambda v: v)(np.ones((2, 3), np.float32))
