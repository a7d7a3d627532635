"""Differential tests of every built-in primitive, on the rows of primitive_cases.py: its numpy
reference (`primitive_kit.evaluate_reference`), eager execution on the device (one primitive
compiled and run), and `jit` of the same function must agree. A hypothesis property test does the
same for small random elementwise programs, against a numpy evaluation of the program."""
from __future__ import annotations

import operator
import zlib
from typing import Any, Callable, Sequence

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import stablejax as sj
import stablejax.numpy as jnp
from stablejax import lax, test_util
from stablejax.jaxpr import Literal
from stablejax.lax import primitive_kit
from primitive_cases import (CASES, F32, HIGHER_ORDER, NO_VALUE_CASE, SPMD, USER_CODE, Case,
                             make_args)

PARAMS = [pytest.param(case, np.dtype(dt), id=f"{case.id}-{np.dtype(dt).name}", marks=case.marks)
          for case in CASES for dt in case.dtypes]


# ----------------------------------------------------------------------------------------------
# The three evaluations

def reference_eval(fn: Callable, args: Sequence[Any]) -> list[np.ndarray]:
  """Trace `fn` and evaluate each equation with its primitive's numpy reference."""
  closed = sj.make_jaxpr(lambda *a: [fn(*a)])(*args)
  env = dict(zip(closed.jaxpr.constvars, closed.consts))
  env.update(zip(closed.jaxpr.invars, args))
  read = lambda v: v.val if isinstance(v, Literal) else env[v]  # noqa: E731
  for eqn in closed.eqns:
    out = primitive_kit.evaluate_reference(eqn.primitive, *map(read, eqn.invars), **eqn.params)
    env.update(zip(eqn.outvars, out if eqn.primitive.multiple_results else [out]))
  return [np.asarray(read(v)) for v in closed.jaxpr.outvars]


def assert_same(got: Any, want: np.ndarray, what: str) -> None:
  got = np.asarray(got)
  assert (got.shape, got.dtype) == (want.shape, want.dtype), (
      f"{what}: {got.dtype}{list(got.shape)} but the reference gives "
      f"{want.dtype}{list(want.shape)}")
  if want.dtype.kind in "fc":
    test_util.check_close(got, want)
  else:
    np.testing.assert_array_equal(got, want, err_msg=what)


@pytest.mark.parametrize("case,dtype", PARAMS)
def test_reference_eager_and_jit_agree(case, dtype):
  check_case(case, dtype)


def check_case(case: Case, dtype: np.dtype) -> None:
  """The numpy reference, eager execution and jit agree on `case` (reused by test_recipe.py)."""
  args = make_args(case.args, dtype, seed=zlib.crc32(case.id.encode()))
  jaxpr = sj.make_jaxpr(case.fn)(*args)
  assert case.prim in [e.primitive for e in jaxpr.eqns], (
      f"{case.id} should stage {case.prim.name}:\n{jaxpr}")
  (want,) = reference_eval(case.fn, args)

  # Eager on numpy values: compiles the one primitive and runs it on the device.
  assert_same(case.fn(*args), want, "eager (numpy inputs)")
  if dtype == F32:  # (another compile per case: the eager cache is keyed by device too)
    # Eager on device arrays: the result stays on the device.
    on_device = case.fn(*[sj.device_put(a) for a in args])
    assert isinstance(on_device, sj.Array)
    assert_same(on_device, want, "eager (device inputs)")
  # jit of the same function.
  jitted = sj.jit(case.fn)(*args)
  assert isinstance(jitted, sj.Array)
  assert_same(jitted, want, "jit")


def test_every_builtin_primitive_is_covered():
  covered = {case.prim.name for case in CASES}
  builtin = ({p.name for p in test_util.lax_primitives()} - HIGHER_ORDER - USER_CODE - SPMD
             - NO_VALUE_CASE)
  assert builtin - covered == set()


