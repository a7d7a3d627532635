"""The sample cases of every built-in primitive, one table (`CASES`) whose rows name their
primitive: test_differential.py checks that each row's numpy reference, eager execution and
`jit` agree, and test_grads.py checks each row of a differentiable primitive against finite
differences (its `Grad` says how, where the row's values need it). A new primitive needs one
row here."""
from __future__ import annotations

import dataclasses
from typing import Any, Callable, Sequence

import numpy as np
import pytest
from jaxlib.xla_client import ArrayCopySemantics

import stablejax as sj
from stablejax import core, lax, test_util
from stablejax.interpreters import partial_eval as pe

F32, I32, BOOL = np.dtype(np.float32), np.dtype(np.int32), np.dtype(np.bool_)
C64, U8 = np.dtype(np.complex64), np.dtype(np.uint8)

# Primitives that are not in this table on purpose: the higher-order ones (control flow, calls,
# custom derivatives, rematerialization: those with a partial-evaluation rule), which other test
# files cover (they take jaxprs, not arrays).
HIGHER_ORDER = {p.name for p in pe.partial_eval_rules}
# The primitives running code compiled elsewhere: a user's kernels (tests/py/test_ffi.py builds
# them with g++) and exported modules (tests/py/test_export.py).
USER_CODE = {"ffi_call", "call_exported"}
# The primitives whose values depend on a named axis or a mesh: the collectives
# (tests/py/test_collectives.py checks them against JAX under vmap and on 8 devices) and the
# sharding constraint (tests/py/test_sharding.py); ragged_all_to_all, which XLA:CPU cannot
# compile (tests/py/test_lax_general.py checks its staging and that error, as JAX's).
SPMD = {"psum", "pmax", "pmin", "all_gather", "reduce_scatter", "ppermute", "all_to_all",
        "axis_index", "sharding_constraint", "ragged_all_to_all"}
# The primitives with no value a numpy reference gives: XLA's random generators and dce_sink
# (no result); tests/py/test_lax_additions.py checks them against JAX.
NO_VALUE_CASE = {"rng_bit_generator", "rng_uniform", "dce_sink"}
# The mutable-ref primitives (lax/state.py): they take or make refs, not arrays, and are
# discharged before lowering; tests/py/test_refs.py checks them against JAX.
REFS = {"new_ref", "empty_ref", "freeze", "free_ref", "get", "swap", "addupdate"}
NO_VALUE_CASE |= REFS
# dim_as_value is bound only for a symbolic dimension, which does not lower yet;
# tests/py/test_shape_poly.py checks it against JAX's jaxprs.
NO_VALUE_CASE |= {"dim_as_value"}


# ----------------------------------------------------------------------------------------------
# Random arguments

def _values(rng: np.random.Generator, shape, dtype: np.dtype, domain: str) -> np.ndarray:
  """Random values of `dtype` where the operation is defined and well conditioned."""
  if dtype == BOOL:
    return rng.random(shape) < 0.5
  if dtype.kind == "c":  # real and imaginary parts from the domain
    re, im = (_values(rng, shape, np.dtype(np.float64), domain) for _ in range(2))
    return (re + 1j * im).astype(dtype)
  if dtype.kind in "iu":
    if domain in ("pos", "nonzero"):
      x = rng.integers(1, 6, shape)
      return (x if domain == "pos" else x * rng.choice([-1, 1], shape)).astype(dtype)
    if domain == "small":
      return rng.integers(-2, 3, shape).astype(dtype)
    if domain in ("shift", "shift_oob"):  # shift amounts within the bit width (or beyond it)
      bits = 8 * dtype.itemsize
      lo, hi = (0, bits) if domain == "shift" else (-2 if dtype.kind == "i" else 0, bits + 3)
      return rng.integers(lo, hi, shape).astype(dtype)
    if domain == "bits":  # the whole range and its edges, for the bit operations
      info = np.iinfo(dtype)
      x = rng.integers(info.min, info.max, shape, endpoint=True)
      edges = [0, 1, -1 if dtype.kind == "i" else 2, info.min, info.max]
      return np.where(rng.random(shape) < 0.3, rng.choice(edges, shape), x).astype(dtype)
    if domain in ("in5", "oob5"):  # indices into an axis of size 5 (out of bounds too)
      return (rng.integers(0, 5, shape) if domain == "in5" else rng.integers(-3, 8, shape)
              ).astype(dtype)
    return test_util.rand(rng, shape, dtype)
  real = {
      "any": lambda: rng.standard_normal(shape),
      "pos": lambda: np.abs(rng.standard_normal(shape)) + 0.5,
      "nonzero": lambda: (np.abs(rng.standard_normal(shape)) + 0.5) * rng.choice([-1, 1], shape),
      "log1p": lambda: rng.uniform(-0.5, 2.0, shape),
      "tan": lambda: rng.uniform(-1.2, 1.2, shape),
      "halves": lambda: rng.integers(-6, 7, shape) / 2,  # ties for the rounding modes
      "small": lambda: rng.uniform(-2.0, 2.0, shape),
      "unit": lambda: rng.uniform(-0.95, 0.95, shape),  # asin, acos, atanh, erf_inv
      "prob": lambda: rng.uniform(0.05, 0.95, shape),  # betainc's x
      # at least 0.2 from the integers (the poles of lgamma and digamma at 0, -1, ...)
      "off_poles": lambda: rng.integers(-3, 3, shape) + rng.uniform(0.2, 0.8, shape),
      "gt1": lambda: rng.uniform(1.2, 4.0, shape),  # acosh, zeta's x
      "order": lambda: rng.integers(0, 4, shape),  # polygamma's m
      "nonfinite": lambda: rng.choice([0.5, -2.0, np.inf, -np.inf, np.nan], shape),
      "signed_nan": lambda: rng.choice([0.5, -2.0, np.inf, -np.inf, np.nan, -np.nan], shape),
      # well-conditioned matrices (the last two axes): positive definite; a dominant diagonal
      "spd": lambda: _gram(rng.standard_normal(shape)) + shape[-1] * np.eye(shape[-1]),
      "dominant": lambda: rng.standard_normal(shape) + 3 * shape[-1] * np.eye(shape[-1]),
      # the main diagonal of a tridiagonal matrix whose off-diagonals are "unit": dominant
      "tridiagonal_main": lambda: rng.uniform(2.0, 4.0, shape) * rng.choice([-1, 1], shape),
      # (for finite differences) at least 0.1 apart and 0.05 from 0: away from ties of max,
      # min and sorts, and from the kinks of abs and sign
      "apart": lambda: _apart(rng, shape),
      # at least 0.2 from the integers (floor's and ceil's jumps), or from the halves (round's)
      "off_integers": lambda: rng.integers(-3, 4, shape) + 0.5 + rng.uniform(-0.3, 0.3, shape),
      "off_halves": lambda: rng.integers(-3, 4, shape) + rng.uniform(-0.3, 0.3, shape),
  }[domain]()
  return np.asarray(real, dtype)


