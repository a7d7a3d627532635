"""Structural, reduction and contraction primitives: eager values against numpy and JAX, abstract
evaluation, errors, JVPs against finite differences, batching against a loop, printed jaxprs,
and transpose rules through the vjp identity <ct, f(t)> == <f^T(ct), t>."""
import itertools
import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stablejax as sj
from stablejax import core, lax, test_util, util
from stablejax.interpreters import ad
from stablejax.jaxpr import Literal, check_jaxpr
from stablejax.lax import primitive_kit

F32, I32 = np.float32, np.int32

# name -> (function of a lax module and arrays, input shapes/dtypes). The same function runs
# on stablejax.lax and jax.lax, whose names and signatures agree.
CASES = {
    "broadcast_in_dim": (lambda L, x: L.broadcast_in_dim(x, (4, 2, 3), (1, 2)), [(2, 3)]),
    "broadcast_in_dim_unit": (lambda L, x: L.broadcast_in_dim(x, (2, 3, 4), (0, 2)), [(2, 1)]),
    "broadcast": (lambda L, x: L.broadcast(x, (2, 1)), [(3,)]),
    "reshape": (lambda L, x: L.reshape(x, (3, 4)), [(2, 6)]),
    "reshape_dims": (lambda L, x: L.reshape(x, (6, 2), (1, 0)), [(2, 6)]),
    "transpose": (lambda L, x: L.transpose(x, (2, 0, 1)), [(2, 3, 4)]),
    "squeeze": (lambda L, x: L.squeeze(x, (0, -1)), [(1, 3, 1)]),
    "expand_dims": (lambda L, x: L.expand_dims(x, (0, 2)), [(2, 3)]),
    "concatenate": (lambda L, x, y, z: L.concatenate([x, y, z], 1),
                    [(2, 1), (2, 3), (2, 2)]),
    "slice": (lambda L, x: L.slice(x, (1, 0), (4, 3)), [(5, 3)]),
    "slice_strided": (lambda L, x: L.slice(x, (1, 0), (6, 3), (2, 2)), [(7, 3)]),
    "dynamic_slice": (lambda L, x: L.dynamic_slice(x, (1, 2), (2, 2)), [(4, 5)]),
    "dynamic_slice_clamped": (lambda L, x: L.dynamic_slice(x, (3, -1), (2, 2)), [(4, 5)]),
    "dynamic_slice_traced": (lambda L, x, i: L.dynamic_slice(x, (i, 1), (2, 3)),
                             [(5, 4), ((), I32)]),
    "dynamic_update_slice": (lambda L, x, u: L.dynamic_update_slice(x, u, (1, 3)),
                             [(4, 5), (2, 2)]),
    "dynamic_update_slice_traced": (lambda L, x, u, i, j: L.dynamic_update_slice(x, u, (i, j)),
                                    [(4, 5), (2, 3), ((), I32), ((), I32)]),
    "pad": (lambda L, x: L.pad(x, 0.5, ((1, 2, 1), (0, -1, 0))), [(3, 4)]),
    "pad_negative": (lambda L, x: L.pad(x, 0.0, ((-2, 1, 2), (2, -3, 0))), [(3, 4)]),
    "pad_traced_value": (lambda L, x, v: L.pad(x, v, ((1, 0, 1),)), [(3,), ()]),
    "reduce_sum": (lambda L, x: L.reduce_sum(x, (0, 2)), [(2, 3, 4)]),
    "reduce_prod": (lambda L, x: L.reduce_prod(x, (1,)), [(2, 5, 3)]),
    "reduce_max": (lambda L, x: L.reduce_max(x, (1, 2)), [(2, 3, 4)]),
    "reduce_min": (lambda L, x: L.reduce_min(x, (0,)), [(3, 4)]),
    "argmax": (lambda L, x: L.argmax(x, 1, np.int32), [(3, 4)]),
    "argmin": (lambda L, x: L.argmin(x, 0, np.int32), [(3, 4)]),
    "cumsum": (lambda L, x: L.cumsum(x, 1), [(3, 4)]),
    "cumsum_reverse": (lambda L, x: L.cumsum(x, 0, reverse=True), [(3, 4)]),
    "dot_general_matmul": (lambda L, x, y: L.dot_general(x, y, (((1,), (0,)), ((), ()))),
                           [(2, 3), (3, 4)]),
    "dot_general_batch": (lambda L, x, y: L.dot_general(x, y, (((2,), (1,)), ((0,), (2,)))),
                          [(2, 3, 4), (5, 4, 2)]),
    "dot_general_multi": (lambda L, x, y: L.dot_general(x, y, (((0, 2), (3, 1)), ((), ()))),
                          [(2, 3, 4), (5, 4, 6, 2)]),
    "dot_vec_mat": (lambda L, x, y: L.dot(x, y), [(3,), (3, 2)]),
    "full": (lambda L: L.full((2, 3), 1.5), []),
    "full_traced": (lambda L, x: L.full((2, 3), x), [()]),
    "full_like": (lambda L, x: L.full_like(x, 2, I32), [(2, 3)]),
    "zeros_like_array": (lambda L, x: L.zeros_like_array(x) if L is lax else jnp.zeros_like(x),
                         [(2, 3)]),
    "iota": (lambda L: L.iota(np.int32, 5), []),
    "broadcasted_iota": (lambda L: L.broadcasted_iota(np.float32, (2, 3), 1), []),
}

