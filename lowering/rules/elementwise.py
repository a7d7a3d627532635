"""Lowering rules of the elementwise primitives: tables of primitive -> StableHLO op, plus the
few primitives that need more than one op."""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import chlo
from jaxlib.mlir.dialects import stablehlo as hlo

from stablejax import core, dtypes, lax
from stablejax.interpreters import ad
from stablejax.lowering import shapes
from stablejax.lowering.context import aval_to_ir_type, make_op
from stablejax.lowering.module import LoweringRuleContext, lower_fun
from stablejax.lowering.registry import register_lowering

# primitive -> the StableHLO op computing it, operands broadcast.
UNARY_OPS = {
    lax.neg_p: hlo.NegOp, lax.abs_p: hlo.AbsOp, lax.floor_p: hlo.FloorOp,
    lax.ceil_p: hlo.CeilOp, lax.exp_p: hlo.ExpOp, lax.log_p: hlo.LogOp,
    lax.log1p_p: hlo.Log1pOp, lax.expm1_p: hlo.Expm1Op, lax.tan_p: hlo.TanOp,
    lax.tanh_p: hlo.TanhOp,
    lax.logistic_p: hlo.LogisticOp, lax.sqrt_p: hlo.SqrtOp, lax.rsqrt_p: hlo.RsqrtOp,
    lax.not_p: hlo.NotOp, lax.cbrt_p: hlo.CbrtOp, lax.is_finite_p: hlo.IsFiniteOp,
    lax.real_p: hlo.RealOp, lax.imag_p: hlo.ImagOp, lax.asin_p: chlo.AsinOp,
    lax.acos_p: chlo.AcosOp, lax.atan_p: chlo.AtanOp, lax.sinh_p: chlo.SinhOp,
    lax.cosh_p: chlo.CoshOp, lax.asinh_p: chlo.AsinhOp, lax.acosh_p: chlo.AcoshOp,
    lax.atanh_p: chlo.AtanhOp,
}
BINARY_OPS = {
    lax.add_p: hlo.AddOp, ad.add_jaxvals_p: hlo.AddOp, lax.sub_p: hlo.SubtractOp,
    lax.and_p: hlo.AndOp, lax.or_p: hlo.OrOp, lax.atan2_p: hlo.Atan2Op,
    lax.complex_p: hlo.ComplexOp, lax.nextafter_p: chlo.NextAfterOp,
}
COMPARISONS = {lax.eq_p: "EQ", lax.ne_p: "NE", lax.lt_p: "LT", lax.le_p: "LE", lax.gt_p: "GT",
               lax.ge_p: "GE"}
# The totally ordered comparisons: floats compare by IEEE 754's totalOrder (TOTALORDER).
TOTAL_ORDER_COMPARISONS = {lax.eq_to_p: "EQ", lax.le_to_p: "LE", lax.lt_to_p: "LT"}


def broadcast_operands(ctx: LoweringRuleContext, args: Sequence[ir.Value],
                       keep_scalars: bool = False) -> Sequence[ir.Value]:
  """The operands broadcast to the output's shape: stablejax's lax broadcasts rank-0 operands
  and size-1 axes implicitly (JAX 0.10), StableHLO does not. `keep_scalars` leaves rank-0
  operands alone (for ops that accept them, like `select` and `clamp`)."""
  shape = ctx.avals_out[0].shape
  for aval in ctx.avals_in:
    if aval.shape != shape:
      break
  else:
    return args  # (the common case, checked first: no operand to broadcast)
  return [x if aval.shape == shape or (keep_scalars and not aval.ndim)
          else shapes.broadcast_in_dim(ctx, x, shape, aval.dtype, range(aval.ndim))
          for x, aval in zip(args, ctx.avals_in)]


def nary_rule(op_class: type) -> Callable:
  """The rule applying `op_class` (a generated op class such as `hlo.AddOp`, built by its
  name: `make_op`) to the broadcast operands."""
  name = op_class.OPERATION_NAME
  def rule(ctx: LoweringRuleContext, *args: ir.Value) -> ir.Value:
    return make_op(name, [aval_to_ir_type(ctx.avals_out[0])],
                   broadcast_operands(ctx, args)).result
  return rule


