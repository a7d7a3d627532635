"""JAX's top-level names and config options against JAX 0.10.2 (issue 33, deliverables 1 and 7):
config by JAX's names and as context managers, the numpy promotion modes, disable_jit,
debug_nans/infs, named scopes, typeof, linear_transpose, custom_gradient, closure_convert,
ensure_compile_time_eval, make_array_from_*, the environment queries, version, typing,
flatten_util."""
import logging

import jax
import jax.flatten_util
import jax.numpy as jjnp
import numpy as np
import pytest

import stablejax as sj
import stablejax.flatten_util
import stablejax.numpy as jnp
import stablejax.typing


# ----------------------------------------------------------------------------------------------
# config (deliverable 7)

@pytest.mark.parametrize("name", ["jax_enable_x64", "jax_platforms", "jax_num_cpu_devices",
                                  "jax_default_matmul_precision", "jax_numpy_rank_promotion",
                                  "jax_numpy_dtype_promotion", "jax_disable_jit",
                                  "jax_debug_nans", "jax_debug_infs", "jax_log_compiles",
                                  "jax_explain_cache_misses", "jax_default_device"])
def test_config_reads_and_updates_jax_names(name):
  assert hasattr(jax.config, name)
  before = getattr(sj.config, name)
  assert before == getattr(sj.config, name[4:])
  if isinstance(before, bool):
    sj.config.update(name, not before)
    try:
      assert getattr(sj.config, name) is (not before)
      assert getattr(sj.config, name[4:]) is (not before)
    finally:
      sj.config.update(name, before)


def test_config_unknown_option_is_an_error_naming_it():
  with pytest.raises(ValueError, match="jax_no_such_option"):
    sj.config.update("jax_no_such_option", 1)
  with pytest.raises(AttributeError, match="jax_no_such_option"):
    sj.config.jax_no_such_option  # noqa: B018
  with pytest.raises(AttributeError, match="jax_no_such_option"):
    jax.config.jax_no_such_option  # noqa: B018


def test_config_enum_values_are_checked_as_jax():
  for api in (sj, jax):
    with pytest.raises(ValueError, match="allow"):
      api.config.update("jax_numpy_rank_promotion", "sometimes")
    with pytest.raises(ValueError):
      api.config.update("jax_default_matmul_precision", "very_high")
  assert sj.config.jax_numpy_rank_promotion == "allow"


def test_config_states_are_context_managers_and_decorators():
  assert not sj.enable_x64.value
  with sj.enable_x64(True):
    assert sj.config.jax_enable_x64 and jnp.asarray(1.0).dtype == np.float64
  assert jnp.asarray(1.0).dtype == np.float32
  x64 = sj.enable_x64(True)(lambda: jnp.asarray(1).dtype)
  assert x64() == np.int64 and jnp.asarray(1).dtype == np.int32
  with pytest.raises(TypeError, match="requires an argument"):
    sj.numpy_rank_promotion()
  with pytest.raises(TypeError, match="requires an argument"):
    jax.numpy_rank_promotion()
  with pytest.raises(TypeError, match="bool"):
    bool(sj.debug_nans)


def test_rank_promotion_raise_and_warn_as_jax():
  for api, np_ in ((sj, jnp), (jax, jjnp)):
    with api.numpy_rank_promotion("raise"):
      with pytest.raises(ValueError, match="jax_numpy_rank_promotion='raise'") as e:
        np_.ones(3) + np_.ones((2, 3))
      assert "add on shapes (3,) (2, 3)" in str(e.value)
      assert (np_.ones(3) + 1.0).shape == (3,)  # scalars are not rank-promoted
      assert (np_.ones((2, 3)) * np_.ones((2, 3))).shape == (2, 3)
    with api.numpy_rank_promotion("warn"):
      with pytest.warns(UserWarning, match="Following NumPy automatic rank promotion for add"):
        np_.ones(3) + np_.ones((2, 3))
  with sj.numpy_rank_promotion("raise"):
    with pytest.raises(ValueError, match="rank_promotion"):
      sj.jit(lambda a, b: a * b)(np.ones(3, np.float32), np.ones((2, 3), np.float32))


