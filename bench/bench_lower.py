"""Lowering to StableHLO text: `jit(f).lower(x).as_text()` for a 3,000-equation program, and the
same for its gradient, beside JAX (tracing included on both sides, as a user sees it)."""
from __future__ import annotations

import sys

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from bench_trace import chain  # noqa: E402
from common import best_time, report, try_import_jax  # noqa: E402

import stablejax as sj  # noqa: E402
import stablejax.numpy as jnp  # noqa: E402


def main() -> None:
  jax, jjnp = try_import_jax()
  x = np.ones((8,), np.float32)
  # A new function each run, so neither library answers from its trace or lowering cache.
  ours = best_time(lambda: sj.jit(chain(jnp, 3000)).lower(x).as_text(), repeat=3)
  theirs = (best_time(lambda: jax.jit(chain(jjnp, 3000)).lower(x).as_text(), repeat=3)
            if jax else None)
  report("jit(f).lower(x).as_text(), 3000 equations", ours, theirs, "<= 0.5")


if __name__ == "__main__":
  main()
