"""Lowering rules of sorting: `stablehlo.sort` with a comparator region ordering the keys
lexicographically in JAX's total order (floats canonicalized so -0.0 equals 0.0 and NaNs sort
last), `top_k` as `chlo.top_k` along the last axis (as JAX on CPU), and approx_top_k exactly
through them (as XLA's CPU fallback)."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import chlo
from jaxlib.mlir.dialects import stablehlo as hlo

from stablejax import dtypes, lax
from stablejax.lowering.context import aval_to_ir_type, dtype_to_ir_type, ir_constant
from stablejax.lowering.module import LoweringRuleContext, lower_fun
from stablejax.lowering.registry import register_lowering


def _canonical_float(x: ir.Value, dtype: np.dtype) -> ir.Value:
  """-0.0 -> 0.0 and every NaN -> the positive NaN, so the total order treats them as JAX does."""
  zero, nan = ir_constant(0, dtype=dtype), ir_constant(np.nan, dtype=dtype)
  x = hlo.select(_lt_or_eq(x, zero, "EQ", dtype), zero, x)
  return hlo.select(_lt_or_eq(x, x, "NE", dtype), nan, x)


def _lt_or_eq(x: ir.Value, y: ir.Value, direction: str, dtype: np.dtype) -> ir.Value:
  kind = dtypes.kind(dtype)
  ctype = "FLOAT" if kind == "f" else "SIGNED" if kind == "i" else "UNSIGNED"
  return hlo.compare(x, y, hlo.ComparisonDirectionAttr.get(direction),
                     compare_type=hlo.ComparisonTypeAttr.get(ctype))


def _total_order(x: ir.Value, y: ir.Value, direction: str, dtype: np.dtype) -> ir.Value:
  """x < y (or x == y) in the total order of floats, the usual order otherwise."""
  if dtypes.kind(dtype) != "f":
    return _lt_or_eq(x, y, direction, dtype)
  return hlo.compare(_canonical_float(x, dtype), _canonical_float(y, dtype),
                     hlo.ComparisonDirectionAttr.get(direction),
                     compare_type=hlo.ComparisonTypeAttr.get("TOTALORDER"))


def _keys(x: ir.Value, dtype: np.dtype) -> list[tuple[ir.Value, np.dtype]]:
  """A key as real keys: a complex key is its real part, then its imaginary part."""
  if np.dtype(dtype).kind != "c":
    return [(x, np.dtype(dtype))]
  part = np.dtype(np.float32 if dtype == np.complex64 else np.float64)
  return [(hlo.real(x), part), (hlo.imag(x), part)]


def _less_than(xs: Sequence[ir.Value], ys: Sequence[ir.Value], dtypes: Sequence[np.dtype]
               ) -> ir.Value:
  """Lexicographic x < y over the keys, the first one primary."""
  xk = [k for x, d in zip(xs, dtypes) for k in _keys(x, d)]
  yk = [k for y, d in zip(ys, dtypes) for k in _keys(y, d)]
  result = None
  for (x, d), (y, _) in reversed(list(zip(xk, yk))):
    lt = _total_order(x, y, "LT", d)
    result = lt if result is None else hlo.or_(lt, hlo.and_(_total_order(x, y, "EQ", d), result))
  return result


def _sort_rule(ctx: LoweringRuleContext, *operands: ir.Value, dimension: int, is_stable: bool,
               num_keys: int) -> list[ir.Value]:
  op = hlo.SortOp([aval_to_ir_type(a) for a in ctx.avals_out], list(operands),
                  dimension=dimension, is_stable=is_stable)
  scalars = [ir.RankedTensorType.get([], dtype_to_ir_type(a.dtype)) for a in ctx.avals_in]
  block = op.comparator.blocks.append(*[t for t in scalars for _ in (0, 1)])
  with ir.InsertionPoint(block):
    args = list(block.arguments)
    dtypes = [a.dtype for a in ctx.avals_in[:num_keys]]
    hlo.return_([_less_than(args[0:2 * num_keys:2], args[1:2 * num_keys:2], dtypes)])
  return list(op.results)


def _top_k_rule(ctx: LoweringRuleContext, x: ir.Value, *, k: int, axis: int) -> list[ir.Value]:
  ndim = ctx.avals_in[0].ndim
  perm = list(range(ndim))
  perm[axis], perm[-1] = perm[-1], perm[axis]
  if axis != ndim - 1:
    x = hlo.transpose(x, perm)
  results = list(chlo.top_k(x, k))
  if axis != ndim - 1:
    results = [hlo.transpose(r, perm) for r in results]
  return results


register_lowering(lax.sort_p, _sort_rule)
register_lowering(lax.top_k_p, _top_k_rule)
# (exact, as XLA's CPU and GPU fallback of ApproxTopK)
register_lowering(lax.approx_top_k_p,
                  lower_fun(lax.sorting.composite_approx_top_k, multiple_results=True))