_STRICT_CASES = [("float32", 1), ("int32", 1), ("float32", 1j), ("bool", 1), ("int32", 1.0),
                 ("int32", "float32"), ("float16", "float32"), ("int8", "int8"),
                 ("complex64", 2.0), ("uint8", "int8")]


@pytest.mark.parametrize("a,b", _STRICT_CASES)
def test_dtype_promotion_strict_as_jax(a, b):
  def run(api, np_):
    x = np_.ones(3, a)
    y = np_.ones(3, b) if isinstance(b, str) else b
    with api.numpy_dtype_promotion("strict"):
      try:
        return (x + y).dtype
      except ValueError as e:
        return type(e).__name__
  want = run(jax, jjnp)
  assert run(sj, jnp) == want
  with sj.numpy_dtype_promotion("standard"):
    assert (jnp.ones(3, a) + (jnp.ones(3, b) if isinstance(b, str) else b)).dtype == (
        jjnp.ones(3, a) + (jjnp.ones(3, b) if isinstance(b, str) else b)).dtype


def test_jit_retraces_when_the_promotion_mode_changes():
  f = sj.jit(lambda a, b: a + b)
  a, b = np.ones(3, np.int32), np.ones(3, np.float32)
  assert f(a, b).dtype == np.float32
  with sj.numpy_dtype_promotion("strict"):
    with pytest.raises(ValueError, match="strict"):
      f(a, b)
  assert f(a, b).dtype == np.float32


def test_disable_jit_runs_op_by_op():
  seen = {}

  def f(x):
    seen["type"] = type(x)
    seen["concrete"] = float((x * 1).sum())  # only possible op by op
    return x * 2

  for api in (sj, jax):
    with api.disable_jit():
      out = api.jit(f)(np.ones(3, np.float32))
    assert seen["concrete"] == 3.0 and seen["type"] is np.ndarray  # passed as it is
    np.testing.assert_array_equal(out, 2 * np.ones(3))
  assert sj.config.jax_disable_jit is False
  with pytest.raises(sj.core.ConcretizationTypeError):  # traced: not concrete
    sj.jit(f)(np.ones(5, np.float32))


def test_debug_nans_eager_names_the_primitive_as_jax():
  for api, np_ in ((sj, jnp), (jax, jjnp)):
    with api.debug_nans(True):
      with pytest.raises(FloatingPointError, match=r"invalid value \(nan\) encountered in log"):
        np_.log(-1.0)
      np_.log(2.0)  # fine
    np_.log(-1.0)  # off again: no error


def test_debug_nans_under_jit_reruns_op_by_op_as_jax(capsys):
  for api, np_ in ((sj, jnp), (jax, jjnp)):
    def f(x, np_=np_):
      return np_.sqrt(x * 2)

    with api.debug_nans(True):
      assert float(api.jit(f)(2.0)) == 2.0
      with pytest.raises(FloatingPointError, match=r"invalid value \(nan\) encountered in sqrt"):
        api.jit(f)(-2.0)
  assert "de-optimized" in capsys.readouterr().out


def test_debug_infs_as_jax():
  for api, np_ in ((sj, jnp), (jax, jjnp)):
    with api.debug_infs(True):
      with pytest.raises(FloatingPointError, match=r"invalid value \(inf\) encountered in div"):
        api.jit(lambda x: 1.0 / np_.asarray(x))(0.0)
      np_.log(-1.0)  # a NaN is not an infinity


def test_log_compiles_and_explain_cache_misses(caplog):
  with caplog.at_level(logging.WARNING), sj.log_compiles(True), sj.explain_cache_misses(True):
    f = sj.jit(lambda x: x + 1)
    f(np.ones(2, np.float32))
    f(np.ones(3, np.float32))
  text = caplog.text
  assert "Compiling jit(<lambda>)" in text and "f32[3]" in text
  assert "TRACING CACHE MISS" in text and "at x, now f32[3] and before f32[2]" in text


