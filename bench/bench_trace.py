"""make_jaxpr of a 3,000-equation program (and 6,000 for the growth), beside JAX."""
from __future__ import annotations

import sys

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from common import best_time, report, try_import_jax  # noqa: E402

import stablejax as sj  # noqa: E402
import stablejax.numpy as jnp  # noqa: E402


def chain(np_mod, n_eqns: int):
  """A program of `n_eqns` equations: repeated sin, multiply by a literal, add."""
  def f(x):
    for _ in range(n_eqns // 3):
      x = np_mod.sin(x) * 2.0 + x
    return x
  return f


def main() -> None:
  jax, jjnp = try_import_jax()
  x = np.ones((8,), np.float32)
  times = {}
  for n in (3000, 6000):
    ours = best_time(lambda: sj.make_jaxpr(chain(jnp, n))(x), repeat=5)
    n_ours = len(sj.make_jaxpr(chain(jnp, n))(x).eqns)
    theirs = None
    if jax is not None:
      theirs = best_time(lambda: jax.make_jaxpr(chain(jjnp, n))(x), repeat=3)
      n_theirs = len(jax.make_jaxpr(chain(jjnp, n))(x).eqns)
      if n_ours != n_theirs:
        print(f"  note: {n_ours} equations here, {n_theirs} in JAX")
    times[n] = ours
    report(f"make_jaxpr, {n_ours} equations", ours, theirs, "<= 0.33")
  print(f"{'growth 3000 -> 6000 equations':<44} {times[6000] / times[3000]:.2f}x   "
        "target <= 2.2x")


if __name__ == "__main__":
  main()
