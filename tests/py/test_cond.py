"""lax.cond and lax.switch: printing, evaluation, and every transformation, against JAX running
the same program and against finite differences."""
import numpy as np
import pytest

import stablejax as sj
import stablejax.numpy as jnp
from stablejax import lax
from stablejax.test_util import check_close, check_jvp

jax = pytest.importorskip("jax")
jjnp, jlax = jax.numpy, jax.lax

SJ = (jnp, lax, sj)
JAX = (jjnp, jlax, jax)


def _strip_sharding(s: str) -> str:
  return s.replace(" sharding=None", "").replace(" out_sharding=None", "")


# ----------------------------------------------------------------------------------------------
# Programs, written once against either library

def one_of_three(np_, lax_, api):
  return lambda index, arg: lax_.switch(index, [lambda x: x + 1., lambda x: x - 2.,
                                                lambda x: x + 3.], arg)


def func7(np_, lax_, api):
  return lambda arg: lax_.cond(arg >= 0., lambda xtrue: xtrue + 3., lambda xfalse: xfalse - 3.,
                               arg)


def func8(np_, lax_, api):
  def f(arg1, arg2):
    return lax_.cond(arg1 >= 0., lambda xtrue: xtrue[0],
                     lambda xfalse: np_.array([1]) + xfalse[1], arg2)
  return f


def concrete_predicate(np_, lax_, api):
  return lambda x: lax_.cond(True, lambda x: x, lambda x: -x, x)


def two_residuals(np_, lax_, api):
  def f(x, y):
    return lax_.cond(x > 0, lambda a, b: np_.sin(a) * b, lambda a, b: a * a + b, x, y)
  return f


def nested(np_, lax_, api):
  """A cond in a cond branch, closing over values, returning a pytree with an int leaf."""
  def f(x, y):
    z = np_.sin(y)

    def on_true(ops):
      a, b = ops
      return lax_.cond(a > 0.5, lambda: (a * z, 3), lambda: (np_.exp(b), 4))

    out, k = lax_.cond(x > 0, on_true, lambda ops: (np_.cos(ops[0]) * x, 5), (x, y))
    return out * k
  return f


def three_way(np_, lax_, api):
  return lambda i, x: lax_.switch(i, [np_.sin, lambda x: x * 3., lambda x: np_.exp(x) * x], x)


def constant_branch(np_, lax_, api):
  return lambda x: lax_.cond(x > 0, lambda: x, lambda: 0.)


PRINTED = [(one_of_three, (1, 5.)), (func7, (5.,)), (func8, (5., (np.zeros(1, np.float32), 2.))),
           (concrete_predicate, (1.,))]


@pytest.mark.parametrize("program,args", PRINTED, ids=[p.__name__ for p, _ in PRINTED])
def test_printed_jaxpr_reads_as_jax_prints_it(program, args):
  expected = _strip_sharding(str(jax.make_jaxpr(program(*JAX))(*args)))
  assert str(sj.make_jaxpr(program(*SJ))(*args)) == expected


def test_switch_jaxpr_converts_and_clamps_the_index():
  text = str(sj.make_jaxpr(one_of_three(*SJ))(1, 5.))
  assert "convert_element_type[new_dtype=int32 weak_type=False] a" in text
  assert "clamp 0:i32[] c 2:i32[]" in text


def test_branches_closing_over_different_values_take_them_all():
  x_shared = sj.device_put(np.ones(2, np.float32))

  def f(x):
    y = x * 2.
    return lax.cond(x[0] > 0, lambda: x_shared + y, lambda: x_shared * x)
  jaxpr = sj.make_jaxpr(f)(np.ones(2, np.float32)).jaxpr
  cond_eqn = jaxpr.eqns[-1]
  assert len(cond_eqn.invars) == 4  # the index, x_shared (once), y and x
  for branch in cond_eqn.params["branches"]:
    assert [v.aval for v in branch.jaxpr.invars] == [v.aval for v in cond_eqn.invars[1:]]


# ----------------------------------------------------------------------------------------------
# Values

def test_eager_and_jit_values_match_jax():
  jitted = sj.jit(three_way(*SJ))
  for i in [-2, 0, 1, 2, 7]:  # out-of-range indices are clamped
    check_close(three_way(*SJ)(i, 0.7), three_way(*JAX)(i, 0.7))
    check_close(jitted(i, 0.7), three_way(*JAX)(i, 0.7))
  jitted = sj.jit(nested(*SJ))
  for x in [-0.5, 0.3, 0.9]:
    check_close(nested(*SJ)(x, 1.2), nested(*JAX)(x, 1.2))
    check_close(jitted(x, 1.2), nested(*JAX)(x, 1.2))