def test_default_device_and_default_matmul_precision():
  dev = sj.devices()[0]
  with sj.default_device(dev):
    assert jnp.ones(2).device == dev
  with sj.default_device("cpu"):
    assert jnp.ones(2).device.platform == "cpu"
  with pytest.raises(ValueError, match="Device"):
    sj.config.update("jax_default_device", 3)
  assert sj.config.jax_default_matmul_precision is None


@pytest.mark.parametrize("name,want", [("highest", "HIGHEST"), ("float32", "HIGHEST"),
                                       ("tensorfloat32", "HIGH"), ("bfloat16", "DEFAULT")])
def test_default_matmul_precision_lowers_as_jax(name, want):
  x = np.ones((2, 2), np.float32)
  for api in (sj, jax):
    with api.default_matmul_precision(name):
      assert api.config.jax_default_matmul_precision == name
      text = api.jit(lambda a: a @ a).lower(x).as_text()
    assert f"precision = [{want}, {want}]" in text
  with sj.default_matmul_precision("highest"):
    np.testing.assert_array_equal(jnp.asarray(x) @ x, 2 * x)  # eagerly too
  assert "precision" not in sj.jit(lambda a: a @ a).lower(x).as_text()


# ----------------------------------------------------------------------------------------------
# top-level names (deliverable 1)

def test_typeof_as_jax():
  for x in (1.0, np.ones((2, 3), np.int32), np.float32(2)):
    got, want = sj.typeof(x), jax.typeof(x)
    assert (got.shape, got.dtype, got.weak_type) == (want.shape, want.dtype, want.weak_type)
  seen = []
  sj.jit(lambda x: seen.append(sj.typeof(x)) or x)(np.ones(4, np.float32))
  assert seen[0].shape == (4,) and seen[0].dtype == np.float32


def _locations(lowered_text: str) -> str:
  return "\n".join(line for line in lowered_text.splitlines() if line.startswith("#loc"))


def test_named_scope_in_debug_locations_as_jax():
  def make(api, np_):
    @api.named_scope("outer")
    def f(x):
      with api.named_scope("inner"):
        y = np_.sin(x)
      return y * 2
    return f

  got = _locations(sj.jit(make(sj, jnp)).lower(1.0).as_text(debug_info=True))
  want = _locations(jax.jit(make(jax, jjnp)).lower(1.0).as_text(debug_info=True))
  for name in ('"jit(f)/outer/inner/sin"', '"jit(f)/outer/mul"'):
    assert name in want and name in got
  with pytest.raises(TypeError, match="string"):
    with sj.named_scope(3):
      pass


def test_named_call_as_jax():
  def g(x):
    return jnp.cos(x) if isinstance(x, sj.core.Tracer) else jjnp.cos(x)

  got = sj.make_jaxpr(sj.named_call(g, name="my_g"))(1.0).jaxpr.eqns[0].source_info
  assert got.name_stack == (("my_g", False),)
  want = str(jax.jit(jax.named_call(g)).lower(1.0).as_text(debug_info=True))
  got = str(sj.jit(sj.named_call(g)).lower(1.0).as_text(debug_info=True))
  assert '"jit(g)/g/cos"' in want and '"jit(g)/g/cos"' in got
  assert sj.named_call(g)(0.5) == pytest.approx(float(np.cos(0.5)))


def test_linear_transpose_as_jax():
  def f(api_np):
    return lambda x, y: {"a": 0.5 * x - 2 * y, "s": api_np.sum(x)}
  x = np.ones(3, np.float32)
  ct = {"a": np.arange(3, dtype=np.float32), "s": np.float32(2)}
  got = sj.linear_transpose(f(jnp), x, x)(ct)
  want = jax.linear_transpose(f(jjnp), x, x)(ct)
  assert isinstance(got, tuple) and len(got) == 2
  for g, w in zip(got, want):
    np.testing.assert_allclose(g, w)
  shape_only = sj.linear_transpose(lambda x: 3 * x, sj.ShapeDtypeStruct((2,), np.float32))
  np.testing.assert_allclose(shape_only(np.ones(2, np.float32))[0], [3, 3])
  with pytest.raises(TypeError, match="cotangent"):
    sj.linear_transpose(f(jnp), x, x)({"a": ct["a"]})
  with pytest.raises(TypeError, match="float or complex"):
    sj.linear_transpose(lambda a, b: a, x, np.ones(3, np.int32))


