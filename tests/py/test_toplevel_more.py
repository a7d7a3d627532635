"""More of JAX's top-level names against JAX 0.10.2 (issue 33): the PRNG and numerics config
options (`default_prng_impl`, `legacy_prng_key`, `softmax_custom_jvp`, `allow_f16_reductions`,
...), `make_user_context`, `jax.memory`, `jax.ds`, `jax.api_util`, `jax.image`."""
import warnings

import jax
import numpy as np
import pytest

import stablejax as sj

_DEFAULTS = ["default_prng_impl", "enable_custom_prng", "legacy_prng_key",
             "threefry_partitionable", "debug_key_reuse", "allow_f16_reductions",
             "array_garbage_collection_guard", "auto_pcast",
             "jax2tf_associative_scan_reductions", "softmax_custom_jvp",
             "remove_size_one_mesh_axis_from_type", "thread_guard"]


def _jax_name(name):
  """JAX's name of an option (jax2tf's has no `jax_` prefix)."""
  return name if name.startswith("jax2tf") else "jax_" + name


@pytest.fixture
def restore_config():
  """Put back the options a test changes, in stablejax and in JAX."""
  saved = {n: getattr(sj.config, n) for n in _DEFAULTS}
  saved_jax = {n: getattr(jax.config, _jax_name(n)) for n in _DEFAULTS}
  yield
  for n in _DEFAULTS:
    sj.config.update(_jax_name(n), saved[n])
    jax.config.update(_jax_name(n), saved_jax[n])


# ----------------------------------------------------------------------------------------------
# config options

@pytest.mark.parametrize("name", _DEFAULTS)
def test_option_default_and_state_as_jax(name):
  ours, theirs = getattr(sj, name), getattr(jax, name)
  value = theirs.value
  value = getattr(value, "value", value)  # JAX's legacy_prng_key is an enum of str
  assert ours.value == value == getattr(sj.config, _jax_name(name))
  with pytest.raises(TypeError):
    bool(ours)


@pytest.mark.parametrize("name, value", [("default_prng_impl", "no_such_impl"),
                                         ("legacy_prng_key", "sometimes"),
                                         ("array_garbage_collection_guard", "loud")])
def test_bad_enum_values_raise_as_jax(name, value):
  with pytest.raises(ValueError) as theirs:
    jax.config.update("jax_" + name, value)
  with pytest.raises(ValueError) as ours:
    sj.config.update("jax_" + name, value)
  assert str(ours.value).split()[-4:] == str(theirs.value).split()[-4:] or \
      str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("name, value", [("default_prng_impl", "rbg"),
                                         ("threefry_partitionable", False),
                                         ("enable_custom_prng", True), ("debug_key_reuse", True),
                                         ("array_garbage_collection_guard", "fatal"),
                                         ("auto_pcast", False), ("thread_guard", True),
                                         ("remove_size_one_mesh_axis_from_type", True)])
def test_values_without_behaviour_are_refused(name, value, restore_config):
  before = getattr(sj.config, name)
  with pytest.raises(NotImplementedError, match=f"jax_{name}"):
    sj.config.update("jax_" + name, value)
  with pytest.raises(NotImplementedError):
    with getattr(sj, name)(value):
      pass
  assert getattr(sj.config, name) == before


def test_supported_values_are_accepted(restore_config):
  for name, value in [("default_prng_impl", "threefry2x32"),
                      ("array_garbage_collection_guard", "allow"),
                      ("jax2tf_associative_scan_reductions", True)]:
    sj.config.update(_jax_name(name), value)
    assert getattr(sj.config, name) == value


def test_default_prng_impl_is_the_impl_of_key():
  with sj.default_prng_impl("threefry2x32"):
    assert sj.random.key_impl(sj.random.key(0)) == "threefry2x32"
  np.testing.assert_array_equal(sj.random.key_data(sj.random.key(7)),
                                jax.random.key_data(jax.random.key(7)))


def test_legacy_prng_key_error_and_warn_as_jax(restore_config):
  for mode in ("error", "warn"):
    sj.config.update("jax_legacy_prng_key", mode)
    jax.config.update("jax_legacy_prng_key", mode)
    for lib in (sj, jax):
      raw = lib.random.PRNGKey(0)  # making one is allowed; using one is not
      if mode == "error":
        with pytest.raises(ValueError, match="Legacy uint32 key array"):
          lib.random.uniform(raw)
      else:
        with pytest.warns(UserWarning, match="Legacy uint32 key array"):
          lib.random.normal(raw)
    with warnings.catch_warnings():
      warnings.simplefilter("error")
      np.testing.assert_allclose(sj.random.uniform(sj.random.key(1), (3,)),
                                 jax.random.uniform(jax.random.key(1), (3,)), rtol=1e-6)


