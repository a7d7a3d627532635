"""`flops(f)(*args)`: an estimate of the floating-point operations of `f`, counted on its jaxpr
(Mini-JAX's FLOPS transformation, done statically). `f` may be a `jit`, `grad`, `vmap`, ... of a
function: the transformed program is what is counted, after dead-code elimination (the program
that is lowered).

Each primitive's cost comes from `flops_rules[prim](avals_in, avals_out, **params)`; a user adds
one with `register_flops_rule`. Conventions (XLA's `HloCostAnalysis` where it has one):
- elementwise ops: 1 per output element, transcendental ones (`exp`, `sin`, `tanh`, ...) too.
  XLA reports transcendentals apart from "flops", so compare with its flops + transcendentals;
  `integer_pow` counts the multiplies of square-and-multiply, as XLA sees them after lowering;
  `convert_element_type` to the same dtype is free.
- reductions (also argmax/argmin and cumulative ones): 1 per input element (XLA: input - output).
- `dot_general`: 2 x batch x free x contracting sizes = 2 x output elements x contracting size.
- `conv_general_dilated`: 2 x output elements x kernel spatial size x input features per group,
  less the kernel taps that fall on padding or lhs-dilation holes (as XLA counts).
- windowed reductions: output elements x window size; `sort`: n log2 n compares per sorted row;
  `cholesky` n^3/3 and `triangular_solve` m^2 n per matrix; the other factorizations by the
  textbook counts (Golub and Van Loan) per m x n matrix, k = min(m, n): `lu` m n k - k^3/3,
  `geqrf` and `householder_product` 2 m n k - 2 k^3/3 (`qr` both), `eigh` 9 n^3 (with
  vectors, as computed), `svd` 4 m n k + 8 k^3 (with vectors; 4 m n k - 4 k^3/3 without);
  `fft` 5 N log2 N per transform of N points (half for the real ones); `scatter-add` (-mul,
  -min, -max) 1 per update element; the reducing collectives (`psum`, `pmax`, `pmin`,
  `psum_scatter`) 1 per input element, the others and sharding constraints 0.
- structural ops (reshape, transpose, broadcast, slice, pad, concatenate, gather, plain scatter,
  iota, ...) and host callbacks: 0, as XLA counts them.
- control flow: the max over `cond` branches; `scan`: length x body; a `while` whose trip count is
  static (the `i < n` / `i + 1` loop `fori_loop` stages, started from literals) trip count x
  (body + cond) + cond; `jit`, `custom_jvp`/`custom_vjp` and `checkpoint` bodies are counted once.
A `while` with a dynamic trip count, and a primitive without a rule (`ffi_call`, `call_exported`,
a user's primitive), raise `UnknownFlopsError` naming the primitive and its source line.
"""
from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import numpy as np

from stablejax import core, lax, passes
from stablejax.api import make_jaxpr
from stablejax.interpreters import ad
from stablejax.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Literal, call_primitives
from stablejax.lax import linalg

__all__ = ["LiteralAval", "UnknownFlopsError", "flops", "flops_rules", "jaxpr_flops",
           "register_flops_rule"]

FlopsRule = Callable[..., float]

# primitive -> rule(avals_in, avals_out, **params) -> number of floating-point operations
flops_rules: dict[core.Primitive, FlopsRule] = {}


class UnknownFlopsError(ValueError):
  """The FLOPS of a program cannot be counted statically."""

  def __init__(self, message: str, located: bool = False):
    super().__init__(message)
    self.located = located  # the message names the equation's source line


class LiteralAval(core.ShapedArray):
  """The aval a rule receives for an operand that is a literal: it also has its `value`."""
  __slots__ = ("value",)

  def __init__(self, aval: core.ShapedArray, value: Any):
    super().__init__(aval.shape, aval.dtype, aval.weak_type)
    self.value = value