def test_custom_gradient_as_jax():
  def make(api):
    @api.custom_gradient
    def f(x, y):
      return x * y, lambda g: (g * 10 * y, g * 100 * x)
    return f

  for args in ((3.0, 4.0), (2.0, -1.0)):
    got = sj.grad(lambda a, b: make(sj)(a, b) ** 2, argnums=(0, 1))(*args)
    want = jax.grad(lambda a, b: make(jax)(a, b) ** 2, argnums=(0, 1))(*args)
    np.testing.assert_allclose(got, want)
    assert float(make(sj)(*args)) == float(make(jax)(*args))
  got = sj.jit(sj.grad(make(sj)))(3.0, 4.0)
  assert float(got) == float(jax.jit(jax.grad(make(jax)))(3.0, 4.0))


def test_closure_convert_as_jax():
  counts = []

  def outer(api, np_, w):
    def f(x):
      return np_.sin(w * x)
    converted, consts = api.closure_convert(f, 1.0)
    counts.append(len(consts))
    return converted(0.5, *consts)

  got = sj.jit(lambda w: outer(sj, jnp, w))(2.0)
  want = jax.jit(lambda w: outer(jax, jjnp, w))(2.0)
  assert counts == [1, 1]
  np.testing.assert_allclose(got, want, rtol=1e-6)


def test_ensure_compile_time_eval_as_jax():
  def make(api, np_):
    def f(x):
      with api.ensure_compile_time_eval():
        z = np_.sin(3.0)
        positive = z > 0
        both = x + 1  # a traced operand: still traced
      return np_.sin(x) + both if positive else np_.cos(x)
    return f

  np.testing.assert_allclose(sj.jit(make(sj, jnp))(0.5), jax.jit(make(jax, jjnp))(0.5),
                             rtol=1e-6)
  jaxpr = sj.make_jaxpr(make(sj, jnp))(0.5)
  assert [e.primitive.name for e in jaxpr.jaxpr.eqns] == ["add", "sin", "add"]


def test_make_array_from_callback_and_single_device_arrays():
  data = np.arange(12, dtype=np.float32).reshape(4, 3)
  mesh = sj.make_mesh((1,), ("x",))
  sharding = sj.NamedSharding(mesh, sj.P("x"))
  got = sj.make_array_from_callback(data.shape, sharding, lambda idx: data[idx])
  jmesh = jax.make_mesh((1,), ("x",))
  want = jax.make_array_from_callback(data.shape, jax.NamedSharding(jmesh, jax.P("x")),
                                      lambda idx: data[idx])
  np.testing.assert_array_equal(got, want)
  assert got.dtype == want.dtype and got.shape == want.shape
  single = sj.sharding.SingleDeviceSharding(sj.devices()[0])
  got = sj.make_array_from_callback((2,), single, lambda idx: np.array([1, 2], np.int32))
  np.testing.assert_array_equal(got, [1, 2])
  parts = [sj.device_put(data, sj.devices()[0])]
  got = sj.make_array_from_single_device_arrays(data.shape, sharding, parts)
  np.testing.assert_array_equal(got, data)
  got = sj.make_array_from_process_local_data(sharding, data)
  np.testing.assert_array_equal(got, data)
  with pytest.raises(ValueError, match="shape"):
    sj.make_array_from_callback((4, 3), sharding, lambda idx: np.ones(2))


def test_environment_queries_as_jax():
  assert sj.default_backend() == jax.default_backend() == "cpu"
  assert sj.process_indices() == jax.process_indices() == [0]
  assert (sj.host_id(), sj.host_count(), sj.host_ids()) == (0, 1, [0])
  assert isinstance(sj.devices()[0], sj.Device)
  x = jnp.arange(5.0) * 3
  assert any(a.shape == (5,) for a in sj.live_arrays())
  assert sj.copy_to_host_async(x) is x
  sj.effects_barrier()
  info = sj.print_environment_info(return_string=True)
  assert "jaxlib" in info and "numpy" in info


