"""stablejax.random: JAX's default PRNG (threefry-2x32, in JAX's default "partitionable" mode),
bit for bit, written with lax ops so that it stages, transforms and lowers like any program.

Keys are typed key arrays of dtype `key<fry>` (`key`, `wrap_key_data`; `key_data` gives their
uint32[..., 2] data), or JAX's legacy raw keys, uint32[2] arrays (`PRNGKey`): every function
takes both, and `split` and `fold_in` return keys of the kind they are given. Each sampler
computes what JAX's computes, op for op. The
threefry hash, uniform and normal bits and the gamma primitive (`random_gamma_p`) live in
`stablejax.lax.random`; `multivariate_normal` and `orthogonal` use `stablejax.numpy.linalg`.
"""
from __future__ import annotations

import math
import operator
import warnings
from typing import Any, Callable, Sequence

import numpy as np

from stablejax import core, dtypes, lax
from stablejax import numpy as jnp
from stablejax.config import config
from stablejax.jit import jit
from stablejax.lax import random as lax_random
from stablejax.lax.primitive_kit import const_like
from stablejax.lax.sharding import apply_out_sharding
from stablejax.numpy._promotion import broadcast_shapes, ensure_arraylike, promote_dtypes_inexact
from stablejax.errors import InconclusiveDimensionOperation
from stablejax.shape_poly import canonicalize_dim, is_constant_shape, is_symbolic_dim

ArrayLike = Any
Array = Any
DTypeLike = Any
Shape = Sequence[int]

__all__ = [
    "PRNGKey", "ball", "bernoulli", "beta", "binomial", "bits", "categorical", "cauchy",
    "chisquare", "choice", "clone", "dirichlet", "double_sided_maxwell", "exponential", "f",
    "fold_in", "gamma", "generalized_normal", "geometric", "gumbel", "key", "key_data",
    "key_dtype", "key_impl", "laplace", "loggamma", "logistic", "lognormal", "maxwell",
    "multinomial", "multivariate_normal", "normal", "orthogonal", "pareto", "permutation",
    "poisson", "rademacher", "randint",
    "random_bits", "random_gamma_p", "rayleigh", "shuffle", "split", "t", "triangular",
    "truncated_normal", "uniform", "wald", "weibull_min", "wrap_key_data",
]

# ----------------------------------------------------------------------------------------------
# Keys

def _check_typed_key(name: str, key: Array) -> Array:
  """A typed key array, checked to be one key."""
  if key.ndim:
    raise ValueError(f"{name} accepts a single key, but was given a key array of shape "
                     f"{key.shape} != (). Use jax.vmap for batching.")
  return key


def _check_key(name: str, key: ArrayLike) -> Array:
  """`key` as a raw key (a typed key's data), checked to be one uint32[2] key."""
  if lax_random.is_key(key):
    return lax_random.random_unwrap_p.bind(_check_typed_key(name, key))
  if not isinstance(key, core.Tracer):
    key = jnp.asarray(key)
  aval = core.get_aval(key)
  if aval.dtype != np.uint32 or aval.shape[-1:] != (2,):
    raise TypeError(f"{name}: expected a PRNG key, a uint32 array of shape (2,) (from "
                    f"PRNGKey, split or fold_in), got {aval.str_short()}")
  _check_legacy_key_allowed()
  if aval.ndim > 1:
    raise ValueError(f"{name} accepts a single key, but was given a key array of shape "
                     f"{aval.shape[:-1]} != (). Use jax.vmap for batching.")
  return key


_LEGACY_KEY_MESSAGE = ("Legacy uint32 key array passed as key to jax.random function. Please "
                       "create keys using jax.random.key(). If use of a raw key array was "
                       "intended, set jax_legacy_prng_key=\"allow\".")


def _check_legacy_key_allowed() -> None:
  """A raw uint32 key was given: `jax_legacy_prng_key` says whether to warn or raise."""
  if config.legacy_prng_key == "error":
    raise ValueError(_LEGACY_KEY_MESSAGE)
  if config.legacy_prng_key == "warn":
    warnings.warn(_LEGACY_KEY_MESSAGE, stacklevel=4)


def _canonical_shape(name: str, shape: Shape) -> tuple[int, ...]:
  try:
    return tuple(canonicalize_dim(d) for d in (shape if isinstance(shape, Sequence) else [shape]))
  except TypeError:
    raise TypeError(f"{name}: shape must be a tuple of integers, got {shape!r}") from None


@jit
def _seed(seed: Array) -> Array:
  thirty_two = np.array(32, core.get_aval(seed).dtype)
  hi = lax.convert_element_type(lax.shift_right_logical(seed, thirty_two), np.uint32)
  return jnp.stack([hi, lax.convert_element_type(seed, np.uint32)])


def PRNGKey(seed: int | ArrayLike) -> Array:  # noqa: N802  (JAX's name)
  """A legacy PRNG key, uint32[2]: the high and low 32 bits of the integer `seed`."""
  if isinstance(seed, int) and not isinstance(seed, bool):
    # as JAX: a Python int is taken as 64 bits, then canonicalized (wrapping without x64)
    seed = np.int64(seed).astype(dtypes.canonicalize(np.int64))
  if not isinstance(seed, core.Tracer):
    seed = jnp.asarray(seed)
  aval = core.get_aval(seed)
  if aval.ndim:
    raise TypeError(f"PRNGKey accepts a scalar seed, but was given an array of shape "
                    f"{aval.shape} != (). Use jax.vmap for batching")
  if aval.dtype.kind not in "iu":
    raise TypeError(f"PRNG key seed must be an integer; got {aval.str_short()}")
  return _seed(seed)


def _check_impl(impl: Any) -> str:
  """The key dtype's tag of `impl` (None: `jax_default_prng_impl`)."""
  impl = config.default_prng_impl if impl is None else impl
  if impl != "threefry2x32":
    raise ValueError(f"unrecognized PRNG implementation {impl!r}: stablejax has 'threefry2x32'")
  return "fry"


def key(seed: int | ArrayLike, *, impl: Any = None) -> Array:
  """A typed PRNG key (dtype `key<fry>`) from an integer seed."""
  tag = _check_impl(impl)
  if isinstance(seed, int) and not isinstance(seed, bool):
    seed = np.int64(seed).astype(dtypes.canonicalize(np.int64))
  seed = seed if isinstance(seed, core.Tracer) else jnp.asarray(seed)
  if seed.ndim:
    raise TypeError(f"key accepts a scalar seed, but was given an array of shape "
                    f"{seed.shape} != (). Use jax.vmap for batching")
  return lax_random.random_seed_p.bind(seed, impl=tag)


def key_data(keys: ArrayLike) -> Array:
  """The uint32[..., 2] data of typed keys (raw keys are returned as they are)."""
  if lax_random.is_key(keys):
    return lax_random.random_unwrap_p.bind(keys)
  return keys


def wrap_key_data(key_bits_array: ArrayLike, *, impl: Any = None) -> Array:
  """Typed keys from their uint32[..., 2] data."""
  tag = _check_impl(impl)
  if lax_random.is_key(key_bits_array):
    raise TypeError("wrap_key_data: key_bits_array is already a typed key array; expected "
                    "uint32 data")
  data = key_bits_array if isinstance(key_bits_array, core.Tracer) else jnp.asarray(
      key_bits_array)
  return lax_random.random_wrap_p.bind(data, impl=tag)


def key_impl(keys: ArrayLike) -> str:
  """The name of the keys' PRNG implementation: always "threefry2x32" here."""
  if lax_random.is_key(keys):
    return keys.dtype.impl
  keys = jnp.asarray(keys) if not isinstance(keys, core.Tracer) else keys
  aval = core.get_aval(keys)
  if aval.dtype != np.uint32 or aval.shape[-1:] != (2,):
    raise TypeError(f"key_impl: expected PRNG keys, uint32 arrays of shape (..., 2), got "
                    f"{aval.str_short()}")
  return "threefry2x32"


