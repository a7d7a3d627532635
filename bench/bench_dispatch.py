"""Dispatch: a cached `jit` call, a call through a fresh `jit` wrapper, and an eager primitive,
beside JAX on the same input."""
from __future__ import annotations

import sys
import timeit

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from common import try_import_jax  # noqa: E402

import stablejax as sj  # noqa: E402
import stablejax.numpy as jnp  # noqa: E402


def per_call(fn, number: int = 20_000, repeat: int = 7) -> float:
  """Best-of-`repeat` seconds per call of `fn()`."""
  fn()
  return min(timeit.repeat(fn, number=number, repeat=repeat)) / number


def line(name: str, ours: float, theirs: float | None, target: str) -> None:
  if theirs is None:
    print(f"{name:<44} stablejax {ours * 1e6:8.2f} us   (jax not installed)")
  else:
    print(f"{name:<44} stablejax {ours * 1e6:8.2f} us   jax {theirs * 1e6:8.2f} us   "
          f"ratio {ours / theirs:5.2f}   target {target}")


def main() -> None:
  jax, jjnp = try_import_jax()
  x = np.arange(8, dtype=np.float32)
  f = sj.jit(lambda v: v * 2.0 + 1.0)
  xs = sj.device_put(x)
  ours_jit = per_call(lambda: f(xs))
  ours_fresh = per_call(lambda: sj.jit(affine)(xs), number=2_000)
  ours_eager = per_call(lambda: jnp.sin(xs))
  theirs_jit = theirs_fresh = theirs_eager = None
  if jax is not None:
    g = jax.jit(lambda v: v * 2.0 + 1.0)
    xj = jax.device_put(x)
    theirs_jit = per_call(lambda: g(xj))
    theirs_fresh = per_call(lambda: jax.jit(affine)(xj), number=2_000)
    theirs_eager = per_call(lambda: jjnp.sin(xj))
  line("jit dispatch of a cached call", ours_jit, theirs_jit, "<= 1.5")
  line("jit(f)(x) with a fresh wrapper each call", ours_fresh, theirs_fresh, "<= 1.0")
  line("eager op (sin of an f32[8] array)", ours_eager, theirs_eager, "<= 1.5")


def affine(v):
  return v * 2.0 + 1.0


if __name__ == "__main__":
  main()