def compare_type(dtype: np.dtype, total_order: bool = False) -> str:
  """StableHLO's comparison type for operands of `dtype` (as JAX: bool compares unsigned;
  `total_order` floats compare by IEEE 754's totalOrder)."""
  kind = dtypes.kind(dtype)
  if kind in "fc":
    return "TOTALORDER" if total_order else "FLOAT"
  return "SIGNED" if kind == "i" else "UNSIGNED"


def compare(x: ir.Value, y: ir.Value, direction: str, dtype: np.dtype,
            total_order: bool = False) -> ir.Value:
  """`stablehlo.compare direction, x, y, <type of dtype>`."""
  return hlo.compare(x, y, hlo.ComparisonDirectionAttr.get(direction),
                     compare_type=hlo.ComparisonTypeAttr.get(compare_type(dtype, total_order)))


def _compare_rule(direction: str, total_order: bool = False) -> Callable:
  def rule(ctx: LoweringRuleContext, x: ir.Value, y: ir.Value) -> ir.Value:
    x, y = broadcast_operands(ctx, (x, y))
    return compare(x, y, direction, ctx.avals_in[0].dtype, total_order)
  return rule


def _sign_rule(ctx: LoweringRuleContext, x: ir.Value) -> ir.Value:
  aval = ctx.avals_in[0]
  if aval.dtype.kind != "u":
    return hlo.sign(x)
  nonzero = compare(x, shapes.full(ctx, 0, aval.shape, aval.dtype), "NE", aval.dtype)
  return hlo.convert(aval_to_ir_type(aval), nonzero)


def _round_rule(ctx: LoweringRuleContext, x: ir.Value, *, rounding_method) -> ir.Value:
  if rounding_method == lax.RoundingMethod.TO_NEAREST_EVEN:
    return hlo.round_nearest_even(x)
  return hlo.round_nearest_afz(x)


def _pow_rule(ctx: LoweringRuleContext, x: ir.Value, y: ir.Value) -> ir.Value:
  x_aval, y_aval = ctx.avals_in
  x, y = broadcast_operands(ctx, (x, y))
  if y_aval.dtype != x_aval.dtype:  # a float to an integer power: compute in the float type
    y = hlo.convert(aval_to_ir_type(ctx.avals_out[0]), y)
  return hlo.power(x, y)


def _integer_pow_rule(ctx: LoweringRuleContext, x: ir.Value, *, y: int) -> ir.Value:
  """x**y by repeated squaring (a multiply chain, as JAX lowers it); 1/x**-y for y < 0."""
  aval = ctx.avals_out[0]
  if y == 0:
    return shapes.full(ctx, 1, aval.shape, aval.dtype)
  n, acc = abs(y), None
  while n:
    if n & 1:
      acc = x if acc is None else hlo.multiply(acc, x)
    n >>= 1
    if n:
      x = hlo.multiply(x, x)
  return hlo.divide(shapes.full(ctx, 1, aval.shape, aval.dtype), acc) if y < 0 else acc


def _exp2_rule(ctx: LoweringRuleContext, x: ir.Value) -> ir.Value:
  """2 ** x as exp(log(2) x), as JAX lowers it."""
  aval = ctx.avals_in[0]
  return hlo.exponential(hlo.multiply(shapes.full(ctx, np.log(2), aval.shape, aval.dtype), x))


def _square_rule(ctx: LoweringRuleContext, x: ir.Value) -> ir.Value:
  if ctx.avals_in[0].dtype.kind in "iu":
    return hlo.multiply(x, x)
  return chlo.square(x)


