"""lax names added for JAX 0.10.2's census (issue 33): scatter_sub, scatter_apply, tile,
the dot-algorithm and RNG enums, rng_bit_generator, each compared with JAX."""
import numpy as np
import pytest

import stablejax as sj
from stablejax import lax, test_util
from stablejax.interpreters import dce

jax = pytest.importorskip("jax")
jlax = jax.lax

_DN = dict(update_window_dims=(1,), inserted_window_dims=(0,),
           scatter_dims_to_operand_dims=(0,))


def _dn(module):
  return module.ScatterDimensionNumbers(**_DN)


def test_scatter_sub_matches_jax_values_and_grads():
  x = np.arange(20, dtype=np.float32).reshape(5, 4)
  idx = np.array([[0], [2], [0], [7]], np.int32)
  u = np.linspace(1, 2, 16, dtype=np.float32).reshape(4, 4)
  ours = sj.jit(lambda x, u: lax.scatter_sub(x, idx, u, _dn(lax)))(x, u)
  theirs = jlax.scatter_sub(x, idx, u, _dn(jlax))
  np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs))
  f = lambda m, l: lambda x, u: (m.scatter_sub(x, idx, u, _dn(l)) ** 2).sum()
  g_ours = sj.grad(f(lax, lax), argnums=(0, 1))(x, u)
  g_theirs = jax.grad(f(jlax, jlax), argnums=(0, 1))(x, u)
  for a, b in zip(g_ours, g_theirs):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6)


def test_scatter_apply_applies_once_per_occurrence():
  x = np.arange(1, 21, dtype=np.float32).reshape(5, 4)
  idx = np.array([[0], [2], [0], [9]], np.int32)
  ours = sj.jit(lambda x: lax.scatter_apply(x, idx, lambda v: v * 2 + 1, _dn(lax),
                                            update_shape=(4, 4)))(x)
  theirs = jlax.scatter_apply(x, idx, lambda v: v * 2 + 1, _dn(jlax), update_shape=(4, 4))
  np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs))
  assert not np.array_equal(np.asarray(ours), x)


@pytest.mark.parametrize("name, args, kw", [
    ("tile", [np.arange(6.).reshape(2, 3)], dict(reps=(2, 3))),
    ("split", [np.arange(12.).reshape(3, 4)], dict(sizes=(1, 3), axis=-1)),
    ("stack", [[np.arange(3.), np.ones(3)]], dict(axis=-1)),
    ("unstack", [np.arange(6.).reshape(2, 3)], dict(axis=1)),
])
def test_stacking_primitives_match_jax(name, args, kw):
  ours, theirs = getattr(lax, name), getattr(jlax, name)
  f = lambda g: lambda *a: g(*a, **kw)
  outs = sj.tree_util.tree_leaves(sj.jit(f(ours))(*args))
  expected = jax.tree_util.tree_leaves(f(theirs)(*args))
  assert len(outs) == len(expected)
  for a, b in zip(outs, expected):
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
  prim = getattr(lax, name + "_p")
  assert prim.name == getattr(jlax, name + "_p").name
  assert prim.name in str(sj.make_jaxpr(f(ours))(*args))
  # reverse mode through the primitive (its transpose) and vmap (its batching rule)
  loss = lambda m: lambda *a: sum((o * o).sum() for o in m.tree_util.tree_leaves(f(
      getattr(m.lax, name))(*a)))
  np.testing.assert_allclose(np.asarray(sj.tree_util.tree_leaves(sj.grad(loss(sj))(*args))[0]),
                             np.asarray(jax.tree_util.tree_leaves(jax.grad(loss(jax))(*args))[0]))
  batched = sj.tree_util.tree_leaves(sj.vmap(f(ours))(*[np.stack([a, a]) if not isinstance(
      a, list) else [np.stack([x, x]) for x in a] for a in args]))
  for a, b in zip(batched, expected):
    np.testing.assert_array_equal(np.asarray(a)[1], np.asarray(b))


