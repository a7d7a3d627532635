"""jit: the Autodidax part 3 examples, caching, static arguments, composition, the AOT API."""
import gc
import os
import subprocess
import sys
import weakref

import numpy as np
import pytest

import stablejax as sj
import stablejax.numpy as jnp
from stablejax import lax, pipeline
from stablejax.jit import Jitted
from stablejax.test_util import check_close


def test_tracing_happens_once_per_signature(x64, capsys):
  @sj.jit
  def f(x, y):
    print('tracing!')
    return lax.sin(x) * lax.cos(y)
  z = f(3., 4.)
  assert capsys.readouterr().out == "tracing!\n"
  assert str(z) == "-0.09224219304455371"
  z = f(4., 5.)
  assert capsys.readouterr().out == ""
  assert str(z) == "-0.21467624978306993"
  f(np.ones(3), np.ones(3))  # a new signature traces again
  assert capsys.readouterr().out == "tracing!\n"


def test_jit_of_reduction():
  @sj.jit
  def f(x):
    return lax.reduce_sum(x, axes=(0,))
  check_close(f(np.array([1., 2., 3.])), 6.0)


def deriv(f):
  return lambda x: sj.jvp(f, (x,), (1.,))[1]


def f_autodidax(x):
  y = lax.sin(x) * 2.
  z = - y + x
  return z


def test_jit_of_deriv_of_deriv(x64):
  assert str(deriv(deriv(f_autodidax))(3.)) == "0.2822400161197344"
  assert str(sj.jit(deriv(deriv(f_autodidax)))(3.)) == "0.2822400161197344"


def test_jvp_of_jit_does_not_retrace(x64, capsys):
  @sj.jit
  def f(x):
    print('tracing!')
    return f_autodidax(x)
  y, ydot = sj.jvp(f, (3.,), (1.,))
  assert capsys.readouterr().out == "tracing!\n"
  assert (str(y), str(ydot)) == ("2.7177599838802657", "2.979984993200891")
  sj.jvp(f, (3.,), (1.,))
  assert capsys.readouterr().out == ""


def test_vmap_of_jit(x64):
  ys = sj.vmap(sj.jit(f_autodidax), (0,))(np.arange(3.))
  check_close(ys, np.array([0., -0.68294197, 0.18140515]), rtol=1e-7)


def test_jit_is_a_higher_order_primitive_in_jaxprs():
  inner = sj.jit(lambda x: x * 2.0)
  text = str(sj.make_jaxpr(lambda x: inner(x) + 1.0)(1.0))
  assert "jit[" in text and "name=<lambda>" in text and "jaxpr={ lambda" in text


def test_jvp_and_vmap_of_jit_keep_the_body_staged():
  inner = sj.jit(lambda x: jnp.sin(x) * 2.0)
  jvp_text = str(sj.make_jaxpr(lambda x: sj.jvp(inner, (x,), (1.0,)))(1.0))
  assert "name=jvp(<lambda>)" in jvp_text
  vmap_text = str(sj.make_jaxpr(sj.vmap(inner))(np.ones(3, np.float32)))
  assert "name=vmap(<lambda>)" in vmap_text


def test_jit_of_jit_nested_call():
  @sj.jit
  def inner(x):
    return x * 3.0

  @sj.jit
  def outer(x):
    return inner(x) + inner(x + 1.0)
  check_close(outer(np.float32(2.0)), 15.0)
  text = outer.lower(np.float32(2.0)).as_text()
  assert text.count("func.func private @inner") == 1
  assert text.count("call @inner") == 2


def test_closure_over_outer_tracer():
  # Understanding Jaxprs' func12: the closed-over `arg` becomes an argument of the inner jit.
  def func12(arg):
    @sj.jit
    def inner(x):
      return x + arg * jnp.ones(1)
    return arg + inner(arg - 2.)
  check_close(func12(1.0), np.array([1.0]))
  check_close(sj.jit(func12)(1.0), np.array([1.0]))