def _complex_sin_cos(x, cosine: bool):
  """sin or cos of a complex x from sin, cos and expm1 of its parts, as JAX lowers them (sinh
  and cosh built from expm1 stay accurate for small imaginary parts)."""
  a, b = lax.real(x), lax.imag(x)
  zero, two = np.array(0, a.dtype), np.array(2, a.dtype)
  real_is_zero = lax.eq(a, zero)
  sin_a, cos_a = lax.sin(a), lax.cos(a)
  up, down = lax.expm1(b), lax.expm1(lax.neg(b))
  sinh_b, cosh_b = lax.div(lax.sub(up, down), two), lax.div(lax.add(lax.add(up, down), two), two)
  # where the real part is 0 its product is 0 even when the imaginary part overflows (not NaN)
  if cosine:
    re, im = lax.mul(cos_a, cosh_b), lax.mul(lax.neg(sin_a), sinh_b)
    on_axis = lax.complex(re, zero)
  else:
    re, im = lax.mul(sin_a, cosh_b), lax.mul(cos_a, sinh_b)
    on_axis = lax.complex(zero, im)
  return lax.select(real_is_zero, on_axis, lax.complex(re, im))


def _sin_cos_rule(op_class: type, cosine: bool) -> Callable:
  real_rule = nary_rule(op_class)
  complex_rule = lower_fun(lambda x: _complex_sin_cos(x, cosine))

  def rule(ctx: LoweringRuleContext, x: ir.Value) -> ir.Value:
    return (complex_rule if ctx.avals_in[0].dtype.kind == "c" else real_rule)(ctx, x)
  return rule


def _conj_rule(ctx: LoweringRuleContext, x: ir.Value, *, input_dtype) -> ir.Value:
  aval = ctx.avals_in[0]
  if aval.dtype.kind == "c":
    return hlo.complex(hlo.real(x), hlo.negate(hlo.imag(x)))
  return hlo.complex(x, shapes.full(ctx, 0, aval.shape, aval.dtype))


def _convert_element_type_rule(ctx: LoweringRuleContext, x: ir.Value, *, new_dtype,
                               weak_type) -> ir.Value:
  aval_in, aval_out = ctx.avals_in[0], ctx.avals_out[0]
  if aval_in.dtype == aval_out.dtype:
    return x
  if aval_in.dtype.kind == "c" and aval_out.dtype.kind != "c":
    x = hlo.real(x)
    aval_in = aval_in.update(dtype=dtypes.finfo(aval_in.dtype).dtype)
  if aval_out.dtype == np.bool_:  # nonzero is true (a convert to i1 would truncate)
    return compare(x, shapes.full(ctx, 0, aval_in.shape, aval_in.dtype), "NE", aval_in.dtype)
  return hlo.convert(aval_to_ir_type(aval_out), x)


def _select_n_rule(ctx: LoweringRuleContext, which: ir.Value, *cases: ir.Value) -> ir.Value:
  """`select` for a boolean predicate or two cases; a balanced tree of them for more."""
  which, *cases = broadcast_operands(ctx, (which, *cases), keep_scalars=True)
  which_aval = ctx.avals_in[0]
  if len(cases) == 1:
    return cases[0]
  if which_aval.dtype == np.bool_:
    return hlo.select(which, cases[1], cases[0])

  def select(offset: int, cases: list) -> ir.Value:
    if len(cases) == 1:
      return cases[0]
    mid = len(cases) // 2
    bound = shapes.full(ctx, offset + mid, which_aval.shape, which_aval.dtype)
    pred = compare(which, bound, "LT", which_aval.dtype)
    return hlo.select(pred, select(offset, cases[:mid]), select(offset + mid, cases[mid:]))
  return select(0, cases)


def minmax(x: ir.Value, y: ir.Value, op_class: type, direction: str) -> ir.Value:
  """max (`hlo.MaxOp`, "GT") or min (`hlo.MinOp`, "LT") of values of one type; on complex
  values lexicographic on (real, imag) as JAX (XLA's own max and min of complex numbers compare
  only the real parts). Also the body of the max/min reductions."""
  if not isinstance(ir.RankedTensorType(x.type).element_type, ir.ComplexType):
    return op_class(x, y).result
  rx, ry, part = hlo.real(x), hlo.real(y), np.dtype(np.float32)  # (the comparison type: FLOAT)
  which = hlo.select(compare(rx, ry, "EQ", part), compare(hlo.imag(x), hlo.imag(y), direction, part),
                     compare(rx, ry, direction, part))
  return hlo.select(which, x, y)


