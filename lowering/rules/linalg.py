"""Lowering rules of linear algebra. On the CPU, as JAX: LAPACK through jaxlib's typed-FFI targets
(`lapack_spotrf_ffi`, `lapack_strsm_ffi`, ...), registered with XLA once, on first use, and called
on column-major matrices. Elsewhere StableHLO's own `cholesky` and `triangular_solve` ops."""
from __future__ import annotations

import functools
from typing import Any, Sequence

import numpy as np

from jaxlib import lapack, xla_client
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import chlo
from jaxlib.mlir.dialects import stablehlo as hlo

from stablejax import core
from stablejax.lax import linalg
from stablejax.lowering.context import aval_to_ir_type, broadcast_to, ir_constant
from stablejax.lowering.ffi import custom_call, row_major
from stablejax.lowering.module import LoweringRuleContext
from stablejax.lowering.registry import register_lowering

# LAPACK's character arguments, passed to the FFI targets as ui8 attributes.
_LOWER, _UPPER, _LEFT, _RIGHT = (np.uint8(ord(c)) for c in "LULR")
_NO_TRANSPOSE, _TRANSPOSE, _ADJOINT = (np.uint8(ord(c)) for c in "NTC")
_UNIT, _NON_UNIT = np.uint8(ord("U")), np.uint8(ord("N"))
_LAPACK_DTYPES = {np.dtype(t) for t in (np.float32, np.float64, np.complex64, np.complex128)}


@functools.cache
def _register_lapack_targets() -> None:
  """Register every LAPACK target jaxlib ships with XLA (once per process)."""
  for platform, targets in lapack.registrations().items():
    for name, capsule, api_version in targets:
      xla_client.register_custom_call_target(name, capsule, platform, api_version=api_version)


def _lapack_target(base: str, dtype: np.dtype) -> str:
  """The registered target of LAPACK routine `base` for `dtype`, e.g. potrf_ffi, float32 ->
  lapack_spotrf_ffi."""
  _register_lapack_targets()
  return lapack.prepare_lapack_call(base, np.dtype(dtype))


def _column_major(ndim: int) -> tuple[int, ...]:
  """The minor-to-major layout of a batch of Fortran-ordered matrices."""
  return (ndim - 2, ndim - 1, *range(ndim - 3, -1, -1))


def _lapack_call(target: str, operands: Sequence[ir.Value], avals_in: Sequence[core.ShapedArray],
                 avals_out: Sequence[core.ShapedArray], aliases: dict[int, int],
                 **attributes: Any) -> list[ir.Value]:
  """A LAPACK FFI call as JAX emits it: the matrices column-major, other buffers row-major."""
  ndim = max(a.ndim for a in avals_in)
  def layout(aval):
    return _column_major(aval.ndim) if aval.ndim == ndim else row_major(aval.ndim)
  return custom_call(target, [aval_to_ir_type(a) for a in avals_out], operands,
                     backend_config=attributes,
                     operand_layouts=[layout(a) for a in avals_in],
                     result_layouts=[layout(a) for a in avals_out],
                     operand_output_aliases=aliases,
                     frontend_attributes={"num_batch_dims": str(ndim - 2)})


def _nan_unless_ok(x: ir.Value, aval: core.ShapedArray, info: ir.Value) -> ir.Value:
  """Each matrix of `x`, or NaNs where LAPACK's `info` (one per matrix) is not 0."""
  batch = aval.shape[:-2]
  ok = hlo.compare(info, ir_constant(0, batch, np.int32), hlo.ComparisonDirectionAttr.get("EQ"),
                   compare_type=hlo.ComparisonTypeAttr.get("SIGNED"))
  ok = broadcast_to(ok, range(len(batch)), (*batch, 1, 1), np.bool_)
  ok = broadcast_to(ok, range(aval.ndim), aval.shape, np.bool_)
  return hlo.select(ok, x, ir_constant(np.nan, aval.shape, aval.dtype))


# ----------------------------------------------------------------------------------------------
# cholesky

def _cholesky(ctx: LoweringRuleContext, x: ir.Value) -> list[ir.Value]:
  return [hlo.cholesky(x, lower=ir.BoolAttr.get(True))]


def _cholesky_cpu(ctx: LoweringRuleContext, x: ir.Value) -> list[ir.Value]:
  aval, = ctx.avals_in
  info_aval = core.ShapedArray(aval.shape[:-2], np.int32)
  factor, info = _lapack_call(_lapack_target("potrf_ffi", aval.dtype), [x], [aval],
                              [aval, info_aval], {0: 0}, uplo=_LOWER)
  return [_nan_unless_ok(factor, aval, info)]


register_lowering(linalg.cholesky_p, _cholesky)
register_lowering(linalg.cholesky_p, _cholesky_cpu, platform="cpu")


# ----------------------------------------------------------------------------------------------
# triangular_solve

def _triangular_solve(ctx: LoweringRuleContext, a: ir.Value, b: ir.Value, *, left_side, lower,
                      transpose_a, conjugate_a, unit_diagonal) -> list[ir.Value]:
  if conjugate_a and not transpose_a:
    a = chlo.conj(a)
  transpose = ("ADJOINT" if conjugate_a else "TRANSPOSE") if transpose_a else "NO_TRANSPOSE"
  return [hlo.triangular_solve(a, b, ir.BoolAttr.get(left_side), ir.BoolAttr.get(lower),
                               ir.BoolAttr.get(unit_diagonal), hlo.TransposeAttr.get(transpose))]


def _triangular_solve_cpu(ctx: LoweringRuleContext, a: ir.Value, b: ir.Value, *, left_side,
                          lower, transpose_a, conjugate_a, unit_diagonal) -> list[ir.Value]:
  a_aval, b_aval = ctx.avals_in
  if a_aval.dtype not in _LAPACK_DTYPES:
    return _triangular_solve(ctx, a, b, left_side=left_side, lower=lower,
                             transpose_a=transpose_a, conjugate_a=conjugate_a,
                             unit_diagonal=unit_diagonal)
  if conjugate_a and not transpose_a:
    a, conjugate_a = chlo.conj(a), False
  trans = (_ADJOINT if conjugate_a else _TRANSPOSE) if transpose_a else _NO_TRANSPOSE
  return _lapack_call(_lapack_target("trsm_ffi", a_aval.dtype), [a, b], [a_aval, b_aval],
                      [b_aval], {1: 0}, side=_LEFT if left_side else _RIGHT,
                      uplo=_LOWER if lower else _UPPER, trans_x=trans,
                      diag=_UNIT if unit_diagonal else _NON_UNIT)


register_lowering(linalg.triangular_solve_p, _triangular_solve)
register_lowering(linalg.triangular_solve_p, _triangular_solve_cpu, platform="cpu")