def test_effects_barrier_waits_for_callbacks():
  seen = []
  sj.jit(lambda x: sj.debug.callback(lambda v: seen.append(float(v)), x) or x)(2.0)
  sj.effects_barrier()
  assert seen == [2.0]


def test_version():
  assert isinstance(sj.__version__, str) and sj.version.__version__ == sj.__version__
  assert isinstance(sj.__version_info__, tuple)
  assert all(isinstance(p, int) for p in sj.__version_info__)
  assert all(isinstance(p, int) for p in jax.__version_info__)


def test_typing():
  assert set(stablejax.typing.__all__) >= {"ArrayLike", "DTypeLike"}

  def f(x: stablejax.typing.ArrayLike, d: stablejax.typing.DTypeLike) -> None: ...
  assert f.__annotations__["x"] is stablejax.typing.ArrayLike
  assert sj.Array in stablejax.typing.ArrayLike.__args__
  assert np.ndarray in stablejax.typing.ArrayLike.__args__


@pytest.mark.parametrize("tree", [
    {"a": np.ones(2, np.int32), "b": (np.float32(1.5), np.ones((2, 2), np.float32))},
    [np.arange(3, dtype=np.float32)], [], (np.ones(2, np.int32), np.ones(1, np.int8))])
def test_ravel_pytree_as_jax(tree):
  flat, unravel = stablejax.flatten_util.ravel_pytree(tree)
  jflat, junravel = jax.flatten_util.ravel_pytree(tree)
  np.testing.assert_array_equal(flat, jflat)
  assert flat.dtype == jflat.dtype and flat.shape == jflat.shape
  back, jback = unravel(flat), junravel(jflat)
  assert sj.tree_util.tree_structure(back) == sj.tree_util.tree_structure(tree)
  for a, b in zip(sj.tree_util.tree_leaves(back), jax.tree_util.tree_leaves(jback)):
    np.testing.assert_array_equal(a, b)
    assert a.dtype == b.dtype


def test_top_level_reexports():
  assert sj.P is sj.sharding.PartitionSpec and sj.NamedSharding is sj.sharding.NamedSharding
  assert sj.Shard.__name__ == "Shard" and sj.ad.backward_pass
  assert sj.experimental is not None


# ----------------------------------------------------------------------------------------------
# experimental.io_callback, debug.breakpoint

def _io_program(api, ioc, log):
  def cb(x):
    log.append(float(x))
    return np.asarray(x * 2, np.float32)

  def f(x):
    a = ioc(cb, api.ShapeDtypeStruct((), np.float32), x, ordered=True)
    b = ioc(cb, api.ShapeDtypeStruct((), np.float32), x + 1, ordered=True)
    ioc(cb, api.ShapeDtypeStruct((), np.float32), x + 2, ordered=True)  # unused: still runs
    return a + b
  return f, cb


def test_io_callback_ordered_as_jax():
  import jax.experimental
  import stablejax.experimental
  for api, ioc in ((sj, stablejax.experimental.io_callback),
                   (jax, jax.experimental.io_callback)):
    log = []
    f, cb = _io_program(api, ioc, log)
    assert float(api.jit(f)(np.float32(1))) == 6.0
    assert log == [1.0, 2.0, 3.0]
    eqns = api.make_jaxpr(f)(np.float32(1)).jaxpr.eqns
    assert [e.primitive.name for e in eqns].count("io_callback") == 3
    assert all(e.params["ordered"] for e in eqns if e.primitive.name == "io_callback")
    log.clear()
    out = api.vmap(lambda x: ioc(cb, api.ShapeDtypeStruct((), np.float32), x))(
        np.arange(3, dtype=np.float32))
    np.testing.assert_array_equal(out, [0, 2, 4])
    assert log == [0.0, 1.0, 2.0]
    with pytest.raises(ValueError, match="Cannot `vmap` ordered IO callback"):
      api.vmap(f)(np.arange(3, dtype=np.float32))
    with pytest.raises(ValueError, match="IO callbacks do not support JVP"):
      api.grad(f)(np.float32(1))
    log.clear()
    assert float(f(np.float32(1))) == 6.0 and log == [1.0, 2.0, 3.0]  # eagerly


