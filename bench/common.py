"""Shared helpers for the benchmarks: timing and side-by-side reporting."""
from __future__ import annotations

import gc
import time
from typing import Any, Callable


def time_run(fn: Callable[[], Any], number: int = 1,
             finish: Callable[[Any], Any] | None = None) -> float:
  """Seconds per call over one run of `number` calls of `fn`, started from a clean heap (for both
  libraries alike); `finish`, if given, gets the last result inside the timed region (to wait for
  asynchronous work)."""
  gc.collect()
  start = time.perf_counter()
  for _ in range(number):
    out = fn()
  if finish is not None:
    finish(out)
  return (time.perf_counter() - start) / number


def best_time(fn: Callable[[], object], repeat: int = 5, number: int = 1) -> float:
  """The best wall time, in seconds, of `number` calls of `fn` over `repeat` runs."""
  return min(time_run(fn, number) for _ in range(repeat))


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
