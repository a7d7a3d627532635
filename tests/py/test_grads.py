"""Derivatives of every differentiable primitive against finite differences (`check_grads`,
orders 1 and 2, forward and reverse mode, float64 under x64), of `jit`-wrapped functions, and
`jacrev` against `jacfwd` and `jax.jacrev`."""
from __future__ import annotations

import numpy as np
import pytest

import stablejax as sj
from stablejax import lax, test_util
from stablejax.test_util import check_close, check_grads
from test_differential import HIGHER_ORDER, SPMD

F64 = np.float64


def normal(*shape):
  return lambda rng: rng.standard_normal(shape)


def positive(*shape):
  return lambda rng: np.abs(rng.standard_normal(shape)) + 0.5


def nonzero(*shape):
  return lambda rng: (np.abs(rng.standard_normal(shape)) + 0.5) * rng.choice([-1, 1], shape)


def positive_definite(*shape):
  """Well-conditioned symmetric positive-definite matrices (the last two axes)."""
  def make(rng):
    m = rng.standard_normal(shape)
    return m @ np.swapaxes(m, -1, -2) + shape[-1] * np.eye(shape[-1])
  return make


def diagonally_dominant(*shape):
  """Square matrices with a dominant diagonal: well-conditioned triangles."""
  return lambda rng: rng.standard_normal(shape) + 3 * shape[-1] * np.eye(shape[-1])


def uniform(lo, hi, *shape):
  return lambda rng: rng.uniform(lo, hi, shape)


def apart(*shape):
  """Values at least 0.1 apart from each other and 0.05 from 0: away from max/min ties and from
  abs/sign's kink."""
  def make(rng):
    n = int(np.prod(shape))
    vals = (np.arange(n) - n / 2 + 0.5) * 0.3 + rng.uniform(-0.1, 0.1, n)
    return rng.permutation(vals).reshape(shape)
  return make


def off_integers(*shape, offset=0.5):
  """Values at least 0.2 away from integers + `offset` (the jumps of floor/ceil, or of round)."""
  return lambda rng: (rng.integers(-3, 4, shape) + offset + rng.uniform(-0.3, 0.3, shape))


def rem_pair(*shape):
  """x, y with x / y at least 0.2 away from an integer (rem's jumps)."""
  def make(rng):
    y = nonzero(*shape)(rng)
    return y * (rng.integers(-2, 3, shape) + rng.uniform(0.2, 0.8, shape)), y
  return make


def distinct_pair(*shape):
  """Two arrays that differ by at least 0.2 everywhere (no max/min ties)."""
  def make(rng):
    x = rng.standard_normal(shape)
    return x, x + rng.choice([-1, 1], shape) * rng.uniform(0.2, 1.0, shape)
  return make


ROWS = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,))
ROW_UPDATES = lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,),
                                          scatter_dims_to_operand_dims=(0,))

