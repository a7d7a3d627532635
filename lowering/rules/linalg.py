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

from stablejax import core, lax
from stablejax.lax import linalg
from stablejax.lowering import shapes
from stablejax.lowering.context import aval_to_ir_type
from stablejax.lowering.ffi import custom_call, row_major
from stablejax.lowering.module import LoweringRuleContext, lower_fun
from stablejax.lowering.registry import register_lowering
from stablejax.shape_poly import max_dim

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


def _lapack_call(ctx: LoweringRuleContext, target: str, operands: Sequence[ir.Value],
                 avals_in: Sequence[core.ShapedArray], avals_out: Sequence[core.ShapedArray],
                 aliases: dict[int, int], **attributes: Any) -> list[ir.Value]:
  """A LAPACK FFI call as JAX emits it: the matrices column-major, other buffers row-major;
  with a symbolic batch, the results' shapes passed as operands (`shapes.result_shapes`) and,
  as JAX, no `num_batch_dims` (the batch is partitioned only where its shape is static)."""
  ndim = max(a.ndim for a in avals_in)
  def layout(aval):
    return _column_major(aval.ndim) if aval.ndim == ndim else row_major(aval.ndim)
  result_shapes = shapes.result_shapes(ctx, avals_out)
  return custom_call(target, [aval_to_ir_type(a) for a in avals_out], operands,
                     backend_config=attributes,
                     operand_layouts=[layout(a) for a in avals_in],
                     result_layouts=[layout(a) for a in avals_out],
                     operand_output_aliases=aliases,
                     frontend_attributes=None if result_shapes else {
                         "num_batch_dims": str(ndim - 2)},
                     result_shapes=result_shapes)


def _info_ok(ctx: LoweringRuleContext, info: ir.Value, batch: Sequence[Any], ok_if: str = "EQ"
             ) -> ir.Value:
  """Where LAPACK's `info` (one per matrix of the `batch`) is 0 (with `ok_if` "GE": where it is
  not negative, a bad argument; getrf's positive info is a singular U)."""
  return hlo.compare(info, shapes.full(ctx, 0, batch, np.int32),
                     hlo.ComparisonDirectionAttr.get(ok_if),
                     compare_type=hlo.ComparisonTypeAttr.get("SIGNED"))


def _nan_unless(ctx: LoweringRuleContext, ok: ir.Value, batch: Sequence[Any], x: ir.Value,
                aval: core.ShapedArray) -> ir.Value:
  """Each matrix (or vector) of `x`, or NaNs where `ok` (one per batch element) is false."""
  ok = shapes.broadcast_in_dim(ctx, ok, (*batch, *[1] * (aval.ndim - len(batch))), np.bool_,
                               range(len(batch)))
  ok = shapes.broadcast_in_dim(ctx, ok, aval.shape, np.bool_, range(aval.ndim))
  nan = complex(np.nan, np.nan) if np.issubdtype(aval.dtype, np.complexfloating) else np.nan
  return hlo.select(ok, x, shapes.full(ctx, nan, aval.shape, aval.dtype))


def _nan_unless_ok(ctx: LoweringRuleContext, x: ir.Value, aval: core.ShapedArray,
                   info: ir.Value, ok_if: str = "EQ") -> ir.Value:
  """Each matrix of `x`, or NaNs where LAPACK's `info` (one per matrix) is not ok."""
  batch = aval.shape[:-2]
  return _nan_unless(ctx, _info_ok(ctx, info, batch, ok_if), batch, x, aval)


_GPU_SOLVER_PREFIX = {"cuda": "cusolver", "rocm": "hipsolver"}


def _solver_target(platform: str, routine: str, dtype: np.dtype) -> str:
  """The registered target of solver `routine` (getrf, geqrf, ...) on `platform`, named as JAX
  names it: lapack_sgetrf_ffi on the CPU, cusolver_getrf_ffi on cuda, hipsolver_... on rocm
  (the GPU ones are registered by the runtime with the GPU client: `pjrt`)."""
  if platform == "cpu":
    return _lapack_target(f"{routine}_ffi", dtype)
  return f"{_GPU_SOLVER_PREFIX[platform]}_{routine}_ffi"


# ----------------------------------------------------------------------------------------------
# cholesky