def _breakpoint_session(api, np_, commands):
  import io
  out = io.StringIO()

  def f(x):
    y = np_.sin(x)
    z = {"w": y * 2, "k": 3}
    api.debug.breakpoint(stdin=io.StringIO(commands), stdout=out)
    return y + 1

  result = api.jit(f)(np.float32(1.0))
  return float(result), out.getvalue()


def test_breakpoint_as_jax():
  commands = "p y\npp z\nl\np nope\nc\n"
  got = _breakpoint_session(sj, jnp, commands)
  want = _breakpoint_session(jax, jjnp, commands)
  assert got[0] == want[0]
  assert "Entering jdb:" in got[1] and "(jdb) Array(0.84147" in got[1]
  assert "'w': Array(1.68294" in got[1] and "*** NameError: name 'nope' is not defined" in got[1]
  strip = lambda text: [line for line in text.splitlines() if "<" not in line]  # noqa: E731
  assert strip(got[1]) == strip(want[1])


def test_breakpoint_with_a_token_and_eagerly():
  import io
  out = io.StringIO()

  def g(x):
    y = x * 3
    return sj.debug.breakpoint(token=y, stdin=io.StringIO("p x\nc\n"), stdout=out)

  assert float(sj.jit(g)(np.float32(2.0))) == 6.0
  assert "(jdb) Array(2., dtype=float32)" in out.getvalue()
  out2 = io.StringIO()
  local_value = 41  # noqa: F841  (seen by the debugger)
  sj.debug.breakpoint(stdin=io.StringIO("p local_value + 1\nc\n"), stdout=out2)
  assert "42" in out2.getvalue()
  with pytest.raises(ValueError, match="mutually exclusive"):
    sj.debug.breakpoint(token=1.0, ordered=True)


# ----------------------------------------------------------------------------------------------
# custom_batching.custom_vmap

def _custom_vmapped(cb):
  @cb.custom_vmap
  def f(x, y):
    return {"s": x + y}

  @f.def_vmap
  def rule(axis_size, in_batched, xs, ys):
    assert axis_size == 3 and in_batched == [True, False]
    return {"s": xs * ys}, {"s": True}  # not x + y: shows the rule ran

  return f


def test_custom_vmap_as_jax():
  import jax.custom_batching
  xs = np.arange(3, dtype=np.float32)
  for api, cb in ((sj, sj.custom_batching), (jax, jax.custom_batching)):
    f = _custom_vmapped(cb)
    assert float(f(2.0, 3.0)["s"]) == 5.0
    np.testing.assert_array_equal(api.vmap(f, in_axes=(0, None))(xs, 2.0)["s"], [0, 2, 4])
    np.testing.assert_array_equal(api.jit(api.vmap(f, in_axes=(0, None)))(xs, 2.0)["s"],
                                  [0, 2, 4])
    eqn = api.make_jaxpr(f)(1.0, 2.0).jaxpr.eqns[0]
    assert eqn.primitive.name == "custom_vmap_call"
    assert str(eqn.params["call"]) == str(api.make_jaxpr(lambda x, y: x + y)(1.0, 2.0))


def test_custom_vmap_errors_as_jax():
  import jax.custom_batching
  for api, cb in ((sj, sj.custom_batching), (jax, jax.custom_batching)):
    f = cb.custom_vmap(lambda x: x)
    with pytest.raises(AttributeError, match="No batching rule defined"):
      f(1.0)
    f.def_vmap(lambda n, b, x: ((x, x), True))
    with pytest.raises(ValueError, match="do not match"):
      api.vmap(f)(np.ones(3, np.float32))


# ----------------------------------------------------------------------------------------------
# checking_leaks, no_tracing, no_execution, enable_checks

def test_checking_leaks_as_jax():
  for api in (sj, jax):
    kept = []

    def leaky(x):
      kept.append(x)
      return x * 2

    with api.checking_leaks():
      with pytest.raises(Exception, match="Leaked trace"):
        api.jit(leaky)(np.float32(3.0))
      assert float(api.jit(api.grad(lambda x: api.jit(lambda y: y * y)(x)))(3.0)) == 6.0
      np.testing.assert_array_equal(
          api.jit(api.vmap(api.grad(lambda x: api.jit(lambda y: y * y)(x))))(np.ones(3)), 2.0)
    kept.clear()
    api.jit(leaky)(np.float32(4.0))  # not checked any more
  assert sj.config.jax_check_tracer_leaks is False


