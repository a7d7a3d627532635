"""The MLIR context (one per thread, reused), IR types of avals, and constants."""
from __future__ import annotations

import threading
from typing import Any, Sequence

import numpy as np

from jaxlib.mlir import ir
from jaxlib.mlir._mlir_libs import _jax_mlir_ext
from jaxlib.mlir.dialects import chlo
from jaxlib.mlir.dialects import sdy
from jaxlib.mlir.dialects import stablehlo as hlo

from stablejax import core, dtypes
from stablejax.shape_poly import is_symbolic_dim
from stablejax.util import bounded

_dtype_to_ir_type_fns: dict[np.dtype, Any] = {
    dtypes.bool_: lambda c: ir.IntegerType.get_signless(1, c),
    dtypes.float0: lambda c: ir.IntegerType.get_signless(1, c),
    dtypes.int8: lambda c: ir.IntegerType.get_signless(8, c),
    dtypes.int16: lambda c: ir.IntegerType.get_signless(16, c),
    dtypes.int32: lambda c: ir.IntegerType.get_signless(32, c),
    dtypes.int64: lambda c: ir.IntegerType.get_signless(64, c),
    dtypes.uint8: lambda c: ir.IntegerType.get_unsigned(8, c),
    dtypes.uint16: lambda c: ir.IntegerType.get_unsigned(16, c),
    dtypes.uint32: lambda c: ir.IntegerType.get_unsigned(32, c),
    dtypes.uint64: lambda c: ir.IntegerType.get_unsigned(64, c),
    dtypes.bfloat16: lambda c: ir.BF16Type.get(c),
    dtypes.float16: lambda c: ir.F16Type.get(c),
    dtypes.float32: lambda c: ir.F32Type.get(c),
    dtypes.float64: lambda c: ir.F64Type.get(c),
    dtypes.complex64: lambda c: ir.ComplexType.get(ir.F32Type.get(c)),
    dtypes.complex128: lambda c: ir.ComplexType.get(ir.F64Type.get(c)),
    dtypes.int4: lambda c: ir.IntegerType.get_signless(4, c),
    dtypes.int2: lambda c: ir.IntegerType.get_signless(2, c),
    dtypes.int1: lambda c: ir.IntegerType.get_signless(1, c),
    dtypes.uint4: lambda c: ir.IntegerType.get_unsigned(4, c),
    dtypes.uint2: lambda c: ir.IntegerType.get_unsigned(2, c),
    dtypes.uint1: lambda c: ir.IntegerType.get_unsigned(1, c),
    dtypes.float8_e4m3fn: ir.Float8E4M3FNType.get,
    dtypes.float8_e5m2: ir.Float8E5M2Type.get,
    dtypes.float8_e4m3b11fnuz: ir.Float8E4M3B11FNUZType.get,
    dtypes.float8_e4m3fnuz: ir.Float8E4M3FNUZType.get,
    dtypes.float8_e5m2fnuz: ir.Float8E5M2FNUZType.get,
    dtypes.float8_e3m4: ir.Float8E3M4Type.get,
    dtypes.float8_e4m3: ir.Float8E4M3Type.get,
    dtypes.float8_e8m0fnu: ir.Float8E8M0FNUType.get,
    dtypes.float4_e2m1fn: ir.Float4E2M1FNType.get,
    dtypes.float6_e2m3fn: ir.Float6E2M3FNType.get,
    dtypes.float6_e3m2fn: ir.Float6E3M2FNType.get,
}


# The scalar types whose equal values have equal bits once nonzero and not NaN: `literal_constant`
_BY_VALUE = frozenset({bool, int, float} | {d.type for d in _dtype_to_ir_type_fns
                                            if dtypes.kind(d) in "biuf"})


def _make_context() -> ir.Context:
  """A context with the upstream dialects, StableHLO and CHLO registered and loaded; without
  them modules print in generic form and fail verification with "unregistered dialect"."""
  ctx = ir.Context()
  registry = ir.DialectRegistry()
  _jax_mlir_ext.register_dialects(registry)
  ctx.append_dialect_registry(registry)
  ctx.load_all_available_dialects()
  hlo.register_dialect(ctx)
  chlo.register_dialect(ctx)
  sdy.register_dialect(ctx)  # Shardy: the sharding annotations of multi-device programs
  return ctx


