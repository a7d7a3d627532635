"""The transformations with JAX's full signatures, against JAX: `jit`'s `inline`,
`keep_unused`, `device`, `backend`, `compiler_options` and `None` argnums; `grad`/`jacfwd`/
`jacrev`'s `holomorphic`, `allow_int` and `has_aux`; `vmap`'s `spmd_axis_name` and keyword
arguments; every checkpoint policy, `checkpoint_name` and `print_saved_residuals`."""
import re

import jax
import jax.ad_checkpoint
import jax.numpy as jjnp
import numpy as np
import pytest
from jax._src.ad_checkpoint import saved_residuals as jax_saved_residuals  # (private in JAX)

import stablejax as sj
import stablejax.numpy as jnp
from stablejax import ad_checkpoint
from stablejax.interpreters import batching


def _close(got, want, rtol=1e-6):
  for g, w in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
    assert np.asarray(g).dtype == np.asarray(w).dtype
    np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=rtol)


# ----------------------------------------------------------------------------------------------
# jit

def test_jit_inline_inlines_into_the_caller():
  inner_sj = sj.jit(lambda x: jnp.sin(x) * 2, inline=True)
  inner_jx = jax.jit(lambda x: jjnp.sin(x) * 2, inline=True)
  got = sj.make_jaxpr(lambda x: inner_sj(x) + 1)(1.)
  want = jax.make_jaxpr(lambda x: inner_jx(x) + 1)(1.)
  assert str(got) == str(want)
  assert "jit" not in str(got)
  assert "jit" in str(sj.make_jaxpr(lambda x: sj.jit(jnp.sin)(x) + 1)(1.))
  _close(sj.grad(lambda x: inner_sj(x) ** 2)(0.5), jax.grad(lambda x: inner_jx(x) ** 2)(0.5))


def test_jit_none_argnums_and_keep_unused():
  f = lambda x, y: x * 2
  for kw in (dict(static_argnums=None, donate_argnums=None), dict(static_argnames=None,
                                                                  donate_argnames=None)):
    _close(sj.jit(f, **kw)(np.float32(3.), np.float32(4.)),
           jax.jit(f, **kw)(np.float32(3.), np.float32(4.)))
  text = sj.jit(f, keep_unused=True).lower(np.float32(3.), np.float32(4.)).as_text()
  assert len(re.findall(r"%arg\d+: tensor<f32>", text.split("func.func public @main")[1]
                        .split("{")[0])) == 2
  assert float(sj.jit(f, keep_unused=False)(3., 4.)) == 6.


def test_jit_device_and_backend_as_jax():
  dev = sj.devices()[0]
  with pytest.warns(DeprecationWarning):
    g = sj.jit(lambda x: x + 1, device=dev)
  assert float(g(1.)) == 2.
  with pytest.warns(DeprecationWarning):
    assert float(sj.jit(lambda x: x + 1, backend="cpu")(1.)) == 2.
  with pytest.warns(DeprecationWarning), pytest.raises(ValueError, match="both a device and"):
    sj.jit(lambda x: x, device=dev, backend="cpu")
  with pytest.warns(DeprecationWarning), pytest.raises(ValueError, match="in_shardings"):
    sj.jit(lambda x: x, device=dev, in_shardings=sj.sharding.SingleDeviceSharding(dev))


def test_jit_compiler_options_reach_xla():
  f = lambda x: jnp.sin(x) * 3
  opts = {"xla_embed_ir_in_executable": True}
  _close(sj.jit(f, compiler_options=opts)(np.float32(0.5)),
         jax.jit(lambda x: jjnp.sin(x) * 3, compiler_options=opts)(np.float32(0.5)))
  with pytest.raises(Exception, match="xla_no_such_option"):
    sj.jit(f, compiler_options={"xla_no_such_option": True})(np.float32(0.5))
  with pytest.raises(Exception, match="xla_no_such_option"):
    jax.jit(lambda x: x * 3, compiler_options={"xla_no_such_option": True})(np.float32(0.5))


# ----------------------------------------------------------------------------------------------
# grad, jacfwd, jacrev

