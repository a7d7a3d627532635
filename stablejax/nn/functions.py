"""jax.nn's activations and normalizations, over stablejax.numpy and stablejax.lax. Those JAX
jits are jitted here too (a nested `jit` equation, a private function in the module), as XLA
fuses and so rounds a program by its calls."""
from __future__ import annotations

import functools
import operator
import warnings
from typing import Any, Sequence

import numpy as np

from stablejax import core, dtypes, lax
from stablejax import numpy as jnp
from stablejax.api import vmap
from stablejax.config import config
from stablejax.custom_derivatives import custom_jvp
from stablejax.jit import jit
from stablejax.numpy._promotion import dtype as dtype_of
from stablejax.numpy._promotion import ensure_arraylike, promote_args_inexact, shape
from stablejax.util import canonicalize_axis
from stablejax.util import prod as size_of

Axis = int | Sequence[int] | None


# Helpers: reductions over `axis` (an int, a tuple or None), keeping the reduced dimensions.

def _axes(x: Any, axis: Axis) -> tuple[int, ...]:
  ndim = len(shape(x))
  if axis is None:
    return tuple(range(ndim))
  axes = (axis,) if isinstance(axis, int) else tuple(axis)
  return tuple(canonicalize_axis(operator.index(a), ndim) for a in axes)


def _masked(x: Any, where: Any, fill: Any) -> Any:
  return x if where is None else jnp.where(where, x, fill)


def _sum(x: Any, axis: Axis, where: Any) -> Any:
  return jnp.sum(x, _axes(x, axis), where=where, keepdims=True)


def _max(x: Any, axis: Axis, where: Any) -> Any:
  """The maximum of the elements selected by `where`, -inf if there are none."""
  return jnp.max(x, _axes(x, axis), where=where, initial=-np.inf, keepdims=True)


def _count(x: Any, axis: Axis, where: Any, keepdims: bool, dtype: np.dtype) -> Any:
  """How many elements each reduction over `axis` sees."""
  if where is None:
    return np.asarray(size_of(shape(x)[a] for a in _axes(x, axis)), dtype)
  return jnp.sum(jnp.ones(shape(x), dtype), _axes(x, axis), where=where, keepdims=keepdims)


def _mean(x: Any, axis: Axis, where: Any) -> Any:
  return jnp.mean(x, _axes(x, axis), where=where, keepdims=True)


# Activations.

@jit
def identity(x: Any) -> Any:
  """The identity activation: `x`, as an array."""
  (x,) = ensure_arraylike("identity", x)
  return jnp.asarray(x)


def _masked_tangent(g: Any, keep: Any) -> Any:
  return lax.select_n(keep, lax.full_like(g, 0), g)


@custom_jvp
@jit
def relu(x: Any) -> Any:
  """max(x, 0), with gradient 0 at 0."""
  return jnp.maximum(x, 0)


relu.defjvps(lambda g, ans, x: _masked_tangent(g, jnp.greater(x, 0)))


@custom_jvp
@jit
def relu6(x: Any) -> Any:
  """min(max(x, 0), 6), with gradient 0 at 0 and at 6."""
  return jnp.minimum(jnp.maximum(x, 0), 6.)


relu6.defjvps(lambda g, ans, x: _masked_tangent(
    g, jnp.logical_and(jnp.greater(x, 0), jnp.less(x, 6))))


@jit
def squareplus(x: Any, b: Any = 4) -> Any:
  """(x + sqrt(x^2 + b)) / 2."""
  x, b = ensure_arraylike("squareplus", x, b)
  return (x + jnp.sqrt(jnp.square(x) + b)) / 2


@jit
def softplus(x: Any) -> Any:
  """log(1 + exp(x))."""
  return jnp.logaddexp(x, 0)


@jit
def sparse_plus(x: Any) -> Any:
  """0 for x <= -1, (x + 1)^2 / 4 for -1 < x < 1, x for x >= 1."""
  (x,) = ensure_arraylike("sparse_plus", x)
  return jnp.where(x <= -1.0, 0.0, jnp.where(x >= 1.0, x, (x + 1.0) ** 2 / 4))


@jit
def soft_sign(x: Any) -> Any:
  """x / (|x| + 1)."""
  (x,) = ensure_arraylike("soft_sign", x)
  return x / (jnp.abs(x) + 1)


@jit(inline=True)
def sigmoid(x: Any) -> Any:
  """1 / (1 + exp(-x))."""
  return lax.logistic(x)