def register_flops_rule(prim: core.Primitive, rule: FlopsRule) -> None:
  """Count `prim` with `rule(avals_in, avals_out, **params) -> float` (replacing any rule); the
  avals are ShapedArrays (a `LiteralAval`, with its `value`, for a literal operand)."""
  if not isinstance(prim, core.Primitive):
    raise TypeError(f"register_flops_rule: expected a Primitive, got {prim!r}")
  if not callable(rule):
    raise TypeError(f"register_flops_rule: the rule for {prim.name} must be callable, got "
                    f"{rule!r}")
  flops_rules[prim] = rule


def flops(fun: Callable, static_argnums: int | Sequence[int] = ()) -> Callable[..., float]:
  """`flops(f)(*args)`: the estimated floating-point operations of `f(*args)` (see the module
  docstring for the conventions); `args` may be arrays or ShapeDtypeStructs."""
  trace = make_jaxpr(fun, static_argnums=static_argnums)

  def count(*args, **kwargs) -> float:
    return jaxpr_flops(passes.dce_closed_jaxpr(trace(*args, **kwargs)))

  return count


def jaxpr_flops(jaxpr: ClosedJaxpr | Jaxpr) -> float:
  """The estimated floating-point operations of one evaluation of `jaxpr`."""
  return float(sum(map(_eqn_flops, _open(jaxpr).eqns)))


def _open(jaxpr: ClosedJaxpr | Jaxpr) -> Jaxpr:
  return jaxpr.jaxpr if isinstance(jaxpr, ClosedJaxpr) else jaxpr


def _eqn_flops(eqn: JaxprEqn) -> float:
  rule = flops_rules.get(eqn.primitive)
  if rule is None:
    raise UnknownFlopsError(
        f"flops: no FLOPS rule for primitive '{eqn.primitive.name}'{_where(eqn)}; register one "
        f"with `from stablejax.flops import register_flops_rule`", located=True)
  avals_in = [LiteralAval(x.aval, x.val) if type(x) is Literal else x.aval for x in eqn.invars]
  try:
    return rule(avals_in, [v.aval for v in eqn.outvars], **eqn.params)
  except UnknownFlopsError as e:
    if e.located:
      raise
    raise UnknownFlopsError(f"{e}{_where(eqn)}", located=True) from None


def _where(eqn: JaxprEqn) -> str:
  """` (at file:line)` of the user's code that staged `eqn`, when known."""
  frames = eqn.source_info.frames if eqn.source_info else ()
  return " (at {}:{})".format(*core.frame_position(*frames[0])[:2]) if frames else ""


# ----------------------------------------------------------------------------------------------
# Rules


def _out_size(avals_in, avals_out, **_) -> float:
  return sum(a.size for a in avals_out)


def _in_size(avals_in, avals_out, **_) -> float:
  return avals_in[0].size


def _free(avals_in, avals_out, **_) -> float:
  return 0


def _convert(avals_in, avals_out, **_) -> float:
  return 0 if avals_in[0].dtype == avals_out[0].dtype else avals_out[0].size


def _integer_pow(avals_in, avals_out, *, y: int) -> float:
  """Square-and-multiply: floor(log2 |y|) squarings and popcount(|y|) - 1 multiplies, and a
  division for negative `y`."""
  n = abs(y)
  muls = 0 if n == 0 else n.bit_length() - 1 + bin(n).count("1") - 1
  return avals_out[0].size * (muls + (y < 0))


def _dot_general(avals_in, avals_out, *, dimension_numbers, **_) -> float:
  (lhs_contract, _), _ = dimension_numbers
  contracted = math.prod(avals_in[0].shape[d] for d in lhs_contract)
  return 2 * avals_out[0].size * contracted


