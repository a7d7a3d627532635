"""Stax: neural network layers as (init_fun, apply_fun) pairs, as jax.example_libraries.stax.

`init_fun(rng, input_shape) -> (output_shape, params)`;
`apply_fun(params, inputs, **kwargs) -> outputs`.
"""
from __future__ import annotations

import functools
import math
from typing import Any, Callable, Sequence

import numpy as np

from stablejax import lax, random
from stablejax.api import eval_shape
from stablejax import numpy as jnp
from stablejax.nn import (elu, gelu, leaky_relu, log_softmax, relu, selu, sigmoid, softmax,
                          softplus, standardize)
from stablejax.nn.initializers import glorot_normal, normal, ones, zeros
from stablejax.numpy._promotion import shape
from stablejax.stages import ShapeDtypeStruct

Layer = tuple[Callable, Callable]

glorot = glorot_normal
randn = normal
logsoftmax = log_softmax


def Dense(out_dim: int, W_init: Callable = glorot_normal(), b_init: Callable = normal()) -> Layer:
  """A fully-connected layer: inputs @ W + b."""
  def init_fun(rng, input_shape):
    k1, k2 = random.split(rng)
    W, b = W_init(k1, (input_shape[-1], out_dim)), b_init(k2, (out_dim,))
    return tuple(input_shape[:-1]) + (out_dim,), (W, b)

  def apply_fun(params, inputs, **kwargs):
    W, b = params
    return jnp.dot(inputs, W) + b
  return init_fun, apply_fun


def _traced_shape(fun: Callable, input_shape: Sequence[int], in_batch: int, out_batch: int,
                  *other_shapes: Sequence[int]) -> tuple[int, ...]:
  """The shape of `fun`'s result on float arrays of these shapes (traced, nothing runs); the
  input's batch size, which may be -1 (unknown), is carried to axis `out_batch`."""
  known = tuple(1 if i == in_batch else d for i, d in enumerate(input_shape))
  structs = [ShapeDtypeStruct(s, np.float32) for s in (known, *other_shapes)]
  out = list(eval_shape(fun, *structs).shape)
  out[out_batch] = input_shape[in_batch]
  return tuple(out)


def _conv_layer(dimension_numbers: tuple[str, str, str], out_chan: int,
                filter_shape: Sequence[int], W_init: Callable | None, b_init: Callable,
                conv: Callable[[Any, Any], Any]) -> Layer:
  """A (transposed) convolution layer: `conv(inputs, kernel)` plus a bias."""
  lhs_spec, rhs_spec, out_spec = dimension_numbers
  W_init = W_init or glorot_normal(rhs_spec.index("I"), rhs_spec.index("O"))

  def init_fun(rng, input_shape):
    filter_sizes = iter(filter_shape)
    kernel_shape = [out_chan if c == "O" else input_shape[lhs_spec.index("C")] if c == "I"
                    else next(filter_sizes) for c in rhs_spec]
    output_shape = _traced_shape(conv, input_shape, lhs_spec.index("N"), out_spec.index("N"),
                                 kernel_shape)
    bias_shape = [out_chan if c == "C" else 1 for c in out_spec]
    k1, k2 = random.split(rng)
    return output_shape, (W_init(k1, kernel_shape), b_init(k2, bias_shape))

  def apply_fun(params, inputs, **kwargs):
    W, b = params
    return conv(inputs, W) + b
  return init_fun, apply_fun


def GeneralConv(dimension_numbers: tuple[str, str, str], out_chan: int,
                filter_shape: Sequence[int], strides: Sequence[int] | None = None,
                padding: Any = "VALID", W_init: Callable | None = None,
                b_init: Callable = normal(1e-6)) -> Layer:
  """A convolution layer with the given (lhs, rhs, out) dimension specs."""
  one = (1,) * len(filter_shape)
  strides = strides or one

  def conv(inputs, W):
    return lax.conv_general_dilated(inputs, W, strides, padding, one, one,
                                    dimension_numbers=dimension_numbers)
  return _conv_layer(dimension_numbers, out_chan, filter_shape, W_init, b_init, conv)


Conv = functools.partial(GeneralConv, ("NHWC", "HWIO", "NHWC"))


