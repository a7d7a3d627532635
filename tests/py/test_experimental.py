"""jax.experimental: checkify (user checks eagerly, under jit / vmap / grad, through cond, scan
and while_loop; the NaN, division and index checks; the errors of an unfunctionalized check),
against JAX's messages and values."""
import jax
import jax.experimental.checkify as jck
import jax.numpy as jjnp
import numpy as np
import pytest

import stablejax as sj
import stablejax.numpy as sjnp
from stablejax.experimental import checkify as sck

SIDES = {"jax": (jax, jjnp, jck), "sj": (sj, sjnp, sck)}


def _positive_log(jnp, ck):
  def f(x):
    ck.check(x > 0, "x must be positive, got {}", x)
    return jnp.log(x)
  return f


def _scan(j, jnp, ck):
  def body(c, xi):
    ck.check(xi < 3, "too big: {}", xi)
    return c + xi, c
  return lambda x: j.lax.scan(body, 0., x)


def _cond(j, jnp, ck):
  def neg(v):
    ck.check(v > -1, "neg {v}", v=v)
    return v
  return lambda x: j.lax.cond(x > 0, lambda v: v, neg, x)


def _while(j, jnp, ck):
  def body(v):
    ck.check(v < 10, "v={}", v)
    return v * 2
  return lambda x: j.lax.while_loop(lambda v: v < 100, body, x)


CASES = {
    "eager ok": lambda j, jnp, ck: ck.checkify(_positive_log(jnp, ck))(jnp.array(2.)),
    "eager fails": lambda j, jnp, ck: ck.checkify(_positive_log(jnp, ck))(jnp.array(-2.)),
    "jit": lambda j, jnp, ck: j.jit(ck.checkify(_positive_log(jnp, ck)))(jnp.array(-2.)),
    "checkify of jit": lambda j, jnp, ck: ck.checkify(j.jit(_positive_log(jnp, ck)))(
        jnp.array(-3.)),
    "vmap of checkify": lambda j, jnp, ck: j.vmap(ck.checkify(_positive_log(jnp, ck)))(
        jnp.array([1., -2., 3., -4.])),
    "checkify of vmap": lambda j, jnp, ck: ck.checkify(j.vmap(_positive_log(jnp, ck)))(
        jnp.array([1., -2., 3., -4.])),
    "grad": lambda j, jnp, ck: ck.checkify(j.grad(_positive_log(jnp, ck)))(jnp.array(-3.)),
    "scan": lambda j, jnp, ck: ck.checkify(_scan(j, jnp, ck))(jnp.arange(5.)),
    "cond fails": lambda j, jnp, ck: ck.checkify(_cond(j, jnp, ck))(jnp.array(-5.)),
    "cond ok": lambda j, jnp, ck: j.jit(ck.checkify(_cond(j, jnp, ck)))(jnp.array(5.)),
    "while": lambda j, jnp, ck: j.jit(ck.checkify(_while(j, jnp, ck)))(jnp.array(3.)),
    "debug_check": lambda j, jnp, ck: ck.checkify(
        lambda x: (ck.debug_check(x > 0, "dbg {}", x), x)[1])(jnp.array(-1.)),
    "user checks off": lambda j, jnp, ck: ck.checkify(_positive_log(jnp, ck),
                                                      errors=ck.nan_checks)(jnp.array(-2.)),
    "float": lambda j, jnp, ck: ck.checkify(lambda x: jnp.log(x) * 0 / x,
                                            errors=ck.float_checks)(jnp.array(0.)),
    "nan": lambda j, jnp, ck: ck.checkify(jnp.sin, errors=ck.nan_checks)(jnp.array(jnp.inf)),
    "div": lambda j, jnp, ck: ck.checkify(lambda x, y: x // y, errors=ck.div_checks)(
        jnp.array(3), jnp.array(0)),
    "index under jit": lambda j, jnp, ck: j.jit(ck.checkify(
        lambda x, i: x[i], errors=ck.index_checks))(jnp.arange(3), jnp.array(5)),
    "gather under jit": lambda j, jnp, ck: j.jit(ck.checkify(
        lambda x, i: x[i], errors=ck.index_checks))(jnp.arange(12).reshape(3, 4),
                                                     jnp.array([0, 7, 2])),
    "all in scan": lambda j, jnp, ck: ck.checkify(
        lambda xs: j.lax.scan(lambda c, x: (c + jnp.log(x), x), 0., xs),
        errors=ck.all_checks)(jnp.array([1., 2., -1., 3.])),
}