class _ThreadState(threading.local):
  """This thread's MLIR context and the IR types already built in it."""

  def __init__(self):
    self.context: ir.Context | None = None
    self.element_types: dict[np.dtype, ir.Type] = {}
    self.tensor_types: dict[tuple, ir.RankedTensorType] = {}
    # (dtype, bytes) -> the attribute of that scalar and its type
    self.scalar_attrs: dict[tuple, tuple[ir.DenseElementsAttr, ir.Type]] = {}
    # (dtype, type, value) -> the same, for literals found by value: `literal_constant`
    self.literal_attrs: dict[tuple, tuple[ir.DenseElementsAttr, ir.Type]] = {}
    self.dims_attrs: dict[tuple, ir.DenseI64ArrayAttr] = {}  # broadcast dimensions


_state = _ThreadState()


def make_ir_context() -> ir.Context:
  """This thread's MLIR context, created on first use and reused (creating one is slow)."""
  ctx = _state.context
  if ctx is None:
    ctx = _state.context = _make_context()
  return ctx


def dtype_to_ir_type(dtype: np.dtype) -> ir.Type:
  """The MLIR element type of `dtype` (bool is i1, unsigned ints are `ui<n>`)."""
  t = _state.element_types.get(dtype)
  if t is None:
    fn = _dtype_to_ir_type_fns.get(np.dtype(dtype))
    if fn is None:
      raise TypeError(f"dtype {dtype} has no MLIR element type in stablejax")
    t = _state.element_types[dtype] = fn(make_ir_context())
  return t


def aval_to_ir_type(aval: core.ShapedArray) -> ir.RankedTensorType:
  """The ranked tensor type of an aval, e.g. f32[2,3] -> tensor<2x3xf32>."""
  t = _state.tensor_types.get((aval.shape, aval.dtype))
  if t is None:
    physical = core.physical_aval(aval)  # a key array is its uint32[..., 2] data
    t = _state.tensor_types[aval.shape, aval.dtype] = aval_to_ir_type(physical) \
        if physical is not aval else _new_tensor_type(aval.shape, aval.dtype)
  return t


def shaped_ir_type(shape: Sequence[int], dtype: np.dtype) -> ir.RankedTensorType:
  """The ranked tensor type of `shape` and `dtype`."""
  shape = tuple(shape)
  t = _state.tensor_types.get((shape, dtype))
  return _new_tensor_type(shape, np.dtype(dtype)) if t is None else t


def _new_tensor_type(shape: tuple, dtype: np.dtype) -> ir.RankedTensorType:
  """A symbolic dimension is a dynamic one (`tensor<?x4xf32>`), as in JAX."""
  dims = [ir.ShapedType.get_dynamic_size() if is_symbolic_dim(d) else d for d in shape]
  t = _state.tensor_types[shape, dtype] = ir.RankedTensorType.get(
      dims, dtype_to_ir_type(dtype), loc=ir.Location.unknown(make_ir_context()))
  return t


def dim_var_aval() -> core.ShapedArray:
  """The type of a dimension variable's value: a scalar of the default int type (JAX's)."""
  return core.ShapedArray((), dtypes.default_int())


def make_op(name: str, result_types: Sequence[ir.Type], operands: Sequence[ir.Value],
            attributes: dict[str, ir.Attribute] | None = None) -> ir.Operation:
  """The operation `name` (e.g. "stablehlo.add") at the current insertion point and location,
  built directly: the generated builders (`hlo.AddOp`) cost twice as much, which matters in
  the rules every program uses."""
  return ir.Operation.create(name, results=result_types, operands=operands,
                             attributes=attributes)


_ATTRS_LIMIT = 4096  # (a cache of attributes keeps at most this many)


def dense_attr(x: np.ndarray) -> ir.DenseElementsAttr:
  """A DenseElementsAttr holding numpy array `x` (any dtype stablejax supports); those of
  scalars (every literal of a program) are built once per value."""
  return _scalar_attr(x)[0] if x.ndim == 0 else _dense_attr(x)