def _conv(avals_in, avals_out, *, dimension_numbers, window_strides, padding, lhs_dilation,
          rhs_dilation, **_) -> float:
  """2 x (output batch x features) x input features per group x the (output position, kernel
  tap) pairs of each spatial dimension whose tap reads an input element rather than padding or a
  dilation hole: 2 x output elements x kernel size x input features per group without padding
  or lhs dilation (XLA's count)."""
  lhs, rhs, out = avals_in[0], avals_in[1], avals_out[0]
  lhs_spec, rhs_spec, out_spec = dimension_numbers
  taps = 1
  for i, (stride, (pad_lo, _), lhs_dil, rhs_dil) in enumerate(
      zip(window_strides, padding, lhs_dilation, rhs_dilation)):
    taps *= _conv_taps(lhs.shape[lhs_spec[2 + i]], rhs.shape[rhs_spec[2 + i]],
                       out.shape[out_spec[2 + i]], stride, pad_lo, lhs_dil, rhs_dil)
  batch_features = out.shape[out_spec[0]] * out.shape[out_spec[1]]
  return 2 * batch_features * rhs.shape[rhs_spec[1]] * taps


def _conv_taps(size: int, window: int, out_size: int, stride: int, pad_lo: int, lhs_dil: int,
               rhs_dil: int) -> int:
  """The (output, kernel tap) pairs of one spatial dimension that read an input element."""
  pos = (np.arange(out_size)[:, None] * stride + np.arange(window)[None, :] * rhs_dil - pad_lo)
  dilated = 0 if size == 0 else (size - 1) * lhs_dil + 1
  return int(np.count_nonzero((pos >= 0) & (pos < dilated) & (pos % lhs_dil == 0)))


def _reduce_window(avals_in, avals_out, *, window_dimensions, **_) -> float:
  return avals_out[0].size * math.prod(window_dimensions)


def _sort_cost(size: int, n: int) -> float:
  return size * max(math.ceil(math.log2(n)), 1) if n > 1 else 0


def _sort(avals_in, avals_out, *, dimension, **_) -> float:
  return _sort_cost(avals_in[0].size, avals_in[0].shape[dimension])


def _top_k(avals_in, avals_out, *, axis=-1, **_) -> float:
  return _sort_cost(avals_in[0].size, avals_in[0].shape[axis])


def _scatter_combine(avals_in, avals_out, **_) -> float:
  return avals_in[2].size


def _cholesky(avals_in, avals_out, **_) -> float:
  return avals_in[0].size * avals_in[0].shape[-1] / 3


def _triangular_solve(avals_in, avals_out, **_) -> float:
  return avals_in[0].shape[-1] * avals_in[1].size


def _matrices(aval: core.ShapedArray) -> tuple[float, int, int, int]:
  """(number of matrices, m, n, min(m, n)) of a batch of m x n matrices."""
  m, n = aval.shape[-2:]
  return aval.size / max(m * n, 1), m, n, min(m, n)


def _lu(avals_in, avals_out, **_) -> float:
  b, m, n, k = _matrices(avals_in[0])
  return b * (m * n * k - k ** 3 / 3)


def _householder(avals_in, avals_out, **_) -> float:
  b, m, n, k = _matrices(avals_in[0])
  return b * (2 * m * n * k - 2 * k ** 3 / 3)


def _qr(avals_in, avals_out, **_) -> float:
  return 2 * _householder(avals_in, avals_out)


def _eigh(avals_in, avals_out, **_) -> float:
  b, _, n, _ = _matrices(avals_in[0])
  return b * 9 * n ** 3


def _svd(avals_in, avals_out, *, compute_uv, **_) -> float:
  b, m, n, k = _matrices(avals_in[0])
  return b * (4 * m * n * k + (8 * k ** 3 if compute_uv else -4 * k ** 3 / 3))


def _fft(avals_in, avals_out, *, fft_type, fft_lengths, **_) -> float:
  points = math.prod(fft_lengths)
  transforms = avals_in[0].size / max(math.prod(avals_in[0].shape[-len(fft_lengths):]), 1)
  real = getattr(fft_type, "name", str(fft_type)) in ("RFFT", "IRFFT")
  return transforms * 5 * points * math.log2(max(points, 1)) / (2 if real else 1)