# Cases whose float inputs are differentiable (the others have index or integer outputs).
NOT_DIFFERENTIABLE = {"argmax", "argmin", "full_like", "iota", "broadcasted_iota"}


def make_args(rng, specs, float_dtype=F32):
  """Random arguments: a spec is a shape (floats) or (shape, np.int32) (small indices)."""
  out = []
  for spec in specs:
    if len(spec) == 2 and spec[1] is I32:
      out.append(np.asarray(rng.integers(0, 4, spec[0]), I32))
    else:
      out.append(test_util.rand(rng, spec, float_dtype))
  return out


def run(name, args, L=lax):
  fn, _ = CASES[name]
  return fn(L, *args)


@pytest.mark.parametrize("name", sorted(CASES))
def test_eager_matches_jax(name, rng):
  args = make_args(rng, CASES[name][1])
  got = np.asarray(run(name, args))
  want = np.asarray(run(name, args, jax.lax))
  assert got.dtype == want.dtype
  test_util.check_close(got, want)


def _eval_with_references(closed, args):
  """Interpret a jaxpr with the numpy references (the oracle of the lowerings)."""
  env = dict(zip(closed.jaxpr.invars, args))
  read = lambda v: v.val if isinstance(v, Literal) else env[v]  # noqa: E731
  for eqn in closed.eqns:
    out = primitive_kit.evaluate_reference(eqn.primitive, *map(read, eqn.invars), **eqn.params)
    env.update(zip(eqn.outvars, out if eqn.primitive.multiple_results else [out]))
  return [read(v) for v in closed.jaxpr.outvars]


@pytest.mark.parametrize("name", sorted(CASES))
def test_references_match_jax(name, rng):
  args = make_args(rng, CASES[name][1])
  (got,) = _eval_with_references(sj.make_jaxpr(lambda *a: [run(name, a)])(*args), args)
  want = np.asarray(run(name, args, jax.lax))
  assert got.dtype == want.dtype
  test_util.check_close(got, want)


@pytest.mark.parametrize("name", sorted(CASES))
def test_abstract_eval_matches_jax(name, rng):
  args = make_args(rng, CASES[name][1])
  (out,) = sj.make_jaxpr(lambda *a: [run(name, a)])(*args).out_avals
  want = jax.eval_shape(lambda *a: run(name, a, jax.lax), *args)
  assert (out.shape, out.dtype, out.weak_type) == (want.shape, want.dtype, want.weak_type)


