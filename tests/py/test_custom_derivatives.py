"""custom_jvp, custom_vjp, checkpoint and stop_gradient against JAX (the examples of JAX's
"custom derivative rules" doc) under jit, vmap, grad and their compositions."""
import jax
import jax.numpy as jjnp
import numpy as np
import pytest

import stablejax as sj
import stablejax.numpy as jnp
from stablejax import lax, test_util


def _log1pexp(np_):
  @np_["custom_jvp"]
  def log1pexp(x):
    return np_["jnp"].log1p(np_["jnp"].exp(x))

  @log1pexp.defjvp
  def log1pexp_jvp(primals, tangents):
    x, = primals
    x_dot, = tangents
    return log1pexp(x), x_dot * (1 - 1 / (1 + np_["jnp"].exp(x)))
  return log1pexp


def _clip_gradient(np_):
  @np_["custom_vjp"]
  def clip_gradient(lo, hi, x):
    return x

  def fwd(lo, hi, x):
    return x, (lo, hi)

  def bwd(res, g):
    lo, hi = res
    return (None, None, np_["jnp"].clip(g, lo, hi))
  clip_gradient.defvjp(fwd, bwd)
  return clip_gradient


SJ = dict(custom_jvp=sj.custom_jvp, custom_vjp=sj.custom_vjp, jnp=jnp, api=sj)
JX = dict(custom_jvp=jax.custom_jvp, custom_vjp=jax.custom_vjp, jnp=jjnp, api=jax)

TRANSFORMS = {
    "grad": lambda api, f: api.grad(f),
    "jit_grad": lambda api, f: api.jit(api.grad(f)),
    "vmap_grad": lambda api, f: api.vmap(api.grad(f)),
    "jit_vmap_grad": lambda api, f: api.jit(api.vmap(api.grad(f))),
    "grad_sum_vmap": lambda api, f: api.grad(lambda x: api.vmap(f)(x).sum()),
    "jvp": lambda api, f: lambda x: api.jvp(f, (x,), (np.ones_like(x),))[1],
}


def _inputs(name):
  x = np.array([0., 1.5, 10., 100.], np.float32)
  return x if "vmap" in name else x[2]


@pytest.mark.parametrize("name", list(TRANSFORMS))
def test_log1pexp_matches_jax(name):
  x = _inputs(name)
  if name == "grad_sum_vmap":
    x = np.array([0., 1.5, 10., 100.], np.float32)
  got = TRANSFORMS[name](sj, _log1pexp(SJ))(x)
  want = TRANSFORMS[name](jax, _log1pexp(JX))(x)
  np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)
  assert np.all(np.isfinite(np.asarray(got)))  # the custom rule avoids inf/inf


@pytest.mark.parametrize("name", [n for n in TRANSFORMS if n != "jvp"])
def test_clip_gradient_matches_jax(name):
  x = np.array([0.3, -2., 5.], np.float32)
  if "vmap" not in name and name != "grad_sum_vmap":
    x = x[2]

  def make(ns):
    clip = _clip_gradient(ns)
    return lambda x: 3. * clip(-1., 1., ns["jnp"].sin(x))

  got = TRANSFORMS[name](sj, make(SJ))(x)
  want = TRANSFORMS[name](jax, make(JX))(x)
  np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)


def test_custom_jvp_prints_as_jax():
  text = str(sj.make_jaxpr(_log1pexp(SJ))(1.))
  assert str(jax.make_jaxpr(_log1pexp(JX))(1.)) == text


def test_custom_vjp_prints_as_jax():
  clip = _clip_gradient(SJ)
  jclip = _clip_gradient(JX)
  got = str(sj.make_jaxpr(lambda x: clip(-1., 1., x))(np.float32(1.)))
  want = str(jax.make_jaxpr(lambda x: jclip(-1., 1., x))(np.float32(1.)))
  assert got.replace("bwd=bwd", "").replace("fwd=fwd", "") == \
      want.replace("bwd=bwd", "").replace("fwd=fwd", "")


def _nondiff(ns):
  def app(f, x):
    return f(x)
  app = ns["custom_vjp"](app, nondiff_argnums=(0,))

  def app_fwd(f, x):
    return app(f, x), x

  def app_bwd(f, x, g):
    return (5 * g,)
  app.defvjp(app_fwd, app_bwd)

  def f(x, y):
    return x * y
  f = ns["custom_jvp"](f, nondiff_argnums=(1,))

  @f.defjvp
  def f_jvp(y, primals, tangents):
    x, = primals
    t, = tangents
    return f(x, y), 7. * t * y
  return lambda x: app(lambda z: z * 2., x) + f(x, 3.)


@pytest.mark.parametrize("name", [n for n in TRANSFORMS if n != "jvp"])
def test_nondiff_argnums(name):
  x = np.array([0.5, 2.], np.float32)
  if "vmap" not in name and name != "grad_sum_vmap":
    x = x[0]
  got = TRANSFORMS[name](sj, _nondiff(SJ))(x)
  want = TRANSFORMS[name](jax, _nondiff(JX))(x)
  np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)