def _gram(m: np.ndarray) -> np.ndarray:
  return m @ np.swapaxes(m, -1, -2)


def _apart(rng: np.random.Generator, shape) -> np.ndarray:
  n = int(np.prod(shape))
  vals = (np.arange(n) - n / 2 + 0.5) * 0.3 + rng.uniform(-0.1, 0.1, n)
  return rng.permutation(vals).reshape(shape)


def _rem_pair(rng: np.random.Generator, shape) -> tuple:
  """x, y with x / y at least 0.2 away from an integer (rem's jumps)."""
  y = _values(rng, shape, np.dtype(np.float64), "nonzero")
  return y * (rng.integers(-2, 3, shape) + rng.uniform(0.2, 0.8, shape)), y


def _distinct_pair(rng: np.random.Generator, shape) -> tuple:
  """Two arrays that differ by at least 0.2 everywhere (no max/min ties)."""
  x = rng.standard_normal(shape)
  return x, x + rng.choice([-1, 1], shape) * rng.uniform(0.2, 1.0, shape)


def _clamp_triple(rng: np.random.Generator, shape) -> tuple:
  """lo, x, hi with x below, inside and above [lo, hi] by 0.07 or more (each gets a gradient)."""
  line = np.linspace(-1, 1, int(np.prod(shape))).reshape(shape)
  return line - 0.35, line * 2, line + 0.55


# Domains of several arguments at once (an `A` with one of them stands for all its arguments).
_JOINT = {"rem_pair": _rem_pair, "distinct_pair": _distinct_pair,
          "clamp_triple": _clamp_triple}


@dataclasses.dataclass(frozen=True)
class A:
  """An argument: `shape`, the case's dtype (or a fixed `dtype`), and a value `domain`."""
  shape: tuple = (3, 4)
  domain: str = "any"
  dtype: Any = None

  def make(self, rng: np.random.Generator, dtype: np.dtype) -> np.ndarray | tuple:
    dt = np.dtype(self.dtype if self.dtype is not None else dtype)
    if self.domain in _JOINT:  # several arguments, whose values depend on each other
      return tuple(np.asarray(v, dt) for v in _JOINT[self.domain](rng, self.shape))
    return np.asarray(_values(rng, self.shape, dt, self.domain))


@dataclasses.dataclass(frozen=True)
class Grad:
  """How test_grads.py checks a row against finite differences (float64, forward and reverse
  mode): `args` replace the row's where its values do not suit finite differences (jumps, kinks,
  ties); `wrt` are the indices of the arguments differentiated (default: every argument of the
  case's dtype; those of a fixed dtype are closed over); `orders`, the tolerances `tol` of
  `check_grads` and pytest `marks`."""
  args: Sequence[A] | None = None
  wrt: tuple[int, ...] | None = None
  orders: tuple[int, ...] = (1, 2)
  tol: dict = dataclasses.field(default_factory=dict)
  marks: Sequence[Any] = ()


@dataclasses.dataclass(frozen=True)
class Case:
  id: str
  prim: core.Primitive      # the primitive the function must stage (checked)
  fn: Callable              # a function of arrays calling the public lax function (or bind)
  args: Sequence[A]
  dtypes: Sequence[np.dtype]
  marks: Sequence[Any] = ()
  # The gradient check, for a row of a differentiable primitive with a real floating dtype
  # (None: not checked, with a comment saying why).
  grad: Grad | None = Grad()


def _unary(prim, fn, dtypes, domain="any", shape=(3, 4), grad=Grad()):
  return Case(prim.name, prim, fn, [A(shape, domain)], dtypes, grad=grad)


def _binary(prim, fn, dtypes, domains=("any", "any"), shapes=((3, 4), (3, 4)), suffix="",
            marks=(), grad=Grad()):
  return Case(prim.name + suffix, prim, fn, [A(s, d) for s, d in zip(shapes, domains)], dtypes,
              marks, grad)


SLOW = (pytest.mark.slow,)  # compiles a while loop (or runs a slow reference): several seconds


_ROWS = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,),
                                   start_index_map=(0,))
_ROW_UPDATES = lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,),
                                           scatter_dims_to_operand_dims=(0,))

# A window of select_and_scatter and select_and_gather_add over a (4, 5) operand: (4, 3) windows.
_WINDOW = dict(window_dimensions=(2, 2), window_strides=(1, 2), padding=((1, 0), (0, 1)))

# A narrower floating type, for a round trip through it.
_NARROWER = {np.dtype(np.float64): np.dtype(np.float32), F32: np.dtype(np.float16)}

NUM = [F32, I32]
ALL = [F32, I32, BOOL]
INT_BOOL = [I32, BOOL]