def _cholesky(ctx: LoweringRuleContext, x: ir.Value) -> list[ir.Value]:
  return [hlo.cholesky(x, lower=ir.BoolAttr.get(True))]


def _cholesky_cpu(ctx: LoweringRuleContext, x: ir.Value) -> list[ir.Value]:
  aval, = ctx.avals_in
  info_aval = core.ShapedArray(aval.shape[:-2], np.int32)
  factor, info = _lapack_call(ctx, _lapack_target("potrf_ffi", aval.dtype), [x], [aval],
                              [aval, info_aval], {0: 0}, uplo=_LOWER)
  return [_nan_unless_ok(ctx, factor, aval, info)]


def _cholesky_gpu(platform: str, ctx: LoweringRuleContext, x: ir.Value) -> list[ir.Value]:
  """cuSOLVER's (hipSOLVER's) potrf, as JAX calls it on GPUs."""
  aval, = ctx.avals_in
  info_aval = core.ShapedArray(aval.shape[:-2], np.int32)
  factor, info = _lapack_call(ctx, _solver_target(platform, "potrf", aval.dtype), [x], [aval],
                              [aval, info_aval], {0: 0}, lower=True)
  return [_nan_unless_ok(ctx, factor, aval, info)]


register_lowering(linalg.cholesky_p, _cholesky)
register_lowering(linalg.cholesky_p, _cholesky_cpu, platform="cpu")
for _platform in ("cuda", "rocm"):
  register_lowering(linalg.cholesky_p, functools.partial(_cholesky_gpu, _platform),
                    platform=_platform)


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
  return _lapack_call(ctx, _lapack_target("trsm_ffi", a_aval.dtype), [a, b], [a_aval, b_aval],
                      [b_aval], {1: 0}, side=_LEFT if left_side else _RIGHT,
                      uplo=_LOWER if lower else _UPPER, trans_x=trans,
                      diag=_UNIT if unit_diagonal else _NON_UNIT)


register_lowering(linalg.triangular_solve_p, _triangular_solve)
register_lowering(linalg.triangular_solve_p, _triangular_solve_cpu, platform="cpu")


# ----------------------------------------------------------------------------------------------
# eigh

def _check_full_subset(name: str, subset_by_index: Any, size: int) -> None:
  if subset_by_index not in (None, (0, size)):
    raise NotImplementedError(f"{name}: subset_by_index not supported on CPU and GPU")


def _nan_unless_ok_all(ctx: LoweringRuleContext, values: Sequence[ir.Value],
                       avals: Sequence[core.ShapedArray], info: ir.Value,
                       batch: Sequence[Any]) -> list[ir.Value]:
  """Each value, NaN in the `batch` elements where `info` is not 0 (one comparison for all)."""
  ok = _info_ok(ctx, info, batch)
  return [_nan_unless(ctx, ok, batch, x, aval) for x, aval in zip(values, avals)]


def _eigh_lowering(ctx: LoweringRuleContext, x: ir.Value, *, lower, sort_eigenvalues,
                   subset_by_index, algorithm, platform: str) -> list[ir.Value]:
  """LAPACK's syevd/heevd on the CPU, cuSOLVER's syevd on CUDA (both always sort), as JAX."""
  aval, = ctx.avals_in
  v_aval, w_aval = ctx.avals_out
  _check_full_subset("eigh", subset_by_index, aval.shape[-1])
  if algorithm == linalg.EighImplementation.QDWH:
    raise NotImplementedError("QDWH implementation is only supported on TPU")
  info_aval = core.ShapedArray(aval.shape[:-2], np.int32)
  if platform == "cpu":
    if algorithm == linalg.EighImplementation.JACOBI:
      raise NotImplementedError("Jacobi implementation is not supported on CPU")
    prefix = "he" if np.issubdtype(aval.dtype, np.complexfloating) else "sy"
    target = _solver_target(platform, f"{prefix}evd", aval.dtype)
    attributes = dict(mode=np.uint8(ord("V")), uplo=_LOWER if lower else _UPPER)
  else:
    target = _solver_target(platform, "syevd", aval.dtype)
    choice = 0 if algorithm is None else 2 if algorithm == linalg.EighImplementation.JACOBI else 1
    attributes = dict(lower=bool(lower), algorithm=np.uint8(choice))
  v, w, info = _lapack_call(ctx, target, [x], [aval], [v_aval, w_aval, info_aval], {0: 0},
                            **attributes)
  return _nan_unless_ok_all(ctx, [v, w], ctx.avals_out, info, aval.shape[:-2])