def _custom_jvp(j, jnp, ck):
  @j.custom_jvp
  def f(x):
    ck.check(jnp.all(x > -5), "x too small: {}", x)
    return jnp.maximum(x, 0.)
  f.defjvp(lambda p, t: (f(p[0]), t[0] * 7.))
  return lambda x: jnp.sum(f(x) * 2)


def _custom_vjp(j, jnp, ck):
  @j.custom_vjp
  def f(x):
    ck.check(jnp.all(x > -5), "x too small: {}", x)
    return jnp.sin(x)
  f.defvjp(lambda x: (jnp.sin(x), jnp.cos(x)), lambda c, g: (g * c * 3.,))
  return lambda x: jnp.sum(f(x))


def _remat(j, jnp, ck):
  r = j.checkpoint(lambda x: (ck.check(jnp.all(x < 10), "big"), jnp.sin(x))[1])
  return lambda x: j.grad(lambda y: r(y).sum())(x)


CASES.update({
    "custom_jvp fails": lambda j, jnp, ck: ck.checkify(_custom_jvp(j, jnp, ck))(
        jnp.array([-10., 0., 3.])),
    "custom_jvp, grad outside": lambda j, jnp, ck: (ck.init_error, j.grad(
        lambda x: ck.checkify(_custom_jvp(j, jnp, ck))(x)[1])(jnp.array([-1., 0., 3.]))),
    "custom_jvp, grad inside": lambda j, jnp, ck: j.jit(ck.checkify(
        j.grad(_custom_jvp(j, jnp, ck))))(jnp.array([-10., 0., 3.])),
    "custom_jvp, nan checks": lambda j, jnp, ck: ck.checkify(
        _custom_jvp(j, jnp, ck), errors=ck.all_checks)(jnp.array([-1., 0., 3.])),
    "custom_vjp fails": lambda j, jnp, ck: ck.checkify(_custom_vjp(j, jnp, ck))(
        jnp.array([-10., 1.])),
    "custom_vjp, grad inside": lambda j, jnp, ck: j.jit(ck.checkify(
        j.grad(_custom_vjp(j, jnp, ck))))(jnp.array([-10., 1.])),
    "remat under grad": lambda j, jnp, ck: ck.checkify(_remat(j, jnp, ck))(
        jnp.array([1., 20.])),
})

@pytest.mark.parametrize("name", sorted(CASES))
def test_checkify_matches_jax(name):
  results = {}
  for side, mods in SIDES.items():
    err, out = CASES[name](*mods)
    results[side] = (err.get(), jax.tree_util.tree_map(np.asarray, out))
  assert results["sj"][0] == results["jax"][0]
  jax.tree_util.tree_map(np.testing.assert_array_equal, results["sj"][1], results["jax"][1])
  if results["sj"][0] is not None:
    assert CASES[name](*SIDES["sj"])[0].get()


@pytest.mark.parametrize("side", sorted(SIDES))
def test_unfunctionalized_check_errors(side):
  j, jnp, ck = SIDES[side]
  f = _positive_log(jnp, ck)
  with pytest.raises(ck.JaxRuntimeError, match=r"x must be positive, got -1.0 \(`check` failed\)"):
    f(jnp.array(-1.))
  with pytest.raises(ValueError, match="Cannot abstractly evaluate a checkify.check which was "
                                       "not functionalized"):
    j.jit(f)(jnp.array(-1.))
  err, _ = ck.checkify(f)(jnp.array(-1.))
  assert isinstance(err, ck.Error) and str(err).startswith("Error(x must be positive")
  with pytest.raises(ck.JaxRuntimeError, match="x must be positive"):
    err.throw()
  with pytest.raises(ck.JaxRuntimeError, match="x must be positive"):
    ck.check_error(err)
  with pytest.raises(TypeError, match="check takes a scalar pred as argument"):
    ck.check(jnp.array([True, False]), "m")
  with pytest.raises(TypeError, match="Formatting arguments to checkify.check need to be "
                                      "PyTrees of arrays"):
    ck.check(jnp.array(True), "m {}", 3)
  ok, _ = ck.checkify(f)(jnp.array(1.))
  ck.check_error(ok)
  assert ok.get() is None


