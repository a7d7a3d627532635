"""Custom derivatives with `symbolic_zeros=True` (SymbolicZero tangents and cotangents,
CustomVJPPrimal arguments, a bwd returning None), and the small public gaps of issue 33
(`export.DisabledSafetyCheck`, exporting a jnp function, `ClosedJaxpr.literals`, JAX's errors for
a primitive without an impl or a lowering rule, `dispatch.apply_primitive`, and
`scipy.stats.norm.logpdf` in JAX's formula): each against JAX on the same inputs."""
import functools

import jax
import jax.extend.core as jex_core
import jax.numpy as jjnp
import numpy as np
import pytest
from jax import export as jax_export
from jax._src import dispatch as jax_dispatch
from jax.interpreters import mlir as jax_mlir

import stablejax as sj
import stablejax.numpy as jnp
from stablejax import core, dispatch, lax
from stablejax.lowering import hlo, register_lowering
from stablejax.lowering.registry import MissingLoweringRule

X = np.float32(0.7)
Y = np.array([1.5, -2., 3.], np.float32)


def _kind(t):
  """What a rule was given: a SymbolicZero (with its type) or an array."""
  if type(t).__name__ == "SymbolicZero":
    return ("zero", tuple(t.shape), str(t.dtype))
  return ("array", tuple(np.shape(t)))


# ----------------------------------------------------------------------------------------------
# custom_jvp(symbolic_zeros=True)

def _jvp_fun(api, log):
  cd = api.custom_derivatives

  @api.custom_jvp
  def f(x, y):
    return api.numpy.sin(x) * y, x * 2.

  def f_jvp(primals, tangents):
    x, y = primals
    tx, ty = tangents
    log.append((_kind(tx), _kind(ty)))
    out = f(x, y)
    dx = 0. if type(tx) is cd.SymbolicZero else api.numpy.cos(x) * tx * y
    dy = 0. if type(ty) is cd.SymbolicZero else api.numpy.sin(x) * ty
    # the second output's tangent is a symbolic zero when x is not perturbed
    t2 = cd.SymbolicZero(tx.aval) if type(tx) is cd.SymbolicZero else tx * 2.
    return out, (dx + dy, t2)
  f.defjvp(f_jvp, symbolic_zeros=True)
  return f


JVP_CASES = {
    "grad_x": lambda api, f: api.grad(lambda x, y: f(x, y)[0].sum() + f(x, y)[1], 0)(X, Y),
    "grad_y": lambda api, f: api.grad(lambda x, y: f(x, y)[0].sum() + f(x, y)[1], 1)(X, Y),
    "grad_both": lambda api, f: api.grad(lambda x, y: f(x, y)[0].sum(), (0, 1))(X, Y),
    "jit_grad_y": lambda api, f: api.jit(api.grad(lambda x, y: f(x, y)[0].sum(), 1))(X, Y),
    "jvp_x": lambda api, f: api.jvp(lambda x: f(x, Y), (X,), (np.float32(1.),)),
    "vmap_grad_x": lambda api, f: api.vmap(api.grad(lambda x, y: f(x, y)[0].sum()),
                                           (0, None))(Y, Y),
    "grad_vmap_y": lambda api, f: api.grad(
        lambda y: api.vmap(lambda x: f(x, y)[0].sum())(Y).sum())(Y),
}


@pytest.mark.parametrize("case", list(JVP_CASES))
def test_custom_jvp_symbolic_zeros_matches_jax(case):
  log_sj, log_jax = [], []
  got = JVP_CASES[case](sj, _jvp_fun(sj, log_sj))
  want = JVP_CASES[case](jax, _jvp_fun(jax, log_jax))
  for g, w in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
    np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6)
    assert np.asarray(g).dtype == np.asarray(w).dtype
  assert log_sj and set(log_sj) == set(log_jax)


def test_symbolic_zero_reads_through_to_its_aval():
  z_sj = sj.custom_derivatives.SymbolicZero.from_primal_value(Y)
  z_jax = jax.custom_derivatives.SymbolicZero.from_primal_value(Y)
  assert repr(z_sj) == repr(z_jax) == "SymbolicZero"
  assert (z_sj.shape, z_sj.dtype, z_sj.ndim) == (z_jax.shape, z_jax.dtype, z_jax.ndim)
  zs = sj.custom_derivatives.zero_from_primal({"a": Y}, symbolic_zeros=True)
  assert type(zs["a"]) is sj.custom_derivatives.SymbolicZero
  dense = sj.custom_derivatives.zero_from_primal((X, Y))
  want = jax.custom_derivatives.zero_from_primal((X, Y))
  for d, w in zip(dense, want):
    np.testing.assert_array_equal(np.asarray(d), np.asarray(w))


# ----------------------------------------------------------------------------------------------
# custom_vjp(symbolic_zeros=True)