def key_dtype(impl_spec: Any = None) -> Any:
  """The dtype of typed PRNG keys: not implemented (keys are raw uint32[2] arrays here)."""
  raise NotImplementedError("key_dtype: typed PRNG key arrays are not implemented in stablejax; "
                            "keys are legacy uint32[2] arrays (PRNGKey, split, fold_in)")


def clone(key: ArrayLike) -> Array:
  """A copy of `key` (the identity: raw keys are values, never consumed)."""
  return key


_split = jit(lax_random.split, static_argnums=1)


def split(key: ArrayLike, num: int | tuple[int, ...] = 2) -> Array:
  """`num` new keys (a shape when a tuple), stacked on a leading axis."""
  if lax_random.is_key(key):
    return lax_random.random_split_p.bind(_check_typed_key("split", key),
                                          shape=_canonical_shape("split", num))
  return _split(_check_key("split", key), _canonical_shape("split", num))


_fold_in = jit(lax_random.fold_in)


def fold_in(key: ArrayLike, data: ArrayLike) -> Array:
  """A new key, a function of `key` and the 32-bit integer `data`."""
  typed = lax_random.is_key(key)
  key = _check_typed_key("fold_in", key) if typed else _check_key("fold_in", key)
  if np.ndim(data):
    raise TypeError(f"fold_in accepts a scalar, but was given an array of shape "
                    f"{np.shape(data)} != (). Use jax.vmap for batching.")
  if typed:  # (a concrete `data` a numpy scalar: a literal of the jaxpr, as JAX's)
    data = (lax.convert_element_type(data, np.uint32) if isinstance(data, core.Tracer)
            else np.asarray(data).astype(np.uint32))
    return lax_random.random_fold_in_p.bind(key, data)
  return _fold_in(key, jnp.asarray(data, dtype=np.uint32))


# ----------------------------------------------------------------------------------------------
# Bits

_random_bits = jit(lax_random.random_bits, static_argnums=(1, 2))


def bits(key: ArrayLike, shape: Shape = (), dtype: DTypeLike | None = None) -> Array:
  """Uniform random bits: unsigned integers of `dtype` (uint32, or uint64 with x64)."""
  typed = lax_random.is_key(key)
  key = _check_typed_key("bits", key) if typed else _check_key("bits", key)
  dtype = dtypes.canonicalize(np.uint64 if dtype is None else dtype)
  if dtype.kind != "u":
    raise ValueError(f"dtype argument to `bits` must be an unsigned int dtype, got {dtype}")
  shape = _canonical_shape("bits", shape)
  if typed:
    return lax_random.random_bits_p.bind(key, bit_width=dtype.itemsize * 8, shape=shape)
  return _random_bits(key, dtype.itemsize * 8, shape)


random_bits = bits


# ----------------------------------------------------------------------------------------------
# Continuous distributions

def _float_dtype(name: str, dtype: DTypeLike | None) -> np.dtype:
  dtype = dtypes.canonicalize(dtypes.default_float() if dtype is None else dtype)
  if dtypes.kind(dtype) != "f":
    raise ValueError(f"dtype argument to `{name}` must be a float dtype, got {dtype}")
  return dtype


def _inexact_dtype(name: str, dtype: DTypeLike | None) -> np.dtype:
  dtype = dtypes.canonicalize(dtypes.default_float() if dtype is None else dtype)
  if dtypes.kind(dtype) not in "fc":
    raise ValueError(f"dtype argument to `{name}` must be a float or complex dtype, got {dtype}")
  return dtype


def _check_shape(name: str, shape: tuple[int, ...], *param_shapes: tuple[int, ...]) -> None:
  joined = broadcast_shapes(name, shape, *param_shapes) if param_shapes else shape
  if joined != shape:
    raise ValueError(f"{name} parameter shapes must be broadcast-compatible with shape "
                     f"argument, and the result of broadcasting the shapes must equal the "
                     f"shape argument, but got result {joined} for shape argument {shape}.")


_uniform = jit(lax_random.uniform, static_argnums=(3, 4))


def uniform(key: ArrayLike, shape: Shape = (), dtype: DTypeLike | None = None,
            minval: ArrayLike = 0., maxval: ArrayLike = 1.) -> Array:
  """Uniform random values in [minval, maxval)."""
  key = _check_key("uniform", key)
  dtype = _float_dtype("uniform", dtype)
  return _uniform(key, minval, maxval, _canonical_shape("uniform", shape), dtype)


@jit(static_argnums=(1, 2))
def _normal(key: Array, shape: tuple[int, ...], dtype: np.dtype) -> Array:
  """Real normals; complex ones are (re + i im) / sqrt(2), re and im real normals drawn under
  the two halves of split(key), as JAX's (so the bits match)."""
  if dtypes.kind(dtype) != "c":
    return lax_random.normal(key, shape, dtype)
  real_dtype = np.finfo(dtype).dtype
  keys = lax_random.split(key, (2,))
  re, im = (lax_random.normal(keys[i], shape, real_dtype) for i in range(2))
  return lax.div(lax.complex(re, im), np.array(np.sqrt(2), dtype))


def normal(key: ArrayLike, shape: Shape = (), dtype: DTypeLike | None = None) -> Array:
  """Standard normal random values; complex ones have independent real and imaginary parts of
  variance 1/2."""
  key = _check_key("normal", key)
  dtype = _inexact_dtype("normal", dtype)
  return _normal(key, _canonical_shape("normal", shape), dtype)


@jit(static_argnums=(3, 4))
def _truncated_normal(key: Array, lower: Array, upper: Array, shape: tuple[int, ...] | None,
                      dtype: np.dtype) -> Array:
  if shape is None:
    shape = np.broadcast_shapes(np.shape(lower), np.shape(upper))
  else:
    _check_shape("truncated_normal", shape, np.shape(lower), np.shape(upper))
  sqrt2 = np.array(np.sqrt(2), dtype)
  lower = lax.convert_element_type(lower, dtype)
  upper = lax.convert_element_type(upper, dtype)
  a = lax.erf(lax.div(lower, sqrt2))
  b = lax.erf(lax.div(upper, sqrt2))
  out = lax.mul(sqrt2, lax.erf_inv(_uniform(key, a, b, shape, dtype)))
  # clamp to the open interval (lower, upper): rounding may land on or past the bounds
  return jnp.clip(out, lax.nextafter(lax.stop_gradient(lower), np.array(np.inf, dtype)),
                  lax.nextafter(lax.stop_gradient(upper), np.array(-np.inf, dtype)))


def truncated_normal(key: ArrayLike, lower: ArrayLike, upper: ArrayLike,
                     shape: Shape | None = None, dtype: DTypeLike | None = None) -> Array:
  """Standard normal values truncated to the open interval (lower, upper)."""
  key = _check_key("truncated_normal", key)
  dtype = _float_dtype("truncated_normal", dtype)
  shape = None if shape is None else _canonical_shape("truncated_normal", shape)
  return _truncated_normal(key, lower, upper, shape, dtype)


def _sampler(name: str, transform: Callable[[Array], Array],
             minval: Callable[[np.finfo], float] = lambda finfo: 0., doc: str = "") -> Callable:
  """A sampler `name(key, shape=(), dtype=None)` applying `transform` to uniform values in
  [minval(finfo), 1)."""
  @jit(static_argnums=(1, 2))
  def sample(key: Array, shape: tuple[int, ...], dtype: np.dtype) -> Array:
    u = _uniform(key, minval(dtypes.finfo(dtype)), 1., shape, dtype)
    return transform(u)

  def fn(key: ArrayLike, shape: Shape = (), dtype: DTypeLike | None = None) -> Array:
    return sample(_check_key(name, key), _canonical_shape(name, shape), _float_dtype(name, dtype))
  fn.__name__ = fn.__qualname__ = name
  fn.__doc__ = doc
  return fn


