"""The threefry-2x32 PRNG written with lax ops (JAX's default PRNG, in its "partitionable"
mode), typed PRNG keys (`KeyTy`, the dtype `key<fry>`, and the primitives `random_seed`,
`random_wrap`, `random_unwrap`, `random_bits`, `random_split`, `random_fold_in`, as JAX's), and
`random_gamma`: JAX's Marsaglia–Tsang gamma sampler as a primitive, with its rules.

A typed key array of shape s is stored as its raw keys, uint32[*s, 2] (`core.physical_aval`); the
key primitives are lowered as the physical functions here on them. `stablejax.random` builds
every sampler on the functions here; `random_gamma` is lowered with `lower_fun(gamma_impl)` (as JAX lowers it), and
its numpy reference is the same algorithm over a numpy threefry.
"""
from __future__ import annotations

import importlib
import math
from typing import Any

import numpy as np

from stablejax import core, dtypes, lax
from stablejax.core import ShapedArray
from stablejax.interpreters import ad, batching, flops
from stablejax.lax.primitive_kit import def_reference, standard_primitive
from stablejax.shape_poly import is_constant_dim

Array = Any

__all__ = ["random_gamma_p"]  # (the key primitives are reached as `lax.random.*`, not lax's)

UINT_DTYPES = {8: np.dtype(np.uint8), 16: np.dtype(np.uint16), 32: np.dtype(np.uint32),
               64: np.dtype(np.uint64)}


# ----------------------------------------------------------------------------------------------
# The threefry-2x32 hash (Salmon et al. 2011), as JAX computes it

_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
_KEY_PARITY = np.uint32(0x1BD11BDA)


def _rotate_left(x: Array, d: Array) -> Array:
  return lax.bitwise_or(lax.shift_left(x, d),
                        lax.shift_right_logical(x, lax.sub(np.uint32(32), d)))


def _threefry_step(i: Array, state: tuple) -> tuple:
  """Four rounds, then a key injection; the key words and rotation sets rotate for the next."""
  x1, x2, ks, rotations = state
  for j in range(4):
    x1 = lax.add(x1, x2)
    x2 = lax.bitwise_xor(x1, _rotate_left(x2, rotations[0][j]))
  x1 = lax.add(x1, ks[0])
  x2 = lax.add(lax.add(x2, ks[1]), lax.convert_element_type(lax.add(i, 1), np.uint32))
  return x1, x2, (*ks[1:], ks[0]), (rotations[1], rotations[0])


def threefry2x32(k1: Array, k2: Array, x1: Any, x2: Any) -> tuple[Array, Array]:
  """The threefry-2x32 hash of the counts (x1, x2) (uint32, of one shape) under the key
  (k1, k2) (uint32 scalars): 20 rounds, a key injection every 4, in a 5-step loop (as JAX
  computes it on CPU: much faster to compile than unrolled)."""
  ks = (k1, k2, lax.bitwise_xor(lax.bitwise_xor(k1, k2), _KEY_PARITY))
  x1, x2 = lax.add(x1, ks[0]), lax.add(x2, ks[1])
  rotations = tuple(np.array(r, np.uint32) for r in _ROTATIONS)
  x1, x2, _, _ = lax.fori_loop(0, 5, _threefry_step, (x1, x2, (*ks[1:], ks[0]), rotations))
  return x1, x2


def _counts(shape: tuple[int, ...]) -> Array:
  """The low 32 bits of a 64-bit iota of `shape` (row-major); the high bits are 0."""
  size = math.prod(shape)
  if is_constant_dim(size) and size > 2 ** 32:  # (a symbolic size is checked by no one, as JAX)
    raise NotImplementedError(f"random bits for more than 2**32 values (shape {shape})")
  if not shape:
    return np.uint32(0)
  return lax.reshape(lax.iota(np.uint32, size), shape)