# name -> (function, argument makers). A maker returning a tuple gives several arguments.
CASES = {
    # arithmetic, with broadcasting of rank-0 and size-1 operands
    "add": (lax.add, [normal(3, 4), normal(3, 4)]),
    "add_scalar": (lax.add, [normal(3, 4), normal()]),
    "sub": (lax.sub, [normal(3, 4), normal(3, 4)]),
    "sub_size1": (lax.sub, [normal(1, 4), normal(3, 1)]),
    "mul": (lax.mul, [normal(3, 4), normal(3, 4)]),
    "mul_scalar": (lax.mul, [normal(), normal(3, 4)]),
    "div": (lax.div, [normal(3, 4), nonzero(3, 4)]),
    "div_size1": (lax.div, [normal(3, 1), nonzero(1, 4)]),
    "neg": (lax.neg, [normal(3, 4)]),
    "rem": (lambda xy: lax.rem(*xy), [rem_pair(3, 4)]),
    "max": (lambda xy: lax.max(*xy), [distinct_pair(3, 4)]),
    "min": (lambda xy: lax.min(*xy), [distinct_pair(3, 4)]),
    "abs": (lax.abs, [apart(3, 4)]),
    "pow": (lax.pow, [positive(3, 4), uniform(-2, 2, 3, 4)]),
    "pow_int_exponent": (lambda x: lax.pow(x, np.tile(np.arange(-2, 2, dtype=np.int32), (3, 1))),
                         [nonzero(3, 4)]),
    "integer_pow_3": (lambda x: lax.integer_pow(x, 3), [normal(3, 4)]),
    "integer_pow_neg2": (lambda x: lax.integer_pow(x, -2), [nonzero(3, 4)]),
    # piecewise constant: zero derivatives, away from the jumps
    "sign": (lax.sign, [apart(3, 4)]),
    "floor": (lax.floor, [off_integers(3, 4)]),
    "ceil": (lax.ceil, [off_integers(3, 4)]),
    "round": (lax.round, [off_integers(3, 4, offset=0.0)]),
    # elementwise math
    "exp": (lax.exp, [normal(3, 4)]),
    "log": (lax.log, [positive(3, 4)]),
    "log1p": (lax.log1p, [uniform(-0.5, 2.0, 3, 4)]),
    "expm1": (lax.expm1, [normal(3, 4)]),
    "sin": (lax.sin, [normal(3, 4)]),
    "cos": (lax.cos, [normal(3, 4)]),
    "tan": (lax.tan, [uniform(-1.2, 1.2, 3, 4)]),
    "tanh": (lax.tanh, [normal(3, 4)]),
    "logistic": (lax.logistic, [normal(3, 4)]),
    "sqrt": (lax.sqrt, [positive(3, 4)]),
    "rsqrt": (lax.rsqrt, [positive(3, 4)]),
    "exp2": (lax.exp2, [normal(3, 4)]),
    "cbrt": (lax.cbrt, [nonzero(3, 4)]),  # away from the infinite slope at 0
    "square": (lax.square, [normal(3, 4)]),
    "asin": (lax.asin, [uniform(-0.9, 0.9, 3, 4)]),
    "acos": (lax.acos, [uniform(-0.9, 0.9, 3, 4)]),
    "atan": (lax.atan, [normal(3, 4)]),
    "atan2": (lax.atan2, [nonzero(3, 4), nonzero(3, 4)]),
    "sinh": (lax.sinh, [normal(3, 4)]),
    "cosh": (lax.cosh, [normal(3, 4)]),
    "asinh": (lax.asinh, [normal(3, 4)]),
    "acosh": (lax.acosh, [uniform(1.2, 4.0, 3, 4)]),
    "atanh": (lax.atanh, [uniform(-0.9, 0.9, 3, 4)]),
    # complex numbers, between real inputs and outputs
    "complex_real_imag": (lambda x, y: lax.add(lax.real(lax.mul(lax.complex(x, y),
                                                                lax.complex(y, x))),
                                               lax.imag(lax.mul(lax.complex(x, y),
                                                                lax.complex(x, x)))),
                          [normal(3, 4), normal(3, 4)]),
    "conj": (lambda x, y: lax.imag(lax.mul(lax.conj(lax.complex(x, y)), lax.complex(y, y))),
             [normal(3, 4), normal(3, 4)]),
    "conj_of_real": (lambda x: lax.imag(lax.mul(lax.conj(x), lax.complex(x, x))), [normal(3, 4)]),
    # special functions (polygamma in x, zeta in q: neither has a derivative in its other operand)
    "erf": (lax.erf, [normal(3, 4)]),
    "erfc": (lax.erfc, [normal(3, 4)]),
    "erf_inv": (lax.erf_inv, [uniform(-0.9, 0.9, 3, 4)]),
    "lgamma": (lax.lgamma, [positive(3, 4)]),
    "digamma": (lax.digamma, [positive(3, 4)]),
    "lgamma_off_poles": (lax.lgamma, [off_integers(3, 4)]),  # negative values too
    "digamma_off_poles": (lax.digamma, [off_integers(3, 4)]),
    "polygamma": (lambda x: lax.polygamma(np.tile(np.arange(3.0), 4).reshape(3, 4), x),
                  [positive(3, 4)]),
    "zeta": (lambda q: lax.zeta(np.linspace(1.5, 4.0, 12).reshape(3, 4), q), [positive(3, 4)]),
    "igamma": (lax.igamma, [positive(3, 4), positive(3, 4)]),
    "igamma_x": (lambda x: lax.igamma(np.linspace(0.5, 3.0, 12).reshape(3, 4), x),
                 [positive(3, 4)]),
    "igammac": (lax.igammac, [positive(3, 4), positive(3, 4)]),
    "betainc_x": (lambda x: lax.betainc(np.linspace(0.5, 3.0, 12).reshape(3, 4),
                                        np.linspace(3.0, 0.8, 12).reshape(3, 4), x),
                  [uniform(0.1, 0.9, 3, 4)]),  # (no derivative in a and b, as in JAX)
    "bessel_i0e": (lax.bessel_i0e, [apart(3, 4)]),  # |x| has a kink at 0
    "bessel_i1e": (lax.bessel_i1e, [apart(3, 4)]),
    # select, clamp, casts (with respect to the differentiable operands)
    "select_n_bool": (lambda x, y: lax.select_n(np.arange(12).reshape(3, 4) % 3 == 0, x, y),
                      [normal(3, 4), normal(3, 4)]),
    "select_n_int": (lambda x, y, z: lax.select_n(np.arange(12, dtype=np.int32).reshape(3, 4) % 3,
                                                  x, y, z),
                     [normal(3, 4), normal(3, 4), normal(3, 4)]),
    # `apart` values are >= 0.05 from +-0.6; these lo, x, hi put x below, inside and above
    # [lo, hi] with a margin >= 0.077 (so each of the three operands gets some gradient).
    "clamp_x": (lambda x: lax.clamp(-0.6, x, 0.6), [apart(3, 4)]),
    "clamp_arrays": (lambda lo, x, hi: lax.clamp(lo, x, hi),
                     [lambda rng: np.linspace(-1, 1, 12).reshape(3, 4) - 0.35,
                      lambda rng: np.linspace(-1, 1, 12).reshape(3, 4) * 2,
                      lambda rng: np.linspace(-1, 1, 12).reshape(3, 4) + 0.55]),
    "convert_f64_f32_f64": (lambda x: lax.convert_element_type(
        lax.mul(lax.convert_element_type(x, np.float32), np.float32(1.5)), np.float64),
        [normal(3, 4)]),
    "convert_f64_f16": (lambda x: lax.convert_element_type(x, np.float16), [normal(3, 4)]),
    # 40 mantissa bits: rounding steps (~1e-12) far below what finite differences resolve
    "reduce_precision": (lambda x: lax.reduce_precision(x, 11, 40), [normal(3, 4)]),
    # structural
    "broadcast_in_dim": (lambda x: lax.broadcast_in_dim(x, (2, 3, 4), (0, 2)), [normal(2, 4)]),
    "broadcast_in_dim_size1": (lambda x: lax.broadcast_in_dim(x, (2, 3, 4), (1, 2)),
                               [normal(1, 4)]),
    "reshape": (lambda x: lax.reshape(x, (6, 2)), [normal(3, 4)]),
    "reshape_dimensions": (lambda x: lax.reshape(x, (2, 6), (1, 0)), [normal(3, 4)]),
    "transpose": (lambda x: lax.transpose(x, (2, 0, 1)), [normal(2, 3, 4)]),
    "squeeze": (lambda x: lax.squeeze(x, (0, 2)), [normal(1, 3, 1, 4)]),
    "expand_dims": (lambda x: lax.expand_dims(x, (0, 3)), [normal(3, 4)]),
    "concatenate": (lambda x, y, z: lax.concatenate([x, y, z], 1),
                    [normal(2, 1), normal(2, 3), normal(2, 2)]),
    "slice": (lambda x: lax.slice(x, (1, 0), (4, 3)), [normal(5, 4)]),
    "slice_strided": (lambda x: lax.slice(x, (1, 0), (6, 4), (2, 3)), [normal(7, 4)]),
    "pad": (lambda x, v: lax.pad(x, v, ((1, 2, 1), (0, -1, 0))), [normal(3, 4), normal()]),
    "pad_negative": (lambda x: lax.pad(x, 0.5, ((-2, 1, 2), (2, -3, 0))), [normal(3, 4)]),
    "dynamic_slice": (lambda x: lax.dynamic_slice(x, (np.int32(1), np.int32(2)), (2, 2)),
                      [normal(4, 5)]),
    "dynamic_slice_clamped": (lambda x: lax.dynamic_slice(x, (np.int32(3), np.int32(-1)), (2, 2)),
                              [normal(4, 5)]),
    "dynamic_update_slice": (lambda x, u: lax.dynamic_update_slice(
        x, u, (np.int32(1), np.int32(3))), [normal(4, 5), normal(2, 2)]),
    "rev": (lambda x: lax.rev(x, (0, 2)), [normal(2, 3, 4)]),
    "optimization_barrier": (lambda x, y: lax.optimization_barrier((x, lax.sin(y))),
                             [normal(3, 4), normal(3, 4)]),
    # gather and scatter (duplicate indices where the combination is order-free)
    "gather": (lambda x: lax.gather(x, np.array([[3], [0], [3]], np.int32), ROWS, (1, 4)),
               [normal(5, 4)]),
    "gather_clip": (lambda x: lax.gather(x, np.array([[7], [-2], [1]], np.int32), ROWS, (1, 4),
                                         mode="clip"), [normal(5, 4)]),
    # (an explicit fill value: the default NaN would make the finite differences NaN)
    "gather_fill": (lambda x: lax.gather(x, np.array([[7], [4], [1]], np.int32), ROWS, (1, 4),
                                         mode="fill", fill_value=0.5), [normal(5, 4)]),
    "scatter": (lambda x, u: lax.scatter(x, np.array([[3], [0]], np.int32), u, ROW_UPDATES,
                                         unique_indices=True), [normal(5, 4), normal(2, 4)]),
    "scatter_add": (lambda x, u: lax.scatter_add(x, np.array([[3], [0], [3]], np.int32), u,
                                                 ROW_UPDATES), [normal(5, 4), normal(3, 4)]),
    # (in the updates only with unique indices, as in JAX; in the operand with duplicates too)
    "scatter_mul": (lambda x, u: lax.scatter_mul(x, np.array([[3], [0]], np.int32), u,
                                                 ROW_UPDATES, unique_indices=True),
                    [normal(5, 4), normal(2, 4)]),
    "scatter_mul_operand": (lambda x: lax.scatter_mul(x, np.array([[3], [0], [3]], np.int32),
                                                      np.linspace(-1, 2, 12).reshape(3, 4),
                                                      ROW_UPDATES), [normal(5, 4)]),
    # rows 3 and 0 get two and one distinct candidates (no ties)
    "scatter_min": (lambda xu: lax.scatter_min(xu[:5], np.array([[3], [0], [3]], np.int32),
                                               xu[5:], ROW_UPDATES), [apart(8, 4)]),
    "scatter_max": (lambda xu: lax.scatter_max(xu[:5], np.array([[3], [0], [3]], np.int32),
                                               xu[5:], ROW_UPDATES), [apart(8, 4)]),
    # sorting (of distinct values: the sorted order is then locally constant)
    "sort": (lambda x: lax.sort(x, dimension=0), [apart(4, 3)]),
    "sort_key_val": (lambda k, v: lax.sort_key_val(k, v), [apart(3, 4), normal(3, 4)]),
    "top_k": (lambda x: lax.top_k(x, 2)[0], [apart(3, 5)]),
    # reductions
    "reduce_sum": (lambda x: lax.reduce_sum(x, (0, 2)), [normal(2, 3, 4)]),
    "reduce_max": (lambda x: lax.reduce_max(x, (1,)), [apart(3, 4)]),
    "reduce_max_all": (lambda x: lax.reduce_max(x, (0, 1)), [apart(3, 4)]),
    "reduce_min": (lambda x: lax.reduce_min(x, (0,)), [apart(3, 4)]),
    "reduce_prod": (lambda x: lax.reduce_prod(x, (1,)), [nonzero(2, 4, 3)]),
    "cumsum": (lambda x: lax.cumsum(x, 1), [normal(3, 4)]),
    "cumsum_reverse": (lambda x: lax.cumsum(x, 0, reverse=True), [normal(3, 4)]),
    "cumprod": (lambda x: lax.cumprod(x, 1), [nonzero(3, 4)]),
    "cumprod_reverse": (lambda x: lax.cumprod(x, 0, reverse=True), [nonzero(3, 4)]),
    "cummax": (lambda x: lax.cummax(x, 1), [apart(3, 4)]),
    "cummin": (lambda x: lax.cummin(x, 0, reverse=True), [apart(3, 4)]),
    "cumlogsumexp": (lambda x: lax.cumlogsumexp(x, 1), [normal(3, 4)]),
    "cumlogsumexp_reverse": (lambda x: lax.cumlogsumexp(x, 0, reverse=True), [normal(3, 4)]),
    # windowed reductions
    "reduce_window_sum": (lambda x: lax.reduce_window_sum(x, (2, 2), (1, 2), ((1, 0), (0, 1))),
                          [normal(4, 5)]),
    "reduce_window_sum_dilated": (lambda x: lax.reduce_window_sum(x, (2, 2), (2, 1), "SAME",
                                                                  (2, 1), (1, 2)),
                                  [normal(3, 5)]),
    "reduce_window_max": (lambda x: lax.reduce_window_max(x, (1, 3), (1, 1), "SAME"),
                          [apart(4, 5)]),
    "reduce_window_min": (lambda x: lax.reduce_window_min(x, (2, 2), (2, 2), "VALID"),
                          [apart(4, 5)]),
    # contractions
    "dot_general_matmul": (lambda x, y: lax.dot_general(x, y, (((1,), (0,)), ((), ()))),
                           [normal(2, 3), normal(3, 4)]),
    "dot_general_vector": (lambda x, y: lax.dot_general(x, y, (((0,), (0,)), ((), ()))),
                           [normal(3), normal(3)]),
    "dot_general_lhs_transposed": (lambda x, y: lax.dot_general(x, y, (((0,), (0,)), ((), ()))),
                                   [normal(3, 2), normal(3, 4)]),
    "dot_general_batch": (lambda x, y: lax.dot_general(x, y, (((2,), (1,)), ((0,), (0,)))),
                          [normal(2, 3, 4), normal(2, 4, 5)]),
    "dot_general_batch_permuted": (lambda x, y: lax.dot_general(x, y,
                                                                (((2,), (1,)), ((0,), (2,)))),
                                   [normal(2, 3, 4), normal(5, 4, 2)]),
    "dot_general_multi_contract": (lambda x, y: lax.dot_general(x, y,
                                                                (((0, 2), (3, 1)), ((), ()))),
                                   [normal(2, 3, 4), normal(5, 4, 6, 2)]),
    "dot": (lax.dot, [normal(4), normal(4, 3)]),
    "conv_general_dilated": (lambda x, w: lax.conv_general_dilated(x, w, (1, 2), ((1, 1), (0, 1))),
                             [normal(2, 3, 6, 5), normal(4, 3, 3, 2)]),
    "conv_general_dilated_grouped": (lambda x, w: lax.conv_general_dilated(
        x, w, (1, 1), ((1, 0), (0, 1)), (1, 2), (2, 1), ("NHWC", "HWIO", "NHWC"),
        feature_group_count=2), [normal(2, 5, 4, 4), normal(2, 2, 2, 6)]),
    # linear algebra
    "cholesky": (lax.linalg.cholesky, [positive_definite(2, 3, 3)]),
    "triangular_solve_left_lower": (lambda a, b: lax.linalg.triangular_solve(
        a, b, left_side=True, lower=True), [diagonally_dominant(3, 3), normal(3, 2)]),
    "triangular_solve_right_transposed_unit": (
        lambda a, b: lax.linalg.triangular_solve(a, b, transpose_a=True, unit_diagonal=True),
        [diagonally_dominant(2, 3, 3), normal(2, 4, 3)]),
    # (their outputs as functions of the input: an LU with stable pivots, a QR, the eigen- and
    # singular values, whose vectors are defined up to sign only)
    "lu": (lambda x: lax.linalg.lu(x)[0], [diagonally_dominant(2, 3, 3)]),
    "qr": (lambda x: lax.linalg.qr(x, full_matrices=False), [normal(4, 3)]),
    "eigh": (lambda x: lax.linalg.eigh(x + lax.transpose(x, (0, 2, 1)))[1], [normal(2, 3, 3)]),
    "svd": (lambda x: lax.linalg.svd(x, compute_uv=False), [normal(3, 4)]),
    "fft": (lambda x: lax.fft(x, "RFFT", (6,)), [normal(2, 6)]),
}