@jit
def sparse_sigmoid(x: Any) -> Any:
  """The derivative of sparse_plus: clip((x + 1) / 2, 0, 1)."""
  (x,) = ensure_arraylike("sparse_sigmoid", x)
  return 0.5 * jnp.clip(x + 1.0, 0.0, 2.0)


@jit
def silu(x: Any) -> Any:
  """x * sigmoid(x)."""
  (x,) = ensure_arraylike("silu", x)
  return x * sigmoid(x)


swish = silu


@jit
def mish(x: Any) -> Any:
  """x * tanh(softplus(x))."""
  (x,) = ensure_arraylike("mish", x)
  return x * jnp.tanh(softplus(x))


@jit
def log_sigmoid(x: Any) -> Any:
  """log(sigmoid(x)) = -softplus(-x)."""
  (x,) = ensure_arraylike("log_sigmoid", x)
  return -softplus(-x)


@jit
def elu(x: Any, alpha: Any = 1.0) -> Any:
  """x for x > 0, alpha * (exp(x) - 1) otherwise."""
  (x,) = ensure_arraylike("elu", x)
  positive = jnp.greater(x, 0)
  return jnp.where(positive, x, alpha * jnp.expm1(jnp.where(positive, 0.0, x)))


@jit
def leaky_relu(x: Any, negative_slope: Any = 1e-2) -> Any:
  """x for x >= 0, negative_slope * x otherwise."""
  (x,) = ensure_arraylike("leaky_relu", x)
  return jnp.where(jnp.greater_equal(x, 0), x, negative_slope * x)


@jit
def hard_tanh(x: Any) -> Any:
  """x clipped to [-1, 1]."""
  (x,) = ensure_arraylike("hard_tanh", x)
  return jnp.where(x > 1, 1, jnp.where(x < -1, -1, x))


@jit
def celu(x: Any, alpha: Any = 1.0) -> Any:
  """max(x, 0) + alpha * (exp(min(x, 0) / alpha) - 1)."""
  return jnp.maximum(x, 0.0) + alpha * jnp.expm1(jnp.minimum(x, 0.0) / alpha)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


@jit
def selu(x: Any) -> Any:
  """scale * elu(x, alpha) with the self-normalizing constants."""
  return _SELU_SCALE * elu(x, _SELU_ALPHA)


def gelu(x: Any, approximate: bool = True) -> Any:
  """x * Phi(x) (Phi the standard normal CDF); its tanh approximation by default."""
  (x,) = promote_args_inexact("gelu", x)
  dt = dtype_of(x)
  if approximate:
    inner = np.sqrt(2 / np.pi).astype(dt) * (x + 0.044715 * (x ** 3))
    return x * (0.5 * (1.0 + jnp.tanh(inner)))
  return jnp.asarray(0.5 * x * lax.erfc(-x * np.sqrt(0.5).astype(dt)), dtype=dt)


@jit(static_argnames=("axis",))
def glu(x: Any, axis: int = -1) -> Any:
  """The first half of `x` along `axis` gated by the sigmoid of the second half."""
  (x,) = ensure_arraylike("glu", x)
  axis = canonicalize_axis(axis, len(shape(x)))
  size = shape(x)[axis]
  if size % 2:
    raise AssertionError(f"glu: axis size must be divisible by 2, got shape {shape(x)} "
                         f"and axis {axis}")
  half = size // 2
  return lax.slice_in_dim(x, 0, half, axis=axis) * sigmoid(
      lax.slice_in_dim(x, half, size, axis=axis))


@jit
def hard_sigmoid(x: Any) -> Any:
  """relu6(x + 3) / 6."""
  return relu6(x + 3.0) / 6.0


@jit
def hard_silu(x: Any) -> Any:
  """x * hard_sigmoid(x)."""
  (x,) = ensure_arraylike("hard_silu", x)
  return x * hard_sigmoid(x)


hard_swish = hard_silu
tanh = jnp.tanh


@custom_jvp
@jit
def log1mexp(x: Any) -> Any:
  """log(1 - exp(-x)), computed stably (x >= 0)."""
  (x,) = ensure_arraylike("log1mexp", x)
  return jnp.where(x < np.log(2.0), jnp.log(-jnp.expm1(-x)), jnp.log1p(-jnp.exp(-x)))


log1mexp.defjvps(lambda g, ans, x: g / jnp.expm1(x))


# Normalizations and reductions.

