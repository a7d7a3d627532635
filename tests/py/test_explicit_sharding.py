"""Explicit sharding in types against JAX 0.10.2: the avals of arrays laid out over Explicit mesh
axes carry their layout (`f32[8@x,4]` in `typeof` and jaxprs), the primitives propagate it
(elementwise, broadcasting, reductions, transpose / reshape / squeeze, dot_general with
`out_sharding=`, `reshard`), jit results and eager operations are laid out by their types, and
eager operations on sharded arrays run over their mesh. The same program runs under JAX and under
stablejax on 8 CPU devices, in subprocesses (the CPU client's device count is fixed per process),
compared by values, dtypes, shapes, result shardings, type strings and error types."""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import stablejax as sj
from stablejax import core
from stablejax.mesh import AbstractMesh
from stablejax.sharding import P
from stablejax.typed_sharding import AvalSharding, ShardingTypeError

PROGRAM = textwrap.dedent('''
import json, sys
import numpy as np
if sys.argv[1] == "jax":
  import jax as J
  from jax import lax as L, numpy as jnp
else:
  import stablejax as J
  from stablejax import lax as L, numpy as jnp
from_sh = J.sharding
P, AxisType, NamedSharding = from_sh.PartitionSpec, from_sh.AxisType, from_sh.NamedSharding
rng = np.random.default_rng(0)
values, meta = {}, {}

def typ(a):
  """The dims part of the type: `[8@x,4]` (without JAX's `{V:x}`, the varying manual axes in a
  shard_map body, which stablejax's types do not track)."""
  s = str(J.typeof(a))
  return s[s.index("["):s.index("]") + 1]

def note(name, v):
  meta[name] = v

def keep(name, out, types=True):
  for i, o in enumerate(J.tree_util.tree_leaves(out)):
    values[f"{name}_{i}"] = np.asarray(o)
    s = o.sharding
    meta[f"{name}_{i}"] = [str(o.dtype), list(o.shape), str(getattr(s, "spec", None)),
                           typ(o) if types else None]

def error(name, thunk):
  try:
    thunk()
  except Exception as e:
    meta[name] = type(e).__name__
  else:
    meta[name] = "no error"

mesh = J.make_mesh((4, 2), ("x", "y"))
auto = J.make_mesh((4, 2), ("x", "y"), axis_types=(AxisType.Auto,) * 2)
put = lambda a, *spec: J.device_put(a, NamedSharding(mesh, P(*spec)))
x_np = rng.standard_normal((8, 4)).astype(np.float32)
w_np = rng.standard_normal((4, 6)).astype(np.float32)
x = put(x_np, "x", None)
xy = put(x_np, "x", "y")
w = put(w_np, None, "y")
wy = put(w_np, "y", None)
b = put(rng.standard_normal((2, 8, 4)).astype(np.float32), None, "x", None)
note("typeof_x", typ(x)); note("typeof_xy", typ(xy)); note("typeof_xy2", typ(put(x_np, ("x", "y"))))
note("aval_sharding_spec", str(J.typeof(x).sharding.spec))
note("aval_sharding_mesh_names", list(J.typeof(x).sharding.mesh.axis_names))
note("auto_untyped", typ(J.device_put(x_np, NamedSharding(auto, P("x")))))

def record_types(name, f, *args):
  seen = {}
  def g(*a):
    out = f(*a)
    seen["t"] = [typ(o) for o in J.tree_util.tree_leaves(out)]
    return out
  out = J.jit(g)(*args)
  note(name + "_traced", seen["t"])
  keep(name, out)

# elementwise, broadcasting, reductions, structural
record_types("sin_add", lambda a: jnp.sin(a) + 1.0, x)
record_types("binary", lambda a, c: a * c - a, x, x)
record_types("mixed_none", lambda a, c: a + c, x, put(x_np, None, None))
record_types("bcast_row", lambda a: a + jnp.ones(4), x)
record_types("bcast_col", lambda a, c: a * c[:, None], xy, put(x_np[:, 0], "x"))
record_types("where", lambda a: jnp.where(a > 0, a, 0.0), xy)
record_types("convert", lambda a: a.astype(jnp.int32), xy)
record_types("sums", lambda a: (jnp.sum(a, axis=0), jnp.sum(a, axis=1), jnp.max(a),
                                jnp.argmax(a, axis=1)), xy)
record_types("cumsum", lambda a: jnp.cumsum(a, axis=1), x)
error("cumsum_sharded_axis", lambda: J.jit(lambda a: jnp.cumsum(a, axis=0))(x))
record_types("transpose", lambda a: (a.T, jnp.transpose(b, (2, 0, 1))), xy)
record_types("expand", lambda a: (a[None], jnp.expand_dims(a, 2), jnp.squeeze(a[None], 0)), x)
record_types("reshape_split", lambda a: a.reshape(4, 2, 4), x)
record_types("reshape_merge", lambda a: a.reshape(2, 32), b)
record_types("reshape_ones", lambda a: a.reshape(8, 1, 4), xy)
record_types("reshape_flat", lambda a: a.reshape(32), x)
record_types("bcast_to", lambda a: jnp.broadcast_to(a, (3, 8, 4)), xy)
record_types("slices", lambda a: (a[0:4], a[:, 1:3], L.dynamic_slice(a, (0, 1), (4, 2))), x)
record_types("pads", lambda a: (jnp.pad(a, ((0, 0), (1, 1))), jnp.pad(a, ((4, 4), (0, 0)))), x)
record_types("concats", lambda a: (jnp.concatenate([a, a], 0), jnp.concatenate([a, a], 1),
                                   jnp.concatenate([a, jnp.ones((8, 4))], 1), jnp.stack([a, a])), x)
record_types("split_cols", lambda a: jnp.split(a, 2, axis=1), x)
record_types("at_set_col", lambda a: a.at[:, 1].set(1.0), x)
record_types("sort", lambda a: jnp.sort(a, axis=1), x)
record_types("cond_while", lambda a: (L.cond(True, lambda v: v * 2, lambda v: v, a),
                                      L.fori_loop(0, 3, lambda i, v: v * 2, a)), x)
record_types("nn", lambda a: (jnp.mean(a, axis=1), J.nn.softmax(a, axis=1)), x)
error("slice_bad", lambda: J.jit(lambda a: a[0:2])(x))
error("index_bad", lambda: J.jit(lambda a: a[3])(x))
error("dus_bad", lambda: J.jit(lambda a: L.dynamic_update_slice(a, jnp.ones((2, 4)), (0, 0)))(x))
error("reshape_bad", lambda: J.jit(lambda a: a.reshape(2, 4, 4))(x))
error("reshape_bad_eager", lambda: J.typeof(jnp.reshape(x, (2, 16))))
error("add_conflict", lambda: J.jit(lambda a, c: a + c)(x, put(x_np, None, "x")))
error("add_conflict2", lambda: J.jit(lambda a, c: a + c)(x, put(x_np, "y", None)))

# dot / einsum
record_types("dot", lambda a, c: jnp.dot(a, c), x, w)
record_types("matmul", lambda a, c: a @ c, x, w)
record_types("einsum", lambda a, c: jnp.einsum("ij,jk->ik", a, c), x, w)
record_types("dot_batch", lambda a, c: jnp.einsum("bij,bjk->bik", a, c), b,
             put(np.ones((2, 4, 6), np.float32), None, None, "y"))
error("dot_illegal", lambda: J.jit(lambda a: jnp.einsum("bij,bkj->bik", a, a))(b))
error("dot_ambiguous", lambda: J.jit(lambda a, c: jnp.dot(a, c))(xy, wy))
error("dot_ambiguous_eager", lambda: jnp.dot(xy, wy))
error("dot_mismatch", lambda: J.jit(lambda a, c: jnp.dot(a, c))(xy, put(w_np, "x", None)))
with J.set_mesh(mesh):
  record_types("dot_out", lambda a, c: jnp.dot(a, c, out_sharding=P("x", None)), xy, wy)
  record_types("einsum_out",
               lambda a, c: jnp.einsum("ij,jk->ik", a, c, out_sharding=P(None, "y")), xy, wy)
  record_types("reshard", lambda a: J.reshard(a, P(None, "x")) * 2, x)
  record_types("reshard_replicate", lambda a: J.reshard(a, P()), xy)
  keep("reshard_eager", J.reshard(x, P("y", "x")))
  record_types("zeros_typed", lambda: jnp.zeros((8, 4), out_sharding=P("x", "y")))
  # the transposed dots are laid out as the primals (their contractions are ambiguous)
  loss = lambda a, c: jnp.sum(jnp.dot(a, c, out_sharding=P("x", None)) ** 2)
  record_types("grad_dot_out", J.grad(loss, argnums=(0, 1)), xy, wy)

# eager operations run over the mesh and keep the types
keep("eager_mul", x * 2.0)
keep("eager_sin_add", jnp.sin(xy) + xy)
keep("eager_sum", jnp.sum(xy, axis=0))
keep("eager_dot", jnp.dot(x, w))
keep("eager_T", xy.T)
keep("eager_reshape", x.reshape(4, 2, 4))
keep("eager_mixed", x + x_np)
keep("eager_auto", J.device_put(x_np, NamedSharding(auto, P("x"))) * 2.0, types=False)
note("eager_devices", len((x * 2.0).devices()))
note("eager_shards", [list(s.data.shape) for s in (x * 2.0).addressable_shards][:2])

# shard_map on a mesh of Explicit axes: in_specs must be the arguments' types' (or left out)
sm = J.shard_map
def body(a):
  note("sm_body_" + str(a.shape[0]), typ(a))
  return a * 2.0
keep("sm_match_jit", J.jit(sm(body, mesh=mesh, in_specs=P("x"), out_specs=P("x")))(x))
keep("sm_infer_jit", J.jit(sm(body, mesh=mesh, out_specs=P("x")))(x))
eager = sm(body, mesh=mesh, in_specs=P("x"), out_specs=P("x"))(x)
values["sm_eager"] = np.asarray(eager)
note("sm_eager_type", typ(eager))
note("sm_infer_type", typ(sm(body, mesh=mesh, out_specs=P("x"))(x)))
with J.set_mesh(mesh):
  keep("sm_psum", J.jit(sm(lambda a: L.psum(a, "x"), in_specs=P("x"), out_specs=P()))(x))
keep("sm_xy", J.jit(sm(lambda a: a.sum(0, keepdims=True), mesh=mesh, in_specs=P("x", "y"),
                       out_specs=P("x", "y")))(xy))
error("sm_other_spec", lambda: sm(body, mesh=mesh, in_specs=P(None, "x"), out_specs=P())(x))
error("sm_other_spec_jit", lambda: J.jit(sm(body, mesh=mesh, in_specs=P("y"), out_specs=P()))(x))
error("sm_replicated_in", lambda: sm(body, mesh=mesh, in_specs=P(), out_specs=P())(x))
error("sm_unsharded_in", lambda: sm(body, mesh=mesh, in_specs=P("x"), out_specs=P("x"))(x_np))
error("sm_infer_auto", lambda: sm(body, mesh=auto, out_specs=P("x"))(x_np))
keep("sm_auto_other", sm(body, mesh=auto, in_specs=P(None, "x"), out_specs=P(None, "x"))(
    J.device_put(x_np, NamedSharding(auto, P("x")))), types=False)

# jaxprs print the types
note("jaxpr", str(J.make_jaxpr(lambda a, c: jnp.dot(jnp.sin(a), c).sum(0))(x, w)))
# ShapeDtypeStructs with a sharding on Explicit axes are typed, eval_shape gives typed ones
sds = J.ShapeDtypeStruct((8, 4), jnp.float32, sharding=NamedSharding(mesh, P("x")))
note("sds_jaxpr", str(J.make_jaxpr(lambda a: a * 2)(sds)))
note("eval_shape", repr(J.eval_shape(lambda a: a.T, x)))

# grad and vmap keep them
record_types("grad", J.grad(lambda a: jnp.sum(jnp.sin(a) * a)), xy)
record_types("vmap", J.vmap(lambda r: r * 2.0), x)
def vmap_body(r):
  note("vmap_inner_" + str(r.shape[0]), typ(r))  # the mapped dimension's split goes
  return jnp.sum(r * 2.0)
record_types("vmap_axis0", J.vmap(vmap_body, in_axes=0), xy)
record_types("vmap_axis1", J.vmap(vmap_body, in_axes=1), xy)

np.savez(sys.argv[2], **values)
with open(sys.argv[2] + ".json", "w") as fh:
  json.dump(meta, fh, indent=0)
''')