def test_eager_matches_numpy(rng):
  x = test_util.rand(rng, (3, 4))
  y = test_util.rand(rng, (4, 2))
  np.testing.assert_allclose(lax.dot(x, y), x @ y, rtol=1e-5)
  np.testing.assert_array_equal(lax.reshape(x, (2, 6), (1, 0)), x.T.reshape(2, 6))
  np.testing.assert_array_equal(lax.slice(x, (0, 1), (3, 4), (2, 2)), x[0:3:2, 1:4:2])
  np.testing.assert_array_equal(lax.dynamic_slice(x, (2, 3), (2, 2)), x[1:3, 2:4])
  np.testing.assert_array_equal(lax.dynamic_slice(x, (-1, 0), (1, 4)), x[2:3])
  np.testing.assert_array_equal(lax.pad(x, F32(9), ((0, 0, 0), (-1, -1, 0))), x[:, 1:3])
  np.testing.assert_array_equal(lax.argmax(np.array([1, 3, 3, 0]), 0, I32), 1)
  np.testing.assert_array_equal(lax.cumsum(np.arange(4), reverse=True), [6, 6, 5, 3])
  np.testing.assert_array_equal(lax.reduce_max(np.zeros((0, 2), F32), (0,)), [-np.inf] * 2)
  np.testing.assert_array_equal(lax.reduce_sum(np.ones((2, 0), F32), (1,)), [0, 0])


def test_weak_types():
  def f(x):
    return (lax.broadcast_in_dim(x, (3,), ()), lax.reduce_sum(lax.full((2,), x), (0,)),
            lax.argmax(lax.full((2,), x), 0, I32), lax.full((2,), 1.0, F32))
  avals = sj.make_jaxpr(f)(2.0).out_avals
  assert [a.weak_type for a in avals] == [True, True, False, False]


# ----------------------------------------------------------------------------------------------
# Errors name what is wrong

ERRORS = [
    (lambda: lax.reshape(np.ones((2, 3)), (4, 2)), TypeError, r"total size.*\(4, 2\).*f32\[2,3\]"),
    (lambda: lax.reduce_sum(np.ones((2, 3)), (2,)), ValueError, "axis 2 is out of bounds"),
    (lambda: lax.reduce_sum(np.ones((2, 3)), (0, -2)), ValueError, "repeated axis"),
    (lambda: lax.reduce_sum(np.ones(3, bool), (0,)), TypeError, "reduce_sum does not accept"),
    (lambda: lax.concatenate([np.ones((2, 3)), np.ones((3, 3))], 1), TypeError,
     r"equal shapes except along dimension 1.*f32\[2,3\], f32\[3,3\]"),
    (lambda: lax.concatenate([np.ones(2, F32), np.ones(2, I32)], 0), TypeError, "one dtype"),
    (lambda: lax.dot_general(np.ones((2, 3)), np.ones((4, 2)), (((1,), (0,)), ((), ()))),
     TypeError, r"contracting dimensions of equal sizes.*\(3,\).*\(4,\)"),
    (lambda: lax.dot_general(np.ones((2, 3)), np.ones((3, 2)), (((1,), (0,)), ((0,), ()))),
     TypeError, "as many lhs as rhs batch"),
    (lambda: lax.dot_general(np.ones((2, 3)), np.ones((3, 2)), (((5,), (0,)), ((), ()))),
     TypeError, r"lhs contracting dimensions \(5,\)"),
    (lambda: lax.dot(np.ones((2, 3)), np.ones((2, 3))), ValueError, "dimension_numbers must be"),
    (lambda: lax.squeeze(np.ones((2, 1)), (0,)), ValueError, "size is not 1"),
    (lambda: lax.transpose(np.ones((2, 3)), (0, 0)), TypeError, "not a permutation"),
    (lambda: lax.broadcast_in_dim(np.ones(3), (2, 4), (1,)), TypeError, "cannot broadcast"),
    (lambda: lax.slice(np.ones((4,)), (1,), (6,)), TypeError, r"limit <= size.*\(6,\)"),
    (lambda: lax.dynamic_slice(np.ones((4, 4)), (1,), (2, 2)), ValueError, "one index per axis"),
    (lambda: lax.dynamic_slice(np.ones(4), (1,), (5,)), TypeError, "slice_sizes"),
    (lambda: lax.dynamic_slice(np.ones(4), (1.0,), (2,)), TypeError, "scalar integers"),
    (lambda: lax.dynamic_update_slice(np.ones(4), np.ones(5), (0,)), TypeError, "fit inside"),
    (lambda: lax.pad(np.ones(3, F32), F32(0), ((-2, -2, 0),)), ValueError, "negative shape"),
    (lambda: lax.pad(np.ones(3, F32), I32(0), ((0, 0, 0),)), TypeError, "padding value"),
    (lambda: lax.argmax(np.ones((0, 2)), 0, I32), ValueError, "non-empty"),
    (lambda: lax.argmax(np.ones(2), 0, F32), TypeError, "index_dtype"),
    (lambda: lax.iota(np.bool_, 3), TypeError, "iota does not accept"),
]