def _scalar_attr(x: np.ndarray) -> tuple[ir.DenseElementsAttr, ir.Type]:
  """The attribute of rank-0 `x` and its type, built once per value."""
  key = (x.dtype, x.tobytes())
  entry = _state.scalar_attrs.get(key)
  if entry is None:
    attr = _dense_attr(x)
    entry = bounded(_state.scalar_attrs, _ATTRS_LIMIT)[key] = (attr, attr.type)
  return entry


def _dense_attr(x: np.ndarray) -> ir.DenseElementsAttr:
  data = x if type(x) is np.ndarray and x.flags.c_contiguous else np.ascontiguousarray(x)
  # (ascontiguousarray makes rank 0 rank 1, and a numpy scalar an array)
  return ir.DenseElementsAttr.get(data, type=dtype_to_ir_type(x.dtype), shape=x.shape)


def _as_array(value: Any, dtype: Any) -> np.ndarray:
  if (type(value) is np.ndarray or isinstance(value, np.generic)) and value.dtype is dtype \
      and dtype.kind != "V":
    return value  # (a literal of a jaxpr: a numpy scalar of its type; float0 is kind "V")
  if isinstance(dtype, dtypes.ExtendedDType):  # a key array: its data
    return np.asarray(value, dtype.physical_dtype)
  dtype = dtypes.dtype_of(value) if dtype is None else np.dtype(dtype)
  if dtype == dtypes.float0:  # zero-width tangents are false booleans in HLO (as in JAX)
    return np.zeros(np.shape(value), np.bool_)
  return np.asarray(value, dtype)


def ir_constant(value: Any, shape: Sequence[int] | None = None, dtype: Any = None) -> ir.Value:
  """A `stablehlo.constant` holding `value`. A scalar with a `shape` becomes a scalar constant
  and a `broadcast_in_dim`; so does an array with zero strides (from `np.broadcast_to`)."""
  x = _as_array(value, dtype)
  if shape is not None and tuple(shape) != x.shape:
    if x.ndim:
      raise ValueError(f"ir_constant: cannot broadcast a constant of shape {x.shape} to "
                       f"shape {tuple(shape)}; only scalars broadcast")
    return broadcast_to(_constant(x), (), tuple(shape), x.dtype)
  if x.size > 1 and 0 in x.strides:
    kept = tuple(i for i, s in enumerate(x.strides) if s != 0)
    small = np.asarray(x[tuple(slice(None) if i in kept else 0 for i in range(x.ndim))])
    return broadcast_to(_constant(small), kept, x.shape, x.dtype)
  return _constant(x)


def literal_constant(value: Any, dtype: np.dtype) -> ir.Value:
  """`ir_constant(value, dtype=dtype)` of a jaxpr literal (a scalar), its attribute found by
  the value itself where equal values have equal bits (not zero floats, -0.0 == 0.0, NaNs or
  complex numbers): a program's literals are mostly a few values, each seen again and again."""
  if type(value) in _BY_VALUE and value and value == value:
    key = (dtype, type(value), value)
    entry = _state.literal_attrs.get(key)
    if entry is None:
      entry = bounded(_state.literal_attrs, _ATTRS_LIMIT)[key] = _scalar_attr(
          _as_array(value, dtype))
    attr, attr_type = entry
    return make_op("stablehlo.constant", [attr_type], [], {"value": attr}).result
  return ir_constant(value, dtype=dtype)


def _constant(x: np.ndarray) -> ir.Value:
  if x.ndim == 0:
    attr, attr_type = _scalar_attr(x)
  else:
    attr = _dense_attr(x)
    attr_type = attr.type
  return make_op("stablehlo.constant", [attr_type], [], {"value": attr}).result


def broadcast_to(value: ir.Value, dims: Sequence[int], shape: Sequence[int], dtype: np.dtype
                 ) -> ir.Value:
  """`stablehlo.broadcast_in_dim` of `value` to `shape`, operand axis i going to dims[i]."""
  return make_op("stablehlo.broadcast_in_dim", [shaped_ir_type(shape, dtype)], [value],
                 {"broadcast_dimensions": _dims_attr(tuple(dims))}).result


def _dims_attr(dims: tuple[int, ...]) -> ir.DenseI64ArrayAttr:
  attr = _state.dims_attrs.get(dims)
  if attr is None:
    attr = bounded(_state.dims_attrs, _ATTRS_LIMIT)[dims] = ir.DenseI64ArrayAttr.get(
        list(dims))
  return attr