def test_static_argnums_and_argnames(capsys):
  @sj.jit
  def plain(x):
    return x
  def f(x, n, *, scale):
    print("trace")
    return x * n * scale
  g = sj.jit(f, static_argnums=1, static_argnames="scale")
  check_close(g(np.float32(2.0), 3, scale=2.0), 12.0)
  check_close(g(np.float32(5.0), 3, scale=2.0), 30.0)
  assert capsys.readouterr().out == "trace\n"
  check_close(g(np.float32(2.0), 4, scale=2.0), 16.0)
  assert capsys.readouterr().out == "trace\n"
  with pytest.raises(TypeError, match="hashable"):
    sj.jit(lambda x, l: x, static_argnums=1)(1.0, [1, 2])
  with pytest.raises(ValueError, match="static_argnums"):
    sj.jit(lambda x: x, static_argnums=3)(1.0)


def test_python_control_flow_under_jit_is_a_clear_error():
  with pytest.raises(sj.core.ConcretizationTypeError, match="lax.cond"):
    sj.jit(lambda x: x if x > 0 else -x)(1.0)


def test_weak_type_is_part_of_the_signature(capsys):
  @sj.jit
  def f(x):
    print("trace")
    return x * 2
  assert f(1.0).weak_type
  assert not f(np.float32(1.0)).weak_type
  assert capsys.readouterr().out == "trace\ntrace\n"


def test_pytree_arguments_and_results():
  @sj.jit
  def f(d, t):
    return {"sum": d["a"] + t[0], "prod": d["b"] * t[1]}
  out = f({"a": np.ones(2, np.float32), "b": np.float32(3.0)}, (np.float32(1.0), 2.0))
  check_close(out, {"sum": np.full(2, 2.0), "prod": 6.0})


def test_aot_lower_compile():
  def f(x, y):
    return jnp.sin(x) @ y
  x, y = np.ones((2, 3), np.float32), np.ones((3, 4), np.float32)
  lowered = sj.jit(f).lower(x, y)
  text = lowered.as_text()
  assert text.startswith("module @jit_f attributes {mhlo.num_partitions = 1 : i32, "
                         "mhlo.num_replicas = 1 : i32}")
  assert "func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<3x4xf32>)" in text
  assert "stablehlo.dot_general" in text
  assert str(lowered.compiler_ir()) == text
  compiled = lowered.compile()
  check_close(compiled(x, y), np.sin(x) @ y)
  assert "HloModule" in compiled.as_text()
  cost = compiled.cost_analysis()
  assert cost.get("flops", 0) > 0
  with pytest.raises(TypeError, match="compiled for"):
    compiled(np.ones((3, 3), np.float32), y)


def test_debug_info_carries_user_source_lines():
  def f(x):
    return jnp.sin(x) * 2.0  # this line should appear in the locations
  text = sj.jit(f).lower(np.ones(3, np.float32)).as_text(debug_info=True)
  assert "test_jit.py" in text and "loc(" in text
  assert "test_jit.py" not in sj.jit(f).lower(np.ones(3, np.float32)).as_text()


def test_results_are_device_arrays():
  out = sj.jit(lambda x: x + 1.0)(np.ones(3, np.float32))
  assert isinstance(out, sj.Array)
  assert out.shape == (3,) and out.dtype == np.float32
  check_close(sj.jit(lambda x: x * 2.0)(out), np.full(3, 4.0))


def test_a_fresh_wrapper_of_the_same_function_hits_the_cache(monkeypatch):
  """`jit(f)(x)` with a new wrapper on every call (common in user code) traces and compiles
  once, as in JAX, whose cache is keyed by the function."""
  traces, compiles = [], []
  real_compile = pipeline.compile
  monkeypatch.setattr(pipeline, "compile",
                      lambda *a, **k: compiles.append(1) or real_compile(*a, **k))

  def f(x):
    traces.append(1)
    return jnp.sin(x) * 2

  x = np.arange(3, dtype=np.float32)
  for _ in range(5):
    check_close(sj.jit(f)(x), np.sin(x) * 2)
  assert len(traces) == 1 and len(compiles) == 1
  sj.jit(f, static_argnums=0)  # other static arguments: another cache
  assert sj.jit(f)(np.zeros(4, np.float32)).shape == (4,) and len(traces) == 2