def test_split_refuses_wrong_sizes_as_jax():
  with pytest.raises(ValueError):
    jlax.split(np.ones(4), (1, 2))
  with pytest.raises(ValueError, match="Sum of sizes"):
    lax.split(np.ones(4), (1, 2))


@pytest.mark.parametrize("algorithm", list(jlax.RandomAlgorithm))
@pytest.mark.parametrize("dtype", [np.uint8, np.uint32, np.uint64])
@pytest.mark.parametrize("key", [np.array([1, 2, 3, 4], np.uint32),
                                 np.array([5, 6], np.uint64)])
def test_rng_bit_generator_is_bit_identical_to_jax(algorithm, dtype, key):
  with test_util.x64(True), jax.enable_x64(True):
    ours = sj.jit(lambda k: lax.rng_bit_generator(k, (3, 5), dtype,
                                                  lax.RandomAlgorithm(int(algorithm))))(key)
    theirs = jlax.rng_bit_generator(key, (3, 5), dtype, algorithm)
  assert str(lax.RandomAlgorithm(int(algorithm))) == str(algorithm)
  for a, b in zip(ours, theirs):
    assert np.asarray(a).dtype == np.asarray(b).dtype
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_rng_bit_generator_vmaps_per_key_and_refuses_bad_input():
  keys = np.arange(8, dtype=np.uint32).reshape(2, 4)
  new_keys, bits = sj.vmap(lambda k: lax.rng_bit_generator(k, (4,)))(keys)
  for i in range(2):
    k, b = jlax.rng_bit_generator(keys[i], (4,))
    np.testing.assert_array_equal(np.asarray(bits)[i], np.asarray(b))
    np.testing.assert_array_equal(np.asarray(new_keys)[i], np.asarray(k))
  with pytest.raises(TypeError, match="unsupported dtype"):
    lax.rng_bit_generator(keys[0], (2,), np.int32)
  with pytest.raises(TypeError, match="uint32\\[4\\]"):
    lax.rng_bit_generator(np.zeros(3, np.uint32), (2,))


def test_dot_algorithm_enums_follow_jax():
  assert [m.name for m in lax.DotAlgorithmPreset] == [m.name for m in jlax.DotAlgorithmPreset]
  assert lax.DotAlgorithm._fields == jlax.DotAlgorithm._fields
  assert lax.DotAlgorithm(np.float32, np.float32, np.float32) == tuple(
      jlax.DotAlgorithm(np.float32, np.float32, np.float32))
  assert [(m.name, m.value) for m in lax.AccuracyMode] == [(m.name, m.value)
                                                          for m in jlax.AccuracyMode]
  assert [(m.name, int(m)) for m in lax.RandomAlgorithm] == [(m.name, int(m))
                                                             for m in jlax.RandomAlgorithm]


@pytest.mark.parametrize("precision", [lax.DotAlgorithmPreset.DEFAULT, "DEFAULT"])
def test_dot_default_algorithm_matches_jax(precision):
  x = np.arange(6, dtype=np.float32).reshape(2, 3)
  jprecision = precision if isinstance(precision, str) else jlax.DotAlgorithmPreset.DEFAULT
  np.testing.assert_allclose(np.asarray(sj.jit(lambda a: lax.dot(a, a.T, precision=precision))(x)),
                             np.asarray(jlax.dot(x, x.T, precision=jprecision)))


@pytest.mark.parametrize("precision", [lax.DotAlgorithmPreset.BF16_BF16_F32, "F32_F32_F32",
                                       lax.DotAlgorithm(np.float32, np.float32, np.float32)])
def test_dot_other_algorithms_are_refused_clearly(precision):
  x = np.ones((2, 3), np.float32)
  with pytest.raises(NotImplementedError, match="dot algorithm"):
    lax.dot_general(x, x, (((1,), (1,)), ((), ())), precision=precision)


