"""jax.nn.initializers: functions `init(key, shape, dtype)` returning initial parameter arrays."""
from __future__ import annotations

import math
import operator
from typing import Any, Callable, Protocol, Sequence, runtime_checkable

import numpy as np

from stablejax import dtypes, random
from stablejax import numpy as jnp

Axes = int | Sequence[int]

__all__ = ["Initializer", "constant", "delta_orthogonal", "glorot_normal", "glorot_uniform",
           "he_normal", "he_uniform", "kaiming_normal", "kaiming_uniform", "lecun_normal",
           "lecun_uniform", "normal", "ones", "orthogonal", "truncated_normal", "uniform",
           "variance_scaling", "xavier_normal", "xavier_uniform", "zeros"]


@runtime_checkable
class Initializer(Protocol):
  """What every initializer is: a function of a PRNG key, a shape and a dtype."""

  def __call__(self, key: Any, shape: Sequence[int], dtype: Any = None) -> Any:
    raise NotImplementedError


def _float_dtype(dtype: Any) -> np.dtype:
  return dtypes.default_float() if dtype is None else dtypes.canonicalize(np.dtype(dtype))


def zeros(key: Any, shape: Sequence[int], dtype: Any = None) -> Any:
  """An array of zeros (the key is unused)."""
  return jnp.zeros(shape, _float_dtype(dtype))


def ones(key: Any, shape: Sequence[int], dtype: Any = None) -> Any:
  """An array of ones (the key is unused)."""
  return jnp.ones(shape, _float_dtype(dtype))


def constant(value: Any, dtype: Any = None) -> Initializer:
  """An initializer of arrays filled with `value`."""
  def init(key: Any, shape: Sequence[int], dtype: Any = dtype) -> Any:
    return jnp.full(shape, value, dtype=_float_dtype(dtype))
  return init


def _scaled(sample: Callable[[Any, Sequence[int], np.dtype], Any], factor: Any,
            default_dtype: Any) -> Initializer:
  """An initializer drawing `sample(key, shape, dtype)` and multiplying it by `factor`."""
  def init(key: Any, shape: Sequence[int], dtype: Any = default_dtype) -> Any:
    dtype = _float_dtype(dtype)
    return sample(key, shape, dtype) * jnp.array(factor, dtype)
  return init


def uniform(scale: Any = 1e-2, dtype: Any = None) -> Initializer:
  """Uniform random arrays on [0, scale)."""
  return _scaled(random.uniform, scale, dtype)


def normal(stddev: Any = 1e-2, dtype: Any = None) -> Initializer:
  """Normal random arrays with mean 0 and standard deviation `stddev`."""
  return _scaled(random.normal, stddev, dtype)


def truncated_normal(stddev: Any = 1e-2, dtype: Any = None, lower: Any = -2.0,
                     upper: Any = 2.0) -> Initializer:
  """Standard normal samples truncated to (lower, upper), then multiplied by `stddev`."""
  def sample(key, shape, dtype):
    return random.truncated_normal(key, lower, upper, shape, dtype)
  return _scaled(sample, stddev, dtype)


def _size(shape: Sequence[int], axes: Axes) -> int:
  if isinstance(axes, int):
    return shape[axes]
  return math.prod(shape[a] for a in axes)


def _compute_fans(shape: Sequence[int], in_axis: Axes = -2, out_axis: Axes = -1,
                  batch_axis: Axes = ()) -> tuple[float, float]:
  """(fan_in, fan_out): the input and output sizes times the receptive field size."""
  if isinstance(in_axis, int) and in_axis == -2 and len(shape) <= 1:
    raise ValueError(f"Can't compute input and output sizes of a {len(shape)}-dimensional "
                     "weights tensor with default in_axis. Must be at least 2D or specify "
                     "in_axis explicitly.")
  in_size, out_size = _size(shape, in_axis), _size(shape, out_axis)
  receptive_field = math.prod(shape) / in_size / out_size / _size(shape, batch_axis)
  return in_size * receptive_field, out_size * receptive_field