register_lowering(linalg.eigh_p, functools.partial(_eigh_lowering, platform="cpu"),
                  platform="cpu")
register_lowering(linalg.eigh_p, functools.partial(_eigh_lowering, platform="cuda"),
                  platform="cuda")


# ----------------------------------------------------------------------------------------------
# eig

def _eig_cpu(ctx: LoweringRuleContext, x: ir.Value, *, compute_left_eigenvectors,
             compute_right_eigenvectors, enable_eigvec_derivs, implementation
             ) -> list[ir.Value]:
  """LAPACK's geev, as JAX calls it: real matrices give the eigenvalues' real and imaginary
  parts apart; NaNs where geev fails."""
  if implementation not in (None, linalg.EigImplementation.LAPACK):
    raise ValueError("Only the lapack implementation is supported on CPU.")
  aval, = ctx.avals_in
  batch = aval.shape[:-2]
  real = not np.issubdtype(aval.dtype, np.complexfloating)
  w_aval = core.ShapedArray(aval.shape[:-1], aval.dtype)
  v_aval = core.ShapedArray(aval.shape, ctx.avals_out[0].dtype)
  avals_out = [w_aval] * (2 if real else 1) + [v_aval, v_aval, core.ShapedArray(batch, np.int32)]
  mode = lambda compute: np.uint8(ord("V" if compute else "N"))
  *w, vl, vr, info = _lapack_call(ctx, _lapack_target("geev_ffi", aval.dtype), [x], [aval],
                                  avals_out, {}, compute_left=mode(compute_left_eigenvectors),
                                  compute_right=mode(compute_right_eigenvectors))
  w = hlo.complex(*w) if real else w[0]
  wanted = [w] + [vl] * compute_left_eigenvectors + [vr] * compute_right_eigenvectors
  return _nan_unless_ok_all(ctx, wanted, ctx.avals_out, info, batch)


register_lowering(linalg.eig_p, _eig_cpu, platform="cpu")


# ----------------------------------------------------------------------------------------------
# schur, hessenberg, tridiagonal, tridiagonal_solve: LAPACK on the CPU, as JAX

def _schur_cpu(ctx: LoweringRuleContext, x: ir.Value, *, compute_schur_vectors, sort_eig_vals,
               select_callable) -> list[ir.Value]:
  """gees, without sorting (as JAX)."""
  if sort_eig_vals:
    raise NotImplementedError("The sort feature of LAPACK's gees routine is not implemented.")
  aval, = ctx.avals_in
  info_aval = core.ShapedArray(aval.shape[:-2], np.int32)
  w_aval = core.ShapedArray(aval.shape[:-1], aval.dtype)
  real = not np.issubdtype(aval.dtype, np.complexfloating)
  avals_out = [aval, aval, *[w_aval] * (2 if real else 1), info_aval, info_aval]
  t, z, *_, info = _lapack_call(
      ctx, _lapack_target("gees_ffi", aval.dtype), [x], [aval], avals_out, {0: 0},
      mode=np.uint8(ord("V" if compute_schur_vectors else "N")), sort=np.uint8(ord("N")))
  return _nan_unless_ok_all(ctx, [t, z][:len(ctx.avals_out)], ctx.avals_out, info,
                            aval.shape[:-2])


def _hessenberg_cpu(ctx: LoweringRuleContext, a: ir.Value) -> list[ir.Value]:
  aval, = ctx.avals_in
  n = aval.shape[-1]
  out, taus, info = _lapack_call(
      ctx, _lapack_target("gehrd_ffi", aval.dtype), [a], [aval],
      [*ctx.avals_out, core.ShapedArray(aval.shape[:-2], np.int32)], {0: 0},
      low=np.int32(1), high=np.int32(n))
  return _nan_unless_ok_all(ctx, [out, taus], ctx.avals_out, info, aval.shape[:-2])