def test_pytrees_and_defjvps():
  for ns in (SJ, JX):
    @ns["custom_jvp"]
    def f(d):
      return {"p": d["a"] * d["b"], "q": ns["jnp"].sin(d["a"])}

    @f.defjvp
    def f_jvp(primals, tangents):
      d, = primals
      t, = tangents
      return f(d), {"p": t["a"] * d["b"] + d["a"] * t["b"], "q": 2 * t["a"]}

    g = ns["custom_jvp"](lambda x, y: x * y)
    g.defjvps(lambda t, ans, x, y: t * y * 10, None)
    loss = lambda a, b: f({"a": a, "b": b})["q"] + f({"a": a, "b": b})["p"] + g(a, b)
    ns["out"] = ns["api"].jit(ns["api"].grad(loss, argnums=(0, 1)))(np.float32(1.), 2.)
  for a, b in zip(SJ["out"], JX["out"]):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6)


def test_jvp_of_custom_vjp_is_an_error():
  clip = _clip_gradient(SJ)
  with pytest.raises(TypeError, match="forward-mode"):
    sj.jvp(lambda x: clip(-1., 1., x), (1.,), (1.,))


def test_rule_errors_are_clear():
  f = sj.custom_jvp(lambda x: x)
  with pytest.raises(AttributeError, match="No JVP defined"):
    f(1.)
  f.defjvp(lambda p, t: (p[0], (t[0], t[0])))
  with pytest.raises(TypeError, match="equal container"):
    sj.grad(f)(1.)


def test_custom_call_lowers_inline():
  text = sj.jit(_log1pexp(SJ)).lower(np.float32(1.)).as_text()
  assert "stablehlo.log_plus_one" in text and "func.call" not in text


# ----------------------------------------------------------------------------------------------
# checkpoint and stop_gradient

def _chain(ns):
  return lambda x: ns["jnp"].sin(ns["jnp"].sin(x) * x).sum()


@pytest.mark.parametrize("policy", [None, "everything_saveable", "nothing_saveable",
                                    "dots_saveable"])
def test_checkpoint_matches_jax(policy):
  x = np.linspace(0.1, 1., 5).astype(np.float32)
  sp = policy and getattr(sj.checkpoint_policies, policy)
  jp = policy and getattr(jax.checkpoint_policies, policy)
  got = sj.jit(sj.grad(sj.checkpoint(_chain(SJ), policy=sp)))(x)
  want = jax.jit(jax.grad(jax.checkpoint(_chain(JX), policy=jp)))(x)
  np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)
  np.testing.assert_allclose(np.asarray(sj.vmap(sj.grad(sj.remat(lambda y: jnp.sin(
      jnp.sin(y)))))(x)), np.asarray(jax.vmap(jax.grad(lambda y: jjnp.sin(jjnp.sin(y))))(x)),
      rtol=1e-6)


def test_checkpoint_recomputes_in_the_backward_pass_as_jax_prints_it():
  got = str(sj.make_jaxpr(sj.grad(sj.checkpoint(lambda x: jnp.sin(jnp.sin(x)))))(1.))
  want = str(jax.make_jaxpr(jax.grad(jax.checkpoint(lambda x: jjnp.sin(jjnp.sin(x)))))(1.))
  assert got == want
  text = sj.jit(sj.grad(sj.checkpoint(lambda x: jnp.sin(jnp.sin(x))))).lower(1.).as_text()
  assert "stablehlo.optimization_barrier" in text


def test_checkpoint_static_argnums():
  f = sj.checkpoint(lambda x, n: x ** n, static_argnums=(1,))
  assert float(sj.grad(f)(2., 3)) == 12.


def test_stop_gradient():
  f = lambda x: lax.stop_gradient(x) * x + lax.stop_gradient({"a": x})["a"]
  assert float(sj.grad(f)(3.)) == 3.
  assert str(sj.make_jaxpr(lambda x: lax.stop_gradient(x) * 2)(1.)) == str(
      jax.make_jaxpr(lambda x: jax.lax.stop_gradient(x) * 2)(1.))
  assert float(sj.jit(sj.grad(lambda x: lax.stop_gradient(x * x) + x))(2.)) == 1.
  np.testing.assert_array_equal(sj.vmap(lax.stop_gradient)(np.arange(3.)), np.arange(3.))
  assert lax.stop_gradient(np.int32(3)) == 3


# ----------------------------------------------------------------------------------------------
# against finite differences

def _mul_vjp():
  @sj.custom_vjp
  def mul(x, y):
    return jnp.sin(x) * y

  mul.defvjp(lambda x, y: (mul(x, y), (x, y)),
             lambda res, g: (jnp.cos(res[0]) * res[1] * g, jnp.sin(res[0]) * g))
  return mul


def test_check_grads_against_finite_differences():
  x, y = np.array([0.3, -1.2], np.float64), np.array([2.0, 0.5], np.float64)
  with test_util.x64():
    test_util.check_grads(_log1pexp(SJ), (x,), order=2)
    test_util.check_grads(_mul_vjp(), (x, y), order=1, modes=("rev",))
    test_util.check_grads(sj.checkpoint(lambda a, b: jnp.sin(a * b) * a), (x, y), order=2)
    test_util.check_grads(lambda a: lax.stop_gradient(a) * 0 + a * a, (x,), order=2)