_FAN_DENOMINATORS = {
    "fan_in": lambda fan_in, fan_out: fan_in,
    "fan_out": lambda fan_in, fan_out: fan_out,
    "fan_avg": lambda fan_in, fan_out: (fan_in + fan_out) / 2,
    "fan_geo_avg": lambda fan_in, fan_out: (fan_in * fan_out) ** 0.5,
}

# The standard deviations of a standard normal truncated to (-2, 2), and of a complex standard
# normal with its modulus truncated to 2.
_TRUNCATED_STDDEV = .87962566103423978
_COMPLEX_TRUNCATED_STDDEV = .95311164380491208


def _polar(key: Any, shape: tuple[int, ...], dtype: np.dtype, modulus: Callable) -> Any:
  """modulus(u) * exp(i theta), u uniform on [0, 1) and theta on [0, 2 pi), each drawn under
  one half of split(key), as JAX's complex initializers draw them."""
  key_r, key_theta = random.split(key)
  real_dtype = np.finfo(dtype).dtype
  r = modulus(jnp.asarray(random.uniform(key_r, shape, real_dtype), dtype))
  theta = 2 * np.pi * jnp.asarray(random.uniform(key_theta, shape, real_dtype), dtype)
  return r * jnp.exp(1j * theta)


def _complex_uniform(key: Any, shape: tuple[int, ...], dtype: np.dtype) -> Any:
  """Uniform on the disk of radius sqrt(2): mean 0, variance 1."""
  return _polar(key, shape, dtype, lambda u: jnp.sqrt(2 * u))


def _complex_truncated_normal(key: Any, upper: float, shape: tuple[int, ...],
                              dtype: np.dtype) -> Any:
  """A complex standard normal with its modulus truncated to `upper` (by inverting the CDF
  1 - exp(-r^2) of the modulus)."""
  mass = 1 - jnp.exp(jnp.array(-(upper ** 2), dtype))
  return _polar(key, shape, dtype, lambda u: jnp.sqrt(-jnp.log(1 - mass * u)))


def _variance_sample(distribution: str, key: Any, shape: tuple[int, ...], dtype: np.dtype,
                     variance: Any) -> Any:
  """A sample of `distribution` with `variance`; complex dtypes draw truncated normals and
  uniforms radially symmetric in the complex plane."""
  is_complex = dtypes.is_complex(dtype)
  if distribution == "truncated_normal":
    if is_complex:
      stddev = jnp.sqrt(variance) / jnp.array(_COMPLEX_TRUNCATED_STDDEV, dtype)
      return _complex_truncated_normal(key, 2, shape, dtype) * stddev
    stddev = jnp.sqrt(variance) / jnp.array(_TRUNCATED_STDDEV, dtype)
    return random.truncated_normal(key, -2, 2, shape, dtype) * stddev
  if distribution == "normal":
    return random.normal(key, shape, dtype) * jnp.sqrt(variance)
  if distribution == "uniform":
    if is_complex:
      return _complex_uniform(key, shape, dtype) * jnp.sqrt(variance)
    return random.uniform(key, shape, dtype, -1) * jnp.sqrt(3 * variance)
  raise ValueError(f"invalid distribution for variance scaling initializer: {distribution}")


def variance_scaling(scale: Any, mode: str, distribution: str, in_axis: Axes = -2,
                     out_axis: Axes = -1, batch_axis: Axes = (), dtype: Any = None
                     ) -> Initializer:
  """Samples with variance scale / n, n the fan chosen by `mode` ("fan_in", "fan_out",
  "fan_avg", "fan_geo_avg"), from a "truncated_normal", "normal" or "uniform" distribution."""
  def init(key: Any, shape: Sequence[int], dtype: Any = dtype) -> Any:
    shape = tuple(map(operator.index, shape))
    dtype = _float_dtype(dtype)
    if mode not in _FAN_DENOMINATORS:
      raise ValueError(f"invalid mode for variance scaling initializer: {mode}")
    fan_in, fan_out = _compute_fans(shape, in_axis, out_axis, batch_axis)
    variance = jnp.array(scale / _FAN_DENOMINATORS[mode](fan_in, fan_out), dtype=dtype)
    return _variance_sample(distribution, key, shape, dtype, variance)
  return init