exponential = _sampler(
    "exponential", lambda u: lax.neg(lax.log1p(lax.neg(u))),
    doc="Exponential random values (rate 1): -log(1 - u).")
laplace = _sampler(
    "laplace", lambda u: lax.mul(lax.sign(u), lax.log1p(lax.neg(lax.abs(u)))),
    minval=lambda finfo: -1. + finfo.epsneg, doc="Laplace random values (location 0, scale 1).")
logistic = _sampler(
    "logistic", lambda u: lax.sub(lax.log(u), lax.log1p(lax.neg(u))),
    minval=lambda finfo: finfo.tiny, doc="Logistic random values: log(u / (1 - u)).")
cauchy = _sampler(
    "cauchy", lambda u: lax.tan(lax.mul(const_like(u, np.pi), lax.sub(u, const_like(u, 0.5)))),
    minval=lambda finfo: finfo.eps, doc="Standard Cauchy random values: tan(pi (u - 1/2)).")


@jit(static_argnums=(1, 2, 3))
def _gumbel(key: Array, shape: tuple[int, ...], dtype: np.dtype, mode: str) -> Array:
  finfo = dtypes.finfo(dtype)
  if mode == "low":
    u = _uniform(key, finfo.tiny, 1., shape, dtype)
    return lax.neg(lax.log(lax.neg(lax.log(u))))
  u = _uniform(key, 0., 1., (2, *shape), dtype)
  high, low = u[0], u[1]
  x = jnp.where(high >= 0.5, high, high + 2 ** -float(finfo.nmant) * low + finfo.tiny)
  return lax.neg(lax.log(lax.neg(lax.log1p(lax.neg(x)))))


def gumbel(key: ArrayLike, shape: Shape = (), dtype: DTypeLike | None = None,
           mode: str | None = None) -> Array:
  """Standard Gumbel random values: -log(-log(u)) ("low"), or from 2 uniforms ("high")."""
  key = _check_key("gumbel", key)
  mode = "low" if mode is None else mode
  if mode not in ("high", "low"):
    raise ValueError(f"Must provide valid mode for gumbel got: {mode} (stablejax supports "
                     "'low' and 'high')")
  return _gumbel(key, _canonical_shape("gumbel", shape), _float_dtype("gumbel", dtype), mode)


# ----------------------------------------------------------------------------------------------
# Discrete distributions

@jit(static_argnums=(2, 3))
def _bernoulli(key: Array, p: Array, shape: tuple[int, ...], mode: str) -> Array:
  dtype = core.get_aval(p).dtype
  if mode == "low":
    return _uniform(key, 0., 1., shape, dtype) < p
  u = _uniform(key, 0., 1., (2, *shape), dtype)
  return u[1] * np.array(2. ** -dtypes.finfo(dtype).nmant, dtype) < p - u[0]


def bernoulli(key: ArrayLike, p: ArrayLike = 0.5, shape: Shape | None = None,
              mode: str = "low", *, out_sharding: Any = None) -> Array:
  """Boolean random values, True with probability `p`, laid out by `out_sharding`."""
  if mode not in ("high", "low"):
    raise ValueError(f"got mode={mode!r}, expected 'high' or 'low'")
  key = _check_key("bernoulli", key)
  p = jnp.asarray(p) if not isinstance(p, core.Tracer) else p
  dtype = core.get_aval(p).dtype
  if dtypes.kind(dtype) != "f":
    raise TypeError(f"bernoulli probability `p` must have a floating dtype, got {dtype}.")
  if shape is None:
    shape = core.get_aval(p).shape
  else:
    shape = _canonical_shape("bernoulli", shape)
    _check_shape("bernoulli", shape, core.get_aval(p).shape)
  return apply_out_sharding(_bernoulli(key, lax.convert_element_type(p, dtype), shape, mode),
                            out_sharding, "random.bernoulli")


def rademacher(key: ArrayLike, shape: Shape = (), dtype: DTypeLike | None = None) -> Array:
  """Random values -1 or +1 with equal probability."""
  dtype = dtypes.canonicalize(dtypes.default_int() if dtype is None else dtype)
  samples = bernoulli(key, 0.5, shape).astype(dtype)
  return (2 * samples - 1).astype(dtype)


def _convert_and_clip_integer(val: Array, dtype: np.dtype) -> Array:
  """`val` converted to the integer `dtype`, clipped to its range rather than wrapped."""
  val_dtype = core.get_aval(val).dtype
  lo = max(np.iinfo(dtype).min, np.iinfo(val_dtype).min)
  hi = min(np.iinfo(dtype).max, np.iinfo(val_dtype).max)
  return jnp.clip(val, np.array(lo, val_dtype), np.array(hi, val_dtype)).astype(dtype)