def _tridiagonal_cpu(ctx: LoweringRuleContext, a: ir.Value, *, lower) -> list[ir.Value]:
  aval, = ctx.avals_in
  prefix = "he" if np.issubdtype(aval.dtype, np.complexfloating) else "sy"
  *outs, info = _lapack_call(
      ctx, _lapack_target(f"{prefix}trd_ffi", aval.dtype), [a], [aval],
      [*ctx.avals_out, core.ShapedArray(aval.shape[:-2], np.int32)], {0: 0},
      uplo=_LOWER if lower else _UPPER)
  return _nan_unless_ok_all(ctx, outs, ctx.avals_out, info, aval.shape[:-2])


def _tridiagonal_solve_cpu(ctx: LoweringRuleContext, dl: ir.Value, d: ir.Value, du: ir.Value,
                           b: ir.Value, *, perturb_singular) -> list[ir.Value]:
  """gtsv (NaNs where a pivot is zero), or jaxlib's perturbed solver."""
  b_aval = ctx.avals_in[-1]
  if perturb_singular:
    _register_lapack_targets()
    return _lapack_call(ctx, "tridiagonal_solve_perturbed_ffi", [dl, d, du, b], ctx.avals_in,
                        [b_aval], {})
  *_, out, info = _lapack_call(
      ctx, _lapack_target("gtsv_ffi", b_aval.dtype), [dl, d, du, b], ctx.avals_in,
      [*ctx.avals_in, core.ShapedArray(b_aval.shape[:-2], np.int32)],
      {0: 0, 1: 1, 2: 2, 3: 3})
  return [_nan_unless_ok(ctx, out, b_aval, info)]


register_lowering(linalg.schur_p, _schur_cpu, platform="cpu")
register_lowering(linalg.hessenberg_p, _hessenberg_cpu, platform="cpu")
register_lowering(linalg.tridiagonal_p, _tridiagonal_cpu, platform="cpu")
register_lowering(linalg.tridiagonal_solve_p, _tridiagonal_solve_cpu, platform="cpu")


# ----------------------------------------------------------------------------------------------
# ormqr (LAPACK's ormqr/unmqr on the CPU, as JAX) and symmetric_product (lax ops)

def _ormqr_cpu(ctx: LoweringRuleContext, a: ir.Value, taus: ir.Value, c: ir.Value, *, left,
               transpose) -> list[ir.Value]:
  aval = ctx.avals_in[0]
  prefix = "un" if np.issubdtype(aval.dtype, np.complexfloating) else "or"
  return _lapack_call(ctx, _lapack_target(f"{prefix}mqr_ffi", aval.dtype), [a, taus, c],
                      ctx.avals_in, ctx.avals_out, {2: 0}, left=bool(left),
                      transpose=bool(transpose))


register_lowering(linalg.ormqr_p, _ormqr_cpu, platform="cpu")
register_lowering(linalg.symmetric_product_p, lower_fun(linalg.symmetric_product_impl))
register_lowering(linalg.cholesky_update_p, lower_fun(linalg.cholesky_update_impl))


# ----------------------------------------------------------------------------------------------
# svd

def _empty_svd(ctx: LoweringRuleContext, s_aval: core.ShapedArray,
               avals: Sequence[core.ShapedArray], m: int, n: int) -> list[ir.Value]:
  """The SVD of matrices with no rows or no columns, as JAX: no singular values, and identity
  (full_matrices) or zero singular vectors."""
  def vectors(aval):  # (the non-square ones are empty)
    if aval.shape[-1] == aval.shape[-2] == max_dim(m, n):
      return shapes.eye(ctx, aval.shape, aval.dtype)
    return shapes.broadcast_constant(ctx, np.zeros((), aval.dtype), aval.shape)
  return [shapes.broadcast_constant(ctx, np.zeros(s_aval.shape[-1:], s_aval.dtype), s_aval.shape),
          *map(vectors, avals)]