@pytest.mark.parametrize("kw", [dict(atol=-1.0), dict(), dict(ulps=-1)])
def test_tolerance_checks_as_jax(kw):
  with pytest.raises(ValueError) as theirs:
    jlax.Tolerance(**kw)
  with pytest.raises(ValueError) as ours:
    lax.Tolerance(**kw)
  assert str(ours.value) == str(theirs.value)
  t = lax.Tolerance(atol=1e-3, ulps=2)
  assert (t.atol, t.rtol, t.ulps) == (1e-3, 0.0, 2)


def test_copy_p_is_the_identity_with_jax_rules():
  x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
  assert lax.copy_p.name == jlax.copy_p.name
  f = lambda m: lambda x: (m.copy_p.bind(x) * x).sum()
  np.testing.assert_allclose(np.asarray(sj.grad(f(lax))(x)), np.asarray(jax.grad(f(jlax))(x)))
  np.testing.assert_array_equal(np.asarray(sj.vmap(lax.copy_p.bind)(x)), x)
  assert "copy" in str(sj.make_jaxpr(lax.copy_p.bind)(x))


def test_rng_uniform_is_in_range_with_jax_types():
  lo, hi = np.float32(2.0), np.float32(3.0)
  ours = sj.jit(lambda a, b: lax.rng_uniform(a, b, (100,)))(lo, hi)
  theirs = jax.jit(lambda a, b: jlax.rng_uniform(a, b, (100,)))(lo, hi)
  assert (np.asarray(ours).shape, np.asarray(ours).dtype) == (np.asarray(theirs).shape,
                                                              np.asarray(theirs).dtype)
  assert ((np.asarray(ours) >= 2) & (np.asarray(ours) < 3)).all()
  assert np.unique(np.asarray(ours)).size > 50
  with pytest.raises(ValueError, match="identical dtypes"):
    lax.rng_uniform(lo, np.int32(3), (2,))
  with pytest.raises(ValueError, match="scalars"):
    lax.rng_uniform(np.zeros(2, np.float32), hi, (2,))


def test_rng_uniform_vmaps_over_its_bounds():
  lo = np.array([0.0, 10.0], np.float32)
  out = np.asarray(sj.vmap(lambda a: lax.rng_uniform(a, a + 1, (50,)))(lo))
  assert out.shape == (2, 50)
  assert ((out >= lo[:, None]) & (out < lo[:, None] + 1)).all()


@pytest.mark.parametrize("name", ["approx_max_k", "approx_min_k"])
@pytest.mark.parametrize("dim", [0, -1])
def test_approx_k_is_exact_as_jax_on_cpu(name, dim):
  x = np.random.default_rng(0).permutation(24).astype(np.float32).reshape(4, 6)
  ours = sj.jit(lambda x: getattr(lax, name)(x, 3, dim))(x)
  theirs = getattr(jlax, name)(x, 3, dim)
  for a, b in zip(ours, theirs):
    assert np.asarray(a).dtype == np.asarray(b).dtype
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
  loss = lambda m: lambda x: (getattr(m, name)(x, 3, dim)[0] ** 2).sum()
  np.testing.assert_allclose(np.asarray(sj.grad(loss(lax))(x)),
                             np.asarray(jax.grad(loss(jlax))(x)))
  batched = sj.vmap(lambda x: getattr(lax, name)(x, 2, dim))(np.stack([x, -x]))
  expected = jax.vmap(lambda x: getattr(jlax, name)(x, 2, dim))(np.stack([x, -x]))
  for a, b in zip(batched, expected):
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_approx_k_refuses_as_jax():
  x = np.ones((2, 3), np.float32)
  for bad in [dict(k=0), dict(k=4)]:
    with pytest.raises(ValueError):
      jlax.approx_max_k(x, **bad)
    with pytest.raises(ValueError):
      lax.approx_max_k(x, **bad)
  with pytest.raises(ValueError, match="floating"):
    lax.approx_max_k(np.ones(3, np.int32), 1)


