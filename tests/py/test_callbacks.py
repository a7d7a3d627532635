"""Host callbacks against JAX: pure_callback, debug.callback and debug.print, eagerly and under
jit (a custom call back into Python), vmap (each vmap_method) and grad; effects survive DCE and
run in program order."""
import jax
import numpy as np
import pytest

import stablejax as sj
import stablejax.numpy as jnp
from stablejax import passes


def _sin_cb(api):
  return lambda x: api.pure_callback(np.sin, api.ShapeDtypeStruct(x.shape, x.dtype), x,
                                     vmap_method="sequential")


@pytest.mark.parametrize("wrap", ["eager", "jit", "vmap", "jit_vmap"])
def test_pure_callback_matches_jax(wrap):
  x = np.linspace(-1, 1, 6).astype(np.float32).reshape(2, 3)
  wraps = {"eager": lambda api, f: f, "jit": lambda api, f: api.jit(f),
           "vmap": lambda api, f: api.vmap(f), "jit_vmap": lambda api, f: api.jit(api.vmap(f))}
  got = wraps[wrap](sj, lambda x: _sin_cb(sj)(x) * 2)(x)
  want = wraps[wrap](jax, lambda x: _sin_cb(jax)(x) * 2)(x)
  assert isinstance(got, sj.Array)
  np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)


@pytest.mark.parametrize("method", ["expand_dims", "broadcast_all"])
def test_pure_callback_vectorized_vmap(method):
  calls = []

  def add(x, y):
    calls.append((x.shape, y.shape))
    return x + y

  def f(x, y):
    return sj.pure_callback(add, sj.ShapeDtypeStruct(x.shape, x.dtype), x, y,
                            vmap_method=method)

  x, y = np.ones((4, 3), np.float32), np.arange(3, dtype=np.float32)
  np.testing.assert_allclose(sj.jit(sj.vmap(f, (0, None)))(x, y), x + y)
  assert calls == [((4, 3), (1, 3) if method == "expand_dims" else (4, 3))]


def test_pure_callback_lowering_and_errors():
  text = sj.jit(_sin_cb(sj)).lower(np.ones(3, np.float32)).as_text()
  assert "stablehlo.custom_call @xla_ffi_python_cpu_callback" in text
  with pytest.raises(ValueError, match="do not support JVP"):
    sj.grad(lambda x: sj.pure_callback(np.sin, sj.ShapeDtypeStruct((), np.float32), x))(1.)
  with pytest.raises(NotImplementedError, match="vmap_method"):
    sj.vmap(lambda x: sj.pure_callback(np.sin, sj.ShapeDtypeStruct((), np.float32), x))(
        np.ones(2, np.float32))
  with pytest.raises(RuntimeError, match="expected f32\\[2\\]"):
    sj.pure_callback(lambda x: x[:1], sj.ShapeDtypeStruct((2,), np.float32),
                     np.ones(2, np.float32))


def test_debug_print_under_jit_in_program_order(capfd):
  def f(x):
    sj.debug.print("first {}", x)
    y = jnp.sin(x)
    sj.debug.print("second {y:.3f} {n}", y=y, n=2)
    return x * 2

  assert float(sj.jit(f)(np.float32(1.))) == 2.
  assert capfd.readouterr().out == "first 1.0\nsecond 0.841 2\n"
  f(np.float32(1.))
  assert capfd.readouterr().out == "first 1.0\nsecond 0.841 2\n"


def test_debug_callback_survives_dce_and_transforms(capfd):
  seen = []

  def f(x):
    sj.debug.callback(lambda v: seen.append(np.asarray(v).tolist()), x)
    return x * x

  closed = sj.make_jaxpr(f)(1.)
  assert "debug_callback" in str(passes.dce_closed_jaxpr(closed))
  sj.jit(lambda x: (sj.jit(f)(x), 0.)[1])(2.)  # the only output does not use the callback
  sj.vmap(f)(np.array([3., 4.], np.float32))
  assert float(sj.grad(f)(5.)) == 10.
  sj.jit(sj.vmap(f))(np.array([6., 7.], np.float32))
  assert seen == [2.0, 3.0, 4.0, 5.0, 6.0, 7.0]
  assert str(closed).count("debug_callback[callback=<lambda> effect=Debug partitioned=False]") == 1


def _sharding_lines(text: str) -> list[str]:
  """The module's meshes and the shardings of its custom calls, as JAX and stablejax print
  them (the attributes that differ between them dropped)."""
  out = []
  for line in text.splitlines():
    if "sdy.mesh" in line:
      out.append(line.strip())
    elif "custom_call" in line and "sdy.sharding" in line:
      out.append(line[line.index("sdy.sharding"):].split("}")[0])
  return out


def test_host_callbacks_in_a_partitioned_module_run_on_device_0_as_jax():
  """In a module partitioned over a mesh (here of one device), a host callback's custom call
  has the maximal sharding on device 0 that XLA's SPMD partitioner needs on a side-effecting
  op, as JAX lowers it (without it XLA fails: "Side-effect HLO must have sharding")."""
  x = np.arange(4, dtype=np.float32)

  def program(lib):
    def f(x):
      lib.debug.print("x={x}", x=x)
      return lib.pure_callback(lambda a: np.asarray(a) * 2,
                               lib.ShapeDtypeStruct(x.shape, x.dtype), x) + 1
    return f

  mine = sj.jit(program(sj), in_shardings=sj.sharding.NamedSharding(
      sj.make_mesh((1,), ("x",)), sj.sharding.P("x")))
  jmesh = jax.make_mesh((1,), ("x",), axis_types=(jax.sharding.AxisType.Auto,))
  theirs = jax.jit(program(jax), in_shardings=jax.sharding.NamedSharding(
      jmesh, jax.sharding.PartitionSpec("x")))
  got, want = _sharding_lines(mine.lower(x).as_text()), _sharding_lines(theirs.lower(x).as_text())
  assert got == want and len(got) == 4
  assert "sdy.sharding_per_value<[<@maximal_mesh_0, []>]>" in got[-1]
  # one device, one module: the single-device path is not annotated (nor is JAX's)
  assert "sdy" not in sj.jit(program(sj)).lower(x).as_text()