def _division_rule(op_class: type,
                   by_zero: Callable[[LoweringRuleContext, ir.Value, core.ShapedArray], ir.Value]
                   ) -> Callable:
  """The rule of `div` or `rem`: `op_class` on the broadcast operands; for integers the divisor
  is made nonzero first and `by_zero(ctx, x, aval_out)` stands where it was 0 (XLA's own values: -1
  for `div`, `x` for `rem`). XLA's CPU compiler dies of SIGFPE constant-folding an integer 0 / 0
  (`lax.div(x * 0, x * 0)` under `jax.jit` kills the process too), so no integer division
  reaches XLA with a divisor it can prove zero."""
  plain = nary_rule(op_class)

  def rule(ctx: LoweringRuleContext, x: ir.Value, y: ir.Value) -> ir.Value:
    aval = ctx.avals_out[0]
    if dtypes.kind(aval.dtype) not in "iu":
      return plain(ctx, x, y)
    x, y = broadcast_operands(ctx, (x, y))
    is_zero = compare(y, shapes.full(ctx, 0, aval.shape, aval.dtype), "EQ", aval.dtype)
    safe = hlo.select(is_zero, shapes.full(ctx, 1, aval.shape, aval.dtype), y)
    return hlo.select(is_zero, by_zero(ctx, x, aval), op_class(x, safe).result)
  return rule


def _all_ones(ctx: LoweringRuleContext, x: ir.Value, aval: core.ShapedArray) -> ir.Value:
  """-1 of `aval`'s type (every bit set for unsigned ones), XLA's integer quotient by 0."""
  return shapes.full(ctx, np.array(-1).astype(aval.dtype), aval.shape, aval.dtype)


def _minmax_rule(op_class: type, direction: str) -> Callable:
  def rule(ctx: LoweringRuleContext, x: ir.Value, y: ir.Value) -> ir.Value:
    return minmax(*broadcast_operands(ctx, (x, y)), op_class, direction)
  return rule


def _mul_rule(ctx: LoweringRuleContext, x: ir.Value, y: ir.Value, out_dtype=None) -> ir.Value:
  """With `out_dtype`, the operands are converted to it first (as JAX)."""
  args = broadcast_operands(ctx, (x, y))
  out_type = aval_to_ir_type(ctx.avals_out[0])
  if out_dtype is not None:
    args = [hlo.convert(out_type, a) for a in args]
  return make_op("stablehlo.multiply", [out_type], args).result


def _clamp_rule(ctx: LoweringRuleContext, lo: ir.Value, x: ir.Value, hi: ir.Value) -> ir.Value:
  return hlo.clamp(*broadcast_operands(ctx, (lo, x, hi), keep_scalars=True))


def _register() -> None:
  for prim, op_class in {**UNARY_OPS, **BINARY_OPS}.items():
    register_lowering(prim, nary_rule(op_class))
  for prim, direction in COMPARISONS.items():
    register_lowering(prim, _compare_rule(direction))
  for prim, direction in TOTAL_ORDER_COMPARISONS.items():
    register_lowering(prim, _compare_rule(direction, total_order=True))
  for prim, rule in [(lax.sign_p, _sign_rule), (lax.round_p, _round_rule),
                     (lax.pow_p, _pow_rule), (lax.integer_pow_p, _integer_pow_rule),
                     (lax.select_n_p, _select_n_rule),
                     (lax.convert_element_type_p, _convert_element_type_rule),
                     (lax.clamp_p, _clamp_rule), (lax.exp2_p, _exp2_rule),
                     (lax.mul_p, _mul_rule),
                     (lax.div_p, _division_rule(hlo.DivOp, _all_ones)),
                     (lax.rem_p, _division_rule(hlo.RemOp, lambda ctx, x, aval: x)),
                     (lax.square_p, _square_rule), (lax.conj_p, _conj_rule),
                     (lax.sin_p, _sin_cos_rule(hlo.SineOp, cosine=False)),
                     (lax.cos_p, _sin_cos_rule(hlo.CosineOp, cosine=True)),
                     (lax.max_p, _minmax_rule(hlo.MaxOp, "GT")),
                     (lax.min_p, _minmax_rule(hlo.MinOp, "LT"))]:
    register_lowering(prim, rule)


_register()