def flat_case(name, seed=0):
  """The case's function and float64 arguments; a function of a pair (a maker returning a
  tuple) is wrapped to take the pair's halves as separate arguments, to differentiate both."""
  fn, makers = CASES[name]
  rng = np.random.default_rng(seed)
  vals = [make(rng) for make in makers]
  if len(vals) == 1 and isinstance(vals[0], tuple):
    return (lambda *xs: fn(tuple(xs))), [np.asarray(v, F64) for v in vals[0]]
  return fn, [np.asarray(v, F64) for v in vals]


# Finite differences through a narrower float type are only as accurate as that type.
TOLERANCES = {"convert_f64_f32_f64": dict(rtol=1e-2, atol=1e-2),
              "convert_f64_f16": dict(rtol=5e-2, atol=5e-2, eps=1e-2)}


# Cases checked to first order only: their derivative has no derivative of its own (as in JAX).
FIRST_ORDER_ONLY = {"igamma", "igammac"}  # d/da is igamma_grad_a, which is not differentiable


# Cases taking more than ~2 s: derivatives running while loops, or (cumlogsumexp, whose JVP is
# an associative scan) a hundred-odd primitives compiled one by one.
SLOW_CASES = {"igamma", "igammac", "igamma_x", "cumlogsumexp", "cumlogsumexp_reverse"}