@pytest.mark.parametrize("fn,exc,match", ERRORS)
def test_errors(fn, exc, match):
  with pytest.raises(exc, match=match):
    fn()


def test_static_ints_may_be_python_or_numpy_ints():
  """Tuples and lists of Python ints take a fast path; numpy ints and arrays the general one."""
  x = np.arange(6.0).reshape(2, 3)
  for perm in [(1, 0), [1, 0], (np.int64(1), np.int32(0)), np.array([1, 0])]:
    np.testing.assert_array_equal(lax.transpose(x, perm), x.T)
  for bad in [(1.0, 0), (True, 0), (2**64, 0)]:
    with pytest.raises(TypeError, match="must be integers"):
      lax.transpose(x, bad)
  with pytest.raises(TypeError, match="must be integers"):
    lax.broadcast_in_dim(x, (2**70, 2, 3), (1, 2))


def test_argsort_of_axes_is_numpys():
  for perm in itertools.permutations(range(4)):
    assert util.argsort(perm) == np.argsort(perm).tolist()
  assert util.argsort([7, 2, 5]) == [1, 2, 0]


def test_errors_at_trace_time():
  with pytest.raises(TypeError, match="total size"):
    sj.make_jaxpr(lambda x: lax.reshape(x, (7,)))(np.ones((2, 3), F32))


# ----------------------------------------------------------------------------------------------
# JVP against finite differences (float64)

JVP_CASES = sorted(n for n in CASES if n not in NOT_DIFFERENTIABLE and CASES[n][1])


@pytest.mark.parametrize("name", JVP_CASES)
def test_jvp_finite_differences(name, rng, x64):
  args = make_args(rng, CASES[name][1], np.float64)
  diff = [i for i, a in enumerate(args) if a.dtype == np.float64]

  def f(*xs):
    full = list(args)
    for i, x in zip(diff, xs):
      full[i] = x
    return run(name, full)

  test_util.check_jvp(f, [args[i] for i in diff])


@pytest.mark.parametrize("reduction", ["reduce_max", "reduce_min", "reduce_prod"])
def test_jvp_ties_and_zeros_match_jax(reduction):
  """At ties max/min split the tangent equally; prod is exact with (several) zeros."""
  x = np.array([[1., 3., 3., 0.], [2., 0., 0., 2.], [0., 5., 1., 2.]], F32)
  t = np.arange(12, dtype=F32).reshape(3, 4)
  got = sj.jvp(lambda x: getattr(lax, reduction)(x, (1,)), (x,), (t,))
  want = jax.jvp(lambda x: getattr(jax.lax, reduction)(x, (1,)), (x,), (t,))
  test_util.check_close(got, tuple(np.asarray(w) for w in want))