@pytest.mark.parametrize("custom", [False, True])
def test_softmax_custom_jvp_selects_the_derivative(custom, restore_config):
  x = np.array([[1., 2., 3.], [0.5, 7., -1.]], np.float32)
  sj.config.update("jax_softmax_custom_jvp", custom)
  jax.config.update("jax_softmax_custom_jvp", custom)
  ours = sj.grad(lambda x: sj.nn.softmax(x)[0, 1] * sj.nn.softmax(x)[1, 0])(x)
  theirs = jax.grad(lambda x: jax.nn.softmax(x)[0, 1] * jax.nn.softmax(x)[1, 0])(x)
  np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-7)


def test_softmax_custom_jvp_changes_the_traced_program():
  x = np.ones((2, 3), np.float32)
  f = sj.jit(sj.grad(lambda x: sj.nn.softmax(x).sum()))
  with sj.softmax_custom_jvp(False):
    a = str(sj.make_jaxpr(sj.grad(lambda x: sj.nn.softmax(x)[0, 0]))(x))
    f(x)
  with sj.softmax_custom_jvp(True):
    b = str(sj.make_jaxpr(sj.grad(lambda x: sj.nn.softmax(x)[0, 0]))(x))
    f(x)
  assert a != b


def test_allow_f16_reductions_as_jax(restore_config):
  x = np.arange(6, dtype=np.float16)
  sj.config.update("jax_allow_f16_reductions", False)
  jax.config.update("jax_allow_f16_reductions", False)
  for lib in (sj, jax):
    with pytest.raises(ValueError, match="jax_allow_f16_reductions=False"):
      lib.lax.reduce_sum(x, (0,))
    with pytest.raises(ValueError, match="jax_allow_f16_reductions=False"):
      lib.jit(lambda v: lib.lax.reduce_sum(v, (0,)))(x.astype(jax.numpy.bfloat16))
    assert lib.lax.reduce_sum(x.reshape(6, 1), (1,)).dtype == np.float16  # size-1 axes: allowed
    assert lib.lax.reduce_sum(x.astype(np.float32), (0,)) == 15
  with sj.allow_f16_reductions(True):
    assert float(sj.lax.reduce_sum(x, (0,))) == 15


def test_make_user_context_keys_the_jit_cache():
  ctx = sj.make_user_context(default_value=2.)
  assert ctx.value == 2. and ctx.get_global() == 2.
  traces = []

  @sj.jit
  def f(x):
    traces.append(1)
    return x * ctx.value

  assert float(f(1.)) == 2.
  with ctx(3.):
    assert ctx.value == 3.
    assert float(f(1.)) == 3.
  assert float(f(1.)) == 2.
  assert len(traces) == 2
  ctx.set_global(5.)
  assert float(f(1.)) == 5. and len(traces) == 3
  ctx.set_global(2.)


# ----------------------------------------------------------------------------------------------
# jax.memory, jax.ds

def test_memory_space_as_jax():
  assert [(m.name, m.value) for m in sj.memory.Space] == \
      [(m.name, m.value) for m in jax.memory.Space]
  assert repr(sj.memory.Space.Host) == repr(jax.memory.Space.Host) == "MemorySpace.Host"
  assert len({sj.memory.Space.Device, sj.memory.Space.Any}) == 2


_DS_CASES = [(4, 2, None), (-3, 2, None), (7, 3, 2), (-3, 2, 2), (20, 2, None), (0, 10, None),
             (1, 3, 3)]


@pytest.mark.parametrize("start, size, stride", _DS_CASES)
def test_ds_indexing_as_jax(start, size, stride):
  x = np.arange(10, dtype=np.float32)
  ours = sj.numpy.asarray(x)[sj.ds(start, size, stride)]
  np.testing.assert_array_equal(ours, jax.numpy.asarray(x)[jax.ds(start, size, stride)])
  traced = sj.jit(lambda x, i: x[sj.ds(i, size, stride)])(x, start)
  np.testing.assert_array_equal(traced, jax.jit(lambda x, i: x[jax.ds(i, size, stride)])(x, start))


def test_ds_with_other_indices_and_grad():
  y = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
  for idx in [lambda d, m: (Ellipsis, d(1, 2)), lambda d, m: (m.array([0, 1]), d(1, 2)),
              lambda d, m: (None, d(0, 2, 2), 0), lambda d, m: (1, d(2))]:
    np.testing.assert_array_equal(sj.numpy.asarray(y)[idx(sj.ds, sj.numpy)],
                                  jax.numpy.asarray(y)[idx(jax.ds, jax.numpy)])
  g = sj.grad(lambda x, i: (x[sj.ds(i, 2)] ** 2).sum())(y[0, 0], 1)
  np.testing.assert_array_equal(g, jax.grad(lambda x, i: (x[jax.ds(i, 2)] ** 2).sum())(y[0, 0], 1))