def _run(which: str, tmp_path) -> tuple[dict, dict]:
  script, out = tmp_path / "program.py", str(tmp_path / f"{which}.npz")
  script.write_text(PROGRAM)
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
  tmp = tmp_path_factory.mktemp("explicit")
  return _run("jax", tmp), _run("stablejax", tmp)


ERRORS = ["reshape_bad", "reshape_bad_eager", "add_conflict", "add_conflict2",
          "cumsum_sharded_axis", "dot_ambiguous", "dot_ambiguous_eager", "dot_mismatch",
          "dot_illegal", "slice_bad", "index_bad", "dus_bad"]
SHARD_MAP_ERRORS = {"sm_other_spec": "ValueError", "sm_other_spec_jit": "ValueError",
                    "sm_replicated_in": "ValueError", "sm_unsharded_in": "ValueError",
                    "sm_infer_auto": "TypeError"}


def test_values_match_jax(both):
  (want, _), (got, _) = both
  assert sorted(got) == sorted(want)
  for name in want:
    np.testing.assert_allclose(got[name], want[name], rtol=2e-5, atol=2e-5, err_msg=name)


def test_types_and_result_shardings_match_jax(both):
  (_, want), (_, got) = both
  assert want["typeof_x"] == "[8@x,4]" and want["sums_0"][3] == "[4@y]"
  for name in want:
    if name not in ERRORS and name not in SHARD_MAP_ERRORS and name != "jaxpr":
      assert got[name] == want[name], (name, got[name], want[name])