def _svd_cpu(ctx: LoweringRuleContext, x: ir.Value, *, full_matrices, compute_uv,
             subset_by_index, algorithm) -> list[ir.Value]:
  """LAPACK's gesdd (gesvd for SvdAlgorithm.QR), as JAX; u and vh are computed even when only s
  is asked for."""
  aval, = ctx.avals_in
  *batch, m, n = aval.shape
  k = min(m, n)
  _check_full_subset("svd", subset_by_index, k)
  if algorithm in (linalg.SvdAlgorithm.JACOBI, linalg.SvdAlgorithm.POLAR):
    raise NotImplementedError("The SVD Jacobi and Polar algorithms are not implemented on CPU.")
  s_aval = ctx.avals_out[0]
  u_columns, vh_rows = (m, n) if full_matrices else (k, k)
  vector_avals = ctx.avals_out[1:] if compute_uv else [
      core.ShapedArray((*batch, m, u_columns), aval.dtype),
      core.ShapedArray((*batch, vh_rows, n), aval.dtype)]
  if m == 0 or n == 0:
    return _empty_svd(ctx, s_aval, ctx.avals_out[1:], m, n)
  routine = "gesvd" if algorithm == linalg.SvdAlgorithm.QR else "gesdd"
  mode = "A" if full_matrices else "S"
  _, s, u, vh, info = _lapack_call(
      ctx, _solver_target("cpu", routine, aval.dtype), [x], [aval],
      [aval, s_aval, *vector_avals, core.ShapedArray(tuple(batch), np.int32)], {0: 0},
      mode=np.uint8(ord(mode if compute_uv else "N")))
  return _nan_unless_ok_all(ctx, [s, u, vh][:len(ctx.avals_out)], ctx.avals_out, info,
                            batch)


def _svd_cuda(ctx: LoweringRuleContext, x: ir.Value, *, full_matrices, compute_uv,
              subset_by_index, algorithm) -> list[ir.Value]:
  """cuSOLVER as JAX calls it: gesvdj (Jacobi) for matrices up to 1024 x 1024 and for
  SvdAlgorithm.JACOBI, gesvdp for POLAR, gesvd otherwise."""
  aval, = ctx.avals_in
  *_, m, n = aval.shape
  k = min(m, n)
  _check_full_subset("svd", subset_by_index, k)
  if m == 0 or n == 0:
    return _empty_svd(ctx, ctx.avals_out[0], ctx.avals_out[1:], m, n)
  if algorithm == linalg.SvdAlgorithm.DIVIDE_AND_CONQUER:
    raise NotImplementedError(
        "Divide-and-conquer SVD (SvdAlgorithm.DIVIDE_AND_CONQUER) is only supported on AMD "
        "(ROCm) GPUs, not on NVIDIA CUDA.")
  default = algorithm in (None, linalg.SvdAlgorithm.DEFAULT)
  jacobi = algorithm == linalg.SvdAlgorithm.JACOBI or default and m <= 1024 and n <= 1024
  if jacobi or algorithm == linalg.SvdAlgorithm.POLAR:
    return _svd_cuda_jacobi_or_polar(ctx, x, "gesvdj" if jacobi else "gesvdp",
                                     full_matrices=full_matrices, compute_uv=compute_uv)
  return _svd_cuda_gesvd(ctx, x, full_matrices=full_matrices, compute_uv=compute_uv)


def _svd_cuda_jacobi_or_polar(ctx: LoweringRuleContext, x: ir.Value, routine: str, *,
                              full_matrices: bool, compute_uv: bool) -> list[ir.Value]:
  """gesvdj/gesvdp give V (not V^H), always allocated, economical only beyond 32 x 32."""
  aval, = ctx.avals_in
  *batch, m, n = aval.shape
  k = min(m, n)
  econ = not full_matrices and m > 32 and n > 32 if routine == "gesvdj" else \
      not full_matrices
  u_aval, v_aval = (core.ShapedArray((*batch, d, k if econ else d), aval.dtype) for d in (m, n))
  _, s, u, v, info = _lapack_call(
      ctx, _solver_target("cuda", routine, aval.dtype), [x], [aval],
      [aval, ctx.avals_out[0], u_aval, v_aval, core.ShapedArray(tuple(batch), np.int32)],
      {0: 0}, full_matrices=not econ, compute_uv=bool(compute_uv))
  if not compute_uv:
    return _nan_unless_ok_all(ctx, [s], ctx.avals_out, info, batch)
  vh = hlo.transpose(v, ir.DenseI64ArrayAttr.get([*range(len(batch)), len(batch) + 1,
                                                  len(batch)]))
  if np.issubdtype(aval.dtype, np.complexfloating):
    vh = hlo.complex(hlo.real(vh), hlo.negate(hlo.imag(vh)))
  if not full_matrices and not econ:
    u, vh = (_leading_block(y, want.shape) for y, want in zip((u, vh), ctx.avals_out[1:]))
  return _nan_unless_ok_all(ctx, [s, u, vh], ctx.avals_out, info, batch)


