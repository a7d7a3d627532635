"""The jaxpr module: the sub-jaxprs of equations, and the type checker's recursion into them."""
import numpy as np
import pytest

import stablejax as sj
import stablejax.numpy as jnp
from stablejax import core, lax, legacy_core
from stablejax.jaxpr import ClosedJaxpr, JaxprTypeError, Var, check_jaxpr, subjaxprs


def _cond_jaxpr() -> ClosedJaxpr:
  return sj.make_jaxpr(lambda x: lax.cond(x > 0, lambda y: y + 1., lambda y: y - 1., x))(1.)


def _cond_eqn_index(closed: ClosedJaxpr) -> int:
  return next(i for i, e in enumerate(closed.eqns) if e.primitive is lax.cond_p)


def test_subjaxprs_of_cond_are_its_branches():
  closed = _cond_jaxpr()
  eqn = closed.eqns[_cond_eqn_index(closed)]
  branches = list(subjaxprs(eqn))
  assert len(branches) == 2
  assert all(a is b for a, b in zip(branches, eqn.params["branches"]))


def _with_branch_operand(closed: ClosedJaxpr, operand: Var) -> ClosedJaxpr:
  """`closed` with the first operand of the false branch's first equation replaced."""
  i = _cond_eqn_index(closed)
  eqn = closed.eqns[i]
  branch = eqn.params["branches"][0]
  first = branch.eqns[0]
  bad_first = first.replace(invars=[operand, *first.invars[1:]])
  bad_branch = ClosedJaxpr(branch.jaxpr.replace(eqns=[bad_first, *branch.eqns[1:]]), branch.consts)
  bad_eqn = eqn.replace(params={**eqn.params,
                                "branches": (bad_branch, *eqn.params["branches"][1:])})
  eqns = list(closed.eqns)
  eqns[i] = bad_eqn
  return ClosedJaxpr(closed.jaxpr.replace(eqns=eqns), closed.consts)


def test_undefined_variable_in_cond_branch_is_reported_as_printed():
  closed = _cond_jaxpr()
  check_jaxpr(closed.jaxpr)
  bad = _with_branch_operand(closed, Var(core.ShapedArray((), np.float32, weak_type=True)))
  assert str(bad) == """\
{ lambda ; a:f32[]. let
    b:bool[] = gt a 0.0:f32[]
    c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] b
    d:f32[] = cond[
      branches=(
        { lambda ; e:f32[]. let f:f32[] = sub g 1.0:f32[] in (f,) }
        { lambda ; h:f32[]. let i:f32[] = add h 1.0:f32[] in (i,) }
      )
    ] c a
  in (d,) }"""
  with pytest.raises(JaxprTypeError, match=r"^equation 2 \(cond\), sub-jaxpr 0: equation 0 "
                     r"\(sub\): variable g:f32\[\] is used before it is defined$"):
    check_jaxpr(bad.jaxpr)


def test_cond_branch_may_not_use_enclosing_variables():
  closed = _cond_jaxpr()
  bad = _with_branch_operand(closed, closed.jaxpr.invars[0])
  with pytest.raises(JaxprTypeError, match=r"variable a:f32\[\] is used before it is defined"):
    check_jaxpr(bad.jaxpr)


def _control_flow(x):
  y = lax.cond(x > 0, lambda y: y + 1., lambda y: y - 1., x)
  c, ys = lax.scan(lambda c, x: (c + x, c * x), y, jnp.arange(3.))
  z = lax.while_loop(lambda c: c < 10., lambda c: c * 2., c)
  return jnp.sum(sj.jit(lambda a: a * z)(ys))


def test_well_typed_control_flow_checks():
  check_jaxpr(sj.make_jaxpr(_control_flow)(1.).jaxpr)
  grad_jaxpr = sj.make_jaxpr(sj.grad(lambda x: sj.jit(lambda x: lax.cond(
      x > 0, jnp.sin, jnp.cos, lax.scan(lambda c, _: (c * x, None), x, None, length=3)[0]))(x)))
  check_jaxpr(grad_jaxpr(1.).jaxpr)


def test_make_jaxpr_under_a_transformation_closes_over_tracers_as_consts():
  # as JAX's: the outer tracers a function closes over are the jaxpr's constants, so
  # eval_jaxpr(j.jaxpr, j.consts, *args) evaluates it (equinox's loops rely on it)
  jax = pytest.importorskip("jax")

  def program(api, np_, eval_jaxpr):
    def f(x):
      j = api.make_jaxpr(lambda y: np_.sin(x) * y)(1.)
      assert (len(j.jaxpr.invars), len(j.jaxpr.constvars), len(j.consts)) == (1, 1, 1)
      return eval_jaxpr(j.jaxpr, j.consts, 3.)[0]
    return f
  ours = program(sj, sj.numpy, legacy_core.eval_jaxpr)
  theirs = program(jax, jax.numpy, jax.core.eval_jaxpr)
  for transform in ("jit", "grad"):
    np.testing.assert_allclose(getattr(sj, transform)(ours)(2.),
                               getattr(jax, transform)(theirs)(2.), rtol=1e-6)
  np.testing.assert_allclose(sj.vmap(ours)(np.arange(2.)), jax.vmap(theirs)(np.arange(2.)),
                             rtol=1e-6)