def test_pshuffle_pswapaxes_pbroadcast_match_jax_under_vmap():
  x = np.arange(24, dtype=np.float32).reshape(4, 2, 3)
  cases = [(lambda m: lambda v: m.pshuffle(v, "i", [2, 0, 3, 1]), x),
           (lambda m: lambda v: m.pswapaxes(v, "i", 0), np.arange(32.).reshape(4, 4, 2))]
  for make, arg in cases:
    ours = sj.vmap(make(lax), axis_name="i")(arg)
    theirs = jax.vmap(make(jlax), axis_name="i")(arg)
    np.testing.assert_array_equal(np.asarray(ours), np.asarray(theirs))
  ours = sj.vmap(lambda v: lax.pbroadcast(v, "i", 2), axis_name="i")(x)
  np.testing.assert_array_equal(np.asarray(ours), np.broadcast_to(x[2], x.shape))
  with pytest.raises(ValueError, match="permutation"):
    sj.vmap(lambda v: lax.pshuffle(v, "i", [0, 0, 1, 2]), axis_name="i")(x)


@pytest.mark.parametrize("shape", [(2, 3), (), (2**33,)])
def test_shape_as_value_matches_jax(shape):
  ours, theirs = lax.shape_as_value(shape), jlax.shape_as_value(shape)
  assert np.asarray(ours).dtype == np.asarray(theirs).dtype
  np.testing.assert_array_equal(np.asarray(ours), np.asarray(theirs))


def _by_platform(m):
  return lambda x: m.platform_dependent(x, cpu=lambda v: v * 2.0, cuda=lambda v: v + 100.0,
                                        default=lambda v: -v)


def test_platform_dependent_takes_the_cpu_branch_as_jax():
  x = np.float32(3.0)
  for fn in (_by_platform(lax), sj.jit(_by_platform(lax))):
    assert float(fn(x)) == float(_by_platform(jlax)(x)) == 6.0
  assert float(lax.platform_dependent(x, tpu=lambda v: v, default=lambda v: v - 1)) == 2.0
  with pytest.raises(ValueError, match="cuda"):
    lax.platform_dependent(x, gpu=lambda v: v)
  # one branch runs everywhere; several without one for the platform are refused, as JAX
  assert float(sj.jit(lambda v: lax.platform_dependent(v, tpu=lambda u: u))(x)) == 3.0
  with pytest.raises(NotImplementedError, match="no branch for platform 'cpu'"):
    lax.platform_dependent(x, tpu=lambda u: u, cuda=lambda u: u + 1)


def test_platform_dependent_in_a_multi_platform_module_is_a_case():
  lowered = sj.jit(_by_platform(lax)).lower(np.float32(3), platforms=("cuda", "cpu"))
  assert "stablehlo.case" in lowered.as_text()
  assert float(lowered.compile()(np.float32(3))) == 6.0


@pytest.mark.parametrize("sizes", [[2, 0, 3], [1, 1, 1], [0, 6, 0]])
def test_ragged_dot_matches_jax_values_and_grads(sizes):
  rng = np.random.default_rng(0)
  lhs = rng.normal(size=(6, 4)).astype(np.float32)
  rhs = rng.normal(size=(3, 4, 5)).astype(np.float32)
  gs = np.array(sizes, np.int32)
  ours = sj.jit(lax.ragged_dot)(lhs, rhs, gs)
  theirs = jlax.ragged_dot(lhs, rhs, gs)
  assert np.asarray(ours).dtype == np.asarray(theirs).dtype
  np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=1e-5, atol=1e-6)
  loss = lambda m: lambda a, b: (m.ragged_dot(a, b, gs) ** 2).sum()
  for a, b in zip(sj.grad(loss(lax), argnums=(0, 1))(lhs, rhs),
                  jax.grad(loss(jlax), argnums=(0, 1))(lhs, rhs)):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-4, atol=1e-5)
  dn = lax.RaggedDotDimensionNumbers([[[1], [1]], [[], []]], [0], [0])
  assert dn.dot_dimension_numbers == jlax.RaggedDotDimensionNumbers(
      [[[1], [1]], [[], []]], [0], [0]).dot_dimension_numbers
  np.testing.assert_allclose(np.asarray(lax.ragged_dot_general(lhs, rhs, gs, dn)),
                             np.asarray(theirs), rtol=1e-5, atol=1e-6)