def test_jvp_with_constant_operands(rng, x64):
  """Rules see symbolic-zero tangents for the operands that are not differentiated."""
  x, u = test_util.rand(rng, (4, 5), np.float64), test_util.rand(rng, (2, 3), np.float64)
  w = test_util.rand(rng, (5, 2), np.float64)
  test_util.check_jvp(lambda u: lax.dynamic_update_slice(x, u, (1, 1)), [u])
  test_util.check_jvp(lambda x: lax.dynamic_update_slice(x, u, (3, 1)), [x])
  test_util.check_jvp(lambda x: lax.concatenate([w.T, x, w.T], 0), [x])
  test_util.check_jvp(lambda w: lax.dot_general(x, w, (((1,), (0,)), ((), ()))), [w])
  test_util.check_jvp(lambda v: lax.pad(x, v, ((1, 1, 1), (0, 0, 0))), [np.float64(2.0)])


def test_jacfwd_composes_with_batched_rules(rng):
  """jacfwd is vmap of jvp: the JVP rules run under the batching trace."""
  x = test_util.rand(rng, (3, 4))
  f = lambda L, x: L.reduce_max(L.dynamic_slice(L.cumsum(x, 1), (1, 1), (2, 2)), (1,))  # noqa: E731
  test_util.check_close(sj.jacfwd(lambda x: f(lax, x))(x), jax.jacfwd(lambda x: f(jax.lax, x))(x))


def test_grad_through_every_transpose_rule_matches_jax(rng):
  x, w = test_util.rand(rng, (3, 4)), test_util.rand(rng, (4, 5))

  def f(L, x, w):
    y = L.dot_general(x, w, (((1,), (0,)), ((), ())))
    y = L.pad(y, 0.0, ((1, 0, 1), (0, -1, 0)))
    y = L.concatenate([y, L.broadcast_in_dim(L.reduce_sum(y, (0,)), (2, 4), (1,))], 0)
    y = L.dynamic_slice(y, (1, 1), (3, 3))
    y = L.cumsum(L.reshape(L.transpose(y, (1, 0)), (9,)), 0, reverse=True)
    y = L.expand_dims(y, (0,))
    y = L.dynamic_update_slice(y, L.slice(y, (0, 0), (1, 8), (1, 2)), (0, 3))
    return L.add(L.reduce_max(L.squeeze(y, (0,)), (0,)), L.reduce_sum(y, (0, 1)))

  got = sj.grad(lambda x, w: f(lax, x, w), argnums=(0, 1))(x, w)
  want = jax.grad(lambda x, w: f(jax.lax, x, w), argnums=(0, 1))(x, w)
  test_util.check_close(got, tuple(np.asarray(g) for g in want))
  check_jaxpr(sj.make_jaxpr(sj.grad(lambda x, w: f(lax, x, w)))(x, w).jaxpr)


# ----------------------------------------------------------------------------------------------
# Batching against a Python loop

B = 3


def _batched(x, axis):
  """`x` repeated B times (with a perturbation) along a new axis `axis`."""
  stacked = np.stack([x + x.dtype.type(i) for i in range(B)])
  return np.moveaxis(stacked, 0, axis)


def _in_axes_options(args):
  """Each argument unbatched, batched at 0, or batched at its last position."""
  options = [[None, 0] + ([np.ndim(a)] if np.ndim(a) else []) for a in args]
  return [axes for axes in itertools.product(*options) if any(a is not None for a in axes)]


VMAP_CASES = [(n, axes) for n in sorted(CASES) if CASES[n][1]
              for axes in _in_axes_options(make_args(np.random.default_rng(0), CASES[n][1]))]


@pytest.mark.parametrize("name,in_axes", VMAP_CASES)
def test_vmap_matches_loop(name, in_axes, rng):
  args = make_args(rng, CASES[name][1])
  batched = [a if ax is None else _batched(a, ax) for a, ax in zip(args, in_axes)]
  test_util.check_vmap(lambda *a: run(name, a), batched, in_axes)