def test_checkify_names_and_categories():
  public = {n for n in dir(jck) if not n.startswith("_")}
  assert public <= set(sck.__all__) | {"annotations"}
  assert sck.all_checks == sck.automatic_checks | sck.user_checks
  assert sck.float_checks == sck.nan_checks | sck.div_checks
  err, _ = sj.jit(sck.checkify(_positive_log(sjnp, sck)))(sjnp.array(-1.))
  leaves = sj.tree_util.tree_leaves(err)
  assert len(leaves) == len(jax.tree_util.tree_leaves(
      jck.checkify(_positive_log(jjnp, jck))(jjnp.array(-1.))[0]))
  assert "check" not in str(sj.make_jaxpr(sck.checkify(_positive_log(sjnp, sck)))(1.))


# ----------------------------------------------------------------------------------------------
# sparse

import jax.experimental.sparse as jsp  # noqa: E402
from stablejax.experimental import sparse as ssp  # noqa: E402

_DENSE = np.array([[0, 1., 0, 0], [2, 0, 3, 0], [0, 0, 0, 4.]], np.float32)
_DUPS = (np.array([1., 2., 3., 5.], np.float32), np.array([[0, 0], [1, 2], [0, 0], [2, 3]]))


def _same_bcoo(got, want):
  assert isinstance(got, ssp.BCOO) and isinstance(got, ssp.JAXSparse)
  assert (got.shape, got.nse, got.dtype, repr(got)) == (want.shape, want.nse, want.dtype,
                                                          repr(want))
  assert (got.indices_sorted, got.unique_indices) == (want.indices_sorted, want.unique_indices)
  np.testing.assert_array_equal(got.data, want.data)
  np.testing.assert_array_equal(got.indices, want.indices)
  np.testing.assert_array_equal(got.todense(), want.todense())


@pytest.mark.parametrize("nse", [None, 4, 7])
def test_bcoo_fromdense_todense_reduce_sum(nse):
  got, want = ssp.BCOO.fromdense(_DENSE, nse=nse), jsp.BCOO.fromdense(_DENSE, nse=nse)
  _same_bcoo(got, want)
  _same_bcoo(ssp.bcoo_fromdense(_DENSE, nse=nse), jsp.bcoo_fromdense(_DENSE, nse=nse))
  for axes in [(0,), (1,), (0, 1)]:
    _same_bcoo(ssp.bcoo_reduce_sum(got, axes=axes), jsp.bcoo_reduce_sum(want, axes=axes))


@pytest.mark.parametrize("nse", [None, 2, 4])
def test_bcoo_sum_duplicates_and_multiply_dense(nse):
  got = ssp.BCOO(_DUPS, shape=(2, 3))
  want = jsp.BCOO(_DUPS, shape=(2, 3))
  _same_bcoo(got, want)
  _same_bcoo(ssp.bcoo_sum_duplicates(got, nse=nse), jsp.bcoo_sum_duplicates(want, nse=nse))
  _same_bcoo(got.sum_duplicates(nse=nse), want.sum_duplicates(nse=nse))
  dense = np.arange(6, dtype=np.float32).reshape(2, 3)
  np.testing.assert_array_equal(ssp.bcoo_multiply_dense(got, dense),
                                jsp.bcoo_multiply_dense(want, dense))


def test_bcoo_is_a_pytree_under_jit():
  mat = ssp.BCOO.fromdense(_DENSE)
  leaves, tree = sj.tree_util.tree_flatten(mat)
  assert len(leaves) == 2
  out = sj.jit(lambda m: (m.todense() * 2, ssp.bcoo_reduce_sum(m, axes=(0,))))(mat)
  np.testing.assert_array_equal(out[0], _DENSE * 2)
  np.testing.assert_array_equal(out[1].todense(), _DENSE.sum(0))
  with pytest.raises(NotImplementedError, match="no batch or dense dimensions"):
    ssp.BCOO((np.ones((2, 2)), np.zeros((2, 2, 1), np.int32)), shape=(2, 2))


