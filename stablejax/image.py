"""`jax.image`: resampling images (`resize`, `scale_and_translate`) by separable kernels, as
JAX's: each spatial dimension is contracted with a (input size, output size) weight matrix of
the kernel sampled at the output pixels' centres (half-centred pixels), normalized."""
from __future__ import annotations

import enum
import math
from typing import Any, Callable, Sequence

import numpy as np

from stablejax import core, lax
from stablejax import numpy as jnp
from stablejax.numpy._promotion import promote_dtypes_inexact
from stablejax.shape_poly import is_symbolic_dim
from stablejax.util import canonicalize_axis

__all__ = ["ResizeMethod", "resize", "scale_and_translate"]


class ResizeMethod(enum.Enum):
  """The resampling methods: NEAREST, LINEAR, LANCZOS3, LANCZOS5, CUBIC (Keys),
  CUBIC_PYTORCH (OpenCV's a=-0.75 kernel, edges repeated without antialiasing), AREA."""
  NEAREST = 0
  LINEAR = 1
  LANCZOS3 = 2
  LANCZOS5 = 3
  CUBIC = 4
  CUBIC_PYTORCH = 5
  AREA = 6

  @staticmethod
  def from_string(s: str) -> ResizeMethod:
    """The method of a name (`"bilinear"`, `"lanczos3"`, `"cubic-pytorch"`, ...)."""
    for method, names in _NAMES.items():
      if s in names:
        return method
    raise ValueError(f'Unknown resize method "{s}"')


_NAMES = {ResizeMethod.NEAREST: ("nearest",),
          ResizeMethod.LINEAR: ("linear", "bilinear", "trilinear", "triangle"),
          ResizeMethod.LANCZOS3: ("lanczos3",), ResizeMethod.LANCZOS5: ("lanczos5",),
          ResizeMethod.CUBIC: ("cubic", "bicubic", "tricubic"),
          ResizeMethod.CUBIC_PYTORCH: ("cubic-pytorch", "bicubic-pytorch"),
          ResizeMethod.AREA: ("area",)}


def _lanczos(radius: float) -> Callable[[Any], Any]:
  def kernel(x: Any) -> Any:
    y = radius * jnp.sin(np.pi * x) * jnp.sin(np.pi * x / radius)
    # sinc's limit 1 near 0, where the quotient loses precision
    out = jnp.where(x > 1e-3, y / jnp.where(x != 0, np.pi ** 2 * x ** 2, 1), 1)
    return jnp.where(x > radius, 0., out)
  return kernel


def _cubic(a: float) -> Callable[[Any], Any]:
  """The cubic convolution kernel with parameter `a` (Keys: -0.5; OpenCV/PyTorch: -0.75)."""
  def kernel(x: Any) -> Any:
    inner = ((a + 2.) * x - (a + 3.)) * x * x + 1.
    outer = ((a * x - 5. * a) * x + 8. * a) * x - 4. * a
    return jnp.where(x >= 2., 0., jnp.where(x >= 1., outer, inner))
  return kernel


def _triangle(x: Any) -> Any:
  return jnp.maximum(0, 1 - jnp.abs(x))


_AREA = object()  # marks area resampling, whose weights are overlaps, not a kernel's values

# method -> (the kernel's radius, the kernel)
_KERNELS = {ResizeMethod.LINEAR: (1, _triangle), ResizeMethod.LANCZOS3: (3, _lanczos(3.)),
            ResizeMethod.LANCZOS5: (5, _lanczos(5.)), ResizeMethod.CUBIC: (2, _cubic(-0.5)),
            ResizeMethod.CUBIC_PYTORCH: (2, _cubic(-0.75)), ResizeMethod.AREA: (1, _AREA)}


def _normalized(weights: Any) -> Any:
  """Columns divided by their sums; columns of (almost) zero sum are zero."""
  total = jnp.sum(weights, axis=0, keepdims=True)
  safe = jnp.where(total != 0, total, 1)
  return jnp.where(jnp.abs(total) > 1000. * float(np.finfo(np.float32).eps), weights / safe, 0)


def _padding(scale: Any, radius: int, antialias: bool) -> int:
  """How many input pixels past each edge the kernel reaches (edge padding needs it static)."""
  if not antialias:
    return radius
  concrete = float(core.concrete_or_error(scale, "Antialiasing with edge padding requires a "
                                          "static scale."))
  return math.ceil(radius * max(1. / concrete, 1.))