def GeneralConvTranspose(dimension_numbers: tuple[str, str, str], out_chan: int,
                         filter_shape: Sequence[int], strides: Sequence[int] | None = None,
                         padding: Any = "VALID", W_init: Callable | None = None,
                         b_init: Callable = normal(1e-6)) -> Layer:
  """A transposed-convolution layer with the given (lhs, rhs, out) dimension specs."""
  strides = strides or (1,) * len(filter_shape)

  def conv(inputs, W):
    return lax.conv_transpose(inputs, W, strides, padding, dimension_numbers=dimension_numbers)
  return _conv_layer(dimension_numbers, out_chan, filter_shape, W_init, b_init, conv)


Conv1DTranspose = functools.partial(GeneralConvTranspose, ("NHC", "HIO", "NHC"))
ConvTranspose = functools.partial(GeneralConvTranspose, ("NHWC", "HWIO", "NHWC"))


def BatchNorm(axis: int | Sequence[int] = (0, 1, 2), epsilon: float = 1e-5, center: bool = True,
              scale: bool = True, beta_init: Callable = zeros,
              gamma_init: Callable = ones) -> Layer:
  """Batch normalization over `axis`, with a learned shift (center) and scale."""
  axis = (axis,) if isinstance(axis, int) else tuple(axis)

  def init_fun(rng, input_shape):
    param_shape = tuple(d for i, d in enumerate(input_shape) if i not in axis)
    k1, k2 = random.split(rng)
    beta = beta_init(k1, param_shape) if center else ()
    gamma = gamma_init(k2, param_shape) if scale else ()
    return input_shape, (beta, gamma)

  def apply_fun(params, x, **kwargs):
    beta, gamma = params
    ed = tuple(None if i in axis else slice(None) for i in range(len(shape(x))))
    z = standardize(x, axis, epsilon=epsilon)
    if scale:
      z = gamma[ed] * z
    return z + beta[ed] if center else z
  return init_fun, apply_fun


def elementwise(fun: Callable, **fun_kwargs: Any) -> Layer:
  """A layer applying `fun` to its inputs, with no parameters."""
  def init_fun(rng, input_shape):
    return input_shape, ()

  def apply_fun(params, inputs, **kwargs):
    return fun(inputs, **fun_kwargs)
  return init_fun, apply_fun


Tanh = elementwise(jnp.tanh)
Relu = elementwise(relu)
Exp = elementwise(jnp.exp)
LogSoftmax = elementwise(log_softmax, axis=-1)
Softmax = elementwise(softmax, axis=-1)
Softplus = elementwise(softplus)
Sigmoid = elementwise(sigmoid)
Elu = elementwise(elu)
LeakyRelu = elementwise(leaky_relu)
Selu = elementwise(selu)
Gelu = elementwise(gelu)


def _non_spatial_axes(spec: str | None, ndim: int) -> tuple[int, int]:
  return (0, ndim - 1) if spec is None else (spec.index("N"), spec.index("C"))


def _with_unit_dims(dims: tuple[int, ...], axes: Sequence[int]) -> tuple[int, ...]:
  for i in sorted(axes):
    dims = dims[:i] + (1,) + dims[i:]
  return dims


def _window_sizes(inputs: Any, spec: str | None, window_shape: tuple[int, ...],
                  strides: tuple[int, ...], padding: Any) -> Any:
  """How many input elements each pooling window covers (fewer at padded edges)."""
  axes = _non_spatial_axes(spec, len(shape(inputs)))
  spatial_shape = tuple(d for i, d in enumerate(shape(inputs)) if i not in axes)
  counts = lax.reduce_window(jnp.ones(spatial_shape, dtype=inputs.dtype), 0., lax.add,
                             window_shape, strides, padding)
  for i in sorted(axes):
    counts = jnp.expand_dims(counts, i)
  return counts


def _pooling_layer(reducer: Callable, init_val: float, average: bool = False) -> Callable:
  def PoolingLayer(window_shape: tuple[int, ...], strides: tuple[int, ...] | None = None,
                   padding: Any = "VALID", spec: str | None = None) -> Layer:
    """A pooling layer over windows of the spatial dimensions."""
    spatial_window, spatial_strides = window_shape, strides or (1,) * len(window_shape)
    axes = _non_spatial_axes(spec, len(window_shape) + 2)
    full_window = _with_unit_dims(tuple(spatial_window), axes)
    full_strides = _with_unit_dims(tuple(spatial_strides), axes)

    def pool(inputs):
      return lax.reduce_window(inputs, init_val, reducer, full_window, full_strides, padding)

    def init_fun(rng, input_shape):
      return _traced_shape(pool, input_shape, axes[0], axes[0]), ()

    def apply_fun(params, inputs, **kwargs):
      out = pool(inputs)
      if average:
        out = out / _window_sizes(inputs, spec, spatial_window, spatial_strides, padding)
      return out
    return init_fun, apply_fun
  return PoolingLayer