# ----------------------------------------------------------------------------------------------
# pjit, mesh_utils, multihost_utils, layout

from jax.experimental import layout as jlayout, mesh_utils as jmesh_utils  # noqa: E402
from jax.experimental import multihost_utils as jmultihost  # noqa: E402
from stablejax.experimental import layout as slayout, mesh_utils as smesh_utils  # noqa: E402
from stablejax.experimental import multihost_utils as smultihost  # noqa: E402


def test_pjit_is_deprecated_jit():
  import jax.experimental.pjit as jpjit
  import stablejax.experimental.pjit as spjit
  for mod in (jpjit, spjit):
    with pytest.warns(DeprecationWarning, match="jax.experimental.pjit.pjit has been deprecated"):
      mod.pjit
  with pytest.warns(DeprecationWarning):
    f = spjit.pjit(lambda x, n: x * n, static_argnums=1)
  np.testing.assert_array_equal(f(np.arange(3.), 2), np.arange(3.) * 2)
  with pytest.raises(AttributeError, match="no attribute 'nope'"):
    spjit.nope


def test_create_device_mesh():
  got = smesh_utils.create_device_mesh((1, 1))
  want = jmesh_utils.create_device_mesh((1, 1))
  assert got.shape == want.shape == (1, 1) and got[0, 0].id == want[0, 0].id
  for mod in (smesh_utils, jmesh_utils):
    with pytest.raises(ValueError, match="must equal the product of mesh_shape"):
      mod.create_device_mesh((2, 3))
    with pytest.raises(ValueError, match="should be a sequence of ints"):
      mod.create_device_mesh("ab")


class _FakeDevice:
  platform = device_kind = "cpu"

  def __init__(self, i: int, process: int):
    self.id, self.process_index = i, process

  def __repr__(self) -> str:
    return f"D{self.id}"