@jit(static_argnums=(3, 4))
def _randint(key: Array, minval: Array, maxval: Array, shape: tuple[int, ...],
             dtype: np.dtype) -> Array:
  """Two draws of nbits make a 2*nbits-bit value, reduced modulo the span (JAX's scheme)."""
  _check_shape("randint", shape, np.shape(minval), np.shape(maxval))
  minval, maxval = jnp.asarray(minval), jnp.asarray(maxval)
  minval, maxval = (v if v.dtype.kind in "iu" else v.astype(dtypes.default_int())
                    for v in (minval, maxval))
  maxval_out_of_range = lax.gt(maxval, _convert_and_clip_integer(
      jnp.asarray(np.iinfo(dtype).max, dtype), maxval.dtype))
  minval = lax.broadcast_to_rank(_convert_and_clip_integer(minval, dtype), len(shape))
  maxval = lax.broadcast_to_rank(_convert_and_clip_integer(maxval, dtype), len(shape))
  nbits = np.iinfo(dtype).bits
  keys = _split(key, (2,))
  k1, k2 = keys[0], keys[1]
  higher_bits, lower_bits = _random_bits(k1, nbits, shape), _random_bits(k2, nbits, shape)
  unsigned = lax_random.UINT_DTYPES[nbits]
  span = lax.convert_element_type(maxval - minval, unsigned)
  span = jnp.where(maxval <= minval, np.array(1, unsigned), span)  # maxval <= minval: minval
  span = jnp.where(maxval_out_of_range & (maxval > minval), span + np.array(1, unsigned), span)
  multiplier = lax.rem(np.array(2 ** (nbits // 2), unsigned), span)
  multiplier = lax.rem(lax.mul(multiplier, multiplier), span)
  offset = lax.add(lax.mul(lax.rem(higher_bits, span), multiplier), lax.rem(lower_bits, span))
  return lax.add(minval, lax.convert_element_type(lax.rem(offset, span), dtype))


def randint(key: ArrayLike, shape: Shape, minval: ArrayLike, maxval: ArrayLike,
            dtype: DTypeLike | None = None) -> Array:
  """Uniform random integers in [minval, maxval)."""
  key = _check_key("randint", key)
  dtype = dtypes.canonicalize(dtypes.default_int() if dtype is None else dtype)
  if dtype.kind not in "iu":
    raise TypeError(f"randint only accepts integer dtypes, got {dtype}")
  shape = _canonical_shape("randint", shape)
  info = np.iinfo(dtype)
  if info.bits >= 32:
    return _randint(key, minval, maxval, shape, dtype)
  # sampled in 32 bits to avoid a biased result, then converted
  int32 = np.dtype(np.int32)
  minval = jnp.clip(jnp.asarray(minval).astype(int32), int(info.min), int(info.max))
  maxval = jnp.clip(jnp.asarray(maxval).astype(int32), int(info.min), int(info.max) + 1)
  return _randint(key, minval, maxval, shape, int32).astype(dtype)


def categorical(key: ArrayLike, logits: ArrayLike, axis: int = -1, shape: Shape | None = None,
                replace: bool = True, mode: str | None = None) -> Array:
  """Samples from categorical distributions given by unnormalized log probabilities, by the
  Gumbel max trick (with replacement only)."""
  if not replace:
    raise NotImplementedError("categorical(replace=False) is not implemented")
  key = _check_key("categorical", key)
  logits = jnp.asarray(logits) if not isinstance(logits, core.Tracer) else logits
  logits_shape = core.get_aval(logits).shape
  axis = axis % len(logits_shape) if logits_shape else axis
  batch_shape = tuple(np.delete(logits_shape, axis))
  if shape is None:
    shape = batch_shape
  else:
    shape = _canonical_shape("categorical", shape)
    _check_shape("categorical", shape, batch_shape)
  prefix = shape[:len(shape) - len(batch_shape)]
  sample_shape = list(shape[len(prefix):])
  sample_shape.insert(axis, logits_shape[axis])
  noise = gumbel(key, (*prefix, *sample_shape), core.get_aval(logits).dtype, mode)
  return jnp.argmax(noise + lax.expand_dims(logits, tuple(range(len(prefix)))),
                    axis=axis + len(prefix))


# ----------------------------------------------------------------------------------------------
# Permutations and choice (sorts by random keys, as JAX)

def _num_sort_rounds(size: int) -> int:
  """Rounds of sorting by fresh 32-bit keys that make key collisions unlikely (JAX's rule)."""
  return int(np.ceil(3 * np.log(max(1, size)) / np.log(np.iinfo(np.uint32).max)))


@jit(static_argnums=2)
def _shuffle(key: Array, x: Array, axis: int) -> Array:
  """Every 1-D slice of `x` along `axis` permuted by sorting on fresh random 32-bit keys, in
  rounds enough to make key collisions unlikely."""
  shape = core.get_aval(x).shape
  if not is_constant_shape(shape):  # (the rounds of sorting depend on the size, as JAX's do)
    raise NotImplementedError(f"shape polymorphism for `permutation` or `shuffle` for arrays of "
                              f"non-constant size: {math.prod(shape)}")
  for _ in range(_num_sort_rounds(math.prod(shape))):
    keys = _split(key, (2,))
    key, subkey = keys[0], keys[1]
    x = lax.sort_key_val(_random_bits(subkey, 32, shape), x, axis)[1]
  return x


def permutation(key: ArrayLike, x: int | ArrayLike, axis: int = 0,
                independent: bool = False) -> Array:
  """A random permutation of arange(x) for an integer x, else of x's slices along `axis`
  (of every 1-D slice separately when `independent`)."""
  key = _check_key("permutation", key)
  if is_symbolic_dim(x):
    raise InconclusiveDimensionOperation(
        f"permutation: the length {x} of the result must be a constant, not a symbolic "
        f"dimension (permute an array of that length instead)")
  if not np.ndim(x):
    if np.dtype(dtypes.dtype_of(x)).kind not in "iu":
      raise TypeError("x must be an integer or at least 1-dimensional")
    if isinstance(x, core.Tracer):
      raise core.ConcretizationTypeError(
          "permutation: an integer x must be concrete (it is the static length of the result)")
    return _shuffle(key, jnp.arange(int(x)), 0)
  x = jnp.asarray(x) if not isinstance(x, core.Tracer) else x
  ndim = core.get_aval(x).ndim
  axis = axis % ndim
  if independent or ndim == 1:
    return _shuffle(key, x, axis)
  ind = _shuffle(key, jnp.arange(core.get_aval(x).shape[axis]), 0)
  return jnp.take(x, ind, axis, unique_indices=True)


def shuffle(key: ArrayLike, x: ArrayLike, axis: int = 0) -> Array:
  """Every 1-D slice of `x` along `axis` permuted independently (JAX's deprecated shuffle)."""
  return permutation(key, x, axis, independent=True)


def choice(key: ArrayLike, a: int | ArrayLike, shape: Shape = (), replace: bool = True,
           p: ArrayLike | None = None, axis: int = 0, mode: str | None = None) -> Array:
  """A random sample of `shape` from arange(a) (integer a) or from a's slices along `axis`, with
  or without replacement, uniform or with probabilities `p`."""
  key = _check_key("choice", key)
  if not isinstance(shape, Sequence):
    raise TypeError(f"shape argument of jax.random.choice must be a sequence, got {shape}")
  shape = _canonical_shape("choice", shape)
  arr = jnp.asarray(a) if not isinstance(a, core.Tracer) else a
  arr_shape = core.get_aval(arr).shape
  if not arr_shape:
    if isinstance(a, core.Tracer):
      raise core.ConcretizationTypeError("choice: an integer `a` must be concrete")
    n_inputs = operator.index(a)
  else:
    axis = axis % len(arr_shape)
    n_inputs = arr_shape[axis]
  n_draws = math.prod(shape)
  if n_draws == 0:
    return jnp.zeros(shape, dtype=core.get_aval(arr).dtype)
  if n_inputs <= 0:
    raise ValueError("a must be greater than 0 unless no samples are taken")
  if not replace and n_draws > n_inputs:
    raise ValueError(f"Cannot take a larger sample (size {n_draws}) than population (size "
                     f"{n_inputs}) when 'replace=False'")
  if p is None and not replace:
    result = permutation(key, n_inputs if not arr_shape else arr, axis)
    result = lax.slice_in_dim(result, 0, n_draws, axis=axis if arr_shape else 0)
  else:
    ind = _choice_indices(key, n_inputs, shape, replace, p, mode)
    result = ind if not arr_shape else jnp.take(arr, ind, axis)
  return result.reshape(shape if not arr_shape else
                        arr_shape[:axis] + shape + arr_shape[axis + 1:])


def _choice_indices(key: Array, n_inputs: int, shape: tuple[int, ...], replace: bool,
                    p: ArrayLike | None, mode: str | None) -> Array:
  """The drawn indices: uniform with replacement, or weighted by `p` (inverse CDF with
  replacement, the Gumbel top-k trick without)."""
  if p is None:
    return randint(key, shape, 0, n_inputs)
  (p,) = promote_dtypes_inexact(*ensure_arraylike("choice", p))
  if core.get_aval(p).shape != (n_inputs,):
    raise ValueError("p must be None or a 1D vector with the same size as a.shape[axis]. "
                     f"p has shape {core.get_aval(p).shape} and a.shape[axis] is {n_inputs}.")
  int_dtype = dtypes.default_int()
  if replace:
    p_cuml = jnp.cumsum(p)
    r = p_cuml[-1] * (1 - uniform(key, shape, dtype=core.get_aval(p_cuml).dtype))
    return jnp.searchsorted(p_cuml, r).astype(int_dtype)
  g = gumbel(key, (n_inputs,), core.get_aval(p).dtype, mode) + jnp.log(p)
  return lax.top_k(g, math.prod(shape))[1].astype(int_dtype)


# ----------------------------------------------------------------------------------------------
# Transforms of uniform and normal samples, with parameters

def _param_shape(name: str, shape: Shape | None, *params: ArrayLike) -> tuple[int, ...]:
  """`shape` checked against the parameters' shapes, or their broadcast shape if None."""
  param_shapes = [np.shape(p) for p in params]
  if shape is None:
    return tuple(np.broadcast_shapes(*param_shapes)) if params else ()
  shape = _canonical_shape(name, shape)
  _check_shape(name, shape, *param_shapes)
  return shape


def _check_safe_to_cast(name: str, dtype: np.dtype, *params: ArrayLike) -> None:
  """Each parameter promotes to `dtype` (JAX's rule: no silent loss of precision or kind)."""
  for p in params:
    weak = dtypes.is_python_scalar(p) or (
        not isinstance(p, (np.ndarray, np.generic)) and core.get_aval(p).weak_type)
    p_dtype = dtypes.dtype_of(p)
    if dtypes.lattice_join((p_dtype, weak), (dtype, False))[0] != dtype:
      raise ValueError(f"In arguments to {name}, cannot safely cast argument of type "
                       f"{p_dtype} to {dtype}")


def _float_params(name: str, shape: Shape | None, dtype: DTypeLike | None,
                  *params: ArrayLike) -> tuple[tuple[int, ...], np.dtype]:
  """The checked (shape, dtype) of a float sampler with parameters."""
  dtype = _float_dtype(name, dtype)
  shape = _param_shape(name, shape, *params)
  _check_safe_to_cast(name, dtype, *params)
  return shape, dtype


def _as(x: ArrayLike, dtype: np.dtype, shape: tuple[int, ...]) -> Array:
  """`x` converted to `dtype` and broadcast to `shape`."""
  return jnp.broadcast_to(lax.convert_element_type(x, dtype), shape)


@jit(static_argnums=(2, 3))
def _lognormal(key: Array, sigma: Array, shape: tuple[int, ...], dtype: np.dtype) -> Array:
  return lax.exp(lax.mul(_normal(key, shape, dtype), lax.convert_element_type(sigma, dtype)))


def lognormal(key: ArrayLike, sigma: ArrayLike = np.float32(1), shape: Shape | None = None,
              dtype: DTypeLike | None = None) -> Array:
  """Log-normal random values: exp(sigma * normal)."""
  key = _check_key("lognormal", key)
  return _lognormal(key, sigma, *_float_params("lognormal", shape, dtype, sigma))


@jit(static_argnums=(1, 2))
def _maxwell(key: Array, shape: tuple[int, ...], dtype: np.dtype) -> Array:
  x = _normal(key, (*shape, 3), dtype)
  return lax.sqrt(lax.reduce_sum(lax.mul(x, x), (len(shape),)))


def maxwell(key: ArrayLike, shape: Shape = (), dtype: DTypeLike | None = None) -> Array:
  """Maxwell random values: the norm of three standard normals."""
  key = _check_key("maxwell", key)
  return _maxwell(key, _canonical_shape("maxwell", shape), _float_dtype("maxwell", dtype))


@jit(static_argnums=(3, 4))
def _double_sided_maxwell(key: Array, loc: Array, scale: Array, shape: tuple[int, ...],
                          dtype: np.dtype) -> Array:
  params_shape = tuple(np.broadcast_shapes(np.shape(loc), np.shape(scale)))
  shape = (shape or params_shape) + params_shape  # JAX's shape rule
  keys = _split(key, (2,))
  sign = rademacher(keys[1], shape, dtype)
  return sign * _maxwell(keys[0], shape, dtype) * scale + loc


def double_sided_maxwell(key: ArrayLike, loc: ArrayLike, scale: ArrayLike, shape: Shape = (),
                         dtype: DTypeLike | None = None) -> Array:
  """Double-sided Maxwell random values: a Maxwell value of random sign, scaled and shifted.
  As in JAX, the result's shape is `shape` (or the parameters' shape) + the parameters' shape."""
  key = _check_key("double_sided_maxwell", key)
  return _double_sided_maxwell(key, loc, scale, _canonical_shape("double_sided_maxwell", shape),
                               _float_dtype("double_sided_maxwell", dtype))


@jit(static_argnums=(2, 3))
def _pareto(key: Array, b: Array, shape: tuple[int, ...], dtype: np.dtype) -> Array:
  e = exponential(key, shape, dtype)
  return lax.exp(e / lax.convert_element_type(b, dtype))


def pareto(key: ArrayLike, b: ArrayLike, shape: Shape | None = None,
           dtype: DTypeLike | None = None) -> Array:
  """Pareto random values with shape parameter b: exp(exponential / b)."""
  key = _check_key("pareto", key)
  return _pareto(key, b, *_float_params("pareto", shape, dtype, b))


@jit(static_argnums=(2, 3))
def _rayleigh(key: Array, scale: Array, shape: tuple[int, ...], dtype: np.dtype) -> Array:
  u = _uniform(key, 0., 1., shape, dtype)
  sqrt_u = lax.sqrt(lax.mul(lax.log(u), np.array(-2, dtype)))
  return lax.mul(_as(scale, dtype, shape), sqrt_u)


def rayleigh(key: ArrayLike, scale: ArrayLike, shape: Shape | None = None,
             dtype: DTypeLike | None = None) -> Array:
  """Rayleigh random values: scale * sqrt(-2 log(u))."""
  key = _check_key("rayleigh", key)
  return _rayleigh(key, scale, *_float_params("rayleigh", shape, dtype, scale))


@jit(static_argnums=(2, 3))
def _wald(key: Array, mean: Array, shape: tuple[int, ...], dtype: np.dtype) -> Array:
  keys = _split(key, (2,))
  mean = _as(mean, dtype, shape)
  y = lax.integer_pow(_normal(keys[0], shape, dtype), 2)
  z = _uniform(keys[1], 0., 1., shape, dtype)
  mean_sq = lax.integer_pow(mean, 2)
  sqrt_term = lax.sqrt(4 * mean * y + mean_sq * lax.integer_pow(y, 2))
  x = mean + mean_sq * y / 2 - mean / 2 * sqrt_term
  return jnp.where(lax.le(z, mean / (mean + x)), x, mean_sq / x)


def wald(key: ArrayLike, mean: ArrayLike, shape: Shape | None = None,
         dtype: DTypeLike | None = None) -> Array:
  """Wald (inverse Gaussian) random values of the given mean (Michael, Schucany, Haas 1976)."""
  key = _check_key("wald", key)
  return _wald(key, mean, *_float_params("wald", shape, dtype, mean))


@jit(static_argnums=(3, 4))
def _weibull_min(key: Array, scale: Array, concentration: Array, shape: tuple[int, ...],
                 dtype: np.dtype) -> Array:
  u = _uniform(key, 0., 1., shape, dtype)
  return jnp.power(-jnp.log1p(-u), 1.0 / concentration) * scale


def weibull_min(key: ArrayLike, scale: ArrayLike, concentration: ArrayLike, shape: Shape = (),
                dtype: DTypeLike | None = None) -> Array:
  """Weibull random values: scale * (-log(1 - u)) ** (1 / concentration)."""
  key = _check_key("weibull_min", key)
  return _weibull_min(key, scale, concentration, _canonical_shape("weibull_min", shape),
                      _float_dtype("weibull_min", dtype))


@jit(static_argnums=(4, 5))
def _triangular(key: Array, left: Array, mode: Array, right: Array, shape: tuple[int, ...],
                dtype: np.dtype) -> Array:
  left, mode, right = (_as(x, dtype, shape) for x in (left, mode, right))
  fc = (mode - left) / (right - left)
  u = _uniform(key, 0., 1., shape, dtype)
  out1 = left + lax.sqrt(u * (right - left) * (mode - left))
  out2 = right - lax.sqrt((1 - u) * (right - left) * (right - mode))
  return jnp.where(u < fc, out1, out2)


def triangular(key: ArrayLike, left: ArrayLike, mode: ArrayLike, right: ArrayLike,
               shape: Shape | None = None, dtype: DTypeLike | None = None) -> Array:
  """Triangular random values on [left, right] with peak at `mode`, by the inverse CDF."""
  key = _check_key("triangular", key)
  return _triangular(key, left, mode, right,
                     *_float_params("triangular", shape, dtype, left, mode, right))


@jit(static_argnums=(2, 3))
def _geometric(key: Array, p: Array, shape: tuple[int, ...], dtype: np.dtype) -> Array:
  (p,) = promote_dtypes_inexact(p)
  u = _uniform(key, 0., 1., shape, core.get_aval(p).dtype)
  log_u = lax.log(jnp.where(u == 0, 1, u))  # as JAX: u = 0 taken as 1
  log_one_minus_p = jnp.broadcast_to(lax.log1p(-p), shape)
  return (lax.floor(lax.div(log_u, log_one_minus_p)) + 1).astype(dtype)


def geometric(key: ArrayLike, p: ArrayLike, shape: Shape | None = None,
              dtype: DTypeLike | None = None) -> Array:
  """Geometric random integers (trials until the first success, each with probability p)."""
  key = _check_key("geometric", key)
  dtype = dtypes.canonicalize(dtypes.default_int() if dtype is None else dtype)
  if dtype.kind not in "iu":
    raise ValueError(f"dtype argument to `geometric` must be an int dtype, got {dtype}")
  (p,) = ensure_arraylike("geometric", p)
  return _geometric(key, p, _param_shape("geometric", shape, p), dtype)


# ----------------------------------------------------------------------------------------------
# The gamma family: JAX's rejection sampler (`random_gamma_p`), and what JAX builds on it

random_gamma_p = lax.random_gamma_p


@jit(static_argnums=(2, 3, 4))
def _gamma(key: Array, a: Array, shape: tuple[int, ...] | None, dtype: np.dtype,
           log_space: bool) -> Array:
  shape = _param_shape("gamma", shape, a)
  return random_gamma_p.bind(key, _as(a, dtype, shape), log_space=log_space)


def gamma(key: ArrayLike, a: ArrayLike, shape: Shape | None = None,
          dtype: DTypeLike | None = None) -> Array:
  """Standard gamma random values (unit scale) of shape parameter a > 0."""
  key = _check_key("gamma", key)
  shape = None if shape is None else _canonical_shape("gamma", shape)
  return _gamma(key, a, shape, _float_dtype("gamma", dtype), False)


def loggamma(key: ArrayLike, a: ArrayLike, shape: Shape | None = None,
             dtype: DTypeLike | None = None) -> Array:
  """The logs of standard gamma random values, computed in log space (accurate for small a)."""
  key = _check_key("loggamma", key)
  shape = None if shape is None else _canonical_shape("loggamma", shape)
  return _gamma(key, a, shape, _float_dtype("gamma", dtype), True)


@jit(static_argnums=(3, 4))
def _beta(key: Array, a: Array, b: Array, shape: tuple[int, ...], dtype: np.dtype) -> Array:
  keys = _split(key, (2,))
  log_gamma_a = loggamma(keys[0], _as(a, dtype, shape), shape, dtype)
  log_gamma_b = loggamma(keys[1], _as(b, dtype, shape), shape, dtype)
  log_max = lax.max(log_gamma_a, log_gamma_b)
  gamma_a_scaled = jnp.exp(log_gamma_a - log_max)
  gamma_b_scaled = jnp.exp(log_gamma_b - log_max)
  return gamma_a_scaled / (gamma_a_scaled + gamma_b_scaled)


def beta(key: ArrayLike, a: ArrayLike, b: ArrayLike, shape: Shape | None = None,
         dtype: DTypeLike | None = None) -> Array:
  """Beta(a, b) random values, from two log-gamma samples."""
  key = _check_key("beta", key)
  return _beta(key, a, b, *_float_params("beta", shape, dtype, a, b))


@jit(static_argnums=(2, 3))
def _dirichlet(key: Array, alpha: Array, shape: tuple[int, ...], dtype: np.dtype) -> Array:
  alpha = lax.convert_element_type(alpha, dtype)
  log_gamma = loggamma(key, alpha, shape + np.shape(alpha)[-1:], dtype)
  unnormalized = jnp.exp(log_gamma - lax.stop_gradient(jnp.max(log_gamma, -1, keepdims=True)))
  return unnormalized / jnp.sum(unnormalized, -1, keepdims=True)


def dirichlet(key: ArrayLike, alpha: ArrayLike, shape: Shape | None = None,
              dtype: DTypeLike | None = None) -> Array:
  """Dirichlet random values of concentrations alpha (last axis): softmax of log-gammas."""
  key = _check_key("dirichlet", key)
  if np.ndim(alpha) < 1:
    raise ValueError(f"dirichlet requires alpha.ndim >= 1, got alpha.ndim == {np.ndim(alpha)}")
  batch = np.shape(alpha)[:-1]
  shape = batch if shape is None else _param_shape("dirichlet", shape, np.zeros(batch))
  return _dirichlet(key, alpha, tuple(shape), _float_dtype("dirichlet", dtype))


@jit(static_argnums=(3, 4, 5))
def _multivariate_normal(key: Array, mean: Array, cov: Array, shape: tuple[int, ...] | None,
                         dtype: np.dtype, method: str) -> Array:
  n = np.shape(mean)[-1]
  if np.shape(cov)[-2:] != (n, n):
    raise ValueError(f"multivariate_normal requires cov.shape == (..., n, n) for n={n}, but got "
                     f"cov.shape == {np.shape(cov)}.")
  if shape is None:
    shape = np.broadcast_shapes(np.shape(mean)[:-1], np.shape(cov)[:-2])
  else:
    _check_shape("normal", shape, np.shape(mean)[:-1], np.shape(cov)[:-2])
  if method == "svd":
    u, s, _ = jnp.linalg.svd(cov)
    factor = u * jnp.sqrt(s[..., None, :])
  elif method == "eigh":
    w, v = jnp.linalg.eigh(cov)
    factor = v * jnp.sqrt(w[..., None, :])
  else:
    factor = jnp.linalg.cholesky(cov)
  samples = normal(key, shape + (n,), dtype)
  return mean + jnp.einsum("...ij,...j->...i", factor, samples)


def multivariate_normal(key: ArrayLike, mean: ArrayLike, cov: ArrayLike,
                        shape: Shape | None = None, dtype: DTypeLike | None = None,
                        method: str = "cholesky") -> Array:
  """Normal random vectors of mean `mean` (last axis) and covariance `cov`: mean + L z, z standard
  normal and L L^T = cov from the Cholesky factor (`method` 'cholesky'), the SVD U sqrt(S)
  ('svd') or the eigendecomposition V sqrt(W) ('eigh')."""
  key = _check_key("multivariate_normal", key)
  mean, cov = promote_dtypes_inexact(mean, cov)
  if method not in ("svd", "eigh", "cholesky"):
    raise ValueError("method must be one of {'svd', 'eigh', 'cholesky'}")
  if np.ndim(mean) < 1:
    raise ValueError(f"multivariate_normal requires mean.ndim >= 1, got mean.ndim == "
                     f"{np.ndim(mean)}")
  if np.ndim(cov) < 2:
    raise ValueError(f"multivariate_normal requires cov.ndim >= 2, got cov.ndim == "
                     f"{np.ndim(cov)}")
  dtype = core.get_aval(mean).dtype if dtype is None else _float_dtype("multivariate_normal",
                                                                       dtype)
  shape = None if shape is None else _canonical_shape("multivariate_normal", shape)
  return _multivariate_normal(key, mean, cov, shape, dtype, method)


@jit(static_argnums=(1, 2, 3, 4))
def _orthogonal(key: Array, n: int, m: int, shape: tuple[int, ...], dtype: np.dtype) -> Array:
  q, r = jnp.linalg.qr(normal(key, (*shape, max(n, m), min(n, m)), dtype))
  x = q * jnp.expand_dims(jnp.sign(jnp.linalg.diagonal(r)), -2)
  return jnp.matrix_transpose(x) if n < m else x


def orthogonal(key: ArrayLike, n: int, shape: Shape = (), dtype: DTypeLike | None = None,
               m: int | None = None) -> Array:
  """Haar-random (n, m) matrices (m = n by default) with orthonormal columns or rows, from the QR
  factorization of a standard normal matrix with the signs of R's diagonal moved into Q."""
  key = _check_key("orthogonal", key)
  shape = _canonical_shape("orthogonal", shape)
  dtype = _inexact_dtype("orthogonal", dtype)
  n, m = operator.index(n), operator.index(n if m is None else m)
  return _orthogonal(key, n, m, shape, dtype)


@jit(static_argnums=(2, 3))
def _chisquare(key: Array, df: Array, shape: tuple[int, ...], dtype: np.dtype) -> Array:
  two = np.array(2, dtype)
  half_df = lax.div(lax.convert_element_type(df, dtype), two)
  return lax.mul(jnp.exp(loggamma(key, half_df, shape, dtype)), two)


def chisquare(key: ArrayLike, df: ArrayLike, shape: Shape | None = None,
              dtype: DTypeLike | None = None) -> Array:
  """Chi-square random values with `df` degrees of freedom: 2 Gamma(df / 2)."""
  key = _check_key("chisquare", key)
  return _chisquare(key, df, *_float_params("chisquare", shape, dtype, df))


@jit(static_argnums=(3, 4))
def _f(key: Array, dfnum: Array, dfden: Array, shape: tuple[int, ...], dtype: np.dtype) -> Array:
  dfnum, dfden = (lax.convert_element_type(x, dtype) for x in (dfnum, dfden))
  keys = _split(key, (2,))
  num = lax.div(_chisquare(keys[1], dfnum, shape, dtype), dfnum)
  den = lax.div(_chisquare(keys[0], dfden, shape, dtype), dfden)
  return lax.div(num, den)


def f(key: ArrayLike, dfnum: ArrayLike, dfden: ArrayLike, shape: Shape | None = None,
      dtype: DTypeLike | None = None) -> Array:
  """F-distribution random values: a ratio of chi-squares over their degrees of freedom."""
  key = _check_key("f", key)
  return _f(key, dfnum, dfden, *_float_params("f", shape, dtype, dfnum, dfden))


@jit(static_argnums=(2, 3))
def _t(key: Array, df: Array, shape: tuple[int, ...], dtype: np.dtype) -> Array:
  df = lax.convert_element_type(df, dtype)
  keys = _split(key, (2,))
  n = _normal(keys[0], shape, dtype)
  half_df = lax.div(df, np.array(2, dtype))
  g = gamma(keys[1], half_df, shape, dtype)
  return n * jnp.sqrt(half_df / g)


def t(key: ArrayLike, df: ArrayLike, shape: Shape | None = None,
      dtype: DTypeLike | None = None) -> Array:
  """Student's t random values with `df` degrees of freedom."""
  key = _check_key("t", key)
  return _t(key, df, *_float_params("t", shape, dtype, df))


@jit(static_argnums=(2, 3))
def _generalized_normal(key: Array, p: Array, shape: tuple[int, ...], dtype: np.dtype) -> Array:
  keys = _split(key, (2,))
  g = gamma(keys[0], 1 / p, shape, dtype)
  r = rademacher(keys[1], shape, dtype)
  return r * g ** (1 / p)


def generalized_normal(key: ArrayLike, p: float, shape: Shape = (),
                       dtype: DTypeLike | None = None) -> Array:
  """Generalized normal random values, density proportional to exp(-|x|**p)."""
  key = _check_key("generalized_normal", key)
  return _generalized_normal(key, p, _canonical_shape("generalized_normal", shape),
                             _float_dtype("generalized_normal", dtype))


@jit(static_argnums=(2, 3, 4))
def _ball(key: Array, p: Array, d: int, shape: tuple[int, ...], dtype: np.dtype) -> Array:
  keys = _split(key, (2,))
  g = _generalized_normal(keys[0], p, (*shape, d), dtype)
  e = exponential(keys[1], shape, dtype)
  return g / (((jnp.abs(g) ** p).sum(-1) + e) ** (1 / p))[..., None]


def ball(key: ArrayLike, d: int, p: float = 2, shape: Shape = (),
         dtype: DTypeLike | None = None) -> Array:
  """Random points uniform in the unit p-norm ball of dimension d."""
  key = _check_key("ball", key)
  if isinstance(d, core.Tracer):
    raise core.ConcretizationTypeError("ball: the dimension d must be concrete (it is static)")
  return _ball(key, p, operator.index(d), _canonical_shape("ball", shape),
               _float_dtype("ball", dtype))


# ----------------------------------------------------------------------------------------------
# Poisson, binomial and multinomial: JAX's inversion and rejection loops, all elements together

@jit(static_argnums=(2, 3, 4))
def _poisson_knuth(key: Array, lam: Array, shape: tuple[int, ...], dtype: np.dtype,
                   max_iters: Any) -> Array:
  """Knuth's algorithm: multiply uniforms until the product falls below exp(-lam)."""
  def body(carry):
    i, k, rng, log_prod = carry
    keys = _split(rng, (2,))
    k = jnp.where(log_prod > -lam, k + 1, k)
    u = _uniform(keys[1], 0., 1., shape, np.dtype(np.float32))
    return i + 1, k, keys[0], log_prod + jnp.log(u)

  def cond(carry):
    return jnp.any(carry[3] > -lam) & (carry[0] < max_iters)
  k_init = lax.full_like(lam, 0, dtype, shape)
  log_prod_init = lax.full_like(lam, 0, np.float32, shape)
  k = lax.while_loop(cond, body, (0, k_init, key, log_prod_init))[1]
  return (k - 1).astype(dtype)


@jit(static_argnums=(2, 3, 4))
def _poisson_rejection(key: Array, lam: Array, shape: tuple[int, ...], dtype: np.dtype,
                       max_iters: Any) -> Array:
  """Hörmann's transformed rejection with squeeze (PTRS), for lam >= 10."""
  log_lam = lax.log(lam)
  b = 0.931 + 2.53 * lax.sqrt(lam)
  a = -0.059 + 0.02483 * b
  inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
  v_r = 0.9277 - 3.6224 / (b - 2)
  float_dtype = core.get_aval(lam).dtype

  def body(carry):
    i, k_out, accepted, rng = carry
    keys = _split(rng, (3,))
    u = _uniform(keys[1], 0., 1., shape, float_dtype) - 0.5
    v = _uniform(keys[2], 0., 1., shape, float_dtype)
    u_shifted = 0.5 - abs(u)
    k = lax.floor((2 * a / u_shifted + b) * u + lam + 0.43)
    s = lax.log(v * inv_alpha / (a / (u_shifted * u_shifted) + b))
    t = -lam + k * log_lam - lax.lgamma(k + 1)
    accept1 = (u_shifted >= 0.07) & (v <= v_r)
    reject = (k < 0) | (u_shifted < 0.013) & (v > u_shifted)
    accept = accept1 | ~reject & (s <= t)
    return i + 1, jnp.where(accept, k, k_out), accepted | accept, keys[0]

  def cond(carry):
    return jnp.any(~carry[2]) & (carry[0] < max_iters)
  k_init = lax.full_like(lam, -1, float_dtype, shape)
  accepted = lax.full_like(lam, False, np.dtype(np.bool_), shape)
  return lax.while_loop(cond, body, (0, k_init, accepted, key))[1].astype(dtype)


@jit(static_argnums=(2, 3))
def _poisson(key: Array, lam: Array, shape: tuple[int, ...], dtype: np.dtype) -> Array:
  use_knuth = (lam != lam) | (lam < 10)
  lam_knuth = jnp.where(use_knuth, lam, lax.full_like(lam, 0.0))
  lam_rejection = jnp.where(use_knuth, lax.full_like(lam, 100000.0), lam)
  max_iters = dtype.type(np.iinfo(dtype).max)
  result = jnp.where(use_knuth, _poisson_knuth(key, lam_knuth, shape, dtype, max_iters),
                     _poisson_rejection(key, lam_rejection, shape, dtype, max_iters))
  return jnp.where(lam == 0, jnp.zeros_like(result), result)


def poisson(key: ArrayLike, lam: ArrayLike, shape: Shape | None = None,
            dtype: DTypeLike | None = None) -> Array:
  """Poisson random integers of rate lam: Knuth's algorithm below 10, rejection above."""
  key = _check_key("poisson", key)
  dtype = dtypes.canonicalize(dtypes.default_int() if dtype is None else dtype)
  if dtype.kind not in "iu":
    raise ValueError(f"dtype argument to `poisson` must be an int dtype, got {dtype}")
  shape = np.shape(lam) if shape is None else _canonical_shape("poisson", shape)
  lam = lax.convert_element_type(jnp.broadcast_to(lam, shape), np.float32)
  return _poisson(key, lam, tuple(shape), dtype)


_STIRLING_TAIL = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983,
                  0.02079067210376509, 0.0166446911898211, 0.0138761288230707,
                  0.0118967099458917, 0.010411265261972, 0.00925546218271273,
                  0.00833056343336287)


def _stirling_approx_tail(k: Array) -> Array:
  """log(k!) minus Stirling's approximation: tabulated for k <= 9, a series beyond."""
  dtype = core.get_aval(k).dtype
  use_table = k <= 9
  k = lax.clamp(np.array(0., dtype), k, np.array(9., dtype))
  kp1sq = (k + 1) * (k + 1)
  approx = (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)
  table = jnp.array(_STIRLING_TAIL, dtype=dtype)
  return jnp.where(use_table, table[jnp.asarray(jnp.floor(k), dtype=np.int32)], approx)


def _binomial_inversion(key: Array, count: Array, prob: Array, shape: tuple[int, ...],
                        dtype: np.dtype, max_iters: Any) -> Array:
  """Counts geometric waiting times until they pass `count` (for count * prob <= 10)."""
  log1minusprob = jnp.log1p(-prob)
  prob_dtype = core.get_aval(prob).dtype

  def body(carry):
    i, num_geom, geom_sum, rng = carry
    keys = _split(rng, (2,))
    num_geom_out = jnp.where(geom_sum <= count, num_geom + 1, num_geom)
    u = _uniform(keys[0], 0., 1., shape, prob_dtype)
    geom = jnp.ceil(jnp.log(u) / log1minusprob)
    return i + 1, num_geom_out, geom_sum + geom, keys[1]

  def cond(carry):
    return jnp.any(carry[2] <= count) & (carry[0] < max_iters)
  init = lax.full_like(prob, 0, prob_dtype, shape)
  k = lax.while_loop(cond, body, (0, init, init, key))[1]
  return (k - 1).astype(dtype)


def _btrs(key: Array, count: Array, prob: Array, shape: tuple[int, ...], dtype: np.dtype,
          max_iters: Any) -> Array:
  """Hörmann's transformed rejection with squeeze (BTRS), for count * prob > 10."""
  stddev = jnp.sqrt(count * prob * (1 - prob))
  b = 1.15 + 2.53 * stddev
  a = -0.0873 + 0.0248 * b + 0.01 * prob
  c = count * prob + 0.5
  v_r = 0.92 - 4.2 / b
  r = prob / (1 - prob)
  alpha = (2.83 + 5.1 / b) * stddev
  m = jnp.floor((count + 1) * prob)
  prob_dtype = core.get_aval(prob).dtype

  def body(carry):
    i, k_out, accepted, rng = carry
    keys = _split(rng, (3,))
    u = _uniform(keys[1], 0., 1., shape, prob_dtype)
    v = _uniform(keys[2], 0., 1., shape, prob_dtype)
    u = u - 0.5
    us = 0.5 - jnp.abs(u)
    accept1 = (us >= 0.07) & (v <= v_r)
    k = jnp.floor((2 * a / us + b) * u + c)
    reject = (k < 0) | (k > count)
    v = jnp.log(v * alpha / (a / (us * us) + b))
    ub = ((m + 0.5) * jnp.log((m + 1) / (r * (count - m + 1)))
          + (count + 1) * jnp.log((count - m + 1) / (count - k + 1))
          + (k + 0.5) * jnp.log(r * (count - k + 1) / (k + 1))
          + _stirling_approx_tail(m) + _stirling_approx_tail(count - m)
          - _stirling_approx_tail(k) - _stirling_approx_tail(count - k))
    accept = accept1 | ~reject & (v <= ub)
    return i + 1, jnp.where(accept, k, k_out), accepted | accept, keys[0]

  def cond(carry):
    return jnp.any(~carry[2]) & (carry[0] < max_iters)
  k_init = lax.full_like(prob, -1, prob_dtype, shape)
  carry = (0, k_init, jnp.full(shape, False, bool), key)
  return lax.while_loop(cond, body, carry)[1].astype(dtype)


@jit(static_argnums=(3, 4))
def _binomial(key: Array, count: Array, prob: Array, shape: tuple[int, ...] | None,
              dtype: np.dtype) -> Array:
  shape = _param_shape("binomial", shape, count, prob)
  (prob,) = promote_dtypes_inexact(prob)
  count = jnp.broadcast_to(lax.convert_element_type(count, core.get_aval(prob).dtype), shape)
  prob = jnp.broadcast_to(prob, shape)
  p_lt_half = prob < 0.5
  q = jnp.where(p_lt_half, prob, 1.0 - prob)
  count_nan_or_neg = (count != count) | (count < 0.0)
  count_inf = jnp.isinf(count)
  q_is_nan = q != q
  q_l_0 = q < 0.0
  q = jnp.where(q_is_nan | q_l_0, lax.full_like(q, 0.01), q)
  use_inversion = count_nan_or_neg | (count * q <= 10.0)
  count = jnp.floor(count)
  count_inv = jnp.where(use_inversion, count, lax.full_like(count, 0.0))
  count_btrs = jnp.where(use_inversion, lax.full_like(count, 10000.0), count)
  q_btrs = jnp.where(use_inversion, lax.full_like(q, 0.5), q)
  max_iters = dtype.type(dtypes.finfo(dtype).max)
  samples = jnp.where(use_inversion,
                      _binomial_inversion(key, count_inv, q, shape, dtype, max_iters),
                      _btrs(key, count_btrs, q_btrs, shape, dtype, max_iters))
  invalid = q_l_0 | q_is_nan | count_nan_or_neg
  samples = jnp.where(invalid, jnp.full_like(samples, np.nan, dtype), samples)
  samples = jnp.where(count_inf & ~invalid, jnp.full_like(samples, np.inf, dtype), samples)
  return jnp.where(p_lt_half | count_nan_or_neg | q_is_nan | count_inf, samples,
                   count.astype(dtype) - samples)


def binomial(key: ArrayLike, n: ArrayLike, p: ArrayLike, shape: Shape | None = None,
             dtype: DTypeLike | None = None) -> Array:
  """Binomial random values (as floats) of n trials with success probability p."""
  key = _check_key("binomial", key)
  n, p = ensure_arraylike("binomial", n, p)
  shape = None if shape is None else _canonical_shape("binomial", shape)
  return _binomial(key, n, p, shape, _float_dtype("binomial", dtype))


@jit(static_argnums=(3, 4, 5))
def _multinomial(key: Array, n: Array, p: Array, shape: tuple[int, ...], dtype: np.dtype,
                 unroll: int | bool) -> Array:
  n = jnp.broadcast_to(n, shape[:-1])
  p = jnp.moveaxis(jnp.broadcast_to(p, shape), -1, 0)

  def draw(remainder, ratio_key):
    ratio, k = ratio_key
    count = binomial(k, remainder, ratio.clip(0, 1), dtype=core.get_aval(remainder).dtype)
    return remainder - count, count
  remaining_probs = lax.cumsum(p, 0, reverse=True)
  ratios = p / jnp.where(remaining_probs == 0, 1, remaining_probs)
  keys = _split(key, (shape[-1],))
  _, counts = lax.scan(draw, n, (ratios, keys), unroll=unroll)
  return jnp.moveaxis(counts, 0, -1).astype(dtype)


def multinomial(key: ArrayLike, n: ArrayLike, p: ArrayLike, *, shape: Shape | None = None,
                dtype: DTypeLike | None = None, unroll: int | bool = 1) -> Array:
  """Multinomial counts of n trials over the categories of p's last axis: a binomial draw per
  category from what the earlier ones left."""
  key = _check_key("multinomial", key)
  n, p = promote_dtypes_inexact(*ensure_arraylike("multinomial", n, p))
  dtype = dtypes.canonicalize(dtypes.default_float() if dtype is None else dtype)
  shape = core.get_aval(p).shape if shape is None else _canonical_shape("multinomial", shape)
  return _multinomial(key, n, p, shape, dtype, unroll)
