"""`stablehlo.custom_call`, built as JAX builds it for the typed XLA FFI."""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from stablejax.lowering.context import dense_attr, dtype_to_ir_type

TYPED_FFI_API_VERSION = 4


def ir_attribute(value: Any) -> ir.Attribute:
  """An MLIR attribute for a backend-config value: Python and numpy scalars, strings, numpy
  arrays (dense elements) and attributes as they are."""
  if isinstance(value, ir.Attribute):
    return value
  if isinstance(value, str):
    return ir.StringAttr.get(value)
  if isinstance(value, (bool, np.bool_)):
    return ir.BoolAttr.get(bool(value))
  if isinstance(value, int):
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), value)
  if isinstance(value, float):
    return ir.FloatAttr.get(ir.F64Type.get(), value)
  if isinstance(value, np.generic) and value.dtype.kind in "iu":
    return ir.IntegerAttr.get(dtype_to_ir_type(value.dtype), int(value))
  if isinstance(value, np.generic) and value.dtype.kind == "f":
    return ir.FloatAttr.get(dtype_to_ir_type(value.dtype), float(value))
  if isinstance(value, np.ndarray):
    return dense_attr(value)
  raise TypeError(f"cannot make an MLIR attribute of {value!r} ({type(value).__name__})")


def _layouts(layouts: Sequence[Sequence[int]]) -> ir.ArrayAttr:
  index = ir.IndexType.get()
  return ir.ArrayAttr.get([
      ir.DenseIntElementsAttr.get(np.asarray(layout, np.int64), type=index)
      for layout in layouts])


def row_major(ndim: int) -> tuple[int, ...]:
  """The minor-to-major layout of a row-major (C-ordered) array of rank `ndim`."""
  return tuple(range(ndim - 1, -1, -1))


def _row_major(types: Sequence[ir.Type]) -> list[tuple[int, ...]]:
  return [row_major(ir.RankedTensorType(t).rank) for t in types]


def _is_typed_ffi(target: str, api_version: int, backend_config: Any) -> bool:
  """Whether `api_version` is the typed FFI's, checking that `backend_config` fits it."""
  typed_ffi = api_version >= TYPED_FFI_API_VERSION
  if typed_ffi and isinstance(backend_config, (str, bytes)):
    raise TypeError(f"custom_call @{target}: the typed FFI (api_version {api_version}) takes a "
                    "dictionary backend_config, not a string")
  if not typed_ffi and isinstance(backend_config, Mapping):
    raise TypeError(f"custom_call @{target}: a dictionary backend_config needs the typed FFI "
                    f"(api_version {TYPED_FFI_API_VERSION}), got api_version {api_version}")
  return typed_ffi


def _add_shape_operands(attributes: dict[str, ir.Attribute], operands: list[ir.Value],
                        operand_layouts: Sequence[Sequence[int]] | None,
                        result_shapes: Sequence[ir.Value]
                        ) -> tuple[list[ir.Value], Sequence[Sequence[int]] | None]:
  """The operands and layouts with the results' shape tensors appended, named by the
  `indices_of_shape_operands` attribute (as JAX emits them)."""
  attributes["indices_of_shape_operands"] = ir.DenseIntElementsAttr.get(
      np.arange(len(operands), len(operands) + len(result_shapes), dtype=np.int64))
  if operand_layouts is not None:
    operand_layouts = [*operand_layouts, *[(0,)] * len(result_shapes)]
  return [*operands, *result_shapes], operand_layouts


def custom_call(target: str, result_types: Sequence[ir.Type], operands: Sequence[ir.Value],
                backend_config: Mapping[str, Any] | str | None = None,
                has_side_effect: bool = False, api_version: int = TYPED_FFI_API_VERSION,
                operand_layouts: Sequence[Sequence[int]] | None = None,
                result_layouts: Sequence[Sequence[int]] | None = None,
                called_computations: Sequence[str] = (),
                operand_output_aliases: Mapping[int, int] | None = None,
                frontend_attributes: Mapping[str, str] | None = None,
                sharding: ir.Attribute | None = None,
                result_shapes: Sequence[ir.Value] | None = None) -> list[ir.Value]:
  """A `stablehlo.custom_call @target`. With the typed FFI (api_version 4, the default) the
  backend config is a dictionary of attributes, emitted as JAX does: `backend_config = ""` and
  `mhlo.backend_config = {...}`, with row-major layouts unless given. Layouts are minor-to-major
  dimension orders. Older API versions take a string backend config. `operand_output_aliases`
  maps an operand index to the result that may reuse its buffer. `sharding` is the op's
  `sdy.sharding` (in a partitioned module, XLA needs one on a side-effecting op).
  `result_shapes` (`shapes.result_shapes`) size results of symbolic shapes, for the refinement
  of shapes."""
  operands = list(operands)
  result_types = list(result_types)
  typed_ffi = _is_typed_ffi(target, api_version, backend_config)
  if typed_ffi:
    operand_layouts = _row_major([v.type for v in operands]) if operand_layouts is None \
        else operand_layouts
    result_layouts = _row_major(result_types) if result_layouts is None else result_layouts
  attributes = {
      "call_target_name": ir.StringAttr.get(target),
      "has_side_effect": ir.BoolAttr.get(has_side_effect),
      "backend_config": ir.StringAttr.get("" if typed_ffi else backend_config or ""),
      # The typed FFI is selected by the dictionary in `mhlo.backend_config` (JAX writes 1 here).
      "api_version": ir.IntegerAttr.get(ir.IntegerType.get_signless(32),
                                        1 if typed_ffi else api_version),
      "called_computations": ir.ArrayAttr.get(
          [ir.FlatSymbolRefAttr.get(name) for name in called_computations]),
  }
  if result_shapes is not None:
    operands, operand_layouts = _add_shape_operands(attributes, operands, operand_layouts,
                                                    result_shapes)
  if operand_layouts is not None:
    attributes["operand_layouts"] = _layouts(operand_layouts)
  if result_layouts is not None:
    attributes["result_layouts"] = _layouts(result_layouts)
  if operand_output_aliases:
    attributes["output_operand_aliases"] = ir.ArrayAttr.get([
        hlo.OutputOperandAlias.get([result] if len(result_types) > 1 else [], operand, [])
        for operand, result in operand_output_aliases.items()])
  if frontend_attributes:
    attributes["mhlo.frontend_attributes"] = ir.DictAttr.get(
        {k: ir.StringAttr.get(v) for k, v in frontend_attributes.items()})
  if sharding is not None:
    attributes["sdy.sharding"] = sharding
  op = hlo.CustomCallOp.build_generic(results=result_types, operands=operands,
                                      attributes=attributes)
  if typed_ffi:
    op.operation.attributes["mhlo.backend_config"] = ir.DictAttr.get(
        {k: ir_attribute(v) for k, v in (backend_config or {}).items()})
  return list(op.results)