def test_create_hybrid_device_mesh():
  devices = [_FakeDevice(i, i // 4) for i in range(8)]
  for mesh_shape, dcn in [((2, 2), (2, 1)), ((4, 1), (1, 2)), ((4,), (2,))]:
    got = smesh_utils.create_hybrid_device_mesh(mesh_shape, dcn, devices,
                                                 process_is_granule=True)
    want = jmesh_utils.create_hybrid_device_mesh(mesh_shape, dcn, devices,
                                                 process_is_granule=True)
    assert got.shape == want.shape and (got == want).all()
  for mod in (smesh_utils, jmesh_utils):
    with pytest.raises(ValueError, match="does not have attribute slice_index"):
      mod.create_hybrid_device_mesh((4,), (2,), devices)
    with pytest.raises(ValueError, match="Number of slices 2 must equal the product"):
      mod.create_hybrid_device_mesh((2,), (4,), devices, process_is_granule=True)

def test_multihost_utils_on_one_process():
  tree = {"a": np.arange(3.), "b": np.float32(2)}
  for tiled in (False, True):
    got = smultihost.process_allgather(tree, tiled=tiled)
    want = jmultihost.process_allgather(tree, tiled=tiled)
    jax.tree_util.tree_map(lambda g, w: (np.testing.assert_array_equal(g, w),
                                         g.shape == w.shape or pytest.fail()), got, want)
  got = smultihost.broadcast_one_to_all(tree)
  jax.tree_util.tree_map(np.testing.assert_array_equal, got,
                         jmultihost.broadcast_one_to_all(tree))
  assert smultihost.sync_global_devices("step") is None


def test_layout_and_format_values():
  for mod, sharding in ((slayout, sj.sharding.SingleDeviceSharding(sj.devices()[0])),
                        (jlayout, jax.sharding.SingleDeviceSharding(jax.devices()[0]))):
    lay = mod.Layout((1, 0))
    assert lay == mod.Layout((1, 0)) and lay != mod.Layout((0, 1))
    assert lay.update(tiling=((8, 128),)).tiling == ((8, 128),)
    assert repr(lay) == ("Layout(major_to_minor=(1, 0), tiling=None, "
                         "sub_byte_element_size_in_bits=0)")
    fmt = mod.Format(lay, sharding)
    assert fmt == mod.Format(mod.Layout((1, 0)), sharding) and fmt.layout is lay
    assert repr(mod.Format()) == "Format(layout=None, sharding=None)"
    assert repr(mod.Layout.AUTO) == "AUTO"
    with pytest.raises(ValueError, match="Sharding has to be concrete"):
      mod.Format(lay)
    with pytest.raises(TypeError, match="Invalid value received for the layout argument"):
      mod.Format("x")
    with pytest.raises(ValueError, match="Length of major_to_minor"):
      lay.check_compatible_aval((2, 3, 4))


_A = np.array([[0, 1., 0], [2, 0, 3]], np.float32)
_B = np.array([[4., 0, 0], [0, 0, 5]], np.float32)
_D = np.arange(6, dtype=np.float32).reshape(2, 3)


@pytest.mark.parametrize("name", ["add", "subtract", "add self", "multiply dense", "negative",
                                  "sin", "add dense", "jit"])
def test_sparsify_matches_jax(name):
  def run(mod, jnp, j):
    a, b = mod.BCOO.fromdense(_A), mod.BCOO.fromdense(_B)
    fn, args = {"add": (jnp.add, (a, b)), "subtract": (jnp.subtract, (a, b)),
                "add self": (jnp.add, (a, a)), "multiply dense": (jnp.multiply, (a, _D)),
                "negative": (jnp.negative, (a,)), "sin": (jnp.sin, (a,)),
                "add dense": (jnp.add, (a, _D)),
                "jit": (j.jit(lambda x, y: 2 * x + y), (_D, a))}[name]
    return mod.sparsify(fn)(*args)
  got, want = run(ssp, sjnp, sj), run(jsp, jjnp, jax)
  if isinstance(want, jsp.BCOO):
    _same_bcoo(got, want)
  else:
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("fn,match", [
    (lambda jnp, a: jnp.subtract(a, _D), "Subtraction between sparse and dense array."),
    (lambda jnp, a: jnp.cos(a), "sparse rule for cos is not implemented because it would "
                                "result in dense output"),
])
def test_sparsify_errors_as_jax(fn, match):
  for mod, jnp in ((ssp, sjnp), (jsp, jjnp)):
    with pytest.raises(NotImplementedError, match=match):
      mod.sparsify(lambda a: fn(jnp, a))(mod.BCOO.fromdense(_A))


# ----------------------------------------------------------------------------------------------
# pallas.ops.tpu.splash_attention (as keras's jax backend imports it): the masks, the kernels
# computed as their dense reference

from jax.experimental.pallas.ops.tpu.splash_attention import (  # noqa: E402
    splash_attention_kernel as jkernel, splash_attention_mask as jmask)
from stablejax.experimental.pallas.ops.tpu.splash_attention import (  # noqa: E402
    splash_attention_kernel as skernel, splash_attention_mask as smask)


def _masks(m, s):
  causal = m.CausalMask((s, s))
  return m.MultiHeadMask([causal, causal & m.LocalMask((s, s), (3, 1), offset=0)])


def test_splash_masks_match_jax():
  for idx in [(0, slice(2, 5), slice(0, 6)), (slice(None), slice(0, 2), slice(0, 3)),
              (1, slice(None), slice(None))]:
    np.testing.assert_array_equal(_masks(smask, 16)[idx], _masks(jmask, 16)[idx])
  for args in [((4, 5), (1, None)), ((5, 4), (None, 0)), ((4, 4), (1, 1))]:
    for offset in (0, 1):
      np.testing.assert_array_equal(smask.make_local_attention_mask(*args, offset=offset),
                                    jmask.make_local_attention_mask(*args, offset=offset))
  np.testing.assert_array_equal(smask.make_causal_mask((3, 5), 1),
                                jmask.make_causal_mask((3, 5), 1))
  np.testing.assert_array_equal(smask.make_chunk_attention_mask((6, 6), 2),
                                jmask.make_chunk_attention_mask((6, 6), 2))
  np.testing.assert_array_equal(smask.make_random_mask((4, 4), 0.5, 3),
                                jmask.make_random_mask((4, 4), 0.5, 3))
  full = (smask.NumpyMask(np.eye(4, dtype=bool)) | smask.FullMask((4, 4)))[0:2, 0:4]
  assert full.all() and full.shape == (2, 4)
  assert smask.CausalMask((8, 8)) == smask.CausalMask((8, 8))
  assert hash(smask.CausalMask((8, 8), 1)) == hash(smask.CausalMask((8, 8), 1))
  for m in (smask, jmask):
    with pytest.raises(ValueError, match="Invalid shape for other"):
      m.CausalMask((4, 4)) | m.FullMask((4, 5))
    with pytest.raises(NotImplementedError, match="Conversion to bool is unsupported"):
      bool(m.FullMask((2, 2)))
    with pytest.raises(ValueError, match="Mask must be a boolean array"):
      m.NumpyMask(np.ones((2, 2)))


def _qkv(heads=2, seq=16, dim=8):
  rng = np.random.RandomState(0)
  return [rng.randn(heads, seq, dim).astype(np.float32) for _ in range(3)]


def test_splash_reference_matches_jax_bit_for_bit():
  q, k, v = _qkv()
  seg = ([0] * 10 + [1] * 6,) * 2
  for kw in [{}, {"save_residuals": True, "attn_logits_soft_cap": 5.0}]:
    got = skernel.make_masked_mha_reference(_masks(smask, 16))(
        q, k, v, skernel.SegmentIds(*map(sjnp.array, seg)), **kw)
    want = jkernel.make_masked_mha_reference(_masks(jmask, 16))(
        q, k, v, jkernel.SegmentIds(*map(jjnp.array, seg)), **kw)
    jax.tree_util.tree_map(np.testing.assert_array_equal, got, want)
  grouped = smask.MultiHeadMask([smask.CausalMask((16, 16))] * 4)
  np.testing.assert_array_equal(
      skernel.make_masked_mha_reference(grouped)(np.concatenate([q, q]), k, v),
      jkernel.make_masked_mha_reference(jmask.MultiHeadMask([jmask.CausalMask((16, 16))] * 4))(
          np.concatenate([q, q]), k, v))


@pytest.mark.slow
def test_splash_kernel_matches_jax_pallas_kernel_interpreted():
  q, k, v = _qkv(seq=256, dim=128)
  ours = skernel.make_splash_mha(_masks(smask, 256), head_shards=1, q_seq_shards=1)
  theirs = jkernel.make_splash_mha(_masks(jmask, 256), head_shards=1, q_seq_shards=1,
                                   interpret=True)
  np.testing.assert_allclose(ours(q, k, v), theirs(q, k, v), rtol=1e-5, atol=1e-5)
  grad = lambda kern, j: j.grad(lambda x: kern(x, k, v).sum())(q)
  np.testing.assert_allclose(grad(ours, sj), grad(theirs, jax), rtol=1e-5, atol=1e-4)
  mqa = skernel.make_splash_mqa_single_device(_masks(smask, 256))(q, k[0], v[0])
  np.testing.assert_allclose(mqa, jkernel.make_splash_mqa_single_device(
      _masks(jmask, 256), interpret=True)(q, k[0], v[0]), rtol=1e-5, atol=1e-5)
  with pytest.raises(ValueError, match="Unexpected mask shape"):
    skernel.make_splash_mha(np.ones((4, 4), bool), head_shards=1, q_seq_shards=1)


def test_splash_kernel_is_a_pytree():
  q, k, v = _qkv()
  kern = skernel.make_splash_mha(_masks(smask, 16), head_shards=1, q_seq_shards=1,
                                 attn_logits_soft_cap=3.0)
  want = skernel.make_masked_mha_reference(_masks(smask, 16))(q, k, v, attn_logits_soft_cap=3.0)
  np.testing.assert_array_equal(sj.jit(lambda kr, *a: kr(*a))(kern, q, k, v), want)
  assert len(sj.tree_util.tree_leaves(kern)) == 1
