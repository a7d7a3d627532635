"""The shape helpers of the lowering rules. An op whose result's shape is among its operands or
attributes (broadcast, reshape, iota, slice, dynamic slice, pad, gather, reduce_window, a filled
or broadcast constant) is built here: in its static form where the shape is known, and in its dynamic form
(`stablehlo.dynamic_broadcast_in_dim`, `dynamic_reshape`, `dynamic_iota`, `real_dynamic_slice`,
`dynamic_pad`, `dynamic_gather`, the `stablehlo.dynamic_reduce_window` custom call) where a
dimension is symbolic, its size computed from the
function's dimension variables (`ModuleContext.dim_var_values`), as JAX's lowering does; so are
the shape operands of a custom call's symbolic results (`result_shapes`). Rules call these and
never look at symbolic dimensions themselves."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy as np

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import func
from jaxlib.mlir.dialects import stablehlo as hlo

from stablejax import core
from stablejax.lowering.context import (aval_to_ir_type, broadcast_to, dim_var_aval,
                                        ir_constant, shaped_ir_type)
from stablejax.shape_poly import (DimArithmetic, DimSize, evaluate, is_constant_shape,
                                  is_symbolic_dim)

if TYPE_CHECKING:  # (module.py lowers key arrays' components with these helpers)
  from stablejax.lowering.module import LoweringRuleContext


class IrDimArithmetic(DimArithmetic):
  """Dimension arithmetic as StableHLO ops on scalars of the dimension variables' type."""

  def __init__(self):
    self.aval = dim_var_aval()

  def constant(self, k: int) -> ir.Value:
    return ir_constant(np.asarray(k, self.aval.dtype))

  def add(self, x: ir.Value, y: ir.Value) -> ir.Value:
    return hlo.add(x, y)

  def mul(self, x: ir.Value, y: ir.Value) -> ir.Value:
    return hlo.multiply(x, y)

  def _rounds_up(self, r: ir.Value, y: ir.Value) -> ir.Value:
    """Whether truncated division rounded up: a non-zero remainder of the other sign than y."""
    zero = self.constant(0)
    nonzero = _compare(r, zero, "NE")
    signs = hlo.compare(_compare(r, zero, "LT"), _compare(y, zero, "LT"),
                        hlo.ComparisonDirectionAttr.get("NE"))
    return hlo.and_(nonzero, signs)

  def floordiv(self, x: ir.Value, y: ir.Value) -> ir.Value:
    q = hlo.divide(x, y)
    return hlo.select(self._rounds_up(hlo.remainder(x, y), y),
                      hlo.subtract(q, self.constant(1)), q)

  def mod(self, x: ir.Value, y: ir.Value) -> ir.Value:
    r = hlo.remainder(x, y)
    return hlo.select(self._rounds_up(r, y), hlo.add(r, y), r)

  def max(self, x: ir.Value, y: ir.Value) -> ir.Value:
    return hlo.maximum(x, y)

  def min(self, x: ir.Value, y: ir.Value) -> ir.Value:
    return hlo.minimum(x, y)

  def ge(self, x: ir.Value, y: ir.Value) -> ir.Value:
    return _compare(x, y, "GE")

  def eq(self, x: ir.Value, y: ir.Value) -> ir.Value:
    return _compare(x, y, "EQ")


def _compare(x: ir.Value, y: ir.Value, direction: str) -> ir.Value:
  return hlo.compare(x, y, hlo.ComparisonDirectionAttr.get(direction),
                     compare_type=hlo.ComparisonTypeAttr.get("SIGNED"))


def eval_dim(ctx: LoweringRuleContext, d: DimSize) -> ir.Value:
  """The size `d` as a scalar of the dimension variables' type (a constant for an int)."""
  module_ctx = ctx.module_context
  return evaluate(d, dict(zip(module_ctx.dim_vars, module_ctx.dim_var_values)), IrDimArithmetic())


def dim_value(ctx: LoweringRuleContext, d: DimSize, dtype: np.dtype) -> ir.Value:
  """The size `d` as a scalar of `dtype` (a constant for an int)."""
  if not is_symbolic_dim(d):
    return ir_constant(np.asarray(d, dtype))
  value = eval_dim(ctx, d)
  want = shaped_ir_type((), np.dtype(dtype))
  return value if value.type == want else hlo.convert(want, value)


def shape_tensor(ctx: LoweringRuleContext, sizes: Sequence[Any]) -> ir.Value:
  """A 1-d tensor of `sizes` (ints, symbolic dimensions or scalar ir.Values of the dimension
  type): the shape operand of the dynamic ops."""
  aval = dim_var_aval()
  one = shaped_ir_type((1,), aval.dtype)
  pieces: list[Any] = []
  for d in sizes:
    if isinstance(d, ir.Value) or is_symbolic_dim(d):
      value = d if isinstance(d, ir.Value) else eval_dim(ctx, d)
      pieces.append(hlo.reshape(one, value))
    elif pieces and isinstance(pieces[-1], list):
      pieces[-1].append(d)
    else:
      pieces.append([d])
  pieces = [ir_constant(np.asarray(p, aval.dtype)) if isinstance(p, list) else p
            for p in pieces]
  if not pieces:
    return ir_constant(np.zeros((0,), aval.dtype))
  return pieces[0] if len(pieces) == 1 else hlo.concatenate(pieces, 0)