def test_grad_holomorphic():
  z = np.complex64(1.5 + 0.5j)
  for mk, jf, sf in ((lambda m: m.grad, jjnp.sin, jnp.sin), (lambda m: m.grad, jjnp.exp, jnp.exp)):
    _close(mk(sj)(lambda x: sf(x) * x, holomorphic=True)(z),
           mk(jax)(lambda x: jf(x) * x, holomorphic=True)(z))
  _close(sj.value_and_grad(lambda x: x ** 3, holomorphic=True)(z),
         jax.value_and_grad(lambda x: x ** 3, holomorphic=True)(z))
  _close(sj.grad(lambda x: jnp.sin(x), holomorphic=True)(3 + 4j),
         jax.grad(lambda x: jjnp.sin(x), holomorphic=True)(3 + 4j))
  # complex inputs of a real-valued function, without holomorphic (the autodiff cookbook's)
  _close(sj.grad(lambda x: jnp.abs(x) ** 2)(z), jax.grad(lambda x: jjnp.abs(x) ** 2)(z))
  zs = np.complex64([3 + 4j, 1j])
  _close(sj.jacrev(lambda x: jnp.abs(x) ** 2)(zs), jax.jacrev(lambda x: jjnp.abs(x) ** 2)(zs))


@pytest.mark.parametrize("call", [
    lambda m: m.grad(lambda x: x, holomorphic=True)(np.float32(1.)),
    lambda m: m.grad(lambda x: x.real, holomorphic=True)(np.complex64(1.)),
    lambda m: m.grad(lambda x: x * x)(np.complex64(1.)),
    lambda m: m.grad(lambda x: x * 1.)(np.int32(1)),
    lambda m: m.grad(lambda x: (x * 2).astype(np.int32))(np.float32(1.)),
    lambda m: m.jacfwd(lambda x: x)(np.complex64(1.)),
    lambda m: m.jacfwd(lambda x: x.real, holomorphic=True)(np.complex64(1.)),
    lambda m: m.jacrev(lambda x: x, holomorphic=True)(np.float32(1.)),
])
def test_derivative_dtype_errors_as_jax(call):
  with pytest.raises(TypeError) as want:
    call(jax)
  with pytest.raises(TypeError) as got:
    call(sj)
  assert str(got.value) == str(want.value)


def test_grad_allow_int_gives_float0():
  f_sj = lambda x, n: x * n
  got = sj.grad(f_sj, argnums=(0, 1), allow_int=True)(np.float32(2.), np.int32(3))
  want = jax.grad(f_sj, argnums=(0, 1), allow_int=True)(np.float32(2.), np.int32(3))
  _close(got[0], want[0])
  assert np.asarray(got[1]).dtype == want[1].dtype == jax.dtypes.float0
  assert np.asarray(got[1]).shape == want[1].shape


@pytest.mark.parametrize("program", [
    lambda api: api.jit(api.grad(lambda x, n: x * n, argnums=(0, 1), allow_int=True)),
    lambda api: api.jit(lambda x, n: api.vjp(lambda x, n: x * n, x, n)[1](1.)),
    lambda api: lambda x, n: api.jit(lambda n, t: api.jvp(lambda n: n * 2, (n,), (t,)))(
        n, np.zeros((), api.dtypes.float0)),
    lambda api: lambda x, n: api.jit(lambda t: t)(np.zeros((2,), api.dtypes.float0)),
    lambda api: lambda x, n: api.numpy.zeros((2,), api.dtypes.float0),
], ids=["jit_grad", "jit_vjp", "float0_argument", "identity", "zeros"])
def test_float0_through_jit(program):
  # float0 values carry no data: false booleans in the module, numpy zeros outside (as JAX)
  args = (np.float32(2.), np.int32(3))
  got, want = program(sj)(*args), program(jax)(*args)
  for g, w in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
    assert (np.asarray(g).dtype, np.shape(g)) == (np.asarray(w).dtype, np.shape(w))
    if np.asarray(w).dtype != jax.dtypes.float0:
      np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


def test_jacobians_holomorphic_and_has_aux():
  z = np.array([1. + 1j, 2. - 0.5j], np.complex64)
  for name in ("jacfwd", "jacrev"):
    _close(getattr(sj, name)(lambda x: jnp.sin(x) * x[0], holomorphic=True)(z),
           getattr(jax, name)(lambda x: jjnp.sin(x) * x[0], holomorphic=True)(z), rtol=1e-5)
    x = np.array([0.5, 1.5], np.float32)
    _close(getattr(sj, name)(lambda x: (jnp.sin(x), x.sum()), has_aux=True)(x),
           getattr(jax, name)(lambda x: (jjnp.sin(x), x.sum()), has_aux=True)(x))
  _close(sj.hessian(lambda x: (x ** 3).sum())(np.float32([1., 2.])),
         jax.hessian(lambda x: (x ** 3).sum())(np.float32([1., 2.])))


# ----------------------------------------------------------------------------------------------
# vmap

