"""docs/architecture.md's "Adding a primitive", followed step by step: a toy primitive
`scale_add(x, y, alpha=a) = a * x + y` built with the public kit (this module plays its family
file and its rules file), which then passes the checks every built-in passes: the completeness
check of test_rules.py, the differential check of test_differential.py and the gradient check of
test_grads.py. The toy is not exported from `stablejax.lax`, so the tests iterating the
built-ins do not see it."""
import functools

import numpy as np

import stablejax as sj
from stablejax import dispatch, lax
from stablejax.interpreters import ad, flops
from stablejax.lax.primitive_kit import binop, const_like, defjvp, float_dtypes, linear_ct
from stablejax.lowering import lower_fun, register_lowering
from stablejax.test_util import check_close
from primitive_cases import A, Case, F32
from test_differential import check_case
from test_grads import check_grad_case
from test_rules import missing_rules

# Step 1, its family file: the primitive, with its abstract eval, numpy reference, batching and
# FLOPS count from `binop`, then its JVP, transpose and own FLOPS count.
scale_add_p = binop("scale_add", float_dtypes, lambda x, y, *, alpha: alpha * x + y)


def scale_add(x, y, alpha: float = 2.0):
  """alpha * x + y, elementwise (y may be a scalar)."""
  return scale_add_p.bind(x, y, alpha=float(alpha))


# d/dx is alpha (written with the toy itself, so reverse mode transposes it), d/dy is 1: the
# tangent of a rank-0 y is broadcast to the output's shape by `defjvp`.
defjvp(scale_add_p,
       lambda g, x, y, *, alpha: scale_add_p.bind(g, const_like(g, 0), alpha=alpha),
       lambda g, x, y, *, alpha: g)
ad.primitive_transposes[scale_add_p] = lambda ct, x, y, *, alpha: [
    linear_ct(x, ct, lambda c: lax.mul(c, const_like(c, alpha))), linear_ct(y, ct)]
flops.flops_rules[scale_add_p] = lambda avals_in, avals_out, **_: 2 * avals_out[0].size

# Step 2, its rules file: a default lowering and a cuda override.
register_lowering(scale_add_p, lower_fun(
    lambda x, y, *, alpha: lax.add(lax.mul(x, const_like(x, alpha)), y)))
register_lowering(scale_add_p, lower_fun(
    lambda x, y, *, alpha: lax.mul(lax.add(x, lax.div(y, const_like(y, alpha))),
                                   const_like(x, alpha))), platform="cuda")
# Defined after stablejax's import, the toy is a user's primitive: it opts in to being compiled
# eagerly, as the built-ins are (a user's primitive without an impl cannot run eagerly).
scale_add_p.def_impl(functools.partial(dispatch.apply_primitive, scale_add_p))

# Step 3, its test rows (for primitive_cases.py's CASES: their sample arguments serve both the
# differential and the gradient check).
CASES = [Case("scale_add", scale_add_p, scale_add, [A(), A()], [F32]),
         Case("scale_add_scalar", scale_add_p, scale_add, [A(), A(())], [F32])]


def test_the_toy_has_every_rule():
  assert missing_rules(scale_add_p) == []


def test_the_toy_passes_the_differential_check():
  for case in CASES:
    check_case(case, F32)


def test_the_toy_passes_the_gradient_check(x64):
  for case in CASES:
    for order in case.grad.orders:
      check_grad_case(case, order)


def test_a_rank0_operand_tangent_is_broadcast():
  x, y = np.arange(3, dtype=np.float32), np.float32(1)
  out, tangent = sj.jvp(scale_add, (x, y), (np.zeros(3, np.float32), np.float32(1)))
  assert tangent.shape == out.shape == (3,)
  check_close(tangent, np.ones(3, np.float32))
  _, tangent = sj.jvp(lambda y: scale_add(x, y), (y,), (np.float32(1),))  # (y's tangent only)
  assert tangent.shape == (3,)


def test_the_toy_batches_and_counts_its_flops():
  x, y = np.ones((5, 3), np.float32), np.arange(3, dtype=np.float32)
  check_close(sj.vmap(scale_add, in_axes=(0, None))(x, y), 2 * x + y)
  assert sj.flops(scale_add)(x, x) == 2 * 15


def test_the_cuda_override_is_lowered_without_a_gpu():
  x = np.ones(3, np.float32)
  cpu = sj.jit(scale_add).lower(x, x, platform="cpu").as_text()
  cuda = sj.jit(scale_add).lower(x, x, platform="cuda").as_text()
  assert "stablehlo.divide" in cuda and "stablehlo.divide" not in cpu
