"""jax.nn's block-scaled matrix products: scaled_matmul, scaled_dot_general and their configs."""
from __future__ import annotations

import dataclasses
import warnings
from typing import Any, Literal

import numpy as np

from stablejax import dtypes, lax
from stablejax import numpy as jnp
from stablejax.numpy._promotion import shape


@dataclasses.dataclass(slots=True)
class BlockScaleConfig:
  """How one operand of scaled_dot_general is quantized: blocks of `block_size` along the
  contracting dimension share one scale of `scale_type`; data is cast to `data_type`."""
  mode: str
  block_size: int
  data_type: Any
  scale_type: Any
  global_scale: Any | None
  infer_only: bool


def get_scaled_dot_general_config(mode: Literal["nvfp4", "mxfp8"],
                                  global_scale: Any | None = None) -> BlockScaleConfig:
  """The quantization config of scaled_dot_general for `mode` ('nvfp4' or 'mxfp8')."""
  if mode == "nvfp4":
    return BlockScaleConfig(
        mode="nvfp4", block_size=16, data_type=dtypes.float4_e2m1fn,
        scale_type=dtypes.float8_e4m3fn,
        global_scale=jnp.ones((1,), dtype=np.float32) if global_scale is None else global_scale,
        infer_only=False)
  if mode == "mxfp8":
    return BlockScaleConfig(mode="mxfp8", block_size=32, data_type=dtypes.float8_e4m3fn,
                            scale_type=dtypes.float8_e8m0fnu, global_scale=None,
                            infer_only=False)
  raise ValueError(f"Unsupported mode: {mode}")


def _check_scaled_matmul_shapes(a: tuple, b: tuple, a_scales: tuple, b_scales: tuple) -> None:
  if not all(len(s) == 3 for s in (a, b, a_scales, b_scales)):
    raise ValueError("scaled_matmul requires all inputs to be 3-dimensional arrays")
  if a[2] != b[2] or a[0] != b[0]:
    raise ValueError("scaled_matmul requires inputs a and b to have matching batch (B) and "
                     f"contract (K) dimensions, but got shapes {a} and {b}")
  if a_scales[2] != b_scales[2] or a_scales[0] != b_scales[0]:
    raise ValueError("scaled_matmul requires scales to have matching batch (B) and contract "
                     f"(K) dimensions, but got shapes {a_scales} and {b_scales}")
  if a_scales[1] != a[1] or b_scales[1] != b[1]:
    raise ValueError("scaled_matmul requires scales to match non-contract dimensions of "
                     f"inputs, but got shapes a: {a}, b: {b}, a_scales: {a_scales}, "
                     f"b_scales: {b_scales}")
  if a[2] % a_scales[2]:
    raise ValueError(f"scaled_matmul requires the contract dimension {a[2]} to be a multiple "
                     f"of the scales' {a_scales[2]}")


def _blockwise_scaled(x: Any, scales: Any) -> Any:
  """x (B, M, K) in float32 times its scales (B, M, K // block) repeated over each block."""
  block = shape(x)[2] // shape(scales)[2]
  x32 = lax.convert_element_type(x, np.float32)
  return x32 * jnp.repeat(lax.convert_element_type(scales, np.float32), block, axis=-1)


def scaled_matmul(lhs: Any, rhs: Any, lhs_scales: Any, rhs_scales: Any,
                  preferred_element_type: Any = np.float32) -> Any:
  """Block-scaled (B, M, K) x (B, N, K) -> (B, M, N) product: each operand times its scales
  repeated over blocks of K, contracted over K in float32."""
  _check_scaled_matmul_shapes(shape(lhs), shape(rhs), shape(lhs_scales), shape(rhs_scales))
  out_dtype = dtypes.canonicalize_dtype(np.dtype(preferred_element_type))
  out = lax.dot_general(_blockwise_scaled(lhs, lhs_scales), _blockwise_scaled(rhs, rhs_scales),
                        (((2,), (2,)), ((0,), (0,))), preferred_element_type=np.float32)
  return lax.convert_element_type(out, out_dtype)


def scaled_dot_general(lhs: Any, rhs: Any, dimension_numbers: Any,
                       preferred_element_type: Any = np.float32,
                       configs: list[BlockScaleConfig] | None = None,
                       implementation: Literal["cudnn"] | None = None) -> Any:
  """lax.dot_general with block-scaled quantization of both operands by `configs` (None: a
  plain dot_general)."""
  if implementation is not None:
    warnings.warn("Backend selector, now ignored. The system chooses the backend "
                  "automatically.", DeprecationWarning)
  if configs is None:
    return lax.dot_general(lhs, rhs, dimension_numbers,
                           preferred_element_type=preferred_element_type)
  # JAX lowers the quantized product only through cuDNN (GPU); on CPU it raises this too.
  raise NotImplementedError("scaled_dot_general with quantization configs needs a GPU "
                            "(cuDNN) backend; it is not available on this platform")