def _vjp_fun(api, log):
  cd = api.custom_derivatives

  @api.custom_vjp
  def f(x, y):
    return api.numpy.sin(x) * y, x * 3.

  def fwd(x, y):
    assert type(x) is cd.CustomVJPPrimal and type(y) is cd.CustomVJPPrimal
    log.append(("fwd", x.perturbed, y.perturbed))
    xv, yv = cd.custom_vjp_primal_tree_values((x, y))
    return f(xv, yv), (xv, yv)

  def bwd(res, cts):
    x, y = res
    c1, c2 = cts
    log.append(("bwd", _kind(c1), _kind(c2)))
    c1 = api.numpy.zeros_like(y) if type(c1) is cd.SymbolicZero else c1
    c2 = 0. if type(c2) is cd.SymbolicZero else c2
    dx = (api.numpy.cos(x) * c1 * y).sum() + 3. * c2
    return dx, None  # no cotangent for y: zero
  f.defvjp(fwd, bwd, symbolic_zeros=True)
  return f


VJP_CASES = {
    "grad_x_out0": lambda api, f: api.grad(lambda x, y: f(x, y)[0].sum())(X, Y),
    "grad_x_out1": lambda api, f: api.grad(lambda x, y: f(x, y)[1])(X, Y),
    "grad_x_both": lambda api, f: api.grad(lambda x, y: f(x, y)[0].sum() + f(x, y)[1])(X, Y),
    "grad_y": lambda api, f: api.grad(lambda x, y: f(x, y)[0].sum(), 1)(X, Y),
    "jit_grad_x": lambda api, f: api.jit(api.grad(lambda x, y: f(x, y)[1]))(X, Y),
    "vmap_grad_x": lambda api, f: api.vmap(api.grad(lambda x, y: f(x, y)[0].sum()),
                                           (0, None))(Y, Y),
    "grad_vmap_x": lambda api, f: api.grad(
        lambda x: api.vmap(lambda y: f(x, y)[0].sum())(Y[:, None]).sum())(X),
}


@pytest.mark.parametrize("case", list(VJP_CASES))
def test_custom_vjp_symbolic_zeros_matches_jax(case):
  log_sj, log_jax = [], []
  got = VJP_CASES[case](sj, _vjp_fun(sj, log_sj))
  want = VJP_CASES[case](jax, _vjp_fun(jax, log_jax))
  np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)
  assert np.asarray(got).dtype == np.asarray(want).dtype
  assert log_sj and set(log_sj) == set(log_jax)


def test_custom_vjp_bwd_symbolic_zero_of_the_wrong_shape_is_an_error():
  @sj.custom_vjp
  def f(x):
    return x * 2.

  f.defvjp(lambda x: (f(x.value), None),
           lambda _, ct: (sj.custom_derivatives.SymbolicZero(core.ShapedArray((2,), np.float32)),),
           symbolic_zeros=True)
  with pytest.raises(ValueError, match="SymbolicZero"):
    sj.grad(f)(X)


def test_symbolic_zeros_with_optimize_remat_is_refused_as_in_jax():
  for api in (sj, jax):
    f = api.custom_vjp(lambda x: x)
    with pytest.raises(NotImplementedError, match="symbolic zeros"):
      f.defvjp(lambda x: (x, None), lambda _, g: (g,), symbolic_zeros=True, optimize_remat=True)


# ----------------------------------------------------------------------------------------------
# export

def test_disabled_safety_check_as_jax():
  ours, theirs = sj.export.DisabledSafetyCheck, jax_export.DisabledSafetyCheck
  for make in (lambda c: c.platform(), lambda c: c.custom_call("lapack_sgeqrf")):
    a, b = make(ours), make(theirs)
    assert (str(a), repr(a), a.is_custom_call()) == (str(b), repr(b), b.is_custom_call())
    assert a == make(ours) and hash(a) == hash(make(ours))
  assert ours.platform() != ours.custom_call("x")


def test_export_a_jnp_function_as_jax():
  x = np.arange(4, dtype=np.float32)
  checks = [sj.export.DisabledSafetyCheck.platform()]
  exp = sj.export.export(jnp.cos, disabled_checks=checks)(x)
  want = jax_export.export(jjnp.cos)(x)
  assert exp.fun_name == want.fun_name == "cos"
  assert exp.in_avals[0].shape == want.in_avals[0].shape
  np.testing.assert_array_equal(np.asarray(exp.call(x)), np.asarray(want.call(x)))
  back = sj.export.deserialize(exp.serialize())
  assert back.disabled_safety_checks == tuple(checks)
  with pytest.raises(ValueError, match="must be the result of `jit`"):
    sj.export.export(lambda x: jnp.cos(x))


# ----------------------------------------------------------------------------------------------
# ClosedJaxpr.literals