def test_jaxpr_prints_the_types_as_jax(both):
  (_, want), (_, got) = both
  # JAX 0.10.2's reduce_sum has an out_sharding parameter of its own (None here)
  assert got["jaxpr"] == want["jaxpr"].replace(" out_sharding=None", "")
  assert "d:f32[8@x,6@y] = dot_general" in got["jaxpr"]


def test_errors_match_jax(both):
  (_, want), (_, got) = both
  for name in ERRORS:
    assert want[name] == "ShardingTypeError", (name, want[name])
    assert got[name] == want[name], (name, got[name], want[name])
  for name, kind in SHARD_MAP_ERRORS.items():
    assert want[name] == got[name] == kind, (name, got[name], want[name])


# One device, in this process.

MESH = AbstractMesh((4, 2), ("x", "y"), (sj.sharding.AxisType.Explicit,) * 2)


def _aval(shape, *spec) -> core.ShapedArray:
  return core.ShapedArray(shape, np.float32, sharding=AvalSharding(MESH, P(*spec)))


def test_typed_sharding_is_part_of_the_type():
  a, b = _aval((8, 4), "x", None), _aval((8, 4), None, "x")
  assert a != b and a == _aval((8, 4), "x", None) and hash(a) == hash(_aval((8, 4), "x", None))
  assert a != core.ShapedArray((8, 4), np.float32)
  assert a.str_short() == "f32[8@x,4]" and b.str_short() == "f32[8,4@x]"
  assert _aval((8, 4), ("x", "y"), None).str_short() == "f32[8@(x,y),4]"
  assert repr(a.sharding) == f"NamedSharding(mesh={MESH!r}, spec=P('x', None))"
  assert a.to_tangent_aval() == a and core.typematch(a, b)