def test_every_case_dtype_is_accepted():
  """The table's dtypes are ones each primitive accepts (a rejected one would be a table bug)."""
  for case in CASES:
    for dt in case.dtypes:
      sj.make_jaxpr(case.fn)(*make_args(case.args, np.dtype(dt), 0))


# ----------------------------------------------------------------------------------------------
# Random elementwise programs: eager == jit == numpy

# name -> (arity, stablejax function, numpy function). Each keeps values in a modest range
# (inputs are in [-1, 1] and programs are short), so float32 rounding differences stay small.
def _np_logistic(x):
  return (1 / (1 + np.exp(-x))).astype(x.dtype)


OPS = {
    "sin": (1, jnp.sin, np.sin),
    "cos": (1, jnp.cos, np.cos),
    "tanh": (1, jnp.tanh, np.tanh),
    "logistic": (1, lax.logistic, _np_logistic),
    "neg": (1, operator.neg, operator.neg),
    "abs": (1, jnp.abs, np.abs),
    "square": (1, lambda x: x * x, lambda x: x * x),
    "exp_tanh": (1, lambda x: jnp.exp(jnp.tanh(x)), lambda x: np.exp(np.tanh(x))),
    "half": (1, lambda x: x * 0.5, lambda x: x * np.float32(0.5)),
    "add_one": (1, lambda x: x + 1.0, lambda x: x + np.float32(1.0)),
    "add": (2, operator.add, operator.add),
    "sub": (2, operator.sub, operator.sub),
    "mul": (2, operator.mul, operator.mul),
    "max": (2, jnp.maximum, np.maximum),
    "min": (2, jnp.minimum, np.minimum),
    "where_gt": (2, lambda x, y: jnp.where(x > y, x, y * 2.0),
                 lambda x, y: np.where(x > y, x, y * np.float32(2.0))),
}
SHAPE_PAIRS = [((4,), (4,)), ((2, 3), (2, 3)), ((2, 3), ()), ((2, 3), (1, 3)), ((3, 1), (1, 4))]


@st.composite
def programs(draw):
  """(input shapes, steps): each step applies an op to earlier values (inputs or results);
  the program returns the last value and one other."""
  n_inputs = draw(st.integers(1, 2))
  shapes = draw(st.sampled_from(SHAPE_PAIRS))[:n_inputs]
  steps = []
  for i in range(draw(st.integers(1, 5))):
    name = draw(st.sampled_from(sorted(OPS)))
    arity = OPS[name][0]
    n_values = n_inputs + i
    operands = tuple(draw(st.integers(0, n_values - 1)) for _ in range(arity))
    steps.append((name, operands))
  extra = draw(st.integers(0, n_inputs + len(steps) - 1))
  return shapes, steps, extra


def run_program(program, which: int, *inputs):
  """Evaluate `program` with the stablejax (which=1) or numpy (which=2) op of each step."""
  _, steps, extra = program
  values = list(inputs)
  for name, operands in steps:
    values.append(OPS[name][which](*[values[i] for i in operands]))
  return values[-1], values[extra]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(program=programs(), seed=st.integers(0, 2**16))
def test_random_elementwise_programs(program, seed):
  rng = np.random.default_rng(seed)
  inputs = [rng.uniform(-1, 1, s).astype(np.float32) for s in program[0]]
  want = [np.asarray(w, np.float32) for w in run_program(program, 2, *inputs)]
  eager = run_program(program, 1, *inputs)
  jitted = sj.jit(lambda *xs: run_program(program, 1, *xs))(*inputs)
  for got in (eager, jitted):
    for g, w in zip(got, want):
      g = np.asarray(g)
      assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, g.dtype, w.shape, w.dtype)
      test_util.check_close(g, w, rtol=1e-4, atol=1e-5)


def test_jnp_power_with_traced_integer_scalar_exponent():
  x = np.linspace(0.5, 2.0, 5, dtype=np.float32)
  got = sj.jit(lambda x, n: x ** n)(x, np.int32(3))
  test_util.check_close(got, x ** 3)
