"""Modules with symbolic shapes, as JAX's export makes them: the exported `@main` that computes the
dimension variables from its arguments' sizes (`stablehlo.get_dimension_size`), checks that the
sizes fit the symbolic shapes and the scope's constraints with `@shape_assertion` custom calls,
and calls the lowered function (renamed `_wrapped_jax_export_main`); the mark JAX puts on such a
module (`jax.uses_shape_polymorphism`); and, at compile time, the refinement of its shapes to
static ones for the arguments' sizes (jaxlib's `refine_polymorphic_shapes`, which also checks
the assertions)."""
from __future__ import annotations

import io
from typing import Sequence

from jaxlib import _jax
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import func
from jaxlib.mlir.dialects import stablehlo as hlo

from stablejax import core
from stablejax.lowering.context import aval_to_ir_type, dim_var_aval, make_ir_context
from stablejax.lowering.module import verify_module
from stablejax.lowering.shapes import IrDimArithmetic
from stablejax.shape_poly import all_dim_vars, is_symbolic_dim, solve_dim_vars

POLYMORPHIC = "jax.uses_shape_polymorphism"  # the module attribute JAX's export sets
WRAPPED_MAIN = "_wrapped_jax_export_main"


def mark_polymorphic(module: ir.Module) -> None:
  """Mark `module` as using symbolic shapes (so that compiling it refines them first)."""
  with module.context:
    module.operation.attributes[POLYMORPHIC] = ir.BoolAttr.get(True)


def is_polymorphic(module: ir.Module) -> bool:
  """Whether `module` has symbolic shapes to refine before it compiles: it is marked, or its
  `@main` takes arrays of dynamic shapes (`jit(f).lower` of symbolic shapes)."""
  if POLYMORPHIC in module.operation.attributes:
    return True
  with module.context:
    symbols = ir.SymbolTable(module.operation)
    if "main" not in symbols:
      return False
    main = symbols["main"]
    return any(isinstance(t, ir.RankedTensorType) and not t.has_static_shape
               for t in main.type.inputs)


def export_main(module: ir.Module, in_avals: Sequence[core.ShapedArray],
                arg_names: Sequence[str], multi_platform: bool) -> None:
  """Make the lowered `module`, whose `@main` takes (the platform index and) the dimension
  variables before the arrays, one whose `@main` takes (the platform index and) the arrays:
  the dimension variables computed from their sizes and checked (`arg_names` name the
  arguments in the assertions' messages), as JAX's export does; marked polymorphic."""
  shapes = [a.shape for a in in_avals]
  if not all_dim_vars(shapes):
    return
  with make_ir_context(), ir.Location.unknown():
    symbols = ir.SymbolTable(module.operation)
    inner = symbols["main"]
    symbols.set_symbol_name(inner.operation, WRAPPED_MAIN)
    inner.sym_visibility = ir.StringAttr.get("private")
    n_index = int(multi_platform)
    inputs = list(inner.type.inputs)
    outer_inputs = inputs[:n_index] + [aval_to_ir_type(a) for a in in_avals]
    main = func.FuncOp("main", ir.FunctionType.get(outer_inputs, list(inner.type.results)),
                       ip=ir.InsertionPoint.at_block_begin(module.body))
    main.sym_visibility = ir.StringAttr.get("public")
    if "res_attrs" in inner.attributes:
      main.result_attrs = inner.result_attrs
    if n_index:  # the platform index keeps its name
      main.arg_attrs = ir.ArrayAttr.get([inner.arg_attrs[0]] + [ir.DictAttr.get({})] *
                                        len(in_avals))
    block = main.add_entry_block()
    with ir.InsertionPoint(block):
      args = list(block.arguments)
      dims = _dimension_variables(args[n_index:], shapes, arg_names)
      operands = args[:n_index] + [dims[n] for n in all_dim_vars(shapes)] + args[n_index:]
      call = func.CallOp(list(inner.type.results), ir.FlatSymbolRefAttr.get(WRAPPED_MAIN),
                         operands)
      func.ReturnOp(call.results)
    mark_polymorphic(module)
    verify_module(module)


def _dimension_variables(args: Sequence[ir.Value], shapes: Sequence[Sequence],
                         arg_names: Sequence[str]) -> dict[str, ir.Value]:
  """The values of the dimension variables, solved from the arguments' sizes, after the
  assertions that the sizes fit."""
  dim_type = aval_to_ir_type(dim_var_aval())
  sizes = []
  for x, shape in zip(args, shapes):
    sizes.append([])
    for axis, d in enumerate(shape):  # (only symbolic dimensions are read)
      size = hlo.get_dimension_size(x, axis) if is_symbolic_dim(d) else None
      sizes[-1].append(size if size is None or size.type == dim_type else
                       hlo.convert(dim_type, size))
  env, assertions = solve_dim_vars(shapes, arg_names, sizes, IrDimArithmetic())
  for assertion in assertions:
    op = hlo.custom_call([], [assertion.holds, *assertion.operands], "shape_assertion",
                         has_side_effect=True,
                         api_version=ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 2))
    op = getattr(op, "operation", op)
    op.attributes["error_message"] = ir.StringAttr.get(assertion.message)
  return env


def refine_shapes(module: ir.Module) -> ir.Module:
  """The module with its shapes refined to the static shapes of `@main`'s arguments, its
  shape assertions checked (a ValueError with the first that fails, as JAX's)."""
  data = io.BytesIO()
  module.operation.write_bytecode(file=data)
  try:
    refined = _jax.mlir.refine_polymorphic_shapes(
        data.getvalue(), enable_shape_assertions=True, validate_static_shapes=True)
  except Exception as e:  # noqa: BLE001  (jaxlib raises its own error types)
    raise ValueError(f"Error refining shapes: {e}") from None
  with make_ir_context():
    return ir.Module.parse(refined)