def hash_counts(key: Array, counts: Any) -> tuple[Array, Array]:
  """threefry2x32 of the counts (high words 0) under `key`: one raw key, or raw keys
  uint32[*k, 2] with counts of shape (*k, ...) (each key hashing its own counts)."""
  key_shape = core.get_aval(key).shape[:-1]
  if not key_shape:
    return threefry2x32(key[0], key[1], lax.full_like(counts, 0), counts)
  shape = core.get_aval(counts).shape
  words = [lax.broadcast_in_dim(lax.squeeze(lax.slice_in_dim(key, j, j + 1, axis=-1),
                                            (len(key_shape),)), shape, range(len(key_shape)))
           for j in range(2)]
  return threefry2x32(*words, lax.full_like(counts, 0), counts)


def _key_counts(key: Array, shape: tuple[int, ...]) -> Any:
  """The counts of `shape` under each of the raw keys uint32[*k, 2]: of shape (*k, *shape)."""
  key_shape = core.get_aval(key).shape[:-1]
  counts = _counts(shape)
  if not key_shape:
    return counts
  return lax.broadcast_in_dim(counts, key_shape + shape,
                              range(len(key_shape), len(key_shape) + len(shape)))


def stack_words(hi: Array, lo: Array) -> Array:
  """Two uint32 arrays of one shape as keys: stacked on a new last axis."""
  ndim = core.get_aval(hi).ndim
  return lax.concatenate([lax.expand_dims(hi, (ndim,)), lax.expand_dims(lo, (ndim,))], ndim)


def split(key: Array, shape: tuple[int, ...]) -> Array:
  """Keys of `shape` (uint32[*k, *shape, 2]) derived from each of the raw keys uint32[*k, 2]."""
  return stack_words(*hash_counts(key, _key_counts(key, shape)))


def fold_in(key: Array, data: Array) -> Array:
  """Raw keys uint32[*k, 2] folding in `data` (uint32[*k]) under each raw key."""
  return stack_words(*hash_counts(key, data))


def random_bits(key: Array, bit_width: int, shape: tuple[int, ...]) -> Array:
  """Unsigned integers of `bit_width` bits and `shape` (after the key shape k) from each of
  the raw keys uint32[*k, 2]."""
  hi, lo = hash_counts(key, _key_counts(key, shape))
  dtype = UINT_DTYPES[bit_width]
  if bit_width == 64:
    hi, lo = (lax.convert_element_type(b, dtype) for b in (hi, lo))
    return lax.bitwise_or(lax.shift_left(hi, np.array(32, dtype)), lo)
  return lax.convert_element_type(lax.bitwise_xor(hi, lo), dtype)


def uniform(key: Array, minval: Any, maxval: Any, shape: tuple[int, ...],
            dtype: np.dtype) -> Array:
  """Random mantissa bits under the exponent of 1.0 give [1, 2); minus 1, scaled and shifted."""
  minval = lax.broadcast_to_rank(lax.convert_element_type(minval, dtype), len(shape))
  maxval = lax.broadcast_to_rank(lax.convert_element_type(maxval, dtype), len(shape))
  finfo = dtypes.finfo(dtype)
  nbits, nmant = finfo.bits, finfo.nmant
  uint = UINT_DTYPES[nbits]
  rng_bits = 8 if nmant < 8 else nbits  # bfloat16 draws 8 bits (widened), as JAX
  bits = lax.convert_element_type(random_bits(key, rng_bits, shape), uint)
  float_bits = lax.bitwise_or(lax.shift_right_logical(bits, np.array(rng_bits - nmant, uint)),
                              np.array(1.0, dtype).view(uint))
  floats = lax.sub(lax.bitcast_convert_type(float_bits, dtype), np.array(1.0, dtype))
  return lax.max(minval, lax.add(lax.mul(floats, lax.sub(maxval, minval)), minval))