def _leading_block(x: ir.Value, shape: Sequence[int]) -> ir.Value:
  """The leading block of x of the given shape."""
  return hlo.slice(x, *(ir.DenseI64ArrayAttr.get(list(v)) for v in
                       ([0] * len(shape), shape, [1] * len(shape))))


def _svd_cuda_gesvd(ctx: LoweringRuleContext, x: ir.Value, *, full_matrices: bool,
                    compute_uv: bool) -> list[ir.Value]:
  """gesvd, on the row-major transpose of wide matrices (U and V^H swapping places)."""
  aval, = ctx.avals_in
  *batch, m, n = aval.shape
  transposed = m < n
  vector_avals = list(ctx.avals_out[1:]) if compute_uv else \
      [core.ShapedArray((), aval.dtype)] * 2
  avals_out = [aval, ctx.avals_out[0], *(vector_avals[::-1] if transposed else vector_avals),
               core.ShapedArray(tuple(batch), np.int32)]
  target = _solver_target("cuda", "gesvd", aval.dtype)
  attributes = dict(full_matrices=bool(full_matrices), compute_uv=bool(compute_uv),
                    transposed=transposed)
  if transposed:
    results = custom_call(target, [aval_to_ir_type(a) for a in avals_out], [x],
                          backend_config=attributes, operand_output_aliases={0: 0},
                          frontend_attributes={"num_batch_dims": str(len(batch))},
                          result_shapes=shapes.result_shapes(ctx, avals_out))
  else:
    results = _lapack_call(ctx, target, [x], [aval], avals_out, {0: 0}, **attributes)
  _, s, u, vh, info = results
  if transposed:
    u, vh = vh, u
  return _nan_unless_ok_all(ctx, [s, u, vh][:len(ctx.avals_out)], ctx.avals_out, info,
                            batch)


register_lowering(linalg.svd_p, _svd_cpu, platform="cpu")
register_lowering(linalg.svd_p, _svd_cuda, platform="cuda")


# ----------------------------------------------------------------------------------------------
# lu

def _lu(platform: str, ctx: LoweringRuleContext, x: ir.Value) -> list[ir.Value]:
  """getrf (LAPACK or cuSOLVER, as JAX calls it), its 1-based pivots made 0-based, NaNs for a
  bad-argument info (a singular U is no failure), and the permutation from the pivots."""
  aval, = ctx.avals_in
  lu_aval, pivots_aval, permutation_aval = ctx.avals_out
  info_aval = core.ShapedArray(aval.shape[:-2], np.dtype(np.int32))
  lu, pivots, info = _lapack_call(ctx, _solver_target(platform, "getrf", aval.dtype), [x], [aval],
                                  [lu_aval, pivots_aval, info_aval], {0: 0})
  pivots = hlo.subtract(pivots, shapes.full(ctx, 1, pivots_aval.shape, np.int32))
  permutation_ctx = LoweringRuleContext(ctx.module_context, linalg.lu_pivots_to_permutation_p,
                                        [pivots_aval], [permutation_aval], ctx.name_stack,
                                        ctx.source_info)
  permutation, = lower_fun(linalg.lu_pivots_to_permutation)(
      permutation_ctx, pivots, permutation_size=aval.shape[-2])
  return [_nan_unless_ok(ctx, lu, aval, info, ok_if="GE"), pivots, permutation]


def _tpu_custom_call(target: str, api_version: int):
  """A rule calling TPU's built-in `target` (LuDecomposition, Qr, ...) as JAX does."""
  def rule(ctx: LoweringRuleContext, *args: ir.Value) -> list[ir.Value]:
    return custom_call(target, [aval_to_ir_type(a) for a in ctx.avals_out], args,
                       api_version=api_version,
                       result_shapes=shapes.result_shapes(ctx, ctx.avals_out))
  return rule