def test_numeric_predicate_and_pytree_operands():
  f = lambda lax_: lambda p, t: lax_.cond(p, lambda t: {"a": t[0] * 2}, lambda t: {"a": t[1]},
                                          t)
  for p in [0., 2.5]:
    t = (np.float32(1.5), np.float32(4.))
    check_close(f(lax)(p, t), f(jlax)(p, t))


# ----------------------------------------------------------------------------------------------
# Differentiation

def test_jvp_matches_finite_differences(x64):
  for x in [-0.5, 0.3, 0.9]:
    check_jvp(two_residuals(*SJ), (np.float64(x), np.float64(1.2)))
    check_jvp(nested(*SJ), (np.float64(x), np.float64(1.2)))
  for i in range(3):
    check_jvp(lambda x: three_way(*SJ)(i, x), (np.float64(0.7),))


GRADS = [two_residuals, nested]


@pytest.mark.parametrize("program", GRADS, ids=[p.__name__ for p in GRADS])
def test_grad_matches_jax(program):
  f, g = program(*SJ), program(*JAX)
  grads = [sj.grad(f, (0, 1)), sj.grad(sj.jit(f), (0, 1)), sj.jit(sj.grad(f, (0, 1)))]
  for x in [-0.5, 0.3, 0.9]:
    expected = jax.grad(g, (0, 1))(x, 1.2)
    for grad in grads:
      check_close(grad(x, 1.2), expected)


def test_second_order_and_linearize_match_jax():
  f, g = nested(*SJ), nested(*JAX)
  for x in [-0.5, 0.9]:
    check_close(sj.hessian(f)(x, 1.2), jax.hessian(g)(x, 1.2))
    _, f_lin = sj.linearize(f, x, 1.2)
    _, g_lin = jax.linearize(g, x, 1.2)
    check_close(f_lin(0.3, 0.7), g_lin(0.3, 0.7))


def test_grad_of_switch_and_of_a_constant_branch():
  for i in [0, 1, 2]:
    check_close(sj.grad(three_way(*SJ), 1)(i, 0.7), jax.grad(three_way(*JAX), 1)(i, 0.7))
  for x in [-1., 1.]:
    check_close(sj.grad(constant_branch(*SJ))(x), jax.grad(constant_branch(*JAX))(x))


def test_grad_stages_a_known_and_a_linear_cond():
  jaxpr = sj.make_jaxpr(sj.grad(two_residuals(*SJ)))(1., 2.).jaxpr
  conds = [e for e in jaxpr.eqns if e.primitive is lax.cond_p]
  assert len(conds) == 2
  forward, backward = conds
  assert forward.invars[0] is backward.invars[0]  # one index for both
  # every branch of the forward cond outputs the residuals of both branches
  assert len({len(b.out_avals) for b in forward.params["branches"]}) == 1


# ----------------------------------------------------------------------------------------------
# Batching

XS = np.array([-0.5, 0.3, 0.9, 2.0], np.float32)


def test_vmap_with_batched_predicate_selects_between_all_branches():
  f, g = two_residuals(*SJ), two_residuals(*JAX)
  check_close(sj.vmap(f)(XS, XS), jax.vmap(g)(XS, XS))
  check_close(sj.jit(sj.vmap(f))(XS, XS), jax.vmap(g)(XS, XS))
  ours = [e.primitive.name for e in sj.make_jaxpr(sj.vmap(f))(XS, XS).eqns]
  theirs = [e.primitive.name for e in jax.make_jaxpr(jax.vmap(g))(XS, XS).eqns]
  assert "cond" not in ours and ours == theirs


def test_grad_of_vmapped_cond_ignores_the_branch_not_taken():
  # each branch sees its operands through a stop_gradient where it is not chosen (JAX's rule):
  # sqrt's infinite derivative at 0 in the branch not taken gives no NaN
  def f(np_, lax_, api):
    return lambda x: api.vmap(lambda y: lax_.cond(y > 0, np_.sqrt, lambda y: y, y))(x).sum()
  x = np.array([0., 1.], np.float32)
  check_close(sj.grad(f(*SJ))(x), jax.grad(f(*JAX))(x))
  check_close(sj.grad(f(*SJ))(x), np.array([1., .5], np.float32))


def test_vmap_of_switch_with_batched_index():
  idx = np.array([0, 2, 1, 5], np.int32)
  f, g = three_way(*SJ), three_way(*JAX)
  check_close(sj.vmap(f)(idx, XS), jax.vmap(g)(idx, XS))
  check_close(sj.vmap(sj.grad(f, 1))(idx, XS), jax.vmap(jax.grad(g, 1))(idx, XS))
  matrix = np.stack([XS, 2 * XS, -XS])
  check_close(sj.vmap(f, (None, 1))(1, matrix), jax.vmap(g, (None, 1))(1, matrix))