def test_rules_on_avals():
  add = sj.lax.add_p.out_avals([_aval((8, 4), "x", None), _aval((8, 4), None, "y")], {})[0]
  assert add.str_short() == "f32[8@x,4@y]"
  with pytest.raises(ShardingTypeError, match="incompatible shardings"):
    sj.lax.add_p.out_avals([_aval((8, 4), "x", None), _aval((8, 4), "y", None)], {})
  split = sj.lax.reshape_p.out_avals([_aval((8, 4), "x", None)],
                                     {"new_sizes": (4, 2, 4), "dimensions": None})[0]
  assert split.str_short() == "f32[4@x,2,4]"
  with pytest.raises(ShardingTypeError, match="This reshape is not supported"):
    sj.lax.reshape_p.out_avals([_aval((8, 4), "x", None)],
                               {"new_sizes": (2, 16), "dimensions": None})
  other = AbstractMesh((8,), ("x",), (sj.sharding.AxisType.Explicit,))
  with pytest.raises(ShardingTypeError, match="Mesh for all inputs should be equal"):
    sj.lax.mul_p.out_avals([_aval((8,), "x"), core.ShapedArray(
        (8,), np.float32, sharding=AvalSharding(other, P("x")))], {})


def test_untyped_values_stay_untyped():
  x = sj.numpy.ones((8, 4))
  assert sj.typeof(x).sharding is None and str(sj.typeof(x * 2)) == "f32[8,4]"


@pytest.mark.parametrize("lib_name", ["jax", "stablejax"])
def test_smap_infers_in_axes_from_explicit_types_as_jax(lib_name):
  lib = pytest.importorskip(lib_name)
  x = np.arange(8.).reshape(2, 4)
  with lib.set_mesh(lib.make_mesh((1,), ("i",))):
    y = lib.device_put(x, lib.sharding.PartitionSpec(None, "i"))
    np.testing.assert_array_equal(
        lib.smap(lambda a: a * 2, out_axes=1, axis_name="i")(y), x * 2)
  auto = lib.make_mesh((1,), ("i",), axis_types=(lib.sharding.AxisType.Auto,))
  with lib.set_mesh(auto), pytest.raises(TypeError, match=r"in_axes was not specified when "
                                         r"axis_name=frozenset\(\{'i'\}\) was of type"):
    lib.smap(lambda a: a * 2, out_axes=1, axis_name="i")(x)