def normal(key: Array, shape: tuple[int, ...], dtype: np.dtype) -> Array:
  """Standard normal values: sqrt(2) erf_inv(u), u uniform in (-1, 1)."""
  lo = np.nextafter(np.array(-1., dtype), np.array(0., dtype), dtype=dtype)
  u = uniform(key, lo, np.array(1., dtype), shape, dtype)
  return lax.mul(np.array(np.sqrt(2), dtype), lax.erf_inv(u))


def seed(seeds: Array) -> Array:
  """Raw keys from integer seeds: the high and low 32 bits of each."""
  thirty_two = np.array(32, core.get_aval(seeds).dtype)
  hi = lax.convert_element_type(lax.shift_right_logical(seeds, thirty_two), np.uint32)
  return stack_words(hi, lax.convert_element_type(seeds, np.uint32))


# ----------------------------------------------------------------------------------------------
# Typed keys: the key dtype and its primitives

class KeyTy(dtypes.ExtendedDType):
  """The dtype of typed PRNG keys of one implementation (`key<fry>`: threefry2x32, the only
  one here), stored as uint32[..., 2]."""
  type = dtypes.prng_key
  physical_shape = (2,)
  physical_dtype = np.dtype(np.uint32)

  def __init__(self, impl: str = "threefry2x32", tag: str = "fry"):
    self.impl, self.tag = impl, tag
    self.name = f"key<{tag}>"

  def __eq__(self, other: Any) -> bool:
    return type(other) is KeyTy and other.impl == self.impl

  def __hash__(self) -> int:
    return hash((KeyTy, self.impl))


THREEFRY = KeyTy()
_IMPLS = {"fry": THREEFRY}


def is_key(x: Any) -> bool:
  """Whether `x` is a typed key array (a value or a tracer of a key dtype)."""
  return isinstance(getattr(x, "dtype", None), KeyTy)


def _key_aval(name: str, keys: ShapedArray) -> KeyTy:
  if not isinstance(keys.dtype, KeyTy):
    raise TypeError(f"{name} expects typed PRNG keys (from random.key), got {keys.str_short()}")
  return keys.dtype


def _seed_abstract_eval(seeds: ShapedArray, *, impl: str) -> ShapedArray:
  if dtypes.kind(seeds.dtype) not in "iu":
    raise TypeError(f"PRNG key seed must be an integer; got {seeds.str_short()}")
  return ShapedArray(seeds.shape, _IMPLS[impl])


def _wrap_abstract_eval(base: ShapedArray, *, impl: str) -> ShapedArray:
  if base.dtype != np.uint32 or base.shape[-1:] != (2,):
    raise TypeError(f"random_wrap: key data must be uint32[..., 2] for impl {impl}, got "
                    f"{base.str_short()}")
  return ShapedArray(base.shape[:-1], _IMPLS[impl])


def _unwrap_abstract_eval(keys: ShapedArray) -> ShapedArray:
  _key_aval("random_unwrap", keys)
  return core.physical_aval(keys)


def _bits_abstract_eval(keys: ShapedArray, *, bit_width: int, shape: tuple) -> ShapedArray:
  _key_aval("random_bits", keys)
  if bit_width not in UINT_DTYPES:
    raise ValueError(f"random_bits: bit_width must be 8, 16, 32 or 64, got {bit_width}")
  return ShapedArray(keys.shape + tuple(shape), UINT_DTYPES[bit_width])


def _split_abstract_eval(keys: ShapedArray, *, shape: tuple) -> ShapedArray:
  return ShapedArray(keys.shape + tuple(shape), _key_aval("random_split", keys))


def _fold_in_abstract_eval(keys: ShapedArray, msgs: ShapedArray) -> ShapedArray:
  _key_aval("random_fold_in", keys)
  if msgs.dtype != np.uint32 or msgs.shape not in ((), keys.shape):
    raise TypeError(f"random_fold_in: data must be uint32 of the keys' shape {keys.shape}, "
                    f"got {msgs.str_short()}")
  return keys