CASES = [
    # arithmetic (with the rank-0 / size-1 broadcasting lax allows)
    _binary(lax.add_p, lax.add, NUM),
    _binary(lax.add_p, lax.add, [F32], shapes=((3, 4), ()), suffix="_scalar"),
    _binary(lax.sub_p, lax.sub, NUM),
    _binary(lax.sub_p, lax.sub, [F32], shapes=((1, 4), (3, 1)), suffix="_size1"),
    _binary(lax.mul_p, lax.mul, NUM),
    # mul's out_dtype: operands of two dtypes converted to it (derivatives: test_lax_general.py)
    Case("mul_out_dtype", lax.mul_p, lambda x, y: lax.mul(x, y, out_dtype=np.float32),
         [A(), A(dtype=np.int8)], [F32, I32], grad=None),
    _binary(lax.mul_p, lax.mul, NUM, shapes=((1, 4), (3, 1)), suffix="_size1"),
    _binary(lax.mul_p, lax.mul, [F32], shapes=((), (3, 4)), suffix="_scalar"),
    _binary(lax.div_p, lax.div, NUM, ("any", "nonzero")),
    _binary(lax.div_p, lax.div, [F32], ("any", "nonzero"), ((3, 1), (1, 4)), suffix="_size1"),
    _binary(lax.rem_p, lax.rem, NUM, ("any", "nonzero"), grad=Grad(args=[A(domain="rem_pair")])),
    _binary(lax.pow_p, lax.pow, [F32], ("pos", "small")),
    Case("pow_int_exponent", lax.pow_p, lax.pow, [A(domain="nonzero"), A(domain="small",
                                                                          dtype=I32)], [F32]),
    Case("pow_int_exponent_broadcast", lax.pow_p, lax.pow,
         [A(domain="nonzero"), A((1, 4), "small", I32)], [F32]),
    Case("pow_scalar_int_exponent", lax.pow_p, lax.pow,
         [A(domain="nonzero"), A((), "small", I32)], [F32]),
    _binary(lax.max_p, lax.max, ALL, grad=Grad(args=[A(domain="distinct_pair")])),
    _binary(lax.min_p, lax.min, ALL, grad=Grad(args=[A(domain="distinct_pair")])),
    # unary math
    _unary(lax.neg_p, lax.neg, NUM),
    _unary(lax.abs_p, lax.abs, NUM, grad=Grad(args=[A(domain="apart")])),
    _unary(lax.sign_p, lax.sign, NUM, grad=Grad(args=[A(domain="apart")])),
    # (piecewise constant: a zero derivative, checked away from the jumps)
    _unary(lax.floor_p, lax.floor, [F32], "halves", grad=Grad(args=[A(domain="off_integers")])),
    _unary(lax.ceil_p, lax.ceil, [F32], "halves", grad=Grad(args=[A(domain="off_integers")])),
    _unary(lax.round_p, lax.round, [F32], "halves", grad=Grad(args=[A(domain="off_halves")])),
    Case("round_to_nearest_even", lax.round_p,
         lambda x: lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN), [A(domain="halves")], [F32],
         grad=Grad(args=[A(domain="off_halves")])),
    Case("integer_pow_3", lax.integer_pow_p, lambda x: lax.integer_pow(x, 3), [A()], NUM),
    Case("integer_pow_neg2", lax.integer_pow_p, lambda x: lax.integer_pow(x, -2),
         [A(domain="nonzero")], [F32]),
    Case("integer_pow_0", lax.integer_pow_p, lambda x: lax.integer_pow(x, 0), [A()], NUM),
    _unary(lax.exp_p, lax.exp, [F32]),
    _unary(lax.log_p, lax.log, [F32], "pos"),
    _unary(lax.log1p_p, lax.log1p, [F32], "log1p"),
    _unary(lax.expm1_p, lax.expm1, [F32]),
    _unary(lax.sin_p, lax.sin, [F32]),
    _unary(lax.cos_p, lax.cos, [F32]),
    _unary(lax.tan_p, lax.tan, [F32], "tan"),
    _unary(lax.tanh_p, lax.tanh, [F32]),
    _unary(lax.logistic_p, lax.logistic, [F32]),
    _unary(lax.sqrt_p, lax.sqrt, [F32], "pos"),
    _unary(lax.rsqrt_p, lax.rsqrt, [F32], "pos"),
    # elementwise long tail
    _unary(lax.exp2_p, lax.exp2, [F32]),
    # (the derivative away from cbrt's infinite slope at 0, atan2's singularity at (0, 0))
    _unary(lax.cbrt_p, lax.cbrt, [F32], grad=Grad(args=[A(domain="nonzero")])),
    _unary(lax.square_p, lax.square, NUM),
    _unary(lax.asin_p, lax.asin, [F32], "unit"),
    _unary(lax.acos_p, lax.acos, [F32], "unit"),
    _unary(lax.atan_p, lax.atan, [F32]),
    _binary(lax.atan2_p, lax.atan2, [F32],
            grad=Grad(args=[A(domain="nonzero"), A(domain="nonzero")])),
    _unary(lax.sinh_p, lax.sinh, [F32]),
    _unary(lax.cosh_p, lax.cosh, [F32]),
    _unary(lax.asinh_p, lax.asinh, [F32]),
    _unary(lax.acosh_p, lax.acosh, [F32], "gt1"),
    _unary(lax.atanh_p, lax.atanh, [F32], "unit"),
    _unary(lax.is_finite_p, lax.is_finite, [F32], "nonfinite"),
    _binary(lax.nextafter_p, lax.nextafter, [F32]),
    _binary(lax.nextafter_p, lax.nextafter, [F32], ("halves", "halves"), suffix="_ties"),
    _unary(lax.real_p, lax.real, [C64]),
    _unary(lax.imag_p, lax.imag, [C64]),
    _unary(lax.conj_p, lax.conj, [F32, C64]),
    _binary(lax.complex_p, lax.complex, [F32]),
    # complex numbers between real inputs and outputs
    Case("complex_real_imag", lax.complex_p,
         lambda x, y: lax.add(lax.real(lax.mul(lax.complex(x, y), lax.complex(y, x))),
                              lax.imag(lax.mul(lax.complex(x, y), lax.complex(x, x)))),
         [A(), A()], [F32]),
    Case("conj_complex", lax.conj_p,
         lambda x, y: lax.imag(lax.mul(lax.conj(lax.complex(x, y)), lax.complex(y, y))),
         [A(), A()], [F32]),
    Case("conj_of_real", lax.conj_p,
         lambda x: lax.imag(lax.mul(lax.conj(x), lax.complex(x, x))), [A()], [F32]),
    # special functions
    _unary(lax.erf_p, lax.erf, [F32]),
    _unary(lax.erfc_p, lax.erfc, [F32]),
    _unary(lax.erf_inv_p, lax.erf_inv, [F32], "unit"),
    _unary(lax.lgamma_p, lax.lgamma, [F32], "pos"),
    _unary(lax.digamma_p, lax.digamma, [F32], "pos"),
    Case("lgamma_negative", lax.lgamma_p, lax.lgamma, [A(domain="off_poles")], [F32]),
    Case("digamma_negative", lax.digamma_p, lax.digamma, [A(domain="off_poles")], [F32]),
    # (polygamma in x, zeta in q: neither has a derivative in its other operand, as in JAX)
    _binary(lax.polygamma_p, lax.polygamma, [F32], ("order", "pos"), grad=Grad(wrt=(1,))),
    _binary(lax.zeta_p, lax.zeta, [F32], ("gt1", "pos"), grad=Grad(wrt=(1,))),
    # (to first order only: d/da is igamma_grad_a, which is not differentiable)
    _binary(lax.igamma_p, lax.igamma, [F32], ("pos", "pos"), marks=SLOW,
            grad=Grad(orders=(1,), marks=SLOW)),
    _binary(lax.igamma_p, lax.igamma, [F32], ("pos", "pos"), suffix="_x", marks=SLOW,
            grad=Grad(wrt=(1,), marks=SLOW)),
    _binary(lax.igammac_p, lax.igammac, [F32], ("pos", "pos"), marks=SLOW,
            grad=Grad(orders=(1,), marks=SLOW)),
    _binary(lax.igamma_grad_a_p, lax.igamma_grad_a, [F32], ("pos", "pos"), marks=SLOW),
    Case("regularized_incomplete_beta", lax.regularized_incomplete_beta_p, lax.betainc,
         [A(domain="pos"), A(domain="pos"), A(domain="prob")], [F32], SLOW,
         Grad(wrt=(2,))),  # (no derivative in a and b, as in JAX)
    # (|x| has a kink at 0)
    _unary(lax.bessel_i0e_p, lax.bessel_i0e, [F32], grad=Grad(args=[A(domain="apart")])),
    _unary(lax.bessel_i1e_p, lax.bessel_i1e, [F32], grad=Grad(args=[A(domain="apart")])),
    # bitwise
    _binary(lax.xor_p, lax.bitwise_xor, INT_BOOL),
    _binary(lax.shift_left_p, lax.shift_left, [I32, U8], ("bits", "shift")),
    _binary(lax.shift_right_logical_p, lax.shift_right_logical, [I32, U8], ("bits", "shift")),
    _binary(lax.shift_right_arithmetic_p, lax.shift_right_arithmetic, [I32, U8],
            ("bits", "shift")),
    # (XLA defines shifts by the bit width or more, and by negative amounts, which lax exposes)
    _binary(lax.shift_left_p, lax.shift_left, [I32, U8], ("bits", "shift_oob"),
            suffix="_out_of_range"),
    _binary(lax.shift_right_logical_p, lax.shift_right_logical, [I32, U8], ("bits", "shift_oob"),
            suffix="_out_of_range"),
    _binary(lax.shift_right_arithmetic_p, lax.shift_right_arithmetic, [I32, U8],
            ("bits", "shift_oob"), suffix="_out_of_range"),
    _binary(lax.mulhi_p, lax.mulhi, [I32, U8], ("bits", "bits")),
    _unary(lax.population_count_p, lax.population_count, [I32, U8], "bits"),
    _unary(lax.clz_p, lax.clz, [I32, U8], "bits"),
    Case("bitcast_to_int32", lax.bitcast_convert_type_p,
         lambda x: lax.bitcast_convert_type(x, np.int32), [A()], [F32]),
    Case("bitcast_to_float32", lax.bitcast_convert_type_p,
         lambda x: lax.bitcast_convert_type(x, np.float32), [A(domain="bits")], [I32]),
    Case("bitcast_to_uint8", lax.bitcast_convert_type_p,
         lambda x: lax.bitcast_convert_type(x, np.uint8), [A()], [F32, I32]),
    Case("bitcast_from_uint8", lax.bitcast_convert_type_p,
         lambda x: lax.bitcast_convert_type(x, np.int32), [A((3, 4))], [U8]),
    # misc
    Case("random_gamma", lax.random_gamma_p,
         lambda key, a: lax.random_gamma_p.bind(key, a, log_space=False),
         [A((2,), "bits", np.uint32), A(domain="pos")], [F32], SLOW,
         # (its derivative is the implicit reparameterization one, d sample / d a at a fixed
         # CDF value, not the sampler's at a fixed key: test_grads.py checks it on its own)
         grad=None),
    Case("random_gamma_log_space_batched_keys", lax.random_gamma_p,
         lambda key, a: lax.random_gamma_p.bind(key, a, log_space=True),
         [A((3, 2), "bits", np.uint32), A((3, 4), "pos")], [F32], SLOW, grad=None),
    # (40 mantissa bits: rounding steps (~1e-12) far below what finite differences resolve;
    # the coarser ones below are steps to them, and not gradient-checked)
    Case("reduce_precision_fine", lax.reduce_precision_p,
         lambda x: lax.reduce_precision(x, 11, 40), [A()], [F32]),
    Case("reduce_precision_f16", lax.reduce_precision_p,
         lambda x: lax.reduce_precision(x, 5, 10), [A()], [F32], grad=None),
    Case("reduce_precision_bf16", lax.reduce_precision_p,
         lambda x: lax.reduce_precision(x, 8, 7), [A()], [F32], grad=None),
    Case("reduce_precision_nonfinite", lax.reduce_precision_p,
         lambda x: lax.reduce_precision(x, 4, 3), [A(domain="nonfinite")], [F32], grad=None),
    Case("reduce_precision_no_mantissa", lax.reduce_precision_p,
         lambda x: lax.reduce_precision(x, 5, 0), [A()], [F32], grad=None),
    Case("reduce_precision_no_mantissa_nan", lax.reduce_precision_p,
         lambda x: lax.reduce_precision(x, 5, 0), [A(domain="nonfinite")], [F32], grad=None),
    Case("optimization_barrier", lax.optimization_barrier_p, lax.optimization_barrier, [A()], ALL),
    # (only inexact values: stop_gradient passes integers and bools through unstaged, as JAX does)
    # (a zero derivative by design, which finite differences do not see: test_grads.py checks it)
    Case("stop_gradient", lax.stop_gradient_p, lax.stop_gradient, [A()], [F32], grad=None),
    Case("pure_callback", lax.pure_callback_p,
         lambda x: sj.pure_callback(lambda v: np.sin(v) * 2, sj.ShapeDtypeStruct(x.shape, x.dtype),
                                    x), [A()], [F32]),
    # (refuses differentiation, as JAX's: "IO callbacks do not support JVP")
    Case("io_callback", lax.io_callback_p,
         lambda x: sj.experimental.io_callback(lambda v: np.sin(v) * 2,
                                               sj.ShapeDtypeStruct(x.shape, x.dtype), x),
         [A()], [F32]),
    Case("debug_callback", lax.debug_callback_p,
         lambda x: (sj.debug.callback(lambda v: None, x), lax.neg(x))[1], [A()], [F32]),
    # comparisons and logic
    _binary(lax.eq_p, lax.eq, ALL, ("small", "small")),
    _binary(lax.ne_p, lax.ne, ALL, ("small", "small")),
    _binary(lax.lt_p, lax.lt, ALL, ("small", "small")),
    _binary(lax.le_p, lax.le, ALL, ("small", "small")),
    _binary(lax.eq_to_p, lax.eq_to_p.bind, ALL, ("small", "small")),
    _binary(lax.le_to_p, lax.le_to_p.bind, ALL, ("small", "small")),
    _binary(lax.lt_to_p, lax.lt_to_p.bind, ALL, ("small", "small")),
    _binary(lax.gt_p, lax.gt, ALL, ("small", "small")),
    _binary(lax.ge_p, lax.ge, ALL, ("small", "small")),
    _binary(lax.and_p, lax.bitwise_and, INT_BOOL),
    _binary(lax.or_p, lax.bitwise_or, INT_BOOL),
    _unary(lax.not_p, lax.bitwise_not, INT_BOOL),
    # select, clamp, casts
    Case("select_n_bool", lax.select_n_p, lax.select_n, [A(dtype=BOOL), A(), A()], ALL),
    Case("select_n_scalar_bool", lax.select_n_p, lax.select_n, [A((), dtype=BOOL), A(), A()],
         [F32]),
    Case("select_n_int3", lax.select_n_p, lax.select_n,
         [A(domain="which3", dtype=I32), A(), A(), A()], NUM),
    # (`apart` values are >= 0.05 from +-0.6)
    Case("clamp", lax.clamp_p, lambda x: lax.clamp(np.asarray(-0.6, x.dtype), x,
                                                   np.asarray(0.6, x.dtype)), [A()], [F32],
         grad=Grad(args=[A(domain="apart")])),
    Case("clamp_arrays", lax.clamp_p, lax.clamp, [A(domain="clamp_triple")], [F32]),
    Case("clamp_int_arrays", lax.clamp_p, lambda lo, x: lax.clamp(lo, x, lo + 3),
         [A(), A()], [I32]),
    Case("convert_to_int32", lax.convert_element_type_p,
         lambda x: lax.convert_element_type(x, np.int32), [A(domain="small")], [F32, BOOL]),
    Case("convert_to_float32", lax.convert_element_type_p,
         lambda x: lax.convert_element_type(x, np.float32), [A()], [I32, BOOL]),
    Case("convert_to_bool", lax.convert_element_type_p,
         lambda x: lax.convert_element_type(x, np.bool_), [A(domain="small")], [F32, I32]),
    Case("convert_to_float16", lax.convert_element_type_p,
         lambda x: lax.convert_element_type(x, np.float16), [A()], [F32],
         # (finite differences through a narrower type are only as accurate as that type)
         grad=Grad(tol=dict(rtol=5e-2, atol=5e-2, eps=1e-2))),
    Case("convert_round_trip", lax.convert_element_type_p,
         lambda x: lax.convert_element_type(lax.mul(lax.convert_element_type(x, _NARROWER[x.dtype]),
                                                    _NARROWER[x.dtype].type(1.5)), x.dtype),
         [A()], [F32], grad=Grad(tol=dict(rtol=1e-2, atol=1e-2))),
    # structural
    Case("broadcast_in_dim", lax.broadcast_in_dim_p,
         lambda x: lax.broadcast_in_dim(x, (2, 3, 4), (0, 2)), [A((2, 4))], ALL),
    Case("broadcast_in_dim_size1", lax.broadcast_in_dim_p,
         lambda x: lax.broadcast_in_dim(x, (2, 3, 4), (1, 2)), [A((1, 4))], [F32]),
    Case("reshape", lax.reshape_p, lambda x: lax.reshape(x, (6, 2)), [A()], ALL),
    Case("reshape_dimensions", lax.reshape_p, lambda x: lax.reshape(x, (2, 6), (1, 0)), [A()],
         [F32]),
    Case("transpose", lax.transpose_p, lambda x: lax.transpose(x, (2, 0, 1)), [A((2, 3, 4))],
         ALL),
    Case("squeeze", lax.squeeze_p, lambda x: lax.squeeze(x, (0, 2)), [A((1, 3, 1, 4))], ALL),
    Case("expand_dims", lax.expand_dims_p, lambda x: lax.expand_dims(x, (0, 3)), [A()], ALL),
    Case("concatenate", lax.concatenate_p, lambda x, y, z: lax.concatenate([x, y, z], 1),
         [A((2, 1)), A((2, 3)), A((2, 2))], ALL),
    Case("copy", lax.copy_p, lambda x: lax.copy_p.bind(x), [A()], ALL),
    Case("stage", lax.stage_p, lambda x: lax.stage_p.bind(x), [A()], ALL),
    Case("device_put", lax.device_put_p, lambda x: lax.device_put_p.bind(
        x, devices=(None,), srcs=(None,),
        copy_semantics=(ArrayCopySemantics.REUSE_INPUT,))[0], [A()], ALL),
    Case("tile", lax.tile_p, lambda x: lax.tile(x, (2, 1, 3)), [A((2, 3, 2))], ALL),
    Case("split", lax.split_p, lambda x: lax.split(x, (1, 0, 3), axis=1)[2], [A((2, 4))], ALL),
    Case("stack", lax.stack_p, lambda x, y: lax.stack([x, y], axis=1), [A((2, 3)), A((2, 3))],
         ALL),
    Case("unstack", lax.unstack_p, lambda x: lax.unstack(x, axis=1)[2], [A((2, 4))], ALL),
    Case("slice", lax.slice_p, lambda x: lax.slice(x, (1, 0), (4, 3)), [A((5, 4))], ALL),
    Case("slice_strided", lax.slice_p, lambda x: lax.slice(x, (1, 0), (6, 4), (2, 3)),
         [A((7, 4))], [F32]),
    Case("dynamic_slice", lax.dynamic_slice_p, lambda x, i, j: lax.dynamic_slice(x, (i, j), (2, 3)),
         [A((4, 5)), A((), "index", I32), A((), "index", I32)], ALL),
    Case("dynamic_slice_clamped", lax.dynamic_slice_p,
         lambda x: lax.dynamic_slice(x, (np.int32(3), np.int32(-2)), (2, 2)), [A((4, 5))], [F32]),
    Case("dynamic_update_slice", lax.dynamic_update_slice_p,
         lambda x, u, i, j: lax.dynamic_update_slice(x, u, (i, j)),
         [A((4, 5)), A((2, 3)), A((), "index", I32), A((), "index", I32)], ALL),
    Case("dynamic_update_slice_clamped", lax.dynamic_update_slice_p,
         lambda x, u: lax.dynamic_update_slice(x, u, (np.int32(5), np.int32(-1))),
         [A((4, 5)), A((2, 2))], [F32]),
    Case("pad", lax.pad_p, lambda x, v: lax.pad(x, v, ((1, 2, 1), (0, -1, 0))),
         [A((3, 4)), A(())], ALL),
    Case("pad_negative", lax.pad_p,
         lambda x: lax.pad(x, np.asarray(0.5, x.dtype), ((-2, 1, 2), (2, -3, 0))),
         [A((3, 4))], [F32]),
    Case("rev", lax.rev_p, lambda x: lax.rev(x, (0, 2)), [A((2, 3, 4))], ALL),
    Case("rev_none", lax.rev_p, lambda x: lax.rev(x, ()), [A()], [F32]),
    # gather and scatter: rows of a (5, 4) operand
    Case("gather_rows", lax.gather_p, lambda x, i: lax.gather(x, i, _ROWS, (1, 4)),
         [A((5, 4)), A((3, 1), "in5", I32)], ALL),
    Case("gather_clip", lax.gather_p, lambda x, i: lax.gather(x, i, _ROWS, (1, 4), mode="clip"),
         [A((5, 4)), A((6, 1), "oob5", I32)], NUM),
    Case("gather_fill", lax.gather_p,
         lambda x, i: lax.gather(x, i, _ROWS, (1, 4), mode="fill", fill_value=-1),
         [A((5, 4)), A((6, 1), "oob5", I32)], NUM),
    Case("gather_2d_windows", lax.gather_p,
         lambda x, i: lax.gather(x, i, lax.GatherDimensionNumbers((1, 2), (), (0, 1)), (2, 3),
                                 mode="clip"),
         [A((5, 4)), A((3, 2), "oob5", I32)], [F32]),
    Case("scatter", lax.scatter_p,
         lambda x, u: lax.scatter(x, np.array([[3], [0]], np.int32), u, _ROW_UPDATES,
                                  unique_indices=True),
         [A((5, 4)), A((2, 4))], ALL),
    Case("scatter_drop", lax.scatter_p,
         lambda x, u: lax.scatter(x, np.array([[3], [7], [-1]], np.int32), u, _ROW_UPDATES,
                                  mode="drop"),
         [A((5, 4)), A((3, 4))], [F32]),
    Case("scatter_add", lax.scatter_add_p,
         lambda x, i, u: lax.scatter_add(x, i, u, _ROW_UPDATES), [A((5, 4)), A((6, 1), "in5", I32),
                                                                A((6, 4))], NUM),
    Case("scatter_sub", lax.scatter_sub_p,
         lambda x, i, u: lax.scatter_sub(x, i, u, _ROW_UPDATES), [A((5, 4)), A((6, 1), "in5", I32),
                                                                A((6, 4))], NUM),
    Case("scatter_add_clip", lax.scatter_add_p,
         lambda x, i, u: lax.scatter_add(x, i, u, _ROW_UPDATES, mode="clip"),
         [A((5, 4)), A((6, 1), "oob5", I32), A((6, 4))], [F32]),
    # (differentiable in the updates with unique indices only, as in JAX; in the operand with
    # duplicates too)
    Case("scatter_mul", lax.scatter_mul_p,
         lambda x, i, u: lax.scatter_mul(x, i, u, _ROW_UPDATES),
         [A((5, 4)), A((6, 1), "in5", I32), A((6, 4), "small")], NUM, grad=Grad(wrt=(0,))),
    Case("scatter_mul_unique", lax.scatter_mul_p,
         lambda x, u: lax.scatter_mul(x, np.array([[3], [0]], np.int32), u, _ROW_UPDATES,
                                      unique_indices=True), [A((5, 4)), A((2, 4))], [F32]),
    Case("scatter_min", lax.scatter_min_p,
         lambda x, i, u: lax.scatter_min(x, i, u, _ROW_UPDATES),
         [A((5, 4)), A((6, 1), "in5", I32), A((6, 4))], ALL),
    Case("scatter_max", lax.scatter_max_p,
         lambda x, i, u: lax.scatter_max(x, i, u, _ROW_UPDATES),
         [A((5, 4)), A((6, 1), "in5", I32), A((6, 4))], ALL),
    # sorting
    Case("approx_max_k", lax.approx_top_k_p, lambda x: lax.approx_max_k(x, 2, 0)[0],
         [A((5, 3))], [F32]),
    Case("approx_min_k", lax.approx_top_k_p, lambda x: lax.approx_min_k(x, 3)[0],
         [A((2, 5))], [F32]),
    Case("sort", lax.sort_p, lambda x: lax.sort(x, dimension=0), [A((5, 3), "small")], ALL),
    Case("sort_key_val", lax.sort_p, lambda k, v: lax.sort_key_val(k, v)[1],
         [A((3, 6), "small"), A((3, 6))], NUM),
    Case("sort_key_val_nonfinite", lax.sort_p, lambda k, v: lax.sort_key_val(k, v)[1],
         [A((3, 8), "nonfinite"), A((3, 8))], [F32], grad=None),  # NaNs last, ties stable
    Case("sort_two_keys", lax.sort_p,
         lambda k1, k2, v: lax.sort((k1, k2, v), dimension=1, num_keys=2)[2],
         [A((3, 8), dtype=BOOL), A((3, 8), "small"), A((3, 8))], [F32]),
    Case("top_k_values", lax.top_k_p, lambda x: lax.top_k(x, 3)[0], [A((4, 6), "small")], NUM),
    Case("top_k_indices", lax.top_k_p, lambda x: lax.top_k(x, 3)[1], [A((4, 6))], [F32]),
    Case("top_k_nonfinite", lax.top_k_p, lambda x: lax.top_k(x, 4)[1], [A((3, 8), "nonfinite")],
         [F32]),
    Case("top_k_negative_nan", lax.top_k_p, lambda x: lax.top_k(x, 4)[1],
         [A((3, 8), "signed_nan")], [F32]),
    Case("top_k_indices_ties", lax.top_k_p, lambda x: lax.top_k(x, 3)[1], [A((4, 6), "small")],
         [I32]),  # ties: the lower index first
    # linear algebra
    Case("cholesky", lax.linalg.cholesky_p, lax.linalg.cholesky, [A((2, 4, 4), "spd")], [F32]),
    Case("triangular_solve", lax.linalg.triangular_solve_p,
         lambda a, b: lax.linalg.triangular_solve(a, b, left_side=True, lower=True),
         [A((3, 3), "dominant"), A((3, 2))], [F32, C64]),
    Case("triangular_solve_right_adjoint", lax.linalg.triangular_solve_p,
         lambda a, b: lax.linalg.triangular_solve(a, b, transpose_a=True, conjugate_a=True),
         [A((2, 3, 3), "dominant"), A((2, 4, 3))], [F32, C64]),
    Case("triangular_solve_right_transposed_unit", lax.linalg.triangular_solve_p,
         lambda a, b: lax.linalg.triangular_solve(a, b, transpose_a=True, unit_diagonal=True),
         [A((2, 3, 3), "dominant"), A((2, 4, 3))], [F32]),
    Case("lu", lax.linalg.lu_p, lambda x: lax.linalg.lu(x)[0], [A((2, 4, 4), "dominant")],
         [F32, C64]),
    Case("lu_permutation", lax.linalg.lu_p, lambda x: lax.linalg.lu(x)[2], [A((4, 4))], [F32]),
    Case("lu_pivots_to_permutation", lax.linalg.lu_pivots_to_permutation_p,
         lambda p: lax.linalg.lu_pivots_to_permutation(p, 5), [A((2, 3), "in5")], [I32]),
    Case("geqrf", lax.linalg.geqrf_p, lambda x: lax.linalg.geqrf(x)[0], [A((2, 4, 3))],
         [F32, C64]),
    Case("householder_product", lax.linalg.householder_product_p,
         lax.linalg.householder_product, [A((4, 3)), A((3,), "small")], [F32]),
    Case("qr_q", lax.linalg.qr_p, lambda x: lax.linalg.qr(x, full_matrices=False)[0],
         [A((2, 4, 3))], [F32, C64]),
    Case("qr_r_full", lax.linalg.qr_p, lambda x: lax.linalg.qr(x)[1], [A((3, 5))], [F32]),
    # (of a symmetrized input: eigh reads one triangle, finite differences perturb both)
    Case("eigh_eigenvalues", lax.linalg.eigh_p,
         lambda x: lax.linalg.eigh(lax.add(x, lax.transpose(x, (0, 2, 1))))[1],
         [A((2, 3, 3), "spd")], [F32]),
    # (the sum of the squared eigenvalues, tr(x^2): free of geev's order of the eigenvalues;
    # first order only: the eigenvalues' JVP reads the eigenvectors, as JAX's)
    Case("eig_eigenvalues", lax.linalg.eig_p,
         lambda x: lax.real(lax.reduce_sum(lax.integer_pow(lax.linalg.eig(
             x, compute_left_eigenvectors=False, compute_right_eigenvectors=False)[0], 2), (1,))),
         [A((2, 3, 3))], [F32, C64], grad=Grad(orders=(1,))),
    # (schur, hessenberg, tridiagonal: LAPACK outputs JAX does not differentiate; scipy's
    # references call the same LAPACK routines jaxlib calls)
    Case("schur", lax.linalg.schur_p, lambda x: lax.linalg.schur(x)[0], [A((2, 3, 3), "spd")],
         [F32, C64], grad=None),
    Case("hessenberg", lax.linalg.hessenberg_p, lambda x: lax.linalg.hessenberg(x)[0],
         [A((2, 4, 4))], [F32, C64], grad=None),
    Case("tridiagonal", lax.linalg.tridiagonal_p, lambda x: lax.linalg.tridiagonal(x)[1],
         [A((2, 4, 4), "spd")], [F32], grad=None),
    Case("tridiagonal_solve", lax.linalg.tridiagonal_solve_p, lax.linalg.tridiagonal_solve,
         [A((2, 4), "unit"), A((2, 4), "tridiagonal_main"), A((2, 4), "unit"), A((2, 4, 3))],
         [F32]),
    Case("ormqr", lax.linalg.ormqr_p,
         lambda a, taus, c: lax.linalg.ormqr(a, taus, c, transpose=True),
         [A((2, 4, 3)), A((2, 3), "small"), A((2, 4, 2))], [F32], grad=None),
    Case("symmetric_product", lax.linalg.symmetric_product_p,
         lambda a, c: lax.linalg.symmetric_product(a, c, alpha=2.0, beta=0.5),
         [A((2, 3, 4)), A((2, 3, 3))], [F32], grad=None),
    Case("cholesky_update", lax.linalg.cholesky_update_p,
         lambda r, w: lax.linalg.cholesky_update(lax.transpose(lax.linalg.cholesky(r), (1, 0)), w),
         [A((4, 4), "spd"), A((4,))], [F32], grad=None),
    Case("svd_singular_values", lax.linalg.svd_p,
         lambda x: lax.linalg.svd(x, compute_uv=False), [A((2, 4, 3))], [F32, C64]),
    Case("fft", lax.fft_p, lambda x: lax.fft(x, "FFT", (4,)), [A((2, 4))], [C64]),
    Case("rfft", lax.fft_p, lambda x: lax.fft(x, "RFFT", (3, 4)), [A((2, 3, 4))], [F32]),
    Case("iota_int32", lax.iota_p, lambda: lax.iota(np.int32, 7), [], [I32]),
    Case("broadcasted_iota_float32", lax.iota_p,
         lambda: lax.broadcasted_iota(np.float32, (3, 4), 1), [], [F32]),
    # reductions
    Case("reduce_sum", lax.reduce_sum_p, lambda x: lax.reduce_sum(x, (0, 2)), [A((2, 3, 4))],
         NUM),
    Case("reduce_prod", lax.reduce_prod_p, lambda x: lax.reduce_prod(x, (1,)),
         [A((2, 5, 3), "small")], NUM, grad=Grad(args=[A((2, 5, 3), "nonzero")])),
    Case("reduce_max", lax.reduce_max_p, lambda x: lax.reduce_max(x, (1, 2)), [A((2, 3, 4))],
         ALL, grad=Grad(args=[A((2, 3, 4), "apart")])),
    Case("reduce_max_all", lax.reduce_max_p, lambda x: lax.reduce_max(x, (0, 1)), [A()], [F32],
         grad=Grad(args=[A(domain="apart")])),
    Case("reduce_min", lax.reduce_min_p, lambda x: lax.reduce_min(x, (0,)), [A((3, 4))], ALL,
         grad=Grad(args=[A(domain="apart")])),
    Case("reduce_sum_all", lax.reduce_sum_p, lambda x: lax.reduce_sum(x, (0, 1)), [A()], [F32]),
    Case("argmax", lax.argmax_p, lambda x: lax.argmax(x, 1, np.int32), [A((3, 6), "small")],
         ALL),
    Case("argmin", lax.argmin_p, lambda x: lax.argmin(x, 0, np.int32), [A((6, 3), "small")],
         ALL),
    Case("cumsum", lax.cumsum_p, lambda x: lax.cumsum(x, 1), [A()], NUM),
    Case("cumsum_reverse", lax.cumsum_p, lambda x: lax.cumsum(x, 0, reverse=True), [A()], NUM),
    Case("reduce_and", lax.reduce_and_p, lambda x: lax.reduce_and(x, (1,)), [A((3, 4), "bits")],
         INT_BOOL),
    Case("reduce_or", lax.reduce_or_p, lambda x: lax.reduce_or(x, (0, 1)), [A((3, 4), "bits")],
         INT_BOOL),
    Case("reduce_xor", lax.reduce_xor_p, lambda x: lax.reduce_xor(x, (0,)), [A((3, 4), "bits")],
         INT_BOOL),
    # the general reduce: a sum and a product together (the product returned), over two axes
    Case("reduce_general", lax.reduce_p, lambda x, y: lax.reduce(
        (x, y), (np.zeros((), x.dtype), np.ones((), y.dtype)),
        lambda a, b: (a[0] + b[0], a[1] * b[1]), (0, 2))[1],
        [A((2, 3, 2), "small"), A((2, 3, 2), "nonzero")], NUM),
    Case("cumprod", lax.cumprod_p, lambda x: lax.cumprod(x, 1), [A((3, 5), "small")], NUM,
         grad=Grad(args=[A((3, 5), "nonzero")])),
    Case("cumprod_reverse", lax.cumprod_p, lambda x: lax.cumprod(x, 0, reverse=True),
         [A(domain="nonzero")], [F32]),
    Case("cummax", lax.cummax_p, lambda x: lax.cummax(x, 1), [A((3, 5))], NUM,
         grad=Grad(args=[A((3, 5), "apart")])),
    Case("cummax_reverse", lax.cummax_p, lambda x: lax.cummax(x, 0, reverse=True), [A()], NUM,
         grad=Grad(args=[A(domain="apart")])),
    Case("cummax_nonfinite", lax.cummax_p, lambda x: lax.cummax(x, 1), [A((3, 8), "nonfinite")],
         [F32], grad=None),
    Case("cummin", lax.cummin_p, lambda x: lax.cummin(x, 0), [A()], NUM,
         grad=Grad(args=[A(domain="apart")])),
    Case("cummin_reverse", lax.cummin_p, lambda x: lax.cummin(x, 0, reverse=True), [A()], [F32],
         grad=Grad(args=[A(domain="apart")])),
    # (their JVP is an associative scan: a hundred-odd primitives compiled one by one)
    Case("cumlogsumexp", lax.cumlogsumexp_p, lambda x: lax.cumlogsumexp(x, 1), [A()], [F32],
         grad=Grad(marks=SLOW)),
    Case("cumlogsumexp_reverse", lax.cumlogsumexp_p,
         lambda x: lax.cumlogsumexp(x, 0, reverse=True), [A()], [F32], grad=Grad(marks=SLOW)),
    # windowed reductions
    Case("reduce_window_sum", lax.reduce_window_sum_p,
         lambda x: lax.reduce_window_sum(x, (2, 2), (1, 2), ((1, 0), (0, 1))), [A((4, 5))], NUM),
    Case("reduce_window_sum_dilated", lax.reduce_window_sum_p,
         lambda x: lax.reduce_window_sum(x, (2, 2), (2, 1), "SAME", (2, 1), (1, 2)),
         [A((3, 5))], [F32]),
    Case("reduce_window_max", lax.reduce_window_max_p,
         lambda x: lax.reduce_window_max(x, (1, 3), (1, 1), "SAME"), [A((4, 5))], ALL,
         grad=Grad(args=[A((4, 5), "apart")])),
    Case("reduce_window_min", lax.reduce_window_min_p,
         lambda x: lax.reduce_window_min(x, (2, 2), (2, 2), "VALID"), [A((4, 5))], ALL,
         grad=Grad(args=[A((4, 5), "apart")])),
    # the general reduce_window: a product and a sum of two operands (the product returned);
    # its JVP is a reduce_window again, which has no transpose (nor in JAX): forward mode only,
    # checked in test_lax_general.py
    Case("reduce_window_general", lax.reduce_window_p, lambda x, y: lax.reduce_window(
        (x, y), (np.ones((), x.dtype), np.zeros((), y.dtype)),
        lambda a, b: (a[0] * b[0], a[1] + b[1]), (2, 2), (1, 2), ((1, 0), (0, 1)), (1, 2))[0],
        [A((3, 4), "small"), A((3, 4))], NUM, grad=None),
    # contractions
    # the derivatives of max/min windows (JAX's primitives): the tangent of each window's
    # maximum (linear in it: differentiated there, the operand selects), and its transpose
    Case("select_and_gather_add", lax.select_and_gather_add_p,
         lambda t, x: lax.select_and_gather_add_p.bind(t, x, select_prim=lax.ge_p, **_WINDOW,
                                                       base_dilation=(1, 1),
                                                       window_dilation=(1, 1)),
         [A((4, 5)), A((4, 5), "apart")], [F32], grad=Grad(wrt=(0,))),
    Case("select_and_scatter_add", lax.select_and_scatter_add_p,
         lambda s, x: lax.select_and_scatter_add_p.bind(s, x, select_prim=lax.le_p, **_WINDOW),
         [A((4, 3)), A((4, 5), "apart")], [F32], grad=Grad(wrt=(0,))),
    # (not differentiable, as in JAX)
    Case("select_and_scatter", lax.select_and_scatter_p,
         lambda x, s: lax.select_and_scatter_p.bind(
             x, s, np.float32(1), select_jaxpr=sj.make_jaxpr(lax.ge)(F32.type(0), F32.type(0)),
             scatter_jaxpr=sj.make_jaxpr(lax.mul)(F32.type(0), F32.type(0)), **_WINDOW),
         [A((4, 5), "apart"), A((4, 3))], [F32], grad=None),
    # scaled_dot: bfloat16 products of the operands and their unit scales (not differentiable,
    # as in JAX)
    Case("scaled_dot", lax.scaled_dot_p,
         lambda x, y: lax.scaled_dot(x, y, preferred_element_type=np.float32),
         [A((2, 3, 8)), A((2, 8, 4))], [F32], grad=None),
    Case("dot_general_matmul", lax.dot_general_p,
         lambda x, y: lax.dot_general(x, y, (((1,), (0,)), ((), ()))), [A((2, 3)), A((3, 4))],
         NUM),
    Case("dot_general_vector", lax.dot_general_p,
         lambda x, y: lax.dot_general(x, y, (((0,), (0,)), ((), ()))), [A((3,)), A((3,))], [F32]),
    Case("dot_general_batch", lax.dot_general_p,
         lambda x, y: lax.dot_general(x, y, (((2,), (1,)), ((0,), (0,)))),
         [A((2, 3, 4)), A((2, 4, 5))], [F32]),
    Case("dot_general_batch_permuted", lax.dot_general_p,
         lambda x, y: lax.dot_general(x, y, (((2,), (1,)), ((0,), (2,)))),
         [A((2, 3, 4)), A((5, 4, 2))], NUM),
    Case("dot_general_multi_contract", lax.dot_general_p,
         lambda x, y: lax.dot_general(x, y, (((0, 2), (3, 1)), ((), ()))),
         [A((2, 3, 4)), A((5, 4, 6, 2))], [F32]),
    Case("dot_general_f16_preferred_f32", lax.dot_general_p,
         lambda x, y: lax.dot_general(x, y, (((1,), (0,)), ((), ())),
                                      preferred_element_type=np.float32),
         [A((2, 3), dtype=np.float16), A((3, 4), dtype=np.float16)], [F32]),
    Case("dot", lax.dot_general_p, lax.dot, [A((4,)), A((4, 3))], [F32]),
    Case("dot_general_bind", lax.dot_general_p,
         lambda x, y: lax.dot_general_p.bind(x, y, dimension_numbers=(((0,), (0,)), ((), ())),
                                             preferred_element_type=None),
         [A((3, 2)), A((3, 4))], [F32]),
    Case("conv_general_dilated", lax.conv_general_dilated_p,
         lambda x, w: lax.conv_general_dilated(x, w, (1, 2), ((1, 1), (0, 1))),
         [A((2, 3, 6, 5)), A((4, 3, 3, 2))], NUM),
    Case("conv_general_dilated_nhwc_dilated_grouped", lax.conv_general_dilated_p,
         lambda x, w: lax.conv_general_dilated(x, w, (1, 1), ((1, 0), (0, 1)), (1, 2), (2, 1),
                                               ("NHWC", "HWIO", "NHWC"), feature_group_count=2),
         [A((2, 5, 4, 4)), A((2, 2, 2, 6))], [F32]),
]


def arg_values(a: A, rng: np.random.Generator, dtype: np.dtype) -> list[np.ndarray]:
  """Values for `a` (several for a joint domain), of `dtype` where `a` fixes none."""
  if a.domain == "index":  # a start index, sometimes out of bounds (XLA clamps it)
    return [np.int32(rng.integers(-1, 5))]
  if a.domain == "which3":
    return [rng.integers(0, 3, a.shape).astype(np.int32)]
  value = a.make(rng, dtype)
  return list(value) if isinstance(value, tuple) else [value]


def make_args(args: Sequence[A], dtype: np.dtype, seed: int) -> list[np.ndarray]:
  rng = np.random.default_rng(seed)
  return [v for a in args for v in arg_values(a, rng, dtype)]


CASE_BY_ID = {case.id: case for case in CASES}
assert len(CASE_BY_ID) == len(CASES), "two rows with the same id"
