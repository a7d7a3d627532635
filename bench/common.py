"""Shared helpers for the benchmarks: timing and side-by-side reporting."""
from __future__ import annotations

import gc
import time
from typing import Callable


def best_time(fn: Callable[[], object], repeat: int = 5, number: int = 1) -> float:
  """The best wall time, in seconds, of `number` calls of `fn` over `repeat` runs."""
  best = float("inf")
  for _ in range(repeat):
    gc.collect()  # start each run from a clean heap, for both libraries alike
    start = time.perf_counter()
    for _ in range(number):
      fn()
    best = min(best, (time.perf_counter() - start) / number)
  return best


def report(name: str, ours: float, theirs: float | None, target: str) -> None:
  """Print one benchmark line: our time, JAX's, their ratio and the target."""
  if theirs is None:
    print(f"{name:<44} stablejax {ours * 1e3:9.3f} ms   (jax not installed)")
    return
  print(f"{name:<44} stablejax {ours * 1e3:9.3f} ms   jax {theirs * 1e3:9.3f} ms   "
        f"ratio {ours / theirs:5.2f}   target {target}")


def try_import_jax():
  try:
    import jax
    import jax.numpy as jjnp
    return jax, jjnp
  except ImportError:
    return None, None