def test_traces_and_executables_die_with_their_function():
  def make(n):
    def f(x):
      return x * n
    return f

  refs = []
  for n in range(3):
    f = make(n)
    sj.jit(f)(np.ones(n + 1, np.float32))
    (traced,) = sj.jit(f)._cache.values()
    refs.append(weakref.ref(next(iter(traced.executables.values()))))
    del f, traced
  gc.collect()
  assert all(r() is None for r in refs)


def test_dispatch_fast_path_follows_the_signature_and_the_config():
  """The repeated-call fast path must give way whenever the types, the device, the argument
  kinds or the config change."""
  traces = []

  @sj.jit
  def f(x):
    traces.append(x.aval)
    return x * 2

  a8, a4 = sj.device_put(np.arange(8.0, dtype=np.float32)), sj.device_put(np.ones(4, np.int32))
  for x in (a8, a8, a4, a8, np.arange(8.0, dtype=np.float32), f(a8), a4):
    out = f(x)
    np.testing.assert_array_equal(np.asarray(out), np.asarray(x) * 2)
    assert out.dtype == np.asarray(x).dtype and out.shape == np.shape(x)
  assert len(traces) == 2  # one trace per signature; the fast path never retraces
  weak = f(sj.device_put(3.0))
  assert weak.weak_type and len(traces) == 3
  assert f(sj.device_put(np.float32(3.0))).weak_type is False and len(traces) == 4
  sj.config.update("enable_x64", True)
  try:
    assert f(sj.device_put(np.arange(3.0))).dtype == np.float64
    assert f(a8).dtype == np.float32 and len(traces) == 6  # the x64 signature is another
  finally:
    sj.config.update("enable_x64", False)
  assert f(a8).dtype == np.float32 and len(traces) == 6


def test_dispatch_fast_path_under_a_transformation_traces():
  """A call that hit the fast path eagerly is still staged when it runs under a trace."""
  f = sj.jit(lambda x: x + 1.0)
  x = sj.device_put(np.float32(2.0))
  f(x), f(x)
  assert "jit" in str(sj.make_jaxpr(lambda y: f(x) * y)(1.0))
  assert float(sj.grad(lambda y: f(y) * y)(x)) == 5.0


def test_dispatch_fast_path_with_pruned_unused_arguments(monkeypatch):
  """A jit whose unused arguments are pruned (keep_unused=False, the default) takes the fast
  path on repeated calls too, passing only the arguments the module keeps."""
  slow = []
  executable = Jitted._executable
  monkeypatch.setattr(Jitted, "_executable",
                      lambda self, traced, device: slow.append(1) or executable(self, traced,
                                                                                device))
  f = sj.jit(lambda x, unused, y: x * 2 + y)
  g = sj.jit(lambda t: t["a"] - t["b"][0])  # pytree arguments, t["b"][1] unused
  x, u, y = (sj.device_put(np.arange(4.0, dtype=np.float32)), sj.device_put(np.ones(2)),
             sj.device_put(np.float32(1)))
  for _ in range(3):
    np.testing.assert_array_equal(f(x, u, y), np.arange(4.0) * 2 + 1)
    np.testing.assert_array_equal(g({"a": x, "b": (y, u)}), np.arange(4.0) - 1)
  assert len(slow) == 2  # each function's first call; the repeats take the fast path
  np.testing.assert_array_equal(f(y, u, x), 2 + np.arange(4.0))  # another signature: slow
  assert len(slow) == 3
  kept = sj.jit(lambda x, unused: x * 2, keep_unused=True)
  for _ in range(2):
    np.testing.assert_array_equal(kept(x, u), np.arange(4.0) * 2)
  assert len(slow) == 4


