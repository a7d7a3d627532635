"""Reverse mode: linearize, vjp, grad and friends, the Autodidax part 4 examples, and their
composition with jit, jvp and vmap."""
import numpy as np
import pytest

import stablejax as sj
import stablejax.numpy as jnp
from stablejax import lax
from stablejax.test_util import check_close


def f_autodidax(x):
  y = lax.sin(x) * 2.
  z = - y + x
  return z


def test_linearize_of_sin(x64):
  y, sin_lin = sj.linearize(lax.sin, 3.)
  assert str(y) == str(lax.sin(3.)) == "0.1411200080598672"
  assert str(sin_lin(1.)) == str(lax.cos(3.)) == "-0.9899924966004454"


def test_linearize_of_composite_and_jit(x64):
  y, f_lin = sj.linearize(f_autodidax, 3.)
  check_close((y, f_lin(1.)), (2.7177599838802657, 2.979984993200891), rtol=1e-15)

  @sj.jit
  def g(x, y):
    return lax.cos(x) + y

  @sj.jit
  def f(x):
    y = lax.sin(x) * 2.
    return g(x, y)
  y, f_lin = sj.linearize(f, 3.)
  check_close((y, f_lin(1.)), (-0.7077524804807109, -2.121105001260758), rtol=1e-15)


def test_vjp_of_sin(x64):
  y, f_vjp = sj.vjp(lax.sin, 3.)
  (ct,) = f_vjp(1.)
  assert str(ct) == str(lax.cos(3.)) == "-0.9899924966004454"


def test_grad_autodidax(x64):
  assert str(sj.grad(f_autodidax)(3.)) == "2.979984993200891"

  @sj.jit
  def g(x):
    return lax.cos(x) * 2.

  @sj.jit
  def f(x):
    return g(x * 2.)
  assert str(sj.grad(f)(3.)) == "1.1176619927957034"


def foo(x):
  @sj.jit
  def bar(y):
    def baz(w):
      q = sj.jit(lambda x: y)(x)
      q = q + sj.jit(lambda: y)()
      q = q + sj.jit(lambda y: w + y)(y)
      q = sj.jit(lambda w: sj.jit(lax.sin)(x) * y)(1.0) + q
      return q
    p, t = sj.jvp(baz, (x + 1.0,), (y,))
    return t + (x * p)
  return bar(x)


def _all_close(*vals):
  for v in vals[1:]:
    check_close(v, vals[0], rtol=1e-10, atol=1e-10)


@pytest.mark.slow
def test_compositionality_stress(x64):
  f = foo
  ans1 = f(3.)
  ans2 = sj.jit(f)(3.)
  ans3, _ = sj.jvp(f, (3.,), (5.,))
  ans4, _ = sj.jvp(sj.jit(f), (3.,), (5.,))
  _all_close(ans1, ans2, ans3, ans4)
  deriv1 = sj.grad(f)(3.)
  deriv2 = sj.grad(sj.jit(f))(3.)
  deriv3 = sj.jit(sj.grad(sj.jit(f)))(3.)
  _, deriv4 = sj.jvp(f, (3.,), (1.,))
  _, deriv5 = sj.jvp(sj.jit(f), (3.,), (1.,))
  _all_close(deriv1, deriv2, deriv3, deriv4, deriv5)
  hess1 = sj.grad(sj.grad(f))(3.)
  hess2 = sj.grad(sj.grad(sj.jit(f)))(3.)
  hess3 = sj.grad(sj.jit(sj.grad(f)))(3.)
  hess4 = sj.jit(sj.grad(sj.grad(f)))(3.)
  _, hess5 = sj.jvp(sj.grad(f), (3.,), (1.,))
  _, hess6 = sj.jvp(sj.jit(sj.grad(f)), (3.,), (1.,))
  _, hess7 = sj.jvp(sj.jit(sj.grad(f)), (3.,), (1.,))
  _all_close(hess1, hess2, hess3, hess4, hess5, hess6, hess7)


def test_python_control_flow_under_grad():
  f = lambda x: x ** 2 if x > 0 else 0.
  check_close(sj.grad(f)(3.), 6.0)
  check_close(sj.grad(f)(-3.), 0.0)


def test_grad_argnums_and_has_aux():
  def f(x, y, z):
    return jnp.sum(x * y) + z, {"aux": x}
  x, y = np.arange(3, dtype=np.float32), np.ones(3, np.float32)
  (gx, gz), aux = sj.grad(f, argnums=(0, 2), has_aux=True)(x, y, 2.0)
  check_close(gx, y)
  check_close(gz, 1.0)
  check_close(aux["aux"], x)
  (value, aux), g = sj.value_and_grad(f, has_aux=True)(x, y, 2.0)
  check_close(value, 5.0)
  check_close(g, y)


def test_grad_over_pytrees():
  params = {"w": np.ones((2, 3), np.float32), "b": [np.zeros(3, np.float32)]}
  x = np.arange(2, dtype=np.float32)

  def loss(p):
    return jnp.sum(jnp.tanh(x @ p["w"] + p["b"][0]))
  g = sj.grad(loss)(params)
  h = np.tanh(x @ params["w"])
  check_close(g["b"][0], 1 - h ** 2)
  check_close(g["w"], np.outer(x, 1 - h ** 2))


def test_jacrev_matches_jacfwd_and_hessian():
  def f(x):
    return jnp.sin(x) * jnp.sum(x ** 2)
  x = np.linspace(-1, 1, 4).astype(np.float32)
  check_close(sj.jacrev(f)(x), sj.jacfwd(f)(x))
  h = sj.hessian(lambda x: jnp.sum(x ** 3))(x)
  check_close(h, np.diag(6 * x))


def test_vmap_of_grad():
  xs = np.linspace(-1, 1, 5).astype(np.float32)
  check_close(sj.vmap(sj.grad(lambda x: jnp.sin(x) * x))(xs), np.cos(xs) * xs + np.sin(xs))


def test_grad_errors():
  with pytest.raises(TypeError, match="scalar-output.*shape \\(3,\\)"):
    sj.grad(lambda x: x * 2)(np.ones(3, np.float32))
  with pytest.raises(TypeError, match="real-valued outputs"):
    sj.grad(lambda x: (x > 0).astype(np.int32).sum())(np.ones(3, np.float32))
  with pytest.raises(TypeError, match="int32"):
    sj.grad(lambda x: x * 2.0)(np.int32(3))


def test_unused_inputs_get_zero_cotangents():
  g = sj.grad(lambda x, y: jnp.sin(x), argnums=(0, 1))(1.0, np.ones(3, np.float32))
  check_close(g[1], np.zeros(3))


def test_grad_jaxpr_grows_linearly_without_duplicated_forward_work():
  def chain(n):
    def f(x):
      for _ in range(n):
        x = x * 1.5
      return x
    return f
  counts = [len(sj.make_jaxpr(sj.grad(chain(n)))(1.0).eqns) for n in (50, 100, 200)]
  # Each multiply by a constant costs one forward equation and one cotangent equation.
  per_step = (counts[2] - counts[1]) / 100
  assert per_step == (counts[1] - counts[0]) / 50
  assert per_step <= 2
  sin_counts = [len(sj.make_jaxpr(sj.grad(lambda x, n=n: _sin_chain(x, n)))(1.0).eqns)
                for n in (50, 100)]
  assert (sin_counts[1] - sin_counts[0]) / 50 <= 4  # sin, cos (residual), mul, mul


def _sin_chain(x, n):
  for _ in range(n):
    x = jnp.sin(x)
  return x