def test_ragged_dot_general_refuses_other_modes_clearly():
  dn = lax.RaggedDotDimensionNumbers((((1,), (1,)), ((), ())), (1,), ())
  with pytest.raises(NotImplementedError, match="ragged_dot"):
    lax.ragged_dot_general(np.ones((2, 3)), np.ones((3, 4)), np.ones(1, np.int32), dn)


def _my_tangent(m):
  return m.composite(lambda x, *, scale: m.tan(x) * scale, name="my.tangent", version=1)


def test_composite_computes_its_decomposition_as_a_stablehlo_composite():
  x = np.linspace(0.1, 1.0, 4, dtype=np.float32)
  ours = sj.jit(lambda v: _my_tangent(lax)(v, scale=2.0))
  theirs = jax.jit(lambda v: _my_tangent(jlax)(v, scale=2.0))
  np.testing.assert_allclose(np.asarray(ours(x)), np.asarray(theirs(x)), rtol=1e-6)
  np.testing.assert_allclose(np.asarray(_my_tangent(lax)(x, scale=2.0)), np.tan(x) * 2, rtol=1e-6)
  text = ours.lower(x).as_text()
  assert 'stablehlo.composite "my.tangent"' in text and "version = 1" in text
  assert "scale = 2.0" in text and "decomposition = @" in text
  with pytest.raises(ValueError, match="JVP rule for composite"):
    sj.grad(lambda v: _my_tangent(lax)(v, scale=1.0).sum())(x)


@pytest.mark.parametrize("dn", [None, ("NHWC", "HWIO", "NHWC"), ("NCHW", "OIHW", "NHWC")])
def test_conv_general_dilated_local_matches_jax(dn):
  rng = np.random.default_rng(0)
  shape = {None: (2, 3, 6, 5), ("NHWC", "HWIO", "NHWC"): (2, 6, 5, 3)}.get(dn, (2, 3, 6, 5))
  lhs = rng.normal(size=shape).astype(np.float32)
  filter_shape, strides, padding = (3, 2), (1, 2), ((1, 1), (0, 1))
  out_spatial = (6, 3)
  rhs_spec = (dn or ("NCHW", "OIHW", "NCHW"))[1]
  sizes = {"O": 4, "I": 3 * 6, "H": out_spatial[0], "W": out_spatial[1]}
  rhs = rng.normal(size=[sizes[c] for c in rhs_spec]).astype(np.float32)
  args = (lhs, rhs, strides, padding, filter_shape)
  ours = sj.jit(lambda l, r: lax.conv_general_dilated_local(l, r, *args[2:],
                                                            dimension_numbers=dn))(lhs, rhs)
  theirs = jlax.conv_general_dilated_local(*args, dimension_numbers=dn)
  assert np.asarray(ours).shape == np.asarray(theirs).shape
  np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=1e-5, atol=1e-5)


def test_dce_sink_keeps_its_operand_in_the_jaxpr_as_jax():
  def f(m):
    def g(x):
      m.dce_sink({"a": m.sin(x)})
      return x * 2.0
    return g
  x = np.float32(1.5)
  ours, theirs = sj.make_jaxpr(f(lax))(x), jax.make_jaxpr(f(jlax))(x)
  assert "sin" in str(ours) and "dce_sink" in str(ours) and "dce_sink" in str(theirs)
  assert "sin" in str(dce.dce_jaxpr(ours))  # kept: the sink uses it
  assert float(sj.jit(f(lax))(x)) == 3.0
  assert float(sj.grad(f(lax))(x)) == float(jax.grad(f(jlax))(x)) == 2.0
  assert np.asarray(sj.vmap(f(lax))(np.ones(3, np.float32))).tolist() == [2.0] * 3
  with pytest.raises(NotImplementedError, match="prevent_mlir_dce"):
    lax.dce_sink(x, prevent_mlir_dce=True)