def _weights(in_size: int, out_size: int, scale: Any, translation: Any, kernel: Any,
             antialias: bool, edge_padding: bool, radius: int) -> Any:
  """The (in_size, out_size) weight matrix of one dimension."""
  dtype = jnp.result_type(scale, translation)
  inv_scale = 1. / scale
  sample = ((jnp.arange(out_size, dtype=dtype) + 0.5) * inv_scale - translation * inv_scale
            - 0.5)
  pad = _padding(scale, radius, antialias) if edge_padding else 0
  positions = jnp.arange(-pad, in_size + pad, dtype=dtype)
  if kernel is _AREA:
    left = jnp.arange(out_size, dtype=dtype) * inv_scale - translation * inv_scale
    pixel = jnp.arange(in_size, dtype=dtype)
    weights = jnp.maximum(0., jnp.minimum((left + inv_scale)[None, :], (pixel + 1.)[:, None])
                          - jnp.maximum(left[None, :], pixel[:, None]))
  else:
    kernel_scale = jnp.maximum(inv_scale, 1.) if antialias else 1.
    weights = kernel(jnp.abs(sample[None, :] - positions[:, None]) / kernel_scale)
  if edge_padding:
    # the padded positions repeat the edge pixels: their weights add to the edge's
    clamped = np.clip(np.arange(-pad, in_size + pad), 0, in_size - 1)
    onehot = (clamped[None, :] == np.arange(in_size)[:, None]).astype(weights.dtype)
    return _normalized(jnp.matmul(onehot, weights, precision=lax.Precision.HIGHEST))
  inside = (sample >= -0.5) & (sample <= in_size - 0.5)
  return jnp.where(inside[None, :], _normalized(weights), 0)


def _scale_and_translate(x: Any, shape: tuple[int, ...], spatial_dims: Sequence[int],
                         scale: Sequence[Any], translation: Sequence[Any],
                         method: ResizeMethod, antialias: bool, precision: Any) -> Any:
  if method == ResizeMethod.CUBIC_PYTORCH and antialias:
    method = ResizeMethod.CUBIC
  radius, kernel = _KERNELS[method]
  edge_padding = method == ResizeMethod.CUBIC_PYTORCH
  for i, d in enumerate(spatial_dims):
    d = canonicalize_axis(d, x.ndim)
    w = _weights(x.shape[d], shape[d], scale[i], translation[i], kernel, antialias,
                 edge_padding, radius).astype(x.dtype)
    x = jnp.moveaxis(jnp.tensordot(x, w, axes=((d,), (0,)), precision=precision), -1, d)
  return x


def _method(method: str | ResizeMethod) -> ResizeMethod:
  if isinstance(method, str):
    return ResizeMethod.from_string(method)
  if not isinstance(method, ResizeMethod):
    raise TypeError(f"method must be a str or a ResizeMethod, got {method!r}")
  return method


def _check_shape(shape: Any, image: Any) -> tuple[int, ...]:
  shape = tuple(n if is_symbolic_dim(n) else int(n) for n in shape)
  if len(shape) != np.ndim(image):
    raise ValueError(f"shape must have length equal to the number of dimensions of x;  "
                     f"{shape} vs {np.shape(image)}")
  return shape


def scale_and_translate(image: Any, shape: Sequence[int], spatial_dims: Sequence[int],
                        scale: Any, translation: Any, method: str | ResizeMethod,
                        antialias: bool = True, precision: Any = lax.Precision.HIGHEST) -> Any:
  """Resample `image` to `shape`: a location x of `spatial_dims[i]` in the input maps to
  x * scale[i] + translation[i] in the output; samples outside the input are zero."""
  shape = _check_shape(shape, image)
  method = _method(method)
  if method == ResizeMethod.NEAREST:
    raise ValueError("Nearest neighbor resampling is not currently supported for "
                     "scale_and_translate.")
  (image,) = promote_dtypes_inexact(image)
  scale, translation = promote_dtypes_inexact(scale, translation)
  if not spatial_dims:
    return image
  return _scale_and_translate(image, shape, spatial_dims, scale, translation, method,
                              antialias, precision)


def _resize_nearest(x: Any, shape: tuple[int, ...]) -> Any:
  for d, (m, n) in enumerate(zip(x.shape, shape)):
    if m != n:
      offsets = np.floor((np.arange(n, dtype=np.float32) + 0.5) * np.float32(m) / np.float32(n))
      x = jnp.take(x, offsets.astype(np.int32), axis=d)
  return x


def resize(image: Any, shape: Sequence[int], method: str | ResizeMethod, antialias: bool = True,
           precision: Any = lax.Precision.HIGHEST) -> Any:
  """`image` resampled to `shape` by `method`; with `antialias`, downsampling widens the
  kernel to filter (not for NEAREST)."""
  shape = _check_shape(shape, image)
  method = _method(method)
  if method == ResizeMethod.NEAREST:
    return _resize_nearest(jnp.asarray(image), shape)
  (image,) = promote_dtypes_inexact(image)
  dims = [d for d in range(len(shape)) if image.shape[d] != shape[d]]
  scale = [1. if shape[d] == 0 else shape[d] / image.shape[d] for d in dims]
  return _scale_and_translate(image, shape, dims, scale, [0.] * len(dims), method, antialias,
                              precision)
