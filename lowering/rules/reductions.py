"""Lowering rules of the reductions: `stablehlo.reduce` with a one-op region, argmax/argmin
as a variadic reduce (as JAX), and cumulative sums as `stablehlo.reduce_window` (as JAX on
CPU)."""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from stablejax import dtypes, lax
from stablejax.lowering import shapes
from stablejax.lowering.context import aval_to_ir_type, ir_constant, shaped_ir_type
from stablejax.lowering.module import LoweringRuleContext, jaxpr_subcomp
from stablejax.lowering.registry import register_lowering
from stablejax.lowering.rules.elementwise import compare, minmax


def _lowest(dtype: np.dtype):
  if dtype == np.bool_:
    return False
  return -np.inf if dtypes.kind(dtype) in "fc" else np.iinfo(dtype).min


def _highest(dtype: np.dtype):
  if dtype == np.bool_:
    return True
  return np.inf if dtypes.kind(dtype) in "fc" else np.iinfo(dtype).max


def _binary(op_class: type) -> Callable[..., list[ir.Value]]:
  return lambda a, b: [op_class(a, b).result]


_max = lambda a, b: [minmax(a, b, hlo.MaxOp, "GT")]  # (lexicographic on complex numbers)
_min = lambda a, b: [minmax(a, b, hlo.MinOp, "LT")]

# primitive -> (the region combining two values, the identity of that region for a dtype)
REDUCTIONS = {
    lax.reduce_sum_p: (_binary(hlo.AddOp), lambda dtype: 0),
    lax.reduce_prod_p: (_binary(hlo.MulOp), lambda dtype: 1),
    lax.reduce_max_p: (_max, _lowest),
    lax.reduce_min_p: (_min, _highest),
    lax.reduce_and_p: (_binary(hlo.AndOp), lambda dtype: ~np.zeros((), dtype)),
    lax.reduce_or_p: (_binary(hlo.OrOp), lambda dtype: 0),
    lax.reduce_xor_p: (_binary(hlo.XorOp), lambda dtype: 0),
}


def _logaddexp(a: ir.Value, b: ir.Value) -> list[ir.Value]:
  """log(exp(a) + exp(b)) as max + log1p(exp(min - max)); the max itself where it is infinite."""
  hi, lo = hlo.maximum(a, b), hlo.minimum(a, b)
  finite = hlo.add(hi, hlo.log_plus_one(hlo.exponential(hlo.subtract(lo, hi))))
  return [hlo.select(hlo.is_finite(hi), finite, hi)]


# primitive -> (the region combining two values, the identity of that region for a dtype)
CUMULATIVE = {
    lax.cumsum_p: (_binary(hlo.AddOp), lambda dtype: 0),
    lax.cumprod_p: (_binary(hlo.MulOp), lambda dtype: 1),
    lax.cummax_p: (_max, _lowest),
    lax.cummin_p: (_min, _highest),
    lax.cumlogsumexp_p: (_logaddexp, lambda dtype: -np.inf),
}


def _scalar_types(values: Sequence[ir.Value]) -> list[ir.Type]:
  return [ir.RankedTensorType.get([], ir.RankedTensorType(v.type).element_type) for v in values]


def fill_region(region: ir.Region, init_values: Sequence[ir.Value],
                 reducer: Callable[..., Sequence[ir.Value]]) -> None:
  """The reducer body: scalar block arguments (accumulators..., values...) to a return."""
  types = _scalar_types(init_values)
  block = region.blocks.append(*types, *types)
  with ir.InsertionPoint(block):
    hlo.return_(list(reducer(*block.arguments)))


def reduce(operands: Sequence[ir.Value], init_values: Sequence[ir.Value], axes: Sequence[int],
           result_types: Sequence[ir.Type], reducer: Callable[..., Sequence[ir.Value]]
           ) -> list[ir.Value]:
  """`stablehlo.reduce` of `operands` over `axes`, combining scalars with `reducer`."""
  op = hlo.ReduceOp(list(result_types), list(operands), list(init_values), list(axes))
  fill_region(op.regions[0], init_values, reducer)
  return list(op.results)