def test_vmap_maps_keyword_arguments_at_axis_zero():
  f = lambda x, *, y: x * y + 1
  x, y = np.arange(3.), np.arange(6.).reshape(3, 2)[:, 0]
  _close(sj.vmap(f)(x, y=y), jax.vmap(f)(x, y=y))
  _close(sj.vmap(f, in_axes=(None,))(np.float32(2.), y=y),
         jax.vmap(f, in_axes=(None,))(np.float32(2.), y=y))
  with pytest.raises(ValueError, match="inconsistent sizes"):
    sj.vmap(f)(x, y=np.arange(4.))


def test_vmap_spmd_axis_name_is_recorded():
  seen = []
  prim = sj.core.Primitive("spmd_probe")
  prim.def_abstract_eval(lambda x: x)
  prim.def_impl(lambda x: x)

  def batcher(axis_data, args, dims):
    seen.append(axis_data)
    return prim.bind(*args), dims[0]
  batching.fancy_primitive_batchers[prim] = batcher
  out = sj.vmap(lambda x: prim.bind(x) * 2, spmd_axis_name="data")(np.arange(3.))
  np.testing.assert_array_equal(np.asarray(out), np.arange(3.) * 2)
  assert seen[0].spmd_name == "data" and seen[0].size == 3
  _close(sj.vmap(jnp.sin, spmd_axis_name="x")(np.float32([1., 2.])),
         jax.vmap(jjnp.sin, spmd_axis_name="x")(np.float32([1., 2.])))


# ----------------------------------------------------------------------------------------------
# checkpoint

def _nested(m, np_):
  f1 = lambda x: np_.sin(np_.sin(x))
  g = lambda x: f1(m.checkpoint(f1)(x))
  return lambda x: g(m.checkpoint(g)(x))


def test_grad_through_nested_checkpoints():
  _close(sj.grad(_nested(sj, jnp))(3.), jax.grad(_nested(jax, jjnp))(3.))
  _close(sj.jit(sj.grad(_nested(sj, jnp)))(3.), jax.jit(jax.grad(_nested(jax, jjnp)))(3.))
  _close(sj.grad(sj.grad(_nested(sj, jnp)))(0.7), jax.grad(jax.grad(_nested(jax, jjnp)))(0.7),
         rtol=1e-5)
  _close(sj.vmap(sj.grad(_nested(sj, jnp)))(np.float32([0.1, 3.])),
         jax.vmap(jax.grad(_nested(jax, jjnp)))(np.float32([0.1, 3.])))


def _mlp(m, np_, name_fn):
  def f(w, x):
    h = name_fn(np_.sin(x @ w), "h")
    y = name_fn(np_.tanh(h @ w), "y")
    z = np_.einsum("bi,bi->b", y[None], y[None])
    return np_.cos(z).sum() + np_.sin(h).sum()
  return f


_POLICIES = [
    ("everything_saveable", ()), ("nothing_saveable", ()), ("dots_saveable", ()),
    ("checkpoint_dots", ()), ("dots_with_no_batch_dims_saveable", ()),
    ("checkpoint_dots_with_no_batch_dims", ()), ("save_only_these_names", ("h",)),
    ("save_only_these_names", ("h", "y")), ("save_any_names_but_these", ("y",)),
    ("save_anything_except_these_names", ("h",)), (None, ())]


def _policy(m, name, args):
  if name is None:
    return None
  p = getattr(m.checkpoint_policies, name)
  return p(*args) if args else p


def _residual_summary(residuals):
  """(type, where it comes from, without the source location) of each saved residual."""
  short = lambda a: a.str_short() if isinstance(a, sj.core.ShapedArray) else a.str_short(
      short_dtypes=True)
  return sorted((short(a), src.split(" from /")[0].split(" from <")[0]) for a, src in residuals)


@pytest.mark.parametrize("name,args", _POLICIES)
def test_checkpoint_policies_save_what_jax_saves(name, args):
  w = (np.arange(9, dtype=np.float32).reshape(3, 3) - 4) / 5
  x = np.linspace(-1, 1, 3, dtype=np.float32)
  fs = sj.checkpoint(_mlp(sj, jnp, ad_checkpoint.checkpoint_name), policy=_policy(sj, name, args))
  fj = jax.checkpoint(_mlp(jax, jjnp, jax.ad_checkpoint.checkpoint_name),
                      policy=_policy(jax, name, args))
  _close(sj.grad(fs, argnums=(0, 1))(w, x), jax.grad(fj, argnums=(0, 1))(w, x), rtol=1e-5)
  _close(sj.jit(sj.grad(fs))(w, x), jax.jit(jax.grad(fj))(w, x), rtol=1e-5)
  got = _residual_summary(ad_checkpoint.saved_residuals(fs, w, x))
  want = _residual_summary(jax_saved_residuals(fj, w, x))
  assert got == want


