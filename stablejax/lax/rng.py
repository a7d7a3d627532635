"""XLA's random number primitives: the stateless bit generator `rng_bit_generator` with the
`RandomAlgorithm` it takes, and the stateful `rng_uniform` (JAX's names and params). Lowered to
`stablehlo.rng_bit_generator` / `stablehlo.rng` in `stablejax.lowering.rules.rng`, as JAX lowers
them, so their values are XLA's (bit-identical to JAX's for the bit generator)."""
from __future__ import annotations

import enum
from typing import Any, Sequence

import numpy as np

from stablejax.core import ShapedArray
from stablejax.interpreters import ad, batching, flops
from stablejax.lax.primitive_kit import standard_primitive
from stablejax.lax.stacking import stack, unstack

__all__ = ["RandomAlgorithm", "rng_bit_generator", "rng_bit_generator_p", "rng_uniform",
           "rng_uniform_p"]

_BIT_DTYPES = {np.dtype(t) for t in (np.uint8, np.uint16, np.uint32, np.uint64)}


class RandomAlgorithm(enum.IntEnum):
  """Which PRNG algorithm rng_bit_generator uses."""
  RNG_DEFAULT = 0  # the platform's default
  RNG_THREE_FRY = 1  # threefry-2x32
  RNG_PHILOX = 2  # philox-4x32

  def __str__(self) -> str:
    return self.name


def rng_bit_generator(key: Any, shape: Sequence[int], dtype: Any = np.uint32,
                      algorithm: RandomAlgorithm = RandomAlgorithm.RNG_DEFAULT, *,
                      out_sharding: Any = None) -> tuple:
  """(the new key, random bits of `shape` and the unsigned `dtype`) from XLA's bit generator:
  `key` is uint32[4] or uint64[2]."""
  dtype = np.dtype(dtype)
  if dtype not in _BIT_DTYPES:
    raise TypeError(f"rng_bit_generator: unsupported dtype {dtype}")
  if out_sharding is not None:
    raise NotImplementedError("rng_bit_generator: out_sharding is not supported by stablejax")
  shape = tuple(int(d) for d in shape)
  return tuple(rng_bit_generator_p.bind(key, shape=shape, dtype=dtype,
                                        algorithm=RandomAlgorithm(algorithm),
                                        out_sharding=None))


def _abstract_eval(key: ShapedArray, *, shape, dtype, algorithm, out_sharding) -> list:
  if (key.shape, key.dtype) not in (((4,), np.dtype(np.uint32)), ((2,), np.dtype(np.uint64))):
    raise TypeError(f"rng_bit_generator: the key must be uint32[4] or uint64[2], got "
                    f"{key.str_short()}")
  if any(d < 0 for d in shape):
    raise TypeError(f"rng_bit_generator: shape must be non-negative, got {shape}")
  return [ShapedArray(key.shape, key.dtype, key.weak_type), ShapedArray(shape, dtype)]


def _batcher(axis_data, args, dims, **params):
  """One generator per key (as JAX: the keys' bit streams are independent)."""
  (key,), (d,) = args, dims
  keys = unstack(batching.moveaxis(key, d, 0), 0)
  outs = [rng_bit_generator_p.bind(k, **params) for k in keys]
  return [stack([o[i] for o in outs], 0) for i in range(2)], [0, 0]


rng_bit_generator_p = standard_primitive("rng_bit_generator", _abstract_eval,
                                         multiple_results=True)
ad.defjvp_zero(rng_bit_generator_p)
batching.fancy_primitive_batchers[rng_bit_generator_p] = _batcher
flops.flops_rules[rng_bit_generator_p] = flops.out_size


def rng_uniform(a: Any, b: Any, shape: Sequence[int]) -> Any:
  """Numbers uniform in [a, b) of `shape` from XLA's stateful generator (not reproducible;
  `stablejax.random` is the reproducible API)."""
  return rng_uniform_p.bind(a, b, shape=tuple(int(d) for d in shape))


def _rng_uniform_abstract_eval(a: ShapedArray, b: ShapedArray, *, shape) -> ShapedArray:
  if a.dtype != b.dtype:
    raise ValueError(f"Arguments to rng_uniform must have identical dtypes, got {a.dtype} "
                     f"and {b.dtype}.")
  if a.shape != () or b.shape != ():
    raise ValueError(f"Arguments to rng_uniform must be scalars; got shapes {a.shape} and "
                     f"{b.shape}.")
  return ShapedArray(shape, a.dtype, a.weak_type and b.weak_type)


def _rng_uniform_batcher(axis_data, args, dims, *, shape):
  """One draw per pair of bounds (the bounds are scalars)."""
  bounds = [unstack(batching.bdim_at_front(x, d, axis_data.size), 0) for x, d in zip(args, dims)]
  return stack([rng_uniform_p.bind(a, b, shape=shape) for a, b in zip(*bounds)], 0), 0


rng_uniform_p = standard_primitive("rng_uniform", _rng_uniform_abstract_eval)
ad.defjvp_zero(rng_uniform_p)
batching.fancy_primitive_batchers[rng_uniform_p] = _rng_uniform_batcher
flops.flops_rules[rng_uniform_p] = flops.out_size