for _platform in ("cpu", "cuda", "rocm"):
  register_lowering(linalg.lu_p, functools.partial(_lu, _platform), platform=_platform)
register_lowering(linalg.lu_p, _tpu_custom_call("LuDecomposition", 2), platform="tpu")


# ----------------------------------------------------------------------------------------------
# lu_pivots_to_permutation

def _lu_pivots_to_permutation_gpu(prefix: str, ctx: LoweringRuleContext, pivots: ir.Value, *,
                                  permutation_size: int) -> list[ir.Value]:
  aval, = ctx.avals_in
  return custom_call(f"{prefix}_lu_pivots_to_permutation", [aval_to_ir_type(ctx.avals_out[0])],
                     [pivots], backend_config={},
                     operand_layouts=[row_major(aval.ndim)], result_layouts=[row_major(aval.ndim)],
                     frontend_attributes={"num_batch_dims": str(aval.ndim - 1)},
                     result_shapes=shapes.result_shapes(ctx, ctx.avals_out))


register_lowering(linalg.lu_pivots_to_permutation_p,
                  lower_fun(linalg.lu_pivots_to_permutation_impl))
for _platform, _prefix in (("cuda", "cu"), ("rocm", "hip")):
  register_lowering(linalg.lu_pivots_to_permutation_p,
                    functools.partial(_lu_pivots_to_permutation_gpu, _prefix), platform=_platform)


# ----------------------------------------------------------------------------------------------
# geqrf

def _geqrf(platform: str, ctx: LoweringRuleContext, a: ir.Value) -> list[ir.Value]:
  aval, = ctx.avals_in
  return _lapack_call(ctx, _solver_target(platform, "geqrf", aval.dtype), [a], [aval],
                      ctx.avals_out, {0: 0})


register_lowering(linalg.geqrf_p, _tpu_custom_call("Qr", 1))
for _platform in ("cpu", "cuda", "rocm"):
  register_lowering(linalg.geqrf_p, functools.partial(_geqrf, _platform), platform=_platform)


# ----------------------------------------------------------------------------------------------
# householder_product

def _householder_product(platform: str, ctx: LoweringRuleContext, a: ir.Value, taus: ir.Value
                         ) -> list[ir.Value]:
  """LAPACK's orgqr (ungqr for complex) on the CPU, the solver's orgqr on GPUs (as JAX)."""
  aval = ctx.avals_in[0]
  complex_cpu = platform == "cpu" and np.issubdtype(aval.dtype, np.complexfloating)
  target = _solver_target(platform, "ungqr" if complex_cpu else "orgqr", aval.dtype)
  return _lapack_call(ctx, target, [a, taus], ctx.avals_in, ctx.avals_out, {0: 0})


register_lowering(linalg.householder_product_p,
                  _tpu_custom_call("ProductOfElementaryHouseholderReflectors", 1))
for _platform in ("cpu", "cuda", "rocm"):
  register_lowering(linalg.householder_product_p,
                    functools.partial(_householder_product, _platform), platform=_platform)


# ----------------------------------------------------------------------------------------------
# qr: geqrf and householder_product, lowered in place (as JAX)

register_lowering(linalg.qr_p, lower_fun(linalg.qr_impl, multiple_results=True))


# ----------------------------------------------------------------------------------------------
# IREE: cholesky and triangular_solve in plain StableHLO. IREE rejects the LAPACK custom calls
# of the CPU and StableHLO's own `cholesky` and `triangular_solve` ops, so for the `iree`
# platform both are loops of masked matrix-vector products (one column, or one row, per step).

def _at(x: Any, axis: int, i: Any) -> Any:
  """The slice `i` (a traced index) of `x` along `axis`, kept as an axis of size 1."""
  aval = core.get_aval(x)
  mask = lax.eq(lax.broadcasted_iota(np.int32, aval.shape, axis),
                lax.broadcast_in_dim(i, aval.shape, ()))
  picked = lax.reduce_sum(lax.select(mask, x, lax.full(aval.shape, 0, aval.dtype)), (axis,))
  return lax.expand_dims(picked, (axis,))