def test_closed_jaxpr_literals_are_its_consts():
  const = np.arange(3., dtype=np.float32)
  ours = sj.make_jaxpr(lambda x: x + const)(np.ones(3, np.float32))
  theirs = jax.make_jaxpr(lambda x: x + const)(np.ones(3, np.float32))
  assert ours.literals == ours.consts and theirs.literals == theirs.consts
  assert [v.aval for v in ours.invars] == ours.in_avals


# ----------------------------------------------------------------------------------------------
# A user primitive: JAX's errors, and dispatch.apply_primitive

def _user_prim(module, name, with_abstract=True, lower=None):
  p = module.Primitive(name)
  if with_abstract:
    p.def_abstract_eval(lambda x, y, z: x.update(weak_type=False))
  if lower is not None:
    lower(p)
  return p


def _lower_sj(p):
  register_lowering(p, lambda ctx, x, y, z: [hlo.add(hlo.multiply(x, y), z)])


def _lower_jax(p):
  jax_mlir.register_lowering(p, jax_mlir.lower_fun(lambda x, y, z: x * y + z,
                                                   multiple_results=False))


def _raised(f):
  with pytest.raises(Exception) as info:
    f()
  return info.value


def test_user_primitive_without_impl_evaluated_eagerly_raises_as_jax():
  ours = _raised(lambda: _user_prim(core, "ma_eager", lower=_lower_sj).bind(2., 2., 10.))
  theirs = _raised(lambda: _user_prim(jex_core, "ma_eager", lower=_lower_jax).bind(2., 2., 10.))
  assert type(ours) is type(theirs) is NotImplementedError
  assert str(theirs) in str(ours) and "ma_eager" in str(ours)


def test_user_primitive_without_abstract_eval_under_jit_raises_as_jax():
  ours = _raised(lambda: sj.jit(_user_prim(core, "ma_abstract", False).bind)(2., 2., 10.))
  theirs = _raised(lambda: jax.jit(_user_prim(jex_core, "ma_abstract", False).bind)(2., 2., 10.))
  assert type(ours) is type(theirs) is NotImplementedError
  assert str(theirs) in str(ours)


def test_user_primitive_without_lowering_under_jit_raises_as_jax():
  ours = _raised(lambda: sj.jit(_user_prim(core, "ma_unlowered").bind)(2., 2., 10.))
  theirs = _raised(lambda: jax.jit(_user_prim(jex_core, "ma_unlowered").bind)(2., 2., 10.))
  assert type(ours) is type(theirs) is NotImplementedError
  assert str(theirs) in str(ours)


def test_a_rule_missing_for_one_platform_is_still_a_missing_lowering_rule():
  p = _user_prim(core, "ma_cuda_only", lower=lambda p: register_lowering(
      p, lambda ctx, x, y, z: [x], platform="cuda"))
  with pytest.raises(MissingLoweringRule, match="'ma_cuda_only' on platform 'cpu'"):
    sj.jit(p.bind)(2., 2., 10.)
  assert issubclass(MissingLoweringRule, NotImplementedError)


def test_dispatch_apply_primitive_compiles_a_user_primitive_eagerly():
  p = _user_prim(core, "ma_dispatched", lower=_lower_sj)
  p.def_impl(functools.partial(dispatch.apply_primitive, p))
  q = _user_prim(jex_core, "ma_dispatched", lower=_lower_jax)
  q.def_impl(functools.partial(jax_dispatch.apply_primitive, q))
  got, want = p.bind(*[np.float32(v) for v in (2., 3., 10.)]), q.bind(
      *[np.float32(v) for v in (2., 3., 10.)])
  np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
  assert np.asarray(sj.jit(p.bind)(2., 3., 10.)) == 16.
  np.testing.assert_array_equal(np.asarray(lax.sin(X)), np.asarray(jax.lax.sin(X)))  # built-ins


# ----------------------------------------------------------------------------------------------
# scipy.stats.norm.logpdf

def test_norm_logpdf_values_and_gradients_bit_identical_to_jax():
  rng = np.random.default_rng(0)
  x = rng.normal(size=16).astype(np.float32)
  loc, scale = np.float32(0.3), np.float32(1.7)

  def loss(norm):
    return lambda x, loc, scale: norm.logpdf(x, loc, scale).sum()

  np.testing.assert_array_equal(np.asarray(sj.scipy.stats.norm.logpdf(x, loc, scale)),
                                np.asarray(jax.scipy.stats.norm.logpdf(x, loc, scale)))
  got = sj.grad(loss(sj.scipy.stats.norm), (0, 1, 2))(x, loc, scale)
  want = jax.grad(loss(jax.scipy.stats.norm), (0, 1, 2))(x, loc, scale)
  for g, w in zip(got, want):
    np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
    assert np.asarray(g).dtype == np.asarray(w).dtype
