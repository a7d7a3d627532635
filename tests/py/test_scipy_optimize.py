"""`stablejax.scipy.optimize.minimize` (BFGS) against JAX's: the same iterates, so every field of
the result (solution, value, gradient, inverse-Hessian estimate, counts, iterations, status)
bit for bit, under jit, eagerly and under vmap (slow), in float32 and float64; and JAX's errors."""
import numpy as np
import pytest

import stablejax as sj
import stablejax.numpy as snp
from stablejax import test_util
from stablejax.scipy import optimize

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
import jax.scipy.optimize  # noqa: E402

_A = np.array([[3., 1., 0.], [1., 2., .5], [0., .5, 1.]])


def _rosenbrock(np_):
  return lambda x: np_.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


def _quartic(np_):
  return lambda x, a: 0.5 * x @ (a @ x) - np_.sum(x) + 0.1 * np_.sum(x ** 4)


def _himmelblau(np_):
  return lambda x: (x[0] ** 2 + x[1] - 11) ** 2 + (x[0] + x[1] ** 2 - 7) ** 2


# name -> (the objective for a numpy module, x0, args): a narrow valley the float32 search gives
# up in (status 3), a convex quartic, and a function with four minima
PROBLEMS = {
    "rosenbrock": (_rosenbrock, [-1.2, 1.0, 0.5, 0.3], ()),
    "quartic": (_quartic, [1., 2., 3.], (_A,)),
    "himmelblau": (_himmelblau, [0.5, -1.5], ()),
}


def _assert_same(ours, theirs):
  assert type(ours).__name__ == "OptimizeResults" and ours._fields == theirs._fields
  for field in theirs._fields:
    np.testing.assert_array_equal(np.asarray(getattr(ours, field)),
                                  np.asarray(getattr(theirs, field)), err_msg=field)


def _solve(name, dtype, wrap):
  objective, x0, args = PROBLEMS[name]
  x0 = np.asarray(x0, dtype)
  args = tuple(np.asarray(a, dtype) for a in args)
  ours = wrap[0](lambda x: optimize.minimize(objective(snp), x, args, method="BFGS"))(x0)
  theirs = wrap[1](lambda x: jax.scipy.optimize.minimize(objective(jnp), x, args,
                                                         method="BFGS"))(x0)
  return ours, theirs


@pytest.mark.parametrize("name", sorted(PROBLEMS))
def test_minimize_takes_jaxs_steps(name):
  ours, theirs = _solve(name, np.float32, (sj.jit, jax.jit))
  _assert_same(ours, theirs)


@pytest.mark.slow
def test_minimize_eagerly():
  ours, theirs = _solve("quartic", np.float32, (lambda f: f, lambda f: f))
  _assert_same(ours, theirs)


def test_minimize_in_float64():
  with test_util.x64(True), jax.enable_x64(True):
    ours, theirs = _solve("rosenbrock", np.float64, (sj.jit, jax.jit))
  assert int(theirs.status) == 0 and theirs.x.dtype == np.float64
  _assert_same(ours, theirs)


@pytest.mark.slow
def test_minimize_under_vmap_and_with_options():
  x0 = np.array([[0.5, -1.5], [-3., 3.], [1., 1.]], np.float32)
  opts = {"maxiter": 4, "gtol": 1e-3}
  ours = sj.vmap(lambda x: optimize.minimize(_himmelblau(snp), x, method="bfgs",
                                             options=opts))(x0)
  theirs = jax.vmap(lambda x: jax.scipy.optimize.minimize(_himmelblau(jnp), x, method="bfgs",
                                                          options=opts))(x0)
  assert 1 in np.asarray(theirs.status)  # some reach maxiter
  _assert_same(ours, theirs)


def test_minimize_errors_as_jaxs():
  f = _himmelblau(snp)
  with pytest.raises(ValueError, match="Method Nelder-Mead not recognized"):
    optimize.minimize(f, np.zeros(2, np.float32), method="Nelder-Mead")
  with pytest.raises(TypeError, match="args argument to jax.scipy.optimize.minimize must be a "
                     "tuple"):
    optimize.minimize(f, np.zeros(2, np.float32), [1.0], method="BFGS")
  with pytest.raises(ValueError, match="x0 must be a 1-D array"):
    optimize.minimize(f, np.zeros((2, 2), np.float32), method="BFGS")
