"""The custom calls an exported module may make: those whose targets JAX guarantees stable (its
allowlist, the same names: LAPACK, cuSOLVER and hipSOLVER kernels, TPU linear algebra, sharding
markers, shape assertions), and those a `DisabledSafetyCheck.custom_call(target)` allows (`"ALL"`
allows any). `export` refuses a module that makes any other, as JAX's does."""
from __future__ import annotations

from typing import Iterator, Sequence

from jaxlib.mlir import ir

__all__ = ["STABLE_CUSTOM_CALL_TARGETS", "check_custom_calls"]


def _lapack(*kernels: str) -> list[str]:
  """The `lapack_<t><kernel>_ffi` targets for `t` in `kernel`'s type prefixes ("sdcz" unless a
  kernel is given as "prefixes:name")."""
  names = []
  for kernel in kernels:
    prefixes, name = kernel.split(":")
    names += [f"lapack_{p}{name}_ffi" for p in prefixes]
  return names


_CPU = _lapack("sdcz:potrf", "sdcz:geqrf", "sd:orgqr", "cz:ungqr", "sd:syevd", "cz:heevd",
               "sdcz:geev", "sdcz:gesdd", "sdcz:getrf", "sd:sytrd", "cz:hetrd", "sdcz:gehrd",
               "sdcz:gees", "sdcz:trsm", "sdcz:gtsv")
_GPU = ["cu_lu_pivots_to_permutation", "cusolver_getrf_ffi", "hip_lu_pivots_to_permutation",
        "hipsolver_getrf_ffi", "cusolver_geqrf_ffi", "cusolver_orgqr_ffi", "hipsolver_geqrf_ffi",
        "hipsolver_orgqr_ffi", "cusolver_potrf_ffi", "hipsolver_potrf_ffi", "cusolver_syevd_ffi",
        "hipsolver_syevd_ffi", "cusolver_gesvd_ffi", "cusolver_gesvdj_ffi", "hipsolver_gesvd_ffi",
        "hipsolver_gesvdj_ffi", "hipsolver_gesdd_ffi", "cusolver_sytrd_ffi",
        "hipsolver_sytrd_ffi", "cusparse_gtsv2_ffi"]
STABLE_CUSTOM_CALL_TARGETS = frozenset([
    *_CPU, *_GPU, "Sharding", "SPMDFullToShardShape", "SPMDShardToFullShape",
    "annotate_device_placement", "cu_threefry2x32_ffi", "hip_threefry2x32_ffi", "Eigh", "Qr",
    "ProductOfElementaryHouseholderReflectors", "LuDecomposition", "ApproxTopK",
    "stablehlo.dynamic_approx_top_k", "tf.call_tf_function", "tpu_custom_call", "AllocateBuffer",
    "mosaic_gpu_v2", "stablehlo.dynamic_reduce_window", "stablehlo.dynamic_rng_bit_generator",
    "stablehlo.dynamic_top_k", "shape_assertion"])


def _operations(op: ir.Operation) -> Iterator[ir.Operation]:
  yield op
  for region in op.regions:
    for block in region:
      for inner in block:
        yield from _operations(inner.operation)


def check_custom_calls(module: ir.Module, allowed: Sequence[str], fun_name: str) -> None:
  """A ValueError naming the custom calls of `module` whose targets are neither stable nor in
  `allowed` (the targets of the disabled checks)."""
  allowed_targets = STABLE_CUSTOM_CALL_TARGETS | set(allowed)
  if "ALL" in allowed_targets:
    return
  bad = [f"{op} at {op.location}" for op in _operations(module.operation)
         if op.name == "stablehlo.custom_call"
         and ir.StringAttr(op.attributes["call_target_name"]).value not in allowed_targets]
  if bad:
    examples = "\n".join(bad[:3])
    raise ValueError(f"Cannot serialize code with custom calls whose targets have no "
                     f"compatibility guarantees (exporting '{fun_name}'); allow a target with "
                     f"`DisabledSafetyCheck.custom_call(target)`. Examples are:\n{examples}")
