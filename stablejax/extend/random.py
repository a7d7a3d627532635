"""`jax.extend.random`: the threefry-2x32 hash behind stablejax's PRNG (JAX's
`threefry_2x32`). JAX's PRNG-implementation objects (`define_prng_impl`, `seed_with_impl`, ...)
are absent: stablejax names its one implementation by a string."""
from __future__ import annotations

from typing import Any

import numpy as np

from stablejax import core, lax
from stablejax.lax import random as lax_random

__all__ = ["threefry_2x32"]


def threefry_2x32(keypair: tuple[Any, Any], count: Any) -> Any:
  """The threefry-2x32 hash of the uint32 array `count` (of any shape, read as consecutive
  pairs of words, padded with a zero if odd) under the key `keypair` (two uint32 scalars)."""
  key1, key2 = keypair
  for name, x in (("key1", key1), ("key2", key2), ("count", count)):
    if core.get_aval(x).dtype != np.uint32:
      raise TypeError(f"threefry_2x32: {name} must be uint32, got "
                      f"{core.get_aval(x).str_short()}")
  shape = core.get_aval(count).shape
  flat = lax.reshape(count, (int(np.prod(shape)),))
  odd = flat.shape[0] % 2
  if odd:
    flat = lax.concatenate([flat, np.zeros((1,), np.uint32)], 0)
  half = flat.shape[0] // 2
  x1, x2 = lax_random.threefry2x32(key1, key2, lax.slice(flat, (0,), (half,)),
                                   lax.slice(flat, (half,), (2 * half,)))
  out = lax.concatenate([x1, x2], 0)
  return lax.reshape(out[:-1] if odd else out, shape)