def test_ds_is_a_pytree_and_parses_as_jax():
  assert sj.ds(None) == slice(None) and sj.ds(3) == type(sj.ds(3))(0, 3, 1)
  assert (sj.ds(2, 3, 2).start, sj.ds(2, 3, 2).size, sj.ds(2, 3, 2).stride) == (2, 3, 2)
  assert sj.tree_util.tree_leaves(sj.ds(1, 2)) == []
  assert sj.tree_util.tree_leaves(sj.ds(np.int32(1), 2)) == []  # a known start is static
  seen = []
  sj.jit(lambda i: seen.append(len(sj.tree_util.tree_leaves(sj.ds(i, 2)))))(1)
  assert seen == [1]
  with pytest.raises(ValueError, match="Non-static stride"):
    sj.ds(0, 2, np.float32(1.))
  with pytest.raises(ValueError, match="stride"):
    sj.ds(0, 2, -1)
  with pytest.raises(NotImplementedError, match="jax.ds"):
    sj.numpy.zeros(4).at[sj.ds(0, 2)].set(1.)


# ----------------------------------------------------------------------------------------------
# jax.image

_METHODS = ["nearest", "linear", "cubic", "cubic-pytorch", "lanczos3", "lanczos5", "area"]


@pytest.mark.parametrize("method", _METHODS)
@pytest.mark.parametrize("antialias", [True, False])
def test_resize_as_jax(method, antialias):
  x = np.random.RandomState(0).randn(2, 5, 7, 3).astype(np.float32)
  for shape in [(2, 9, 4, 3), (2, 3, 11, 3), (1, 2, 14, 3), (2, 5, 7, 3)]:
    ours = sj.image.resize(x, shape, method, antialias)
    theirs = jax.image.resize(x, shape, method, antialias)
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("method", _METHODS[1:])
@pytest.mark.parametrize("antialias", [True, False])
def test_scale_and_translate_as_jax(method, antialias):
  x = np.random.RandomState(1).randn(2, 5, 7).astype(np.float32)
  args = ((2, 8, 6), (1, 2), np.array([1.7, 0.8], np.float32), np.array([0.3, -1.2], np.float32),
          method, antialias)
  ours, theirs = sj.image.scale_and_translate(x, *args), jax.image.scale_and_translate(x, *args)
  np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-5)


def test_image_under_jit_and_grad_and_dtypes():
  x = np.random.RandomState(2).randn(4, 6).astype(np.float32)
  ours = sj.jit(lambda x: sj.image.resize(x, (7, 3), "bicubic"))(x)
  np.testing.assert_allclose(ours, jax.image.resize(x, (7, 3), "bicubic"), rtol=1e-5, atol=1e-6)
  g = sj.grad(lambda s: sj.image.scale_and_translate(x, (5, 5), (0, 1), s, np.zeros(2),
                                                     "linear").sum())(np.array([1.3, 0.9]))
  jg = jax.grad(lambda s: jax.image.scale_and_translate(x, (5, 5), (0, 1), s, np.zeros(2),
                                                        "linear").sum())(np.array([1.3, 0.9]))
  np.testing.assert_allclose(g, jg, rtol=1e-4, atol=1e-5)
  ints = np.arange(6, dtype=np.int32).reshape(2, 3)
  assert sj.image.resize(ints, (4, 6), "linear").dtype == jax.image.resize(ints, (4, 6),
                                                                             "linear").dtype
  assert sj.image.resize(ints, (4, 6), "nearest").dtype == np.int32


def test_image_methods_and_errors_as_jax():
  assert [(m.name, m.value) for m in sj.image.ResizeMethod] == \
      [(m.name, m.value) for m in jax.image.ResizeMethod]
  for name in ["bilinear", "tricubic", "bicubic-pytorch", "triangle", "area", "lanczos5"]:
    assert sj.image.ResizeMethod.from_string(name).name == \
        jax.image.ResizeMethod.from_string(name).name
  x = np.ones((3, 3), np.float32)
  for lib in (sj, jax):
    with pytest.raises(ValueError, match="Unknown resize method"):
      lib.image.resize(x, (4, 4), "bogus")
    with pytest.raises(ValueError, match="shape must have length"):
      lib.image.resize(x, (4,), "linear")
    with pytest.raises(ValueError, match="Nearest neighbor"):
      lib.image.scale_and_translate(x, (4, 4), (0,), np.ones(1), np.zeros(1), "nearest")


# ----------------------------------------------------------------------------------------------
# smap

