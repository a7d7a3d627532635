"""Derivatives of every differentiable primitive against finite differences (`check_grads`,
orders 1 and 2, forward and reverse mode, float64 under x64), of `jit`-wrapped functions, and
`jacrev` against `jacfwd` and `jax.jacrev`."""
from __future__ import annotations

import re
from typing import Callable

import numpy as np
import pytest

import stablejax as sj
from stablejax import core, lax, test_util
from stablejax.interpreters import ad
from stablejax.test_util import check_close, check_grads
from primitive_cases import (A, CASE_BY_ID, CASES, HIGHER_ORDER, NO_VALUE_CASE, SPMD, USER_CODE,
                             Case, arg_values)

F64 = np.dtype(np.float64)


def grad_args(case: Case) -> tuple[list[np.ndarray], list[bool]]:
  """The float64 arguments of `case`'s gradient check, and which of them are differentiated."""
  specs = case.grad.args if case.grad.args is not None else case.args
  rng = np.random.default_rng(0)  # (the tolerances of the narrow casts were set at seed 0)
  args, varies = [], []
  for a in specs:
    values = arg_values(a, rng, F64)
    args += values
    varies += [a.dtype is None] * len(values)
  if case.grad.wrt is not None:
    varies = [i in case.grad.wrt for i in range(len(args))]
  return args, varies


def grad_fn(case: Case) -> tuple[Callable, list[np.ndarray]]:
  """`case`'s function of its differentiated arguments (the others closed over), and those."""
  args, varies = grad_args(case)
  def fn(*xs):
    it = iter(xs)
    return case.fn(*[next(it) if v else a for a, v in zip(args, varies)])
  return fn, [a for a, v in zip(args, varies) if v]


def check_grad_case(case: Case, order: int) -> None:
  """`case` against finite differences, to `order` (reused by test_recipe.py)."""
  fn, args = grad_fn(case)
  check_grads(fn, args, order=order, modes=("fwd", "rev"), **case.grad.tol)


def _is_candidate(case: Case) -> bool:
  """A row the gradient check can take: a real floating dtype, a differentiated argument and an
  inexact output."""
  if case.grad is None or not any(np.dtype(d).kind == "f" for d in case.dtypes):
    return False
  fn, args = grad_fn(case)
  if not args:
    return False
  with test_util.x64(True):
    outs = sj.tree_util.tree_leaves(sj.eval_shape(fn, *args))
  return all(np.dtype(o.dtype).kind in "fc" for o in outs)


def _refuses(case: Case) -> bool:
  """The JVP rule of `case`'s primitive refuses to differentiate it (the rules JAX defines none
  for raise saying so); any other error is the test's to report."""
  fn, args = grad_fn(case)
  try:
    with test_util.x64(True):
      sj.make_jaxpr(lambda *xs: sj.jvp(fn, xs, xs))(*args)
  except (ValueError, NotImplementedError, TypeError) as e:
    if _REFUSAL.search(str(e)):
      return True
    raise
  return False


_REFUSAL = re.compile(r"(?i)differentia|gradient|derivative|JVP")
CANDIDATES = [case for case in CASES if _is_candidate(case)]


def _zero_jvp_code():
  """The code of the rules `ad.defjvp_zero` registers (a zero tangent)."""
  probe = core.Primitive("zero_jvp_probe")
  ad.defjvp_zero(probe)
  return ad.primitive_jvps.pop(probe).__code__


_ZERO_JVP = _zero_jvp_code()
# The primitives whose every candidate row's JVP refuses: not differentiable (nextafter,
# igamma_grad_a, the QR building blocks, pure_callback...). A row of another primitive that
# refuses fails its test.
REFUSING = ({case.prim for case in CANDIDATES if _refuses(case)}
            - {case.prim for case in CANDIDATES if not _refuses(case)})
CHECKED = [case for case in CANDIDATES if case.prim not in REFUSING]


def not_differentiable(prim: core.Primitive) -> bool:
  """From the registries: `prim` has no JVP rule, `ad.defjvp_zero`'s, or one that refuses."""
  rule = ad.primitive_jvps.get(prim)
  return rule is None or getattr(rule, "__code__", None) is _ZERO_JVP or prim in REFUSING


@pytest.mark.parametrize("case,order", [
    pytest.param(case, order, id=f"{case.id}-{order}", marks=case.grad.marks)
    for case in CHECKED for order in case.grad.orders])
def test_check_grads(case, order, x64):
  check_grad_case(case, order)


def test_every_differentiable_primitive_is_covered():
  covered = set()
  for case in CHECKED:
    fn, args = grad_fn(case)
    with test_util.x64(True):
      covered |= {e.primitive for e in sj.make_jaxpr(fn)(*args).eqns}
  # (a primitive whose rows all say why they are not checked, as random_gamma's)
  unchecked = ({case.prim for case in CASES if case.grad is None}
               - {case.prim for case in CASES if case.grad is not None})
  builtin = {p for p in test_util.lax_primitives()
             if p.name not in HIGHER_ORDER | SPMD | USER_CODE | NO_VALUE_CASE}
  missing = {p for p in builtin - covered - unchecked if not not_differentiable(p)}
  assert not missing, ("differentiable primitives without a checked row: "
                       f"{sorted(p.name for p in missing)}")