def test_no_tracing_and_no_execution_as_jax():
  for api, np_ in ((sj, jnp), (jax, jjnp)):
    with api.no_tracing(True):
      with pytest.raises(RuntimeError, match="re-tracing function <lambda>.*'no_tracing' is set"):
        api.jit(lambda x: x - 1)(1.0)
    g = api.jit(lambda x: x - 1)
    g(1.0)
    with api.no_tracing(True):
      assert float(g(2.0)) == 1.0  # traced already
    with api.no_execution(True):
      with pytest.raises(RuntimeError, match=r"tried to execute function jit\(<lambda>\)"):
        g(2.0)
      with pytest.raises(RuntimeError, match="no_execution config option is set"):
        np_.ones(3) + 1
    assert float(g(3.0)) == 2.0


def test_enable_checks_turns_on_the_internal_checks():
  with sj.enable_checks(True):
    assert sj.config.jax_enable_checks
    np.testing.assert_allclose(sj.jit(sj.grad(jnp.sin))(1.0), np.cos(1.0), rtol=1e-6)
  assert not sj.config.jax_enable_checks


# ----------------------------------------------------------------------------------------------
# ops, dlpack, monitoring

@pytest.mark.parametrize("name", ["segment_sum", "segment_prod", "segment_max", "segment_min"])
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
@pytest.mark.parametrize("num_segments", [None, 4, 8])
def test_segment_reductions_as_jax(name, dtype, num_segments):
  data = np.arange(12).reshape(6, 2).astype(dtype)
  ids = np.array([0, 0, 2, 2, 5, 7])  # segment 7 dropped when num_segments is 4
  got = getattr(sj.ops, name)(data, ids, num_segments)
  want = getattr(jax.ops, name)(data, ids, num_segments)
  assert got.dtype == want.dtype and got.shape == want.shape
  np.testing.assert_array_equal(got, want)


def test_segment_sum_under_jit_and_grad_as_jax():
  data, ids = np.arange(6, dtype=np.float32), np.array([0, 1, 0, 1, 2, 2])
  np.testing.assert_array_equal(sj.jit(lambda d: sj.ops.segment_sum(d, ids, 3))(data),
                                jax.ops.segment_sum(data, ids, 3))
  got = sj.grad(lambda d: sj.ops.segment_max(d, ids, 3).sum())(data)
  want = jax.grad(lambda d: jax.ops.segment_max(d, ids, 3).sum())(data)
  np.testing.assert_array_equal(got, want)


def test_dlpack_as_jax():
  x = np.arange(6, dtype=np.float32).reshape(2, 3)
  got, want = sj.dlpack.from_dlpack(x), jax.dlpack.from_dlpack(x)
  np.testing.assert_array_equal(got, want)
  assert isinstance(got, sj.Array) and got.dtype == want.dtype
  for dt in ("bfloat16", np.int8, np.bool_, np.float32):
    assert sj.dlpack.is_supported_dtype(dt) == jax.dlpack.is_supported_dtype(dt)
  with pytest.raises(TypeError, match="__dlpack__"):
    sj.dlpack.from_dlpack([1, 2])
  with pytest.raises(TypeError):
    sj.dlpack.is_supported_dtype(None)


def test_monitoring_listeners_and_the_compile_event():
  events, durations = [], []

  def on_event(event, **kwargs):
    events.append((event, kwargs))

  def on_duration(event, duration, **kwargs):
    durations.append(event)

  sj.monitoring.register_event_listener(on_event)
  sj.monitoring.register_event_duration_secs_listener(on_duration)
  try:
    sj.monitoring.record_event("/my/event", tag="x")
    sj.jit(lambda x: x * 7)(np.float32(1))
  finally:
    sj.monitoring.unregister_event_listener(on_event)
    sj.monitoring.unregister_event_duration_listener(on_duration)
  assert events == [("/my/event", {"tag": "x"})]
  assert "/jax/core/compile/backend_compile_duration" in durations
  with pytest.raises(AssertionError):
    sj.monitoring.unregister_event_listener(on_event)