def _variance_scaling_preset(scale: float, mode: str, distribution: str, name: str,
                             doc: str) -> Callable[..., Initializer]:
  def preset(in_axis: Axes = -2, out_axis: Axes = -1, batch_axis: Axes = (),
             dtype: Any = None) -> Initializer:
    return variance_scaling(scale, mode, distribution, in_axis=in_axis, out_axis=out_axis,
                            batch_axis=batch_axis, dtype=dtype)
  preset.__name__ = preset.__qualname__ = name
  preset.__doc__ = doc
  return preset


glorot_uniform = _variance_scaling_preset(
    1.0, "fan_avg", "uniform", "glorot_uniform", "Glorot (Xavier) uniform: variance_scaling("
    "1.0, 'fan_avg', 'uniform').")
glorot_normal = _variance_scaling_preset(
    1.0, "fan_avg", "truncated_normal", "glorot_normal", "Glorot (Xavier) normal: "
    "variance_scaling(1.0, 'fan_avg', 'truncated_normal').")
lecun_uniform = _variance_scaling_preset(
    1.0, "fan_in", "uniform", "lecun_uniform", "LeCun uniform: variance_scaling(1.0, 'fan_in', "
    "'uniform').")
lecun_normal = _variance_scaling_preset(
    1.0, "fan_in", "truncated_normal", "lecun_normal", "LeCun normal: variance_scaling(1.0, "
    "'fan_in', 'truncated_normal').")
he_uniform = _variance_scaling_preset(
    2.0, "fan_in", "uniform", "he_uniform", "He (Kaiming) uniform: variance_scaling(2.0, "
    "'fan_in', 'uniform').")
he_normal = _variance_scaling_preset(
    2.0, "fan_in", "truncated_normal", "he_normal", "He (Kaiming) normal: variance_scaling(2.0, "
    "'fan_in', 'truncated_normal').")
xavier_uniform, xavier_normal = glorot_uniform, glorot_normal
kaiming_uniform, kaiming_normal = he_uniform, he_normal


def orthogonal(scale: Any = 1.0, column_axis: int = -1, dtype: Any = None) -> Initializer:
  """Uniformly random orthogonal matrices (`random.orthogonal`), the columns along
  `column_axis` orthonormal (or the rows, when there are fewer of them), times `scale`."""
  def init(key: Any, shape: Sequence[int], dtype: Any = dtype) -> Any:
    dtype = _float_dtype(dtype)
    shape = tuple(shape)
    if len(shape) < 2:
      raise ValueError("orthogonal initializer requires at least a 2D shape")
    if 0 in shape:
      return jnp.zeros(shape, dtype=dtype)
    n_cols = shape[column_axis]
    q = random.orthogonal(key, math.prod(shape) // n_cols, (), dtype, n_cols)
    q = jnp.reshape(q, tuple(np.delete(shape, column_axis)) + (n_cols,))
    return jnp.array(scale, dtype) * jnp.moveaxis(q, -1, column_axis)
  return init


def delta_orthogonal(scale: Any = 1.0, column_axis: int = -1, dtype: Any = None) -> Initializer:
  """Delta-orthogonal convolution kernels (3-D to 5-D shapes): zeros except an orthogonal
  matrix (`orthogonal`) over the last two axes at the spatial centre."""
  def init(key: Any, shape: Sequence[int], dtype: Any = dtype) -> Any:
    dtype = _float_dtype(dtype)
    shape = tuple(shape)
    if len(shape) not in (3, 4, 5):
      raise ValueError("Delta orthogonal initializer requires a 3D, 4D or 5D shape.")
    if shape[-1] < shape[-2]:
      raise ValueError("`fan_in` must be less or equal than `fan_out`. ")
    matrix = orthogonal(scale=scale, column_axis=column_axis, dtype=dtype)(key, shape[-2:])
    centre = tuple((k - 1) // 2 for k in shape[:-2])
    return jnp.zeros(shape, dtype=dtype).at[centre].set(matrix)
  return init
