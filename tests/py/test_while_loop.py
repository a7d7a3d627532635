"""lax.while_loop: printing, evaluation, JVP, batching, and the reverse-mode error, against JAX
running the same program and against finite differences."""
import numpy as np
import pytest

import stablejax as sj
import stablejax.numpy as jnp
from stablejax import lax
from stablejax.test_util import check_close, check_jvp

jax = pytest.importorskip("jax")
jjnp, jlax = jax.numpy, jax.lax

SJ = (jnp, lax)
JAX = (jjnp, jlax)


# ----------------------------------------------------------------------------------------------
# Programs, written once against either library

def power(np_, lax_):
  """x ** 10 with a counter and a closed-over value."""
  return lambda x: lax_.while_loop(lambda c: c[0] < 10, lambda c: (c[0] + 1, c[1] * x), (0, x))


def weak_init(np_, lax_):
  """The weakly typed int 0 becomes the body's f32."""
  return lambda x: lax_.while_loop(lambda c: c < 10., lambda c: c + x, 0)


def sine_steps(np_, lax_):
  def f(x):
    return lax_.while_loop(lambda c: c[0] < 5, lambda c: (c[0] + 1, np_.sin(c[1]) * x + c[1]),
                           (0, x))[1]
  return f


def shifted(np_, lax_):
  """The tangent of `b` is zero on entry and nonzero after one iteration."""
  def f(x):
    init = (0, x, np_.zeros_like(x))
    return lax_.while_loop(lambda c: c[0] < 4, lambda c: (c[0] + 1, c[1] * 1.5, c[1] + c[2]),
                           init)[2]
  return f


def data_dependent(np_, lax_):
  """Iterations depend on the value: per example under vmap."""
  return lambda x: lax_.while_loop(lambda v: v < 10., lambda v: v * 2. + 1., x)


def bounded(np_, lax_):
  def f(x, n):
    return lax_.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * x),
                           (0, np_.ones_like(x)))
  return f


def cond_in_body(np_, lax_):
  def f(x):
    def body(c):
      i, v = c
      v = lax_.cond(i % 2 == 0,
                    lambda v: lax_.cond(v > 1., lambda v: v * 0.5, lambda v: v + x, v),
                    lambda v: np_.cos(v) * x, v)
      return i + 1, v
    return lax_.while_loop(lambda c: c[0] < 6, body, (0, x))[1]
  return f


PRINTED = [power, weak_init]


@pytest.mark.parametrize("program", PRINTED, ids=[p.__name__ for p in PRINTED])
def test_printed_jaxpr_reads_as_jax_prints_it(program):
  x = np.float32(2.)
  expected = str(jax.make_jaxpr(program(*JAX))(x)).replace(" sharding=None", "")
  assert str(sj.make_jaxpr(program(*SJ))(x)) == expected


# ----------------------------------------------------------------------------------------------
# Values and forward mode

VALUES = [power, weak_init, sine_steps, shifted, data_dependent, cond_in_body]


@pytest.mark.parametrize("program", VALUES, ids=[p.__name__ for p in VALUES])
def test_eager_and_jit_values_match_jax(program):
  f, g, jitted = program(*SJ), program(*JAX), sj.jit(program(*SJ))
  for x in [np.float32(0.3), np.float32(1.7)]:
    check_close(f(x), g(x))
    check_close(jitted(x), g(x))


JVPS = [sine_steps, shifted, cond_in_body]


@pytest.mark.parametrize("program", JVPS, ids=[p.__name__ for p in JVPS])
def test_jvp_matches_jax_and_finite_differences(program, x64):
  f, g = program(*SJ), program(*JAX)
  for x in [0.3, 1.7]:
    check_jvp(f, (np.float64(x),))
    check_close(sj.jvp(f, (x,), (1.,))[1], jax.jvp(g, (x,), (1.,))[1])
  check_close(sj.jit(lambda x: sj.jvp(f, (x,), (1.,)))(0.3), jax.jvp(g, (0.3,), (1.,)))


def test_jvp_carries_the_tangents_in_the_loop():
  jaxpr = sj.make_jaxpr(lambda x: sj.jvp(shifted(*SJ), (x,), (1.,)))(2.).jaxpr
  (loop,) = [e for e in jaxpr.eqns if e.primitive is lax.while_p]
  # the counter, two float carries and the tangents of both (b's found by the fixed point)
  assert [a.str_short() for a in loop.params["body_jaxpr"].out_avals] == ["i32[]"] + ["f32[]"] * 4


def test_jacfwd_matches_jax():
  check_close(sj.jacfwd(sine_steps(*SJ))(0.3), jax.jacfwd(sine_steps(*JAX))(0.3))


# ----------------------------------------------------------------------------------------------
# Batching

XS = np.array([-0.5, 0.3, 0.7, 2.0, 6.0], np.float32)
NS = np.array([0, 1, 3, 5, 2], np.int32)