def test_vmap_batched_indices(rng):
  x = test_util.rand(rng, (B, 6, 5))
  u = test_util.rand(rng, (B, 2, 3))
  i = np.array([0, 3, 9], I32)   # 9 is clamped
  j = np.array([-1, 1, 2], I32)  # -1 counts from the end, then is clamped
  test_util.check_vmap(lambda x, i, j: lax.dynamic_slice(x, (i, j), (3, 2)), [x, i, j],
                       (0, 0, 0))
  test_util.check_vmap(lambda x, i: lax.dynamic_slice(x, (i, 1), (3, 2)), [x[0], i], (None, 0))
  test_util.check_vmap(lambda x, u, i, j: lax.dynamic_update_slice(x, u, (i, j)),
                       [x, u, i, j], (0, 0, 0, 0))
  test_util.check_vmap(lambda x, u, i: lax.dynamic_update_slice(x, u, (2, i)),
                       [x[0], u, j], (None, 0, 0))


def test_vmap_batched_index_cost_is_log_shifts():
  """A batched start index costs O(log size) selects, not a loop over the batch."""
  f = sj.vmap(lambda x, i: lax.dynamic_slice(x, (i,), (4,)), in_axes=(None, 0))
  jaxpr = sj.make_jaxpr(f)(np.ones(1024, F32), np.zeros(64, I32))
  check_jaxpr(jaxpr.jaxpr)
  prims = [e.primitive.name for e in jaxpr.eqns]
  assert prims.count("pad") == (1024 - 4).bit_length()
  assert len(prims) < 60


# ----------------------------------------------------------------------------------------------
# Printed jaxprs read like JAX's

def _words(text):
  """The printed tokens, ignoring layout (line breaks) and JAX's sharding params."""
  return re.sub(r" (out_)?sharding=None", "", text).split()


@pytest.mark.parametrize("name", ["reshape", "transpose", "reduce_sum", "concatenate", "slice",
                                  "pad", "cumsum", "argmax", "dynamic_slice", "iota"])
def test_make_jaxpr_prints_like_jax(name, rng):
  args = make_args(rng, CASES[name][1])
  ours = sj.make_jaxpr(lambda *a: run(name, a))(*args)
  assert _words(str(ours)) == _words(str(jax.make_jaxpr(lambda *a: run(name, a, jax.lax))(*args)))


def test_make_jaxpr_dot_general_structure():
  x, y = np.ones((2, 3), F32), np.ones((5, 3), F32)
  (eqn,) = sj.make_jaxpr(lambda x, y: lax.dot_general(x, y, (((1,), (1,)), ((), ()))))(x, y).eqns
  assert eqn.primitive is lax.dot_general_p
  assert eqn.params == {"dimension_numbers": (((1,), (1,)), ((), ())), "precision": None,
                        "preferred_element_type": None}
  assert eqn.outvars[0].aval.str_short() == "f32[2,5]"


# ----------------------------------------------------------------------------------------------
# Transpose rules: <ct, f(t)> == <f^T(ct), t>

def _vdot(a, b):
  return float(np.sum(np.asarray(a, np.float64) * np.asarray(b, np.float64)))


# name -> (primitive, shapes of its linear args, its constant (index) args, params)
TRANSPOSE_CASES = {
    "broadcast_in_dim": (lax.broadcast_in_dim_p, [(2, 1)], [],
                         dict(shape=(4, 2, 3), broadcast_dimensions=(1, 2))),
    "reshape": (lax.reshape_p, [(2, 6)], [], dict(new_sizes=(3, 4), dimensions=(1, 0))),
    "transpose": (lax.transpose_p, [(2, 3, 4)], [], dict(permutation=(1, 2, 0))),
    "squeeze": (lax.squeeze_p, [(2, 1, 3)], [], dict(dimensions=(1,))),
    "expand_dims": (lax.expand_dims_p, [(2, 3)], [], dict(dimensions=(0, 3))),
    "reduce_sum": (lax.reduce_sum_p, [(2, 3, 4)], [], dict(axes=(0, 2))),
    "cumsum": (lax.cumsum_p, [(3, 4)], [], dict(axis=1, reverse=True)),
    "slice": (lax.slice_p, [(7, 5)], [],
              dict(start_indices=(1, 0), limit_indices=(6, 4), strides=(2, 3))),
    "pad": (lax.pad_p, [(3, 4), ()], [], dict(padding_config=((1, -1, 2), (-1, 2, 0)))),
    "dynamic_slice": (lax.dynamic_slice_p, [(5, 4)], [I32(3), I32(1)], dict(slice_sizes=(3, 2))),
    "dynamic_update_slice": (lax.dynamic_update_slice_p, [(5, 4), (2, 3)], [I32(4), I32(0)],
                             {}),
}