def _put_at(x: Any, axis: int, i: Any, value: Any) -> Any:
  """`x` with its slice `i` along `axis` replaced by `value` (of size 1 along `axis`)."""
  shape = core.get_aval(x).shape
  mask = lax.eq(lax.broadcasted_iota(np.int32, shape, axis), lax.broadcast_in_dim(i, shape, ()))
  return lax.select(mask, lax.broadcast_in_dim(value, shape, tuple(range(len(shape)))), x)


def _matmul(x: Any, y: Any) -> Any:
  return lax.batch_matmul(x, y, precision=lax.Precision.HIGHEST)


def _swap_last(ndim: int) -> tuple[int, ...]:
  """The permutation transposing a batch of matrices."""
  return (*range(ndim - 2), ndim - 1, ndim - 2)


def _cholesky_unblocked(a: Any) -> Any:
  """The lower Cholesky factor, column by column: column j is (a[:, j] - L L[j, :]^H) / d with
  d = sqrt of its j-th entry, zero above the diagonal."""
  aval = core.get_aval(a)
  rows, cols = aval.ndim - 2, aval.ndim - 1
  below = lax.broadcasted_iota(np.int32, (*aval.shape[:-1], 1), rows)

  def column(j, factor):
    row_j = lax.transpose(_at(factor, rows, j), _swap_last(aval.ndim))
    row_j = lax.conj(row_j) if np.issubdtype(aval.dtype, np.complexfloating) else row_j
    v = lax.sub(_at(a, cols, j), _matmul(factor, row_j))
    d = lax.broadcast_in_dim(lax.sqrt(_at(v, rows, j)), v.shape, tuple(range(aval.ndim)))
    col = lax.select(lax.ge(below, lax.broadcast_in_dim(j, below.shape, ())), lax.div(v, d),
                     lax.full(v.shape, 0, aval.dtype))
    return _put_at(factor, cols, j, col)
  return lax.fori_loop(0, aval.shape[-1], column, lax.full(aval.shape, 0, aval.dtype))


def _forward_substitution(a: Any, b: Any, unit_diagonal: bool) -> Any:
  """x with a x = b for lower triangular a, row by row."""
  aval = core.get_aval(b)
  rows, cols = aval.ndim - 2, aval.ndim - 1

  def row(i, x):
    a_i = _at(a, rows, i)
    r = lax.sub(_at(b, rows, i), _matmul(a_i, x))
    if not unit_diagonal:
      r = lax.div(r, lax.broadcast_in_dim(_at(a_i, cols, i), r.shape, tuple(range(aval.ndim))))
    return _put_at(x, rows, i, r)
  return lax.fori_loop(0, aval.shape[-2], row, lax.full(aval.shape, 0, aval.dtype))


def _triangular_solve_unblocked(a: Any, b: Any, *, left_side: bool, lower: bool,
                                transpose_a: bool, conjugate_a: bool, unit_diagonal: bool
                                ) -> Any:
  """triangular_solve as forward substitution: op(a) made explicit, a right-side solve
  transposed into a left-side one, an upper triangle reversed into a lower one."""
  ndim = core.get_aval(a).ndim
  swap = _swap_last(ndim)
  if conjugate_a and np.issubdtype(core.get_aval(a).dtype, np.complexfloating):
    a = lax.conj(a)
  if transpose_a:
    a, lower = lax.transpose(a, swap), not lower
  if not left_side:  # x op(a) = b  <=>  op(a)^T x^T = b^T
    a, b, lower = lax.transpose(a, swap), lax.transpose(b, swap), not lower
  if not lower:  # reversing rows and columns makes an upper triangle lower
    a, b = lax.rev(a, (ndim - 2, ndim - 1)), lax.rev(b, (ndim - 2,))
  x = _forward_substitution(a, b, unit_diagonal)
  x = x if lower else lax.rev(x, (ndim - 2,))
  return x if left_side else lax.transpose(x, swap)


register_lowering(linalg.cholesky_p, lower_fun(_cholesky_unblocked), platform="iree")
register_lowering(linalg.triangular_solve_p, lower_fun(_triangular_solve_unblocked),
                  platform="iree")