def test_vmap_with_unbatched_predicate_stays_a_cond():
  f, g = two_residuals(*SJ), two_residuals(*JAX)
  check_close(sj.vmap(f, (None, 0))(0.5, XS), jax.vmap(g, (None, 0))(0.5, XS))
  jaxpr = sj.make_jaxpr(sj.vmap(f, (None, 0)))(0.5, XS)
  assert [e.primitive for e in jaxpr.eqns][-1] is lax.cond_p


def test_vmap_and_grad_compose():
  f, g = nested(*SJ), nested(*JAX)
  check_close(sj.vmap(sj.grad(f))(XS, XS), jax.vmap(jax.grad(g))(XS, XS))
  check_close(sj.grad(lambda x: sj.vmap(f)(x, XS).sum())(XS),
              jax.grad(lambda x: jax.vmap(g)(x, XS).sum())(XS))
  check_close(sj.vmap(sj.grad(constant_branch(*SJ)))(XS),
              jax.vmap(jax.grad(constant_branch(*JAX)))(XS))


# ----------------------------------------------------------------------------------------------
# Errors

@pytest.mark.parametrize("call,message", [
    (lambda: lax.cond(True, lambda x: x, lambda x: (x, x), 1.),
     "same pytree structure, but false_fun returns PyTreeDef((*, *)) and true_fun returns "
     "PyTreeDef(*)"),
    (lambda: lax.cond(True, lambda x: x, lambda x: jnp.ones(3), np.float32(1.)),
     "false_fun has type f32[3] and of true_fun has type f32[]"),
    (lambda: lax.switch(0, [lambda: 1, lambda: 1.]), "branch 0 has type i32[] and of branch 1 "
     "has type f32[]"),
    (lambda: lax.cond(np.ones(2) > 0, lambda: 1., lambda: 2.), "must be a scalar, got bool[2]"),
    (lambda: lax.switch(1.5, [lambda: 1., lambda: 2.]), "index must be an integer, got f32[]"),
    (lambda: lax.cond(True, 1., lambda: 2.), "should be callable"),
    (lambda: lax.switch(0, []), "non-empty"),
    (lambda: lax.cond(True, lambda x: x, lambda x: x, 1., operand=2.), "if 'operand' keyword "
     "is passed then no positional operands can be passed"),
])
def test_errors(call, message):
  with pytest.raises((TypeError, ValueError), match=None) as info:
    call()
  assert message in str(info.value)


@pytest.mark.parametrize("pred", [True, False])
def test_the_operand_keyword_and_the_deprecated_five_argument_form_as_jaxs(pred):
  """`cond(pred, f, g, operand=x)`, and `cond(pred, x_true, f, x_false, g)` (numpyro's
  `numpyro.util.cond` calls that form), under jit and grad."""
  def program(np_, lax_, api):
    def f(x):
      keyword = lax_.cond(pred, lambda a: a * 2., lambda a: a - 1., operand=x)
      old = lax_.cond(pred, (x, 3.), lambda t: t[0] * t[1], x + 1., np_.sin)
      return keyword + old
    return api.jit(f), api.grad(f)
  ours, theirs = program(*SJ), program(*JAX)
  for o, t in zip(ours, theirs):
    check_close(o(np.float32(0.7)), t(np.float32(0.7)))


def test_eager_cond_and_while_loop_reuse_their_traces():
  """As in JAX, the same branch/body functions are traced once per argument type: called
  eagerly again, the primitive finds its compiled executable."""
  traces = []

  def branch(x):
    traces.append(1)
    return x * 2.0

  def body(x):
    traces.append(1)
    return x + 1.0

  x = sj.device_put(np.float32(1.0))
  for _ in range(3):
    assert float(lax.cond(True, branch, branch, x)) == 2.0
    assert float(lax.while_loop(lambda v: v < 3.0, body, x)) == 3.0
  assert len(traces) == 2  # the branch function (both branches) and the body, once each
  assert float(lax.cond(True, branch, branch, np.ones(1, np.float32))[0]) == 2.0
  assert len(traces) == 3  # a new argument type traces again


def test_a_cached_trace_never_reuses_tracers_of_an_earlier_transformation():
  holder = {}

  def branch(x):
    return x * holder["scale"]

  @sj.jit
  def f(x, scale):
    holder["scale"] = scale
    return lax.cond(True, branch, branch, x)

  assert float(f(1.0, 2.0)) == 2.0
  assert float(sj.jit(lambda x, s: f(x, s) + 0.0)(1.0, 3.0)) == 3.0
  assert float(sj.grad(lambda s: f(1.0, s))(2.0)) == 1.0