@pytest.mark.parametrize("name", sorted(TRANSPOSE_CASES))
def test_transpose_rule_vjp_identity(name, rng):
  prim, lin_shapes, consts, params = TRANSPOSE_CASES[name]
  ts = [test_util.rand(rng, s, np.float64) for s in lin_shapes]
  with test_util.x64():
    out = prim.bind(*ts, *consts, **params)
    ct = test_util.rand(rng, np.shape(out), np.float64)
    undefined = [ad.UndefinedPrimal(core.get_aval(t)) for t in ts]
    cts = ad.primitive_transposes[prim](ct, *undefined, *consts, **params)
  assert all(c is None for c in cts[len(ts):])
  assert _vdot(ct, out) == pytest.approx(sum(_vdot(c, t) for c, t in zip(cts, ts)))


@pytest.mark.parametrize("linear", [0, 1])
def test_transpose_dot_general_and_concatenate(linear, rng):
  dims = (((2,), (1,)), ((0,), (2,)))
  x, y = test_util.rand(rng, (2, 3, 4), np.float64), test_util.rand(rng, (5, 4, 2), np.float64)
  with test_util.x64():
    out = lax.dot_general(x, y, dims)
    ct = test_util.rand(rng, out.shape, np.float64)
    args = [x, y]
    args[linear] = ad.UndefinedPrimal(core.get_aval(args[linear]))
    cts = ad.primitive_transposes[lax.dot_general_p](
        ct, *args, dimension_numbers=dims, preferred_element_type=None)
    assert cts[1 - linear] is None
    assert _vdot(ct, out) == pytest.approx(_vdot(cts[linear], [x, y][linear]))
    a, b = test_util.rand(rng, (2, 3), np.float64), test_util.rand(rng, (2, 1), np.float64)
    out = lax.concatenate([a, b, a], 1)
    ct = test_util.rand(rng, out.shape, np.float64)
    cts = ad.primitive_transposes[lax.concatenate_p](
        ct, ad.UndefinedPrimal(core.get_aval(a)), b, ad.UndefinedPrimal(core.get_aval(a)),
        dimension=1)
  assert cts[1] is None
  np.testing.assert_array_equal(cts[0], ct[:, :3])
  np.testing.assert_array_equal(cts[2], ct[:, 4:])


def test_transpose_of_zero_cotangent():
  aval = core.ShapedArray((2, 3), np.float32)
  cts = ad.primitive_transposes[lax.reshape_p](ad.Zero(core.ShapedArray((6,), np.float32)),
                                               ad.UndefinedPrimal(aval), new_sizes=(6,),
                                               dimensions=None)
  assert type(cts[0]) is ad.Zero and cts[0].aval == aval


def test_transpose_traced_under_make_jaxpr():
  """Transpose rules bind primitives, so they stage into jaxprs like any other code."""
  aval = core.ShapedArray((2, 3), np.float32)
  rule = ad.primitive_transposes[lax.broadcast_in_dim_p]
  jaxpr = sj.make_jaxpr(lambda ct: rule(ct, ad.UndefinedPrimal(aval), shape=(4, 2, 3),
                                        broadcast_dimensions=(1, 2)))(np.ones((4, 2, 3), F32))
  assert [e.primitive.name for e in jaxpr.eqns] == ["reduce_sum"]