def test_save_from_both_policies_and_offload_policies():
  w = (np.arange(9, dtype=np.float32).reshape(3, 3) - 4) / 5
  x = np.linspace(-1, 1, 3, dtype=np.float32)
  for m, np_ in ((sj, jnp), (jax, jjnp)):
    cp = m.checkpoint_policies
    name_fn = (ad_checkpoint if m is sj else jax.ad_checkpoint).checkpoint_name
    saved = ad_checkpoint.saved_residuals if m is sj else jax_saved_residuals
    both = cp.save_from_both_policies(cp.save_only_these_names("h"), cp.dots_saveable)
    res = saved(m.checkpoint(_mlp(m, np_, name_fn), policy=both), w, x)
    if m is sj:
      got = _residual_summary(res)
    else:
      want = _residual_summary(res)
  assert got == want
  with pytest.raises(ValueError, match="should be a boolean"):
    bad = sj.checkpoint_policies.save_from_both_policies(lambda *_, **__: 1, lambda *_, **__: 0)
    sj.grad(sj.checkpoint(lambda x: jnp.sin(x), policy=bad))(1.)
  with pytest.raises(ValueError, match="should not intersect"):
    sj.checkpoint_policies.save_and_offload_only_these_names(
        names_which_can_be_saved=["a"], names_which_can_be_offloaded=["a"],
        offload_src="device", offload_dst="pinned_host")
  off = sj.checkpoint_policies.offload_dot_with_no_batch_dims("device", "pinned_host")
  f = sj.checkpoint(_mlp(sj, jnp, ad_checkpoint.checkpoint_name), policy=off)
  fj = jax.checkpoint(_mlp(jax, jjnp, jax.ad_checkpoint.checkpoint_name))
  _close(sj.grad(f)(w, x), jax.grad(fj)(w, x), rtol=1e-5)


def test_print_saved_residuals_as_jax(capsys):
  f = lambda x: jnp.sin(jnp.sin(x))
  ad_checkpoint.print_saved_residuals(f, np.float32(1.))
  got = capsys.readouterr().out.splitlines()
  jax.ad_checkpoint.print_saved_residuals(lambda x: jjnp.sin(jjnp.sin(x)), np.float32(1.))
  want = capsys.readouterr().out.splitlines()
  assert [line.split(" from ")[0] for line in got] == [line.split(" from ")[0] for line in want]
  assert all(re.search(r"test_transform_signatures.py:\d+:\d+ \(<lambda>\)", line)
             for line in got)
  ad_checkpoint.print_saved_residuals(sj.checkpoint(f), np.float32(1.))
  assert capsys.readouterr().out == "f32[] from the argument x\n"


def test_checkpoint_name_is_the_identity_named_in_the_jaxpr():
  f = lambda x: ad_checkpoint.checkpoint_name(jnp.sin(x), "s") * 2
  fj = lambda x: jax.ad_checkpoint.checkpoint_name(jjnp.sin(x), "s") * 2
  assert str(sj.make_jaxpr(f)(1.)) == str(jax.make_jaxpr(fj)(1.))
  _close(sj.jit(sj.grad(f))(0.3), jax.jit(jax.grad(fj))(0.3))
  _close(sj.vmap(f)(np.float32([1., 2.])), jax.vmap(fj)(np.float32([1., 2.])))
  tree = ad_checkpoint.checkpoint_name({"a": np.float32(1.), "b": (np.float32(2.),)}, "t")
  assert float(tree["b"][0]) == 2.


def test_jit_keep_unused_as_jax():
  f = lambda x, y, z: x * 2 + z

  def main_args(lowered):
    return lowered.as_text().split("func.func public @main")[1].split("{")[0].count("%arg")
  for keep in (False, True):
    low_sj = sj.jit(f, keep_unused=keep).lower(1., 2., 3.)
    low_jx = jax.jit(f, keep_unused=keep).lower(1., 2., 3.)
    assert main_args(low_sj) == main_args(low_jx) == (3 if keep else 2)
    assert float(low_sj.compile()(1., 2., 3.)) == float(low_jx.compile()(1., 2., 3.)) == 5.
    assert float(sj.jit(f, keep_unused=keep)(1., np.float32(2.), 3.)) == 5.
  assert float(sj.grad(sj.jit(f), argnums=1)(1., 2., 3.)) == 0.