random_seed_p = standard_primitive("random_seed", _seed_abstract_eval)
random_wrap_p = standard_primitive("random_wrap", _wrap_abstract_eval)
random_unwrap_p = standard_primitive("random_unwrap", _unwrap_abstract_eval)
random_bits_p = standard_primitive("random_bits", _bits_abstract_eval)
random_split_p = standard_primitive("random_split", _split_abstract_eval)
random_fold_in_p = standard_primitive("random_fold_in", _fold_in_abstract_eval)

# The physical computation of each key primitive, on raw keys (their lowering).
physical_impls = {
    random_seed_p: lambda seeds, *, impl: seed(seeds),
    random_wrap_p: lambda base, *, impl: base,
    random_unwrap_p: lambda keys: keys,
    random_bits_p: lambda keys, *, bit_width, shape: random_bits(keys, bit_width, shape),
    random_split_p: lambda keys, *, shape: split(keys, shape),
    random_fold_in_p: lambda keys, msgs: fold_in(
        keys, msgs if core.get_aval(msgs).ndim else lax.broadcast_in_dim(
            msgs, core.get_aval(keys).shape[:-1], ())),
}


def _key_batcher(prim: core.Primitive) -> Any:
  """The batching rule of a key primitive: every operand batched at the front (the key
  primitives all map over their operands' leading shape)."""
  def rule(axis_data, args, dims, **params):
    args = [batching.bdim_at_front(x, d, axis_data.size) for x, d in zip(args, dims)]
    return prim.bind(*args, **params), 0
  return rule


def _fold_in_batcher(axis_data, args, dims):
  keys, msgs = (batching.bdim_at_front(x, d, axis_data.size) for x, d in zip(args, dims))
  shape = core.get_aval(keys).shape
  if dims[1] is not batching.not_mapped and core.get_aval(msgs).shape != shape:
    msgs = lax.broadcast_in_dim(msgs, shape, (0,))
  return random_fold_in_p.bind(keys, msgs), 0


for _prim in physical_impls:
  ad.defjvp_zero(_prim)
  batching.fancy_primitive_batchers[_prim] = _key_batcher(_prim)
  flops.flops_rules[_prim] = flops.out_size
batching.fancy_primitive_batchers[random_fold_in_p] = _fold_in_batcher


# ----------------------------------------------------------------------------------------------
# random_gamma: Gamma(a, 1) samples, one key per element (Marsaglia and Tsang 2000)

_SQUEEZE = 0.0331


def _select(pred: Array, on_true: Array, on_false: Array) -> Array:
  return lax.select_n(pred, on_false, on_true)


def _gamma_one(key: Array, alpha: Array, log_space: bool) -> Array:
  """One Gamma(alpha) sample from one key, as JAX draws it: alpha < 1 is boosted to alpha + 1
  and the sample scaled by u**(1/alpha) (added as log(u)/alpha in log space)."""
  dtype = core.get_aval(alpha).dtype
  c = lambda v: np.array(v, dtype)  # noqa: E731
  boost_mask = lax.ge(alpha, c(1))
  alpha_orig = alpha
  alpha = _select(boost_mask, alpha, lax.add(alpha, c(1)))
  d = lax.sub(alpha, c(1. / 3.))
  scale = lax.div(c(1. / 3.), lax.sqrt(d))

  def rejected(state):
    _, x, v, u = state
    return lax.bitwise_and(
        lax.ge(u, lax.sub(c(1), lax.mul(c(_SQUEEZE), lax.mul(x, x)))),
        lax.ge(lax.log(u), lax.add(lax.mul(x, c(0.5)),
                                   lax.mul(d, lax.add(lax.sub(c(1), v), lax.log(v))))))

  def next_xv(state):
    keys = split(state[0], (2,))
    x = normal(keys[1], (), dtype)
    return keys[0], x, lax.add(c(1), lax.mul(x, scale))

  def propose(state):
    keys = split(state[0], (3,))
    _, x, v = lax.while_loop(lambda s: lax.le(s[2], c(0)), next_xv, (keys[1], c(0), c(-1)))
    u = uniform(keys[2], c(0), c(1), (), dtype)
    return keys[0], lax.mul(x, x), lax.mul(lax.mul(v, v), v), u

  keys = split(key, (2,))
  _, _, v, _ = lax.while_loop(rejected, propose, (keys[0], c(0), c(1), c(2)))
  u = uniform(keys[1], c(0), c(1), (), dtype)
  if log_space:
    log_u = lax.log1p(lax.neg(u))  # -exponential(key)
    log_boost = _select(lax.bitwise_or(boost_mask, lax.eq(log_u, c(0))), c(0),
                        lax.mul(log_u, lax.div(c(1), alpha_orig)))
    return lax.add(lax.add(lax.log(d), lax.log(v)), log_boost)
  boost = _select(boost_mask, c(1), lax.pow(lax.sub(c(1), u), lax.div(c(1), alpha_orig)))
  return lax.mul(lax.mul(d, v), boost)