def _shard_map(avals_in, avals_out, *, jaxpr: ClosedJaxpr, mesh, **params) -> float:
  """The body's count on every device of the mesh."""
  return jaxpr_flops(jaxpr) * mesh.size


def _call(param: str) -> FlopsRule:
  """The rule of a call-like primitive: its body's count."""
  def rule(avals_in, avals_out, **params) -> float:
    return jaxpr_flops(params[param])
  return rule


def _cond(avals_in, avals_out, *, branches, **_) -> float:
  return max(map(jaxpr_flops, branches))


def _scan(avals_in, avals_out, *, jaxpr, length, **_) -> float:
  return length * jaxpr_flops(jaxpr)


def _while(avals_in, avals_out, *, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts,
           **_) -> float:
  trips = _while_trip_count(avals_in, _open(cond_jaxpr), _open(body_jaxpr), cond_nconsts,
                            body_nconsts)
  if trips is None:
    raise UnknownFlopsError("flops: a while_loop with a dynamic trip count has no static FLOPS "
                            "count (use fori_loop with static bounds or scan, or register a "
                            "rule for lax.while_p)")
  cond = jaxpr_flops(cond_jaxpr)
  return trips * (jaxpr_flops(body_jaxpr) + cond) + cond


def _while_trip_count(avals_in: list, cond: Jaxpr, body: Jaxpr, cond_nconsts: int,
                      body_nconsts: int) -> int | None:
  """The trip count of the loop `fori_loop` stages (`i < n` in `cond`, `i + 1` in `body`, `n`
  unchanged), when `i` and `n` start from literals; None for any other loop."""
  carry = avals_in[cond_nconsts + body_nconsts:]
  if len(cond.eqns) != 1 or cond.eqns[0].primitive is not lax.lt_p:
    return None
  index, bound = cond.eqns[0].invars
  cond_carry = cond.invars[cond_nconsts:]
  if index not in cond_carry:
    return None
  i = cond_carry.index(index)
  if not _is_increment(body, body.invars[body_nconsts + i], body.outvars[i]):
    return None
  start = carry[i]
  if type(bound) is Literal:
    stop = bound.val
  elif bound in cond_carry:
    n = cond_carry.index(bound)
    stop = carry[n].value if isinstance(carry[n], LiteralAval) else None
    if body.outvars[n] is not body.invars[body_nconsts + n]:
      return None
  else:
    return None
  if not isinstance(start, LiteralAval) or stop is None:
    return None
  return max(int(stop) - int(start.value), 0)


def _is_increment(body: Jaxpr, var_in: Any, var_out: Any) -> bool:
  """Whether `body` computes `var_out = var_in + 1`."""
  for eqn in body.eqns:
    if eqn.outvars[0] is var_out:
      if eqn.primitive is not lax.add_p:
        return False
      others = [x for x in eqn.invars if x is not var_in]
      return len(others) == 1 and type(others[0]) is Literal and others[0].val == 1
  return False


_ELEMENTWISE = [
    lax.abs_p, lax.acos_p, lax.acosh_p, lax.add_p, ad.add_jaxvals_p, lax.and_p, lax.asin_p,
    lax.asinh_p, lax.atan_p, lax.atan2_p, lax.atanh_p, lax.bessel_i0e_p, lax.bessel_i1e_p,
    lax.cbrt_p, lax.ceil_p, lax.clamp_p, lax.clz_p, lax.complex_p, lax.conj_p, lax.cos_p,
    lax.cosh_p, lax.digamma_p, lax.div_p, lax.eq_p, lax.erf_p, lax.erf_inv_p, lax.erfc_p,
    lax.exp_p, lax.exp2_p, lax.expm1_p, lax.floor_p, lax.ge_p, lax.gt_p, lax.igamma_p,
    lax.igamma_grad_a_p, lax.igammac_p, lax.imag_p, lax.is_finite_p, lax.le_p, lax.lgamma_p,
    lax.log_p, lax.log1p_p, lax.logistic_p, lax.lt_p, lax.max_p, lax.min_p, lax.mul_p,
    lax.mulhi_p, lax.ne_p, lax.neg_p, lax.nextafter_p, lax.not_p, lax.or_p, lax.polygamma_p,
    lax.population_count_p, lax.pow_p, lax.random_gamma_p, lax.real_p, lax.reduce_precision_p,
    lax.regularized_incomplete_beta_p, lax.rem_p, lax.round_p, lax.rsqrt_p, lax.select_n_p,
    lax.shift_left_p, lax.shift_right_arithmetic_p, lax.shift_right_logical_p, lax.sign_p,
    lax.sin_p, lax.sinh_p, lax.sqrt_p, lax.square_p, lax.sub_p, lax.tan_p, lax.tanh_p, lax.xor_p,
    lax.zeta_p]