def logsumexp(a: Any, axis: Axis = None, b: Any = None, keepdims: bool = False,
              return_sign: bool = False, where: Any = None) -> Any:
  """log(sum(b * exp(a))) over `axis`, computed stably; with its sign if `return_sign`.

  For a complex sum the result is its complex log, unless `return_sign` asks for log|sum|
  and the phase sum/|sum| separately."""
  a = _masked(a, where, 0)
  if b is None:
    (a,) = promote_args_inexact("logsumexp", a)
  else:
    a, b = promote_args_inexact("logsumexp", a, b)
    a = jnp.where(jnp.not_equal(b, 0), a, -np.inf)
  amax = _max(jnp.real(a), axis, where)
  amax = lax.stop_gradient(jnp.where(jnp.isfinite(amax), amax, jnp.zeros_like(amax)))
  exp_a = jnp.exp(a - amax)
  if b is not None:
    exp_a = exp_a * b
  sumexp = _sum(exp_a, axis, where)
  sign = jnp.sign(sumexp)
  complex_out = dtypes.kind(dtype_of(sumexp)) == "c"
  if return_sign or not complex_out:
    sumexp = jnp.abs(sumexp)
  out = jnp.log(sumexp) + jnp.asarray(amax, dtype_of(sumexp))
  if not keepdims:
    out, sign = (jnp.squeeze(v, _axes(a, axis)) for v in (out, sign))
  if return_sign:
    return out, sign
  if b is not None and not complex_out:
    out = jnp.where(jnp.less(sign, 0), np.nan, out)
  return out


@jit(static_argnames=("axis", "keepdims"))
def logmeanexp(x: Any, axis: Axis = None, where: Any = None, keepdims: bool = False) -> Any:
  """logsumexp(x) - log(n), n the number of elements reduced."""
  lse = logsumexp(x, axis=axis, where=where, keepdims=keepdims)
  return lse - jnp.log(_count(x, axis, where, keepdims, dtype_of(lse)))


@jit(static_argnames=("axis",))
def log_softmax(x: Any, axis: Axis = -1, where: Any = None) -> Any:
  """x - logsumexp(x) along `axis`; -inf where `where` is False."""
  (x,) = ensure_arraylike("log_softmax", x)
  shifted = _masked(x, where, -np.inf) - lax.stop_gradient(_max(x, axis, where))
  result = shifted - jnp.log(_sum(jnp.exp(shifted), axis, where))
  return _masked(result, where, -np.inf)


def softmax(x: Any, axis: Axis = -1, where: Any = None) -> Any:
  """exp(x) / sum(exp(x)) along `axis`; 0 where `where` is False."""
  (x,) = ensure_arraylike("softmax", x)
  if config.softmax_custom_jvp:
    return _softmax(x, axis, where)
  return _softmax_impl(x, axis, where, shift=lax.stop_gradient)


def _softmax_impl(x: Any, axis: Axis, where: Any, shift: Any = lambda m: m) -> Any:
  """`shift` of the maximum: the custom JVP needs no gradient through it, the chain rule none
  either (JAX's `jax_softmax_custom_jvp=False` differentiates with the maximum constant)."""
  unnormalized = jnp.exp(_masked(x, where, -np.inf) - shift(_max(x, axis, where)))
  result = unnormalized / _sum(unnormalized, axis, where)
  return _masked(result, where, 0)


_softmax = custom_jvp(_softmax_impl, nondiff_argnums=(1,))


@_softmax.defjvp
def _softmax_jvp(axis: Axis, primals: tuple, tangents: tuple) -> tuple:
  """The derivative y * (x_dot - sum(y * x_dot)), cheaper and stabler than the chain rule."""
  (x, where), (x_dot, _) = primals, tangents
  y = _softmax(x, axis, where)
  return y, y * (x_dot - _sum(y * x_dot, axis, where))


@jit(static_argnames=("axis", "algorithm"))
def standardize(x: Any, axis: Axis = -1, mean: Any = None, variance: Any = None,
                epsilon: Any = 1e-5, where: Any = None, *, algorithm: str = "fast") -> Any:
  """(x - mean) / sqrt(variance + epsilon), the moments over `axis` unless given."""
  (x,) = ensure_arraylike("standardize", x)
  if mean is None:
    mean = _mean(x, axis, where)
  if variance is None:
    if algorithm == "stable":
      variance = _mean(jnp.square(x - mean), axis, where)
    elif algorithm == "fast":
      variance = jnp.clip(_mean(jnp.square(x), axis, where) - jnp.square(mean), 0)
    else:
      raise ValueError(f"Unknown algorithm '{algorithm}'. Expected 'fast' or 'stable'.")
  return (x - mean) * lax.rsqrt(variance + epsilon)