def gamma_impl(key: Array, a: Array, *, log_space: bool) -> Array:
  """Gamma(a) samples: each of the keys (uint32[*batch, 2]) is split into one key per element
  of the rest of a's shape; the samples are drawn together, in one vectorized loop."""
  key_batch = core.get_aval(key).shape[:-1]
  a_shape = core.get_aval(a).shape
  size = math.prod(a_shape)
  if size == 0:
    return a
  count = math.prod(a_shape[len(key_batch):])
  keys = lax.reshape(key, (math.prod(key_batch), 2))
  keys = lax.reshape(lax.map(lambda k: split(k, (count,)), keys), (size, 2))
  samples = lax.map(lambda ka: _gamma_one(ka[0], ka[1], log_space), (keys, lax.reshape(a, (size,))),
                    batch_size=size)
  return lax.reshape(samples, a_shape)


def _random_gamma_abstract_eval(key: ShapedArray, a: ShapedArray, *,
                                log_space: bool) -> ShapedArray:
  if key.dtype != np.uint32 or key.shape[-1:] != (2,):
    raise TypeError(f"random_gamma: key must be uint32[..., 2] (raw PRNG keys), got "
                    f"{key.str_short()}")
  if dtypes.kind(a.dtype) != "f":
    raise TypeError(f"random_gamma: a must have a real floating dtype, got {a.str_short()}")
  if a.shape[:key.ndim - 1] != key.shape[:-1]:
    raise ValueError(f"random_gamma: the key batch shape {key.shape[:-1]} must be a prefix "
                     f"of a's shape {a.shape}")
  return ShapedArray(a.shape, a.dtype)


def _gamma_grad(sample: Array, a: Array, log_space: bool) -> Array:
  """d sample / d a, as JAX computes it (through exp(sample), at least `tiny`, in log space)."""
  if not log_space:
    return lax.random_gamma_grad(a, sample)
  dtype = core.get_aval(sample).dtype
  samples = lax.exp(sample)
  samples = _select(lax.eq(samples, np.array(0, dtype)),
                    lax.full_like(samples, dtypes.finfo(dtype).tiny), samples)
  return lax.div(lax.random_gamma_grad(a, samples), samples)


def _random_gamma_jvp(primals, tangents, *, log_space):
  key, a = primals
  out = random_gamma_p.bind(key, a, log_space=log_space)
  if type(tangents[1]) is ad.Zero:
    return out, ad.Zero.from_primal_value(out)
  return out, lax.mul(tangents[1], _gamma_grad(out, a, log_space))


def _random_gamma_batcher(axis_data, args, dims, *, log_space):
  size = axis_data.size
  key, a = (batching.bdim_at_front(x, d, size) for x, d in zip(args, dims))
  return random_gamma_p.bind(key, a, log_space=log_space), 0


# ----------------------------------------------------------------------------------------------
# The numpy reference: the same algorithm over a numpy threefry, one element at a time