MaxPool = _pooling_layer(lax.max, -jnp.inf)
SumPool = _pooling_layer(lax.add, 0.)
AvgPool = _pooling_layer(lax.add, 0., average=True)


def _flatten() -> Layer:
  """Flattens all but the leading dimension."""
  def init_fun(rng, input_shape):
    return (input_shape[0], math.prod(input_shape[1:])), ()

  def apply_fun(params, inputs, **kwargs):
    return jnp.reshape(inputs, (shape(inputs)[0], -1))
  return init_fun, apply_fun


Flatten = _flatten()
Identity = elementwise(lambda x: x)


def FanOut(num: int) -> Layer:
  """A layer returning `num` copies of its input."""
  def init_fun(rng, input_shape):
    return [input_shape] * num, ()

  def apply_fun(params, inputs, **kwargs):
    return [inputs] * num
  return init_fun, apply_fun


def _fan_in_sum() -> Layer:
  """A layer summing its inputs."""
  def init_fun(rng, input_shape):
    return input_shape[0], ()

  def apply_fun(params, inputs, **kwargs):
    return sum(inputs)
  return init_fun, apply_fun


FanInSum = _fan_in_sum()


def FanInConcat(axis: int = -1) -> Layer:
  """A layer concatenating its inputs along `axis`."""
  def init_fun(rng, input_shape):
    ax = axis % len(input_shape[0])
    concat_size = sum(s[ax] for s in input_shape)
    return tuple(input_shape[0][:ax]) + (concat_size,) + tuple(input_shape[0][ax + 1:]), ()

  def apply_fun(params, inputs, **kwargs):
    return jnp.concatenate(inputs, axis)
  return init_fun, apply_fun


def Dropout(rate: float, mode: str = "train") -> Layer:
  """Keeps each input with probability `rate` (scaled by 1 / rate) in "train" mode."""
  def init_fun(rng, input_shape):
    return input_shape, ()

  def apply_fun(params, inputs, **kwargs):
    rng = kwargs.get("rng", None)
    if rng is None:
      raise ValueError("Dropout layer requires apply_fun to be called with a PRNG key "
                       "argument. That is, instead of `apply_fun(params, inputs)`, call it "
                       "like `apply_fun(params, inputs, rng)` where `rng` is a PRNG key "
                       "(e.g. from `jax.random.key`).")
    if mode != "train":
      return inputs
    keep = random.bernoulli(rng, rate, shape(inputs))
    return jnp.where(keep, inputs / rate, 0)
  return init_fun, apply_fun


def _split_or_none(rng: Any, n: int) -> Sequence[Any]:
  return random.split(rng, n) if rng is not None else (None,) * n


def serial(*layers: Layer) -> Layer:
  """The layers composed in sequence."""
  init_funs, apply_funs = zip(*layers)

  def init_fun(rng, input_shape):
    params = []
    for init in init_funs:
      rng, layer_rng = random.split(rng)
      input_shape, param = init(layer_rng, input_shape)
      params.append(param)
    return input_shape, params

  def apply_fun(params, inputs, **kwargs):
    rngs = _split_or_none(kwargs.pop("rng", None), len(layers))
    for fun, param, rng in zip(apply_funs, params, rngs):
      inputs = fun(param, inputs, rng=rng, **kwargs)
    return inputs
  return init_fun, apply_fun


def parallel(*layers: Layer) -> Layer:
  """The layers side by side: a sequence of inputs to a sequence of outputs."""
  init_funs, apply_funs = zip(*layers)

  def init_fun(rng, input_shape):
    rngs = random.split(rng, len(layers))
    return zip(*[init(r, s) for init, r, s in zip(init_funs, rngs, input_shape)])

  def apply_fun(params, inputs, **kwargs):
    rngs = _split_or_none(kwargs.pop("rng", None), len(layers))
    return [f(p, x, rng=r, **kwargs) for f, p, x, r in zip(apply_funs, params, inputs, rngs)]
  return init_fun, apply_fun


def shape_dependent(make_layer: Callable[[tuple[int, ...]], Layer]) -> Layer:
  """A layer built by `make_layer(input_shape)` once the input shape is known."""
  def init_fun(rng, input_shape):
    return make_layer(input_shape)[0](rng, input_shape)

  def apply_fun(params, inputs, **kwargs):
    return make_layer(shape(inputs))[1](params, inputs, **kwargs)
  return init_fun, apply_fun