def one_hot(x: Any, num_classes: int, *, dtype: Any = None, axis: int = -1) -> Any:
  """`x`'s integers as one-hot vectors of length `num_classes` along a new `axis`."""
  if isinstance(num_classes, core.Tracer):
    raise core.ConcretizationTypeError(
        "one_hot: num_classes must be concrete, got a traced value")
  x = jnp.asarray(x)
  if dtypes.kind(dtype_of(x)) not in "iu":
    warnings.warn(f"jax.nn.one_hot input should be integer-typed; got dtype={dtype_of(x)}",
                  DeprecationWarning, stacklevel=2)
  dtype = dtypes.default_float() if dtype is None else dtypes.canonicalize(np.dtype(dtype))
  return _one_hot(x, operator.index(num_classes), dtype, axis)


@jit(static_argnames=("num_classes", "dtype", "axis"))
def _one_hot(x: Any, num_classes: int, dtype: np.dtype, axis: int) -> Any:
  out_axis = canonicalize_axis(axis, len(shape(x)) + 1)
  classes_shape = [1] * len(shape(x))
  classes_shape.insert(out_axis, num_classes)
  classes = lax.broadcasted_iota(dtype_of(x), classes_shape, out_axis)
  return jnp.asarray(jnp.equal(jnp.expand_dims(x, out_axis), classes), dtype=dtype)


# Attention.

def _large_negative(dtype: np.dtype) -> np.ndarray:
  dtype_max = min(float(dtypes.finfo(dtype).max), float(np.finfo(np.float32).max))
  return np.asarray(-0.7 * dtype_max, dtype)


def _attention_mask(logits_shape: tuple[int, ...], mask: Any, is_causal: bool,
                    q_seqlen: Any, kv_seqlen: Any,
                    local_window_size: tuple[int, int] | None) -> Any:
  """The combined boolean mask over B N T S logits, or None when nothing is masked."""
  batch, _, t, s = logits_shape
  masks = [] if mask is None else [mask]
  query_pos = lax.broadcasted_iota(np.int32, (t, s), 0)
  key_pos = lax.broadcasted_iota(np.int32, (t, s), 1)
  if is_causal:
    masks.append(jnp.greater_equal(query_pos, key_pos))
  if local_window_size is not None:
    left, right = local_window_size
    masks.append(jnp.logical_and(jnp.greater_equal(query_pos, key_pos - right),
                                 jnp.less_equal(query_pos, key_pos + left)))
  if q_seqlen is not None:
    masks.append(jnp.less(query_pos, jnp.reshape(q_seqlen, (batch, 1, 1, 1))))
  if kv_seqlen is not None:
    masks.append(jnp.less(key_pos, jnp.reshape(kv_seqlen, (batch, 1, 1, 1))))
  return functools.reduce(jnp.logical_and, masks) if masks else None


def _attention_core(query: Any, key: Any, value: Any, bias: Any, mask: Any, is_causal: bool,
                    scale: float, q_seqlen: Any, kv_seqlen: Any,
                    local_window_size: tuple[int, int] | None) -> tuple[Any, Any]:
  """Multi-head attention with as many query heads as key/value heads (B T N H layouts), and
  the logsumexp of the logits (B T N)."""
  logits_dtype = dtypes.lattice_join((dtype_of(query), False), (np.dtype(np.float32), False))[0]
  logits = jnp.einsum("btnh,bsnh->bnts", jnp.asarray(query, dtype=logits_dtype),
                      jnp.asarray(key, dtype=logits_dtype))
  logits = logits * np.asarray(scale, logits_dtype)
  if bias is not None:
    logits = jnp.asarray(logits + bias, dtype=logits_dtype)
  combined = _attention_mask(shape(logits), mask, is_causal, q_seqlen, kv_seqlen,
                             local_window_size)
  if combined is not None:
    logits = jnp.where(combined, logits, _large_negative(logits_dtype))
  logits = jnp.asarray(logits, dtype=np.float32)
  probs = jnp.asarray(softmax(logits, axis=-1), dtype=dtype_of(key))
  encoded = jnp.einsum("bnts,bsnh->btnh", probs, value)
  if q_seqlen is not None:
    valid = jnp.less(lax.broadcasted_iota(np.int32, shape(encoded)[:2], 1),
                     jnp.reshape(q_seqlen, (-1, 1)))
    encoded = encoded * jnp.asarray(valid, dtype=dtype_of(encoded))[:, :, None, None]
  residual = jnp.asarray(logsumexp(logits, axis=-1), dtype=dtype_of(key))
  return encoded, lax.stop_gradient(jnp.transpose(residual, (0, 2, 1)))