@pytest.mark.parametrize("name,order", [
    pytest.param(name, order, marks=[pytest.mark.slow] if name in SLOW_CASES else [])
    for name in sorted(CASES) for order in (1, 2) if order == 1 or name not in FIRST_ORDER_ONLY])
def test_check_grads(name, order, x64):
  fn, args = flat_case(name)
  check_grads(fn, args, order=order, modes=("fwd", "rev"), **TOLERANCES.get(name, {}))


# Primitives whose derivatives are not checked by finite differences here. Bool or integer
# outputs, or no operands (comparisons, logic and bit operations, indices, bit reinterpretation):
NOT_DIFFERENTIABLE = {"eq", "ne", "lt", "le", "gt", "ge", "and", "or", "not", "argmax", "argmin",
                      "iota", "is_finite", "xor", "shift_left", "shift_right_logical",
                      "shift_right_arithmetic", "population_count", "clz", "bitcast_convert_type",
                      "reduce_and", "reduce_or", "reduce_xor", "mulhi",
                      # no derivative rule, as in JAX (they raise)
                      "nextafter", "igamma_grad_a", "pure_callback",
                      # a user's compiled kernel (tests/py/test_ffi.py checks the error), and an
                      # exported module, differentiated through its exported VJP instead
                      # (tests/py/test_export.py)
                      "ffi_call", "call_exported",
                      # integer pivots, and QR's building blocks (no JVP in JAX: qr has one)
                      "lu_pivots_to_permutation", "geqrf", "householder_product",
                      # a zero derivative by design, which finite differences do not see
                      "stop_gradient",
                      # the implicit reparameterization derivative (d sample / d a at a fixed
                      # CDF value), not the sampler's at a fixed key: see
                      # test_random_gamma_implicit_derivative
                      "random_gamma",
                      # an effect with no results: nothing to differentiate
                      "debug_callback"}


def test_every_differentiable_primitive_is_covered():
  covered = set()
  for name in CASES:
    fn, args = flat_case(name)
    covered |= {e.primitive.name for e in sj.make_jaxpr(fn)(*args).eqns}
  builtin = {p.name for p in test_util.lax_primitives()} - HIGHER_ORDER - SPMD
  assert builtin - NOT_DIFFERENTIABLE - covered == set()


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
             "reduce_window_max", "conv_general_dilated_grouped", "cumprod", "complex_real_imag"]


@pytest.mark.parametrize("name", JIT_CASES)
def test_check_grads_of_jit(name, x64):
  fn, args = flat_case(name)
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
  x = apart(*shape)(np.random.default_rng(2)) + 0.05
  rev = np.asarray(sj.jacrev(make(lax, np))(x))
  fwd = np.asarray(sj.jacfwd(make(lax, np))(x))
  with jax.enable_x64(True):
    want = np.asarray(jax.jacrev(make(jax.lax, jax_np))(x))
  assert rev.shape == fwd.shape == want.shape
  assert rev.dtype == fwd.dtype == want.dtype == np.float64
  check_close(rev, want)
  check_close(fwd, want)