def test_stop_gradient_has_zero_derivative(x64):
  x = np.linspace(-1.0, 2.0, 12).reshape(3, 4)
  f = lambda x: lax.mul(lax.stop_gradient(lax.sin(x)), x)  # noqa: E731
  check_close(sj.grad(lambda x: lax.reduce_sum(f(x), (0, 1)))(x), np.sin(x))
  check_close(sj.jvp(f, (x,), (np.ones_like(x),))[1], np.sin(x))


@pytest.mark.slow
def test_random_gamma_implicit_derivative(x64):
  """d sample / d a = -(dP/da) / (dP/dx) at the sample, P(a, x) = igamma (scipy, by finite
  differences in a)."""
  scipy_special = pytest.importorskip("scipy.special")
  a = np.linspace(0.3, 4.0, 6)
  key = np.array([0, 42], np.uint32)
  sample_of = lambda a: lax.random_gamma_p.bind(key, a, log_space=False)  # noqa: E731
  sample = np.asarray(sample_of(a))
  got = np.diag(np.asarray(sj.jacfwd(sample_of)(a)))
  h = 1e-6
  dp_da = (scipy_special.gammainc(a + h, sample) - scipy_special.gammainc(a - h, sample)) / (2 * h)
  dp_dx = np.exp((a - 1) * np.log(sample) - sample - scipy_special.gammaln(a))
  check_close(got, -dp_da / dp_dx, rtol=1e-5, atol=1e-6)


JIT_CASES = ["tanh", "div_size1", "dot_general_batch", "pad", "reduce_max", "concatenate",
             "dynamic_update_slice", "cumsum", "gather_clip", "scatter_add", "sort_key_val",
             "reduce_window_max", "conv_general_dilated_nhwc_dilated_grouped", "cumprod",
             "complex_real_imag"]


@pytest.mark.parametrize("name", JIT_CASES)
def test_check_grads_of_jit(name, x64):
  fn, args = grad_fn(CASE_BY_ID[name])
  check_grads(sj.jit(fn), args, order=2, modes=("fwd", "rev"))


def test_check_grads_of_jit_of_composite(x64):
  @sj.jit
  def f(x, w):
    h = lax.tanh(lax.dot_general(x, w, (((1,), (0,)), ((), ()))))
    return lax.reduce_sum(lax.mul(h, h), (0,))
  rng = np.random.default_rng(1)
  check_grads(f, [rng.standard_normal((4, 3)), rng.standard_normal((3, 2))], order=2)
  check_grads(lambda x, w: sj.jit(sj.grad(lambda x: lax.reduce_sum(f(x, w), (0,))))(x),
              [rng.standard_normal((4, 3)), rng.standard_normal((3, 2))], order=1)


# ----------------------------------------------------------------------------------------------
# jacrev vs jacfwd vs jax.jacrev: the same functions written against a (lax, numpy) pair

def _softplus_layer(L, np_):
  def f(x):
    w = np_.asarray(np.arange(12.0).reshape(3, 4) / 10 - 0.5, x.dtype)
    y = L.dot_general(x, w, (((0,), (0,)), ((), ())))
    return L.log1p(L.exp(y))
  return f


def _structural(L, np_):
  def f(x):
    y = L.pad(L.transpose(x, (1, 0)), np_.asarray(0.0, x.dtype), ((1, 0, 0), (0, 1, 1)))
    return L.cumsum(L.mul(y, L.sin(y)), 1)
  return f


def _reductions(L, np_):
  def f(x):
    return L.concatenate([L.reduce_max(x, (1,)), L.reduce_sum(L.mul(x, x), (1,)),
                          L.reduce_prod(x, (1,))], 0)
  return f


JACOBIAN_CASES = {"softplus_layer": (_softplus_layer, (3,)), "structural": (_structural, (3, 2)),
                  "reductions": (_reductions, (2, 3))}


@pytest.mark.parametrize("name", sorted(JACOBIAN_CASES))
def test_jacrev_matches_jacfwd_and_jax(name, x64):
  jax = pytest.importorskip("jax")
  import jax.numpy as jax_np
  make, shape = JACOBIAN_CASES[name]
  x = A(shape, "apart").make(np.random.default_rng(2), F64) + 0.05
  rev = np.asarray(sj.jacrev(make(lax, np))(x))
  fwd = np.asarray(sj.jacfwd(make(lax, np))(x))
  with jax.enable_x64(True):
    want = np.asarray(jax.jacrev(make(jax.lax, jax_np))(x))
  assert rev.shape == fwd.shape == want.shape
  assert rev.dtype == fwd.dtype == want.dtype == np.float64
  check_close(rev, want)
  check_close(fwd, want)