def test_dispatch_fast_path_with_pytree_arguments_checks_the_structure():
  traces = []

  @sj.jit
  def f(tree, scale=None):
    traces.append(1)
    leaves = sj.tree_util.tree_leaves(tree)
    out = sum(leaves[1:], leaves[0])
    return {"sum": out if scale is None else out * scale, "n": len(leaves)}

  a, b = sj.device_put(np.ones(3, np.float32)), sj.device_put(np.full(3, 2.0, np.float32))
  cases = [([a, (b, a)], None, 4.0), ([a, (b, a)], None, 4.0), ((a, [b, a]), None, 4.0),
           ([a, (b, None)], None, 3.0), ({"x": a, "y": b}, None, 3.0), ({"x": a, "z": b}, None, 3.0),
           ([a, (b, a)], a, 4.0), ([a, (b, a)], None, 4.0), ([a, [b, a]], None, 4.0)]
  for tree, scale, want in cases:
    out = f(tree) if scale is None else f(tree, scale=scale)
    np.testing.assert_array_equal(np.asarray(out["sum"]), np.full(3, want, np.float32))
    assert out["n"] == len(sj.tree_util.tree_leaves(tree))
  assert len(traces) == 7  # one per distinct structure (the repeats take the fast path)


def test_device_put_of_traced_values_stages_the_primitive_as_jax():
  """`device_put` under jit, grad and vmap binds JAX's `device_put` primitive (the identity;
  its transpose copies), printed as JAX prints it."""
  jax = pytest.importorskip("jax")
  x = np.arange(3.0, dtype=np.float32)

  def programs(lib):
    return [
        lib.make_jaxpr(lambda x: lib.device_put(x))(1.0),
        lib.make_jaxpr(lambda x, y: lib.device_put((x, y), may_alias=False))(1.0, 2),
        lib.make_jaxpr(lambda x: lib.device_put(x, lib.devices()[0]))(x),
        lib.make_jaxpr(lib.grad(lambda x: lib.device_put(x) * x))(3.0),
        lib.make_jaxpr(lib.vmap(lambda x: lib.device_put(x) * 2))(x),
    ]
  for ours, theirs in zip(programs(sj), programs(jax)):
    # (stablejax's devices print as `cpu:0`)
    assert str(ours) == str(theirs).replace("CpuDevice(id=0)", repr(sj.devices()[0]))
  assert float(sj.grad(lambda x: sj.device_put(x) * x)(3.0)) == 6.0
  np.testing.assert_array_equal(sj.vmap(lambda x: sj.device_put(x) * 2)(x), x * 2)
  out = sj.jit(lambda x: sj.device_put({"a": x}, sj.devices()[0])["a"] + 1)(x)
  np.testing.assert_array_equal(out, x + 1)
  assert isinstance(sj.device_put(x), sj.Array)  # eagerly: an Array on the device, as before


def test_jit_and_eager_ops_run_on_their_arguments_device():
  """Without `device`, a call runs where its first Array argument lives (as JAX runs a jitted
  computation and jax.numpy's jitted operations by their committed arguments), compiled once
  per device; host values and the default device otherwise."""
  code = """
import numpy as np, stablejax as sj, stablejax.numpy as jnp
d = sj.devices()
x = sj.device_put(np.arange(3, dtype=np.float32), d[1])
f = sj.jit(lambda a: a * 2 + 1)
outs = [f(x), f(x), jnp.sin(x), x + x, x * 2.0, x + np.ones(3, np.float32), f(np.ones(3))]
print([sorted(o.devices())[0].id for o in outs], np.asarray(f(x)).tolist())
"""
  env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=2"}
  proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                        timeout=300)
  assert proc.returncode == 0, proc.stderr
  assert proc.stdout.split("\n")[0] == "[1, 1, 1, 1, 1, 1, 0] [1.0, 3.0, 5.0]"


def test_tracer_operators_call_past_the_eager_jit(monkeypatch):
  """jax.numpy's elementwise functions are jitted for concrete arrays; a tracer's operators
  call the function behind that jit (the same equations, without the jit's checks)."""
  calls = []
  call = Jitted.__call__
  monkeypatch.setattr(Jitted, "__call__",
                      lambda self, *a, **k: calls.append(self.name) or call(self, *a, **k))
  jaxpr = sj.make_jaxpr(lambda x: -(x * 2.0 + x) < abs(x))(np.ones(3, np.float32))
  assert calls == []
  assert [e.primitive.name for e in jaxpr.eqns] == ["mul", "add", "neg", "abs", "lt"]
  x = sj.device_put(np.ones(3, np.float32))
  np.testing.assert_array_equal(np.asarray(x * 2.0), [2.0] * 3)
  assert calls == ["multiply"]