_BY_INPUT = [
    lax.reduce_sum_p, lax.reduce_max_p, lax.reduce_min_p, lax.reduce_prod_p, lax.reduce_and_p,
    lax.reduce_or_p, lax.reduce_xor_p, lax.argmax_p, lax.argmin_p, lax.cumsum_p, lax.cumprod_p,
    lax.cummax_p, lax.cummin_p, lax.cumlogsumexp_p]

_FREE = [
    lax.bitcast_convert_type_p, lax.broadcast_in_dim_p, lax.concatenate_p, lax.dynamic_slice_p,
    lax.dynamic_update_slice_p, lax.expand_dims_p, lax.gather_p, lax.iota_p,
    lax.optimization_barrier_p, lax.pad_p, lax.reshape_p, lax.rev_p, lax.slice_p, lax.squeeze_p,
    lax.stop_gradient_p, lax.transpose_p, lax.scatter_p, lax.pure_callback_p,
    lax.debug_callback_p]

flops_rules.update({p: _out_size for p in _ELEMENTWISE})
flops_rules.update({p: _in_size for p in _BY_INPUT})
flops_rules.update({p: _free for p in _FREE})
flops_rules.update({p: _reduce_window for p in (lax.reduce_window_sum_p, lax.reduce_window_max_p,
                                                lax.reduce_window_min_p)})
flops_rules.update({p: _scatter_combine for p in (lax.scatter_add_p, lax.scatter_mul_p,
                                                  lax.scatter_min_p, lax.scatter_max_p)})
flops_rules.update({p: _call(param) for p, param in call_primitives.items()})
flops_rules.update({
    lax.convert_element_type_p: _convert,
    lax.integer_pow_p: _integer_pow,
    lax.dot_general_p: _dot_general,
    lax.conv_general_dilated_p: _conv,
    lax.sort_p: _sort,
    lax.top_k_p: _top_k,
    linalg.cholesky_p: _cholesky,
    linalg.triangular_solve_p: _triangular_solve,
    linalg.lu_p: _lu,
    linalg.lu_pivots_to_permutation_p: _free,
    linalg.geqrf_p: _householder,
    linalg.householder_product_p: _householder,
    linalg.qr_p: _qr,
    linalg.eigh_p: _eigh,
    linalg.svd_p: _svd,
    lax.fft_p: _fft,
    # collectives: one combine per element for the reductions; moving data is free
    lax.psum_p: _in_size, lax.pmax_p: _in_size, lax.pmin_p: _in_size,
    lax.reduce_scatter_p: _in_size, lax.all_gather_p: _free, lax.ppermute_p: _free,
    lax.all_to_all_p: _free, lax.axis_index_p: _free, lax.sharding_constraint_p: _free,
    lax.custom_jvp_call_p: _call("call_jaxpr"),
    lax.custom_vjp_call_p: _call("call_jaxpr"),
    lax.remat_p: _call("jaxpr"),
    lax.shard_map_p: _shard_map,
    lax.cond_p: _cond,
    lax.scan_p: _scan,
    lax.while_p: _while,
})