def _reduce_rule(reducer: Callable[..., list[ir.Value]], identity: Callable) -> Callable:
  def rule(ctx: LoweringRuleContext, x: ir.Value, *, axes) -> ir.Value:
    dtype = ctx.avals_in[0].dtype
    init = ir_constant(identity(dtype), dtype=dtype)
    return reduce([x], [init], axes, [aval_to_ir_type(ctx.avals_out[0])], reducer)[0]
  return rule


def _argminmax_rule(direction: str, identity: Callable) -> Callable:
  """Reduce (value, index) pairs: take the other pair when its value is better or NaN, and on
  equal values the smaller index (JAX's argmax/argmin reducer)."""
  def rule(ctx: LoweringRuleContext, x: ir.Value, *, axes, index_dtype) -> ir.Value:
    aval = ctx.avals_in[0]
    (axis,) = axes
    index_dtype = np.dtype(index_dtype)
    indices = shapes.iota(ctx, aval.shape, index_dtype, axis)
    inits = [ir_constant(identity(aval.dtype), dtype=aval.dtype),
             ir_constant(0, dtype=index_dtype)]

    def reducer(op_val, op_idx, acc_val, acc_idx):
      pick_val = compare(op_val, acc_val, direction, aval.dtype)
      if dtypes.kind(aval.dtype) in "fc":
        pick_val = hlo.or_(pick_val, compare(op_val, op_val, "NE", aval.dtype))
      tie = hlo.and_(compare(op_val, acc_val, "EQ", aval.dtype),
                     compare(op_idx, acc_idx, "LT", index_dtype))
      pick_idx = hlo.or_(pick_val, tie)
      return [hlo.select(pick_val, op_val, acc_val), hlo.select(pick_idx, op_idx, acc_idx)]

    out_shape = ctx.avals_out[0].shape
    result_types = [shaped_ir_type(out_shape, aval.dtype), shaped_ir_type(out_shape, index_dtype)]
    return reduce([x, indices], inits, axes, result_types, reducer)[1]
  return rule


def _cumulative_rule(reducer: Callable, identity: Callable) -> Callable:
  """A window as long as the axis, padded before it (after it when reversed), slid by 1."""
  def rule(ctx: LoweringRuleContext, x: ir.Value, *, axis: int, reverse: bool) -> ir.Value:
    aval = ctx.avals_in[0]
    n = aval.shape[axis]
    if n == 0:
      return x  # (an axis of 1 still goes through the window: complex nan * 1 is nan+nanj)
    ones = [1] * aval.ndim
    window = [n if i == axis else 1 for i in range(aval.ndim)]
    padding = [((0, n - 1) if reverse else (n - 1, 0)) if i == axis else (0, 0)
               for i in range(aval.ndim)]
    init = ir_constant(identity(aval.dtype), dtype=aval.dtype)
    return shapes.reduce_window(ctx, [x], [init], [aval], window, ones, padding, ones, ones,
                                reducer)[0]
  return rule


for _prim, (_op, _identity) in REDUCTIONS.items():
  register_lowering(_prim, _reduce_rule(_op, _identity))
for _prim, (_reducer, _identity) in CUMULATIVE.items():
  register_lowering(_prim, _cumulative_rule(_reducer, _identity))
register_lowering(lax.argmax_p, _argminmax_rule("GT", _lowest))
register_lowering(lax.argmin_p, _argminmax_rule("LT", _highest))


def _general_reduce_rule(ctx: LoweringRuleContext, *args: ir.Value, computation, jaxpr,
                         dimensions) -> list[ir.Value]:
  """A variadic `stablehlo.reduce` whose region is the traced computation."""
  if jaxpr.effects:
    raise NotImplementedError("Cannot lower effectful `reduce`.")
  n = len(args) // 2
  operands, inits = list(args[:n]), list(args[n:])
  op = hlo.ReduceOp([aval_to_ir_type(a) for a in ctx.avals_out], operands, inits,
                    list(dimensions))
  types = _scalar_types(inits)
  block = op.regions[0].blocks.append(*types, *types)
  with ir.InsertionPoint(block):
    hlo.return_(jaxpr_subcomp(ctx.module_context, jaxpr.jaxpr, jaxpr.consts,
                              list(block.arguments), f"{ctx.name_stack}/reduce"))
  return list(op.results)


register_lowering(lax.reduce_p, _general_reduce_rule)