# ----------------------------------------------------------------------------------------------
# transfer guards

_TRANSFERS = {
    "jit_numpy_arg": lambda api, np_: api.jit(lambda a: a * 2)(np.ones(3, np.float32)),
    "jit_python_scalar": lambda api, np_: api.jit(lambda a: a * 2)(2.0),
    "op_with_numpy": lambda api, np_: np_.ones(3) + np.ones(3, np.float32),
    "asarray_numpy": lambda api, np_: np_.asarray(np.ones(3, np.float32)),
    "device_put_numpy": lambda api, np_: api.device_put(np.ones(3, np.float32)),
    "read_back": lambda api, np_: np.asarray(api.device_put(np.ones(3, np.float32))),
    "device_get": lambda api, np_: api.device_get(api.device_put(np.ones(3, np.float32))),
}


@pytest.mark.parametrize("mode", ["allow", "log", "disallow", "log_explicit", "disallow_explicit"])
@pytest.mark.parametrize("case", sorted(_TRANSFERS))
def test_transfer_guard_as_jax(mode, case):
  def run(api, np_):
    made = _TRANSFERS[case]
    x = None if case not in ("read_back", "device_get") else made  # (made inside the guard)
    with api.transfer_guard(mode):
      try:
        (x or made)(api, np_)
        return "ok"
      except Exception as e:  # noqa: BLE001 -- the error type is compared
        assert "Disallowed host-to-device transfer" in str(e)
        return type(e).__name__
  assert run(sj, jnp) == run(jax, jjnp)


def test_transfer_guard_options_as_jax():
  for api in (sj, jax):
    with api.transfer_guard_host_to_device("disallow"):
      assert api.config.jax_transfer_guard_host_to_device == "disallow"
      assert api.config.jax_transfer_guard_device_to_host is None
    with pytest.raises(ValueError):
      api.config.update("jax_transfer_guard_host_to_device", "sometimes")


@pytest.mark.parametrize("jitted", [True, False])
def test_fwd_and_bwd_as_jax(jitted):
  x = np.arange(16, dtype=np.float32).reshape(4, 4) / 10
  ct = np.ones((4, 4), np.float32)
  results = []
  for api, np_ in ((sj, jnp), (jax, jjnp)):
    fwd, bwd = api.fwd_and_bwd(lambda a, w: np_.sin(a @ w), argnums=(0, 1), jitted=jitted)
    y, res = fwd(x, x)
    out = [y, *bwd(res, ct)]
    y2, res2 = fwd(x + 1, x)  # the bwd is reused with other residuals
    out.append(bwd(res2, ct)[1])
    fwd_aux, bwd_aux = api.fwd_and_bwd(lambda a: (np_.sin(a).sum(), a * 2), argnums=0,
                                       has_aux=True, jitted=jitted)
    y3, res3, aux = fwd_aux(x)
    out += [y3, bwd_aux(res3, np.float32(1.0)), aux]
    results.append(out)
  for got, want in zip(*results):
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_profiler_trace_and_annotations(tmp_path):
  import glob
  import gzip as gz
  with sj.profiler.trace(tmp_path):
    with sj.profiler.TraceAnnotation("my_label"):
      sj.jit(lambda x: x * 2)(np.ones(3, np.float32)).block_until_ready()
    assert sj.profiler.annotate_function(lambda: 7, name="my_function")() == 7
    with pytest.raises(RuntimeError, match="already been started"):
      sj.profiler.start_trace(tmp_path)
  (trace_file,) = glob.glob(str(tmp_path / "plugins/profile/*/*.trace.json.gz"))
  text = gz.open(trace_file).read().decode()
  assert "my_label" in text and "my_function" in text
  with pytest.raises(RuntimeError, match="No profile started"):
    sj.profiler.stop_trace()
  profile = sj.profiler.device_memory_profile()
  assert isinstance(profile, bytes) and gz.decompress(profile)
  assert set(sj.profiler.__all__) <= set(dir(jax.profiler))