def result_shapes(ctx: LoweringRuleContext, avals: Sequence[core.ShapedArray]
                  ) -> list[ir.Value] | None:
  """The shape operands of a custom call whose results are `avals` (`ffi.custom_call`'s
  `result_shapes`): None where every shape is known, else one shape tensor per result."""
  if all(is_constant_shape(a.shape) for a in avals):
    return None
  return [shape_tensor(ctx, a.shape) for a in avals]


def broadcast_in_dim(ctx: LoweringRuleContext, x: ir.Value, shape: Sequence[DimSize],
                     dtype: np.dtype, dims: Sequence[int]) -> ir.Value:
  """`x` broadcast to `shape`, its axis i going to dims[i]."""
  if is_constant_shape(shape):
    return broadcast_to(x, dims, shape, dtype)
  return hlo.dynamic_broadcast_in_dim(shaped_ir_type(tuple(shape), dtype), x,
                                      shape_tensor(ctx, shape), list(dims))


def full(ctx: LoweringRuleContext, value: Any, shape: Sequence[DimSize], dtype: np.dtype
         ) -> ir.Value:
  """An array of `shape` filled with the scalar `value`."""
  if is_constant_shape(shape):
    return ir_constant(value, shape, dtype)
  return broadcast_in_dim(ctx, ir_constant(value, dtype=dtype), shape, dtype, ())


def broadcast_constant(ctx: LoweringRuleContext, value: np.ndarray, shape: Sequence[DimSize]
                       ) -> ir.Value:
  """The constant `value` broadcast to `shape` (numpy's rule: along the trailing axes)."""
  if is_constant_shape(shape):
    return ir_constant(np.broadcast_to(value, tuple(shape)))
  return broadcast_in_dim(ctx, ir_constant(value), shape, value.dtype,
                          range(len(shape) - value.ndim, len(shape)))


def eye(ctx: LoweringRuleContext, shape: Sequence[DimSize], dtype: np.dtype) -> ir.Value:
  """Identity matrices of `shape` (..., n, n)."""
  if is_constant_shape(shape):
    return ir_constant(np.broadcast_to(np.eye(shape[-1], dtype=dtype), tuple(shape)))
  rows, cols = (iota(ctx, shape, np.dtype(np.int32), d) for d in (len(shape) - 2, len(shape) - 1))
  return hlo.convert(shaped_ir_type(tuple(shape), dtype), _compare(rows, cols, "EQ"))


def reshape(ctx: LoweringRuleContext, x: ir.Value, aval: core.ShapedArray) -> ir.Value:
  """`x` reshaped to the shape of `aval`."""
  if is_constant_shape(aval.shape):
    return hlo.reshape(aval_to_ir_type(aval), x)
  return hlo.dynamic_reshape(aval_to_ir_type(aval), x, shape_tensor(ctx, aval.shape))


def iota(ctx: LoweringRuleContext, shape: Sequence[DimSize], dtype: np.dtype, dimension: int
         ) -> ir.Value:
  """The indices along `dimension` of an array of `shape`."""
  out_type = shaped_ir_type(tuple(shape), dtype)
  if is_constant_shape(shape):
    return hlo.iota(out_type, dimension)
  return hlo.dynamic_iota(out_type, shape_tensor(ctx, shape), dimension)


def slice_op(ctx: LoweringRuleContext, x: ir.Value, aval_out: core.ShapedArray,
          start: Sequence[DimSize], limit: Sequence[DimSize], strides: Sequence[int]
          ) -> ir.Value:
  """The strided slice `x[start:limit:strides]`."""
  if is_constant_shape((*start, *limit)):
    return hlo.slice(x, list(start), list(limit), list(strides))
  return hlo.real_dynamic_slice(aval_to_ir_type(aval_out), x, shape_tensor(ctx, start),
                                shape_tensor(ctx, limit), shape_tensor(ctx, strides))


def dynamic_slice(ctx: LoweringRuleContext, x: ir.Value, x_shape: Sequence[DimSize],
                  starts: Sequence[ir.Value], aval_out: core.ShapedArray) -> ir.Value:
  """The slice of `aval_out`'s shape at `starts`, each clamped so that it fits in `x` (the
  semantics of `stablehlo.dynamic_slice`; with symbolic sizes, a `real_dynamic_slice` of
  clamped starts, as JAX lowers it)."""
  sizes = aval_out.shape
  if is_constant_shape(sizes):
    return hlo.dynamic_slice(x, list(starts), list(sizes))
  index_type = aval_to_ir_type(dim_var_aval())
  starts = [s if s.type == index_type else hlo.convert(index_type, s) for s in starts]
  sizes_t = shape_tensor(ctx, sizes)
  high = hlo.subtract(shape_tensor(ctx, x_shape), sizes_t)
  start = hlo.clamp(shape_tensor(ctx, [0] * len(sizes)), shape_tensor(ctx, starts), high)
  return hlo.real_dynamic_slice(aval_to_ir_type(aval_out), x, start, hlo.add(start, sizes_t),
                                shape_tensor(ctx, [1] * len(sizes)))