def test_vmap_of_batched_carry_and_consts_matches_jax():
  f, g = bounded(*SJ), bounded(*JAX)
  for in_axes, args in [((0, 0), (XS, NS)), ((0, None), (XS, 3)), ((None, 0), (2., NS))]:
    check_close(sj.vmap(f, in_axes)(*args), jax.vmap(g, in_axes)(*args))
  check_close(sj.jit(sj.vmap(f))(XS, NS), jax.vmap(g)(XS, NS))


def test_vmap_with_batched_predicate_freezes_finished_examples():
  f, g = data_dependent(*SJ), data_dependent(*JAX)
  check_close(sj.vmap(f)(XS), jax.vmap(g)(XS))
  check_close(sj.jit(sj.vmap(f))(XS), jax.vmap(g)(XS))
  check_close(sj.vmap(cond_in_body(*SJ))(XS), jax.vmap(cond_in_body(*JAX))(XS))


def test_vmap_with_unbatched_predicate_keeps_the_loop_unmasked():
  jaxpr = sj.make_jaxpr(sj.vmap(power(*SJ)))(XS)
  (loop,) = [e for e in jaxpr.eqns if e.primitive is lax.while_p]
  assert lax.select_n_p not in [e.primitive for e in loop.params["body_jaxpr"].eqns]
  check_close(sj.vmap(power(*SJ))(XS), jax.vmap(power(*JAX))(XS))


def passthrough(np_, lax_):
  """The carry `p` is returned unchanged and the cond does not read it."""
  return lambda p, y: lax_.while_loop(lambda c: c[1].sum() < 3,
                                      lambda c: (c[0], c[1] + c[0]), (p, y))


def test_a_forwarded_carry_becomes_a_body_const_as_in_jax():
  sj_loop, = [e for e in sj.make_jaxpr(passthrough(*SJ))(1., XS).eqns]
  jax_loop, = [e for e in jax.make_jaxpr(passthrough(*JAX))(1., XS).eqns]
  for key in ("cond_nconsts", "body_nconsts"):
    assert sj_loop.params[key] == jax_loop.params[key]
  assert len(sj_loop.invars) == len(jax_loop.invars) == 2
  # so vmap with a batched predicate leaves it unbatched, and out_axes=None accepts it
  args = (1., np.ones((2, 3), np.float32))
  check_close(sj.vmap(passthrough(*SJ), (None, 0), (None, 0))(*args),
              jax.vmap(passthrough(*JAX), (None, 0), (None, 0))(*args))


def test_vmap_and_jvp_compose():
  def tangent(program, api):
    return api.vmap(lambda x, n: api.jvp(lambda x: program(x, n)[1], (x,), (1.,))[1])
  check_close(tangent(bounded(*SJ), sj)(XS, NS), tangent(bounded(*JAX), jax)(XS, NS))
  check_close(sj.vmap(lambda x: sj.jvp(cond_in_body(*SJ), (x,), (1.,))[1])(XS),
              jax.vmap(lambda x: jax.jvp(cond_in_body(*JAX), (x,), (1.,))[1])(XS))


# ----------------------------------------------------------------------------------------------
# Reverse mode

def test_reverse_mode_through_the_carry_is_an_error():
  with pytest.raises(ValueError, match="Reverse-mode differentiation does not work for "
                     "lax.while_loop") as info:
    sj.grad(sine_steps(*SJ))(0.3)
  assert "lax.scan" in str(info.value) and "lax.fori_loop" in str(info.value)


def test_grad_through_a_loop_on_known_values_works():
  def count(x):
    n = lax.while_loop(lambda i: i < 4, lambda i: i + 1 + (x * x > 100.).astype(jnp.int32), 0)
    return x * n
  check_close(sj.grad(count)(2.), 4.)
  stop_at = lambda lax_: lambda x: lax_.while_loop(lambda v: v < x, lambda v: v + 1., 0.)
  check_close(sj.grad(stop_at(lax))(2.5), jax.grad(stop_at(jlax))(2.5))


# ----------------------------------------------------------------------------------------------
# Errors

@pytest.mark.parametrize("call,message", [
    (lambda: lax.while_loop(lambda c: c, lambda c: c + 1., 0.),
     "cond_fun must return a boolean scalar, but got output type(s) [f32[]]"),
    (lambda: lax.while_loop(lambda c: c < 3, lambda c: (c, c), 0.),
     "same pytree structure as its input (the carry), got input PyTreeDef(*) and output "
     "PyTreeDef((*, *))"),
    (lambda: lax.while_loop(lambda c: c < 3, lambda c: jnp.ones(3), 0.),
     "body_fun returns [f32[3]] but the carry has type [f32[]]"),
    (lambda: lax.while_loop(lambda c: c < 3, lambda c: c + 1.5, np.int32(0)),
     "body_fun returns [f32[]] but the carry has type [i32[]]"),
    (lambda: lax.while_loop(1, lambda c: c, 0.), "should be callable"),
])
def test_errors(call, message):
  with pytest.raises(TypeError) as info:
    call()
  assert message in str(info.value)