def test_smap_maps_one_mesh_axis():
  x = np.arange(8.).reshape(2, 4)
  # (an Auto axis: on an Explicit one JAX's and stablejax's shard_map check in_specs against
  # the arguments' types, and a numpy argument is unsplit)
  with sj.set_mesh(sj.make_mesh((1,), ("i",), axis_types=(sj.sharding.AxisType.Auto,))):
    np.testing.assert_array_equal(
        sj.smap(lambda x: x * 2, in_axes=1, out_axes=1, axis_name="i")(x), x * 2)
    summed = sj.smap(lambda x: sj.lax.psum(x, "i"), in_axes=0, out_axes=None, axis_name="i")(x)
    np.testing.assert_array_equal(summed, x)
    pair = sj.smap(in_axes=(0, None), out_axes=0, axis_name="i")(lambda a, b: a + b)
    np.testing.assert_array_equal(pair(x, x[0]), x + x[0])


@pytest.mark.parametrize("kwargs", [dict(in_axes=[0], out_axes=0, axis_name="i"),
                                    dict(in_axes=(0.5,), out_axes=0, axis_name="i"),
                                    dict(in_axes=0, out_axes="x", axis_name="i"),
                                    dict(in_axes=0, out_axes=0, axis_name=("i",))])
def test_smap_bad_arguments_raise_as_jax(kwargs):
  with pytest.raises(TypeError) as theirs:
    jax.smap(lambda x: x, **kwargs)
  with pytest.raises(TypeError) as ours:
    sj.smap(lambda x: x, **kwargs)
  assert str(ours.value) == str(theirs.value)


# ----------------------------------------------------------------------------------------------
# jax.api_util

def test_api_util_flatten_and_partial_as_jax():
  from jax.extend import linear_util as jlu

  from stablejax.linear_util import wrap_init

  def f(x, y, *, z=1):
    return {"s": x["a"] + y * z, "t": (y,)}

  args, kwargs = ({"a": 1.}, 2.), {"z": 3.}
  jax_info = jax.api_util.debug_info("test", f, args, kwargs)
  for lib, wrapped in ((sj, wrap_init(f)), (jax, jlu.wrap_init(f, debug_info=jax_info))):
    tree = lib.tree_util.tree_structure((args, kwargs))
    flat, out_tree = lib.api_util.flatten_fun(wrapped, tree)
    assert list(map(float, flat.call_wrapped(1., 2., 3.))) == [7., 2.]
    assert lib.tree_util.tree_unflatten(out_tree(), [0, 1]) == {"s": 0, "t": (1,)}
  g, dyn = sj.api_util.argnums_partial(wrap_init(lambda x, y, w: x * y - w), (0, 2), (3, 4, 5))
  assert dyn == (3, 5) and g.call_wrapped(*dyn) == 7
  with pytest.raises(ValueError, match="Non-hashable static arguments"):
    sj.api_util.argnums_partial(wrap_init(lambda x, y: x), (0,), (1, []))
  flat, _ = sj.api_util.flatten_fun_nokwargs(wrap_init(lambda a, b: a * b),
                                             sj.tree_util.tree_structure((1, 2)))
  assert flat.call_wrapped(3, 4) == [12]


def test_api_util_helpers_as_jax():
  for lib in (sj, jax):
    tree = lib.tree_util.tree_structure((({"a": 1, "b": 2}, 3), {"k": 4}))
    assert lib.api_util.donation_vector((0,), ("k",), tree) == (True, True, False, True)
    axes = lib.api_util.flatten_axes("vmap in_axes", lib.tree_util.tree_structure(((1, 2), 3)),
                                     (0, None))
    assert list(axes) == [0, 0, None]
    with pytest.raises(ValueError, match="vmap in_axes specification must be a tree prefix"):
      lib.api_util.flatten_axes("vmap in_axes", lib.tree_util.tree_structure(((1, 2), 3)),
                                (0, None, 1))
    assert lib.api_util.rebase_donate_argnums((1, 3), (0, 2)) == (0, 1)
    assert lib.api_util.safe_map(lambda a, b: a + b, [1, 2], [3, 4]) == [4, 6]
    with pytest.raises(ValueError):
      lib.api_util.safe_map(lambda a, b: a, [1], [1, 2])
  for x in [np.ones((2, 3), np.float32), 1.0, jax.ShapeDtypeStruct((2,), np.int32)]:
    ours, theirs = sj.api_util.shaped_abstractify(x), jax.api_util.shaped_abstractify(x)
    assert (ours.shape, ours.dtype, ours.weak_type) == (theirs.shape, theirs.dtype,
                                                          theirs.weak_type)


def test_api_util_debug_info_as_jax():
  def f(x, y, *, z=1):
    return x

  args, kwargs = ({"a": 1, "b": [2, 3]}, 2), {"z": 3}
  ours = sj.api_util.debug_info("jit", f, args, kwargs, static_argnums=(1,))
  theirs = jax.api_util.debug_info("jit", f, args, kwargs, static_argnums=(1,))
  assert (ours.traced_for, ours.func_src_info, ours.arg_names) == \
      (theirs.traced_for, theirs.func_src_info, theirs.arg_names)