def _np_threefry(key: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
  ks = (key[0], key[1], key[0] ^ key[1] ^ _KEY_PARITY)
  x1, x2 = np.zeros_like(counts) + ks[0], counts + ks[1]
  for i in range(5):
    for r in _ROTATIONS[i % 2]:
      x1 = x1 + x2
      x2 = x1 ^ ((x2 << np.uint32(r)) | (x2 >> np.uint32(32 - r)))
    x1, x2 = x1 + ks[(i + 1) % 3], x2 + ks[(i + 2) % 3] + np.uint32(i + 1)
  return x1, x2


def _np_split(key: np.ndarray, n: int) -> np.ndarray:
  return np.stack(_np_threefry(key, np.arange(n, dtype=np.uint32)), axis=-1)


def _np_uniform(key: np.ndarray, dtype: np.dtype, lo: float = 0.) -> np.ndarray:
  finfo = dtypes.finfo(dtype)
  uint = UINT_DTYPES[finfo.bits]
  hi, low = _np_threefry(key, np.zeros((), np.uint32))
  bits = (np.uint64(hi) << np.uint64(32)) | np.uint64(low) if finfo.bits == 64 else hi ^ low
  bits = uint.type(bits) >> uint.type(finfo.bits - finfo.nmant) | np.array(1., dtype).view(uint)
  u = bits.view(dtype) - dtype.type(1)
  return max(dtype.type(lo), u * (dtype.type(1) - dtype.type(lo)) + dtype.type(lo))


def _erfinv(x: np.generic) -> np.generic:
  """scipy's erfinv, imported on first use: only this numpy reference (the test oracle of
  random_gamma) needs scipy, whose import costs more than all of stablejax's."""
  return importlib.import_module("scipy.special").erfinv(x)


def _np_gamma_one(key: np.ndarray, alpha: np.generic, log_space: bool) -> np.generic:
  dtype = alpha.dtype
  t = dtype.type
  boosted = alpha < 1
  d = (alpha + t(1) if boosted else alpha) - t(1. / 3.)
  scale = t(1. / 3.) / np.sqrt(d)
  key, sub = _np_split(key, 2)
  while True:
    key, x_key, u_key = _np_split(key, 3)
    v = t(-1)
    while v <= 0:
      x_key, normal_key = _np_split(x_key, 2)
      lo = np.nextafter(t(-1), t(0))
      x = t(np.sqrt(2)) * t(_erfinv(_np_uniform(normal_key, dtype, lo)))
      v = t(1) + x * scale
    x, v, u = x * x, v * v * v, _np_uniform(u_key, dtype)
    if not (u >= t(1) - t(_SQUEEZE) * (x * x)
            and np.log(u) >= x * t(0.5) + d * (t(1) - v + np.log(v))):
      break
  u = _np_uniform(sub, dtype)
  if log_space:
    log_u = np.log1p(-u)
    return np.log(d) + np.log(v) + (log_u * (t(1) / alpha) if boosted and log_u != 0 else t(0))
  return d * v * ((t(1) - u) ** (t(1) / alpha) if boosted else t(1))


def _random_gamma_reference(key: np.ndarray, a: np.ndarray, *, log_space: bool) -> np.ndarray:
  keys = key.reshape(-1, 2)
  count = math.prod(a.shape[key.ndim - 1:])
  keys = np.concatenate([_np_split(k, count) for k in keys]) if a.size else keys
  return np.array([_np_gamma_one(k, x, log_space) for k, x in zip(keys, a.reshape(-1))],
                  a.dtype).reshape(a.shape)


random_gamma_p = standard_primitive("random_gamma", _random_gamma_abstract_eval)
ad.primitive_jvps[random_gamma_p] = _random_gamma_jvp
batching.fancy_primitive_batchers[random_gamma_p] = _random_gamma_batcher
def_reference(random_gamma_p, _random_gamma_reference)

# ----------------------------------------------------------------------------------------------
# FLOPS (conventions: stablejax.flops)

flops.flops_rules[random_gamma_p] = flops.out_size