def _ensure_4d(t: Any) -> Any:
  t = jnp.asarray(t)
  return jnp.reshape(t, (1,) * (4 - len(shape(t))) + shape(t))


def _check_attention_operand(t: Any, expected: Sequence[int], dtype: Any, name: str) -> None:
  if t is None:
    return
  if len(shape(t)) != len(expected):
    raise ValueError(f"{name} ndim should be {len(expected)}, but got {len(shape(t))}")
  if dtype is not None and dtype_of(t) != dtype:
    raise ValueError(f"{name} dtype should be {dtype}, but got {dtype_of(t)}")
  if any(e != -1 and d != e for d, e in zip(shape(t), expected)):
    raise ValueError(f"{name} shape should be {list(expected)}: but got {shape(t)}")


def _grouped(t: Any, kv_heads: int, groups: int) -> Any:
  """A B N T S bias or mask as B K G T S (N = K * G heads, or one head broadcast)."""
  if t is None:
    return None
  tb, tn, tt, ts = shape(t)
  if tn == 1:
    return jnp.broadcast_to(t[:, :, None], (tb, 1, groups, tt, ts))
  return jnp.reshape(t, (tb, kv_heads, groups, tt, ts))


def dot_product_attention(query: Any, key: Any, value: Any, bias: Any = None, mask: Any = None,
                          *, scale: float | None = None, is_causal: bool = False,
                          query_seq_lengths: Any = None, key_value_seq_lengths: Any = None,
                          local_window_size: int | tuple[int, int] | None = None,
                          implementation: str | None = None,
                          return_residual: bool = False) -> Any:
  """softmax(query . key * scale + bias, masked) . value, over B T N H layouts (XLA path);
  with the logsumexp of the logits per query and head if `return_residual`."""
  if implementation not in (None, "xla"):
    raise ValueError(f"Unsupported implementation option: {implementation}")
  output_shape = shape(jnp.asarray(query))
  query, key, value = map(_ensure_4d, (query, key, value))
  bias = None if bias is None else _ensure_4d(bias)
  mask = None if mask is None else _ensure_4d(mask)
  q_seqlen = None if query_seq_lengths is None else jnp.asarray(query_seq_lengths)
  kv_seqlen = None if key_value_seq_lengths is None else jnp.asarray(key_value_seq_lengths)
  if isinstance(local_window_size, int):
    local_window_size = (local_window_size, local_window_size)
  b, s, k, h = shape(key)
  _check_attention_operand(value, [b, s, k, h], dtype_of(key), "value")
  _check_attention_operand(query, [b, -1, -1, h], dtype_of(key), "query")
  _check_attention_operand(mask, [-1] * 4, np.dtype(bool), "mask")
  _check_attention_operand(bias, [-1] * 4, None, "bias")
  _check_attention_operand(q_seqlen, [b], np.dtype(np.int32), "query_seq_lengths")
  _check_attention_operand(kv_seqlen, [b], np.dtype(np.int32), "key_value_seq_lengths")
  _, t, n, _ = shape(query)
  if n % k:
    raise ValueError(f"The number of query heads must be a multiple of key/value heads, "
                     f"but got {n} vs {k}")
  scale = 1.0 / np.sqrt(h) if scale is None else scale
  groups = n // k

  def per_group(q, bias_g, mask_g):
    return _attention_core(q, key, value, bias_g, mask_g, is_causal, scale, q_seqlen, kv_seqlen,
                           local_window_size)
  in_axes = (3, None if bias is None else 2, None if mask is None else 2)
  encoded, residual = vmap(per_group, in_axes=in_axes, out_axes=3)(
      jnp.reshape(query, (b, t, k, groups, h)), _grouped(bias, k, groups),
      _grouped(mask, k, groups))
  encoded = jnp.reshape(encoded, output_shape)
  if return_residual:
    return encoded, jnp.reshape(residual, output_shape[:-1])
  return encoded
