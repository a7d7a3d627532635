"""Lowering rules of the elementwise primitives: tables of primitive -> StableHLO op, plus the
few primitives that need more than one op."""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from stablejax import lax
from stablejax.interpreters import ad
from stablejax.lowering.context import aval_to_ir_type, broadcast_to, ir_constant
from stablejax.lowering.module import LoweringRuleContext
from stablejax.lowering.registry import register_lowering
from stablejax.lowering.rules import register_lax

# lax primitive (by attribute name) -> the StableHLO op computing it, operands broadcast.
UNARY_OPS = {
    "neg_p": hlo.NegOp, "abs_p": hlo.AbsOp, "floor_p": hlo.FloorOp, "ceil_p": hlo.CeilOp,
    "exp_p": hlo.ExpOp, "log_p": hlo.LogOp, "log1p_p": hlo.Log1pOp, "expm1_p": hlo.Expm1Op,
    "sin_p": hlo.SineOp, "cos_p": hlo.CosineOp, "tan_p": hlo.TanOp, "tanh_p": hlo.TanhOp,
    "logistic_p": hlo.LogisticOp, "sqrt_p": hlo.SqrtOp, "rsqrt_p": hlo.RsqrtOp,
    "not_p": hlo.NotOp,
}
BINARY_OPS = {
    "add_p": hlo.AddOp, "sub_p": hlo.SubtractOp, "mul_p": hlo.MulOp, "div_p": hlo.DivOp,
    "rem_p": hlo.RemOp, "max_p": hlo.MaxOp, "min_p": hlo.MinOp, "and_p": hlo.AndOp,
    "or_p": hlo.OrOp,
}
COMPARISONS = {"eq_p": "EQ", "ne_p": "NE", "lt_p": "LT", "le_p": "LE", "gt_p": "GT",
               "ge_p": "GE"}


def broadcast_operands(ctx: LoweringRuleContext, args: Sequence[ir.Value],
                       keep_scalars: bool = False) -> list[ir.Value]:
  """The operands broadcast to the output's shape: stablejax's lax broadcasts rank-0 operands
  and size-1 axes implicitly (JAX 0.10), StableHLO does not. `keep_scalars` leaves rank-0
  operands alone (for ops that accept them, like `select` and `clamp`)."""
  shape = ctx.avals_out[0].shape
  return [x if aval.shape == shape or (keep_scalars and not aval.ndim)
          else broadcast_to(x, range(aval.ndim), shape, aval.dtype)
          for x, aval in zip(args, ctx.avals_in)]


def nary_rule(op_class: type) -> Callable:
  """The rule applying `op_class` to the broadcast operands."""
  def rule(ctx: LoweringRuleContext, *args: ir.Value) -> ir.Value:
    return op_class(*broadcast_operands(ctx, args)).result
  return rule


def compare_type(dtype: np.dtype) -> str:
  """StableHLO's comparison type for operands of `dtype` (as JAX: bool compares unsigned)."""
  kind = np.dtype(dtype).kind
  return "FLOAT" if kind in "fc" else "SIGNED" if kind == "i" else "UNSIGNED"


def compare(x: ir.Value, y: ir.Value, direction: str, dtype: np.dtype) -> ir.Value:
  """`stablehlo.compare direction, x, y, <type of dtype>`."""
  return hlo.compare(x, y, hlo.ComparisonDirectionAttr.get(direction),
                     compare_type=hlo.ComparisonTypeAttr.get(compare_type(dtype)))


def _compare_rule(direction: str) -> Callable:
  def rule(ctx: LoweringRuleContext, x: ir.Value, y: ir.Value) -> ir.Value:
    x, y = broadcast_operands(ctx, (x, y))
    return compare(x, y, direction, ctx.avals_in[0].dtype)
  return rule


def _sign_rule(ctx: LoweringRuleContext, x: ir.Value) -> ir.Value:
  aval = ctx.avals_in[0]
  if aval.dtype.kind != "u":
    return hlo.sign(x)
  nonzero = compare(x, ir_constant(0, aval.shape, aval.dtype), "NE", aval.dtype)
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
    return ir_constant(1, aval.shape, aval.dtype)
  n, acc = abs(y), None
  while n:
    if n & 1:
      acc = x if acc is None else hlo.multiply(acc, x)
    n >>= 1
    if n:
      x = hlo.multiply(x, x)
  return hlo.divide(ir_constant(1, aval.shape, aval.dtype), acc) if y < 0 else acc


def _convert_element_type_rule(ctx: LoweringRuleContext, x: ir.Value, *, new_dtype,
                               weak_type) -> ir.Value:
  aval_in, aval_out = ctx.avals_in[0], ctx.avals_out[0]
  if aval_in.dtype == aval_out.dtype:
    return x
  if aval_in.dtype.kind == "c" and aval_out.dtype.kind != "c":
    x = hlo.real(x)
    aval_in = aval_in.update(dtype=np.finfo(aval_in.dtype).dtype)
  if aval_out.dtype == np.bool_:  # nonzero is true (a convert to i1 would truncate)
    return compare(x, ir_constant(0, aval_in.shape, aval_in.dtype), "NE", aval_in.dtype)
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
    bound = ir_constant(offset + mid, which_aval.shape, which_aval.dtype)
    pred = compare(which, bound, "LT", which_aval.dtype)
    return hlo.select(pred, select(offset, cases[:mid]), select(offset + mid, cases[mid:]))
  return select(0, cases)


def _clamp_rule(ctx: LoweringRuleContext, lo: ir.Value, x: ir.Value, hi: ir.Value) -> ir.Value:
  return hlo.clamp(*broadcast_operands(ctx, (lo, x, hi), keep_scalars=True))


def _register() -> None:
  for name, op_class in {**UNARY_OPS, **BINARY_OPS}.items():
    register_lax(name, nary_rule(op_class))
  for name, direction in COMPARISONS.items():
    register_lax(name, _compare_rule(direction))
  register_lowering(ad.add_jaxvals_p, nary_rule(hlo.AddOp))
  for name, rule in [("sign_p", _sign_rule), ("round_p", _round_rule), ("pow_p", _pow_rule),
                     ("integer_pow_p", _integer_pow_rule), ("select_n_p", _select_n_rule),
                     ("convert_element_type_p", _convert_element_type_rule),
                     ("clamp_p", _clamp_rule)]:
    register_lax(name, rule)


_register()