def pad(ctx: LoweringRuleContext, x: ir.Value, padding_value: ir.Value,
        aval_out: core.ShapedArray, low: Sequence[DimSize], high: Sequence[DimSize],
        interior: Sequence[DimSize]) -> ir.Value:
  """`x` padded by `low`, `high` and `interior` elements of `padding_value` on each axis."""
  if is_constant_shape((*low, *high, *interior)):
    return hlo.pad(x, padding_value, list(low), list(high), list(interior))
  return hlo.dynamic_pad(aval_to_ir_type(aval_out), x, padding_value, shape_tensor(ctx, low),
                         shape_tensor(ctx, high), shape_tensor(ctx, interior))


def gather(ctx: LoweringRuleContext, operand: ir.Value, indices: ir.Value,
           dimension_numbers: ir.Attribute, slice_sizes: Sequence[DimSize],
           indices_are_sorted: bool, aval_out: core.ShapedArray) -> ir.Value:
  """`stablehlo.gather` of windows of `slice_sizes` (`dynamic_gather` where one is symbolic)."""
  out_type = aval_to_ir_type(aval_out)
  if is_constant_shape(slice_sizes):
    return hlo.GatherOp(operand, indices, dimension_numbers, list(slice_sizes),
                        indices_are_sorted=indices_are_sorted, results=[out_type]).result
  return hlo.DynamicGatherOp(operand, indices, shape_tensor(ctx, slice_sizes),
                             dimension_numbers, indices_are_sorted=indices_are_sorted,
                             results=[out_type]).result


def reduce_window(ctx: LoweringRuleContext, operands: Sequence[ir.Value],
                  init_values: Sequence[ir.Value], out_avals: Sequence[core.ShapedArray],
                  window: Sequence[DimSize], strides: Sequence[int],
                  padding: Sequence[tuple[DimSize, DimSize]], base_dilation: Sequence[int],
                  window_dilation: Sequence[int],
                  reducer: Callable[..., Sequence[ir.Value]]) -> list[ir.Value]:
  """`stablehlo.reduce_window` of `operands`, scalars combined by `reducer` (accumulators...,
  values...). With a symbolic window or padding, JAX's `stablehlo.dynamic_reduce_window` custom
  call of a reducer function (which the refinement of shapes makes a `reduce_window`)."""
  out_types = [aval_to_ir_type(a) for a in out_avals]
  scalar_types = [ir.RankedTensorType.get([], ir.RankedTensorType(v.type).element_type)
                  for v in init_values]
  if is_constant_shape((*window, *(p for pair in padding for p in pair))):
    op = hlo.ReduceWindowOp(
        out_types, list(operands), list(init_values), list(window),
        window_strides=list(strides), base_dilations=list(base_dilation),
        window_dilations=list(window_dilation),
        padding=ir.DenseIntElementsAttr.get(np.asarray(padding, np.int64).reshape(-1, 2)))
    block = op.regions[0].blocks.append(*scalar_types, *scalar_types)
    with ir.InsertionPoint(block):
      hlo.return_(list(reducer(*block.arguments)))
    return list(op.results)
  module_ctx = ctx.module_context
  with ir.InsertionPoint.at_block_begin(module_ctx.module.body), ir.Location.unknown():
    fn = func.FuncOp(module_ctx.unique_name("reduce_window_reducer"),
                     ir.FunctionType.get(scalar_types * 2, scalar_types))
    fn.sym_visibility = ir.StringAttr.get("private")
  module_ctx.symbol_table.insert(fn)
  block = fn.add_entry_block()
  with ir.InsertionPoint(block):
    func.ReturnOp(list(reducer(*block.arguments)))
  pairs = hlo.concatenate([hlo.reshape(shaped_ir_type((1, 2), dim_var_aval().dtype),
                                       shape_tensor(ctx, pair)) for pair in padding], 0)
  op = hlo.CustomCallOp(
      out_types, [*operands, *init_values, *(shape_tensor(ctx, s) for s in (
          window, strides, base_dilation, window_dilation)), pairs],
      "stablehlo.dynamic_reduce_window", api_version=ir.IntegerAttr.get(
          ir.IntegerType.get_signless(32), 1),
      called_computations=ir.ArrayAttr.get([ir.FlatSymbolRefAttr.get(fn.name.value)]))
  return list(op.results)
