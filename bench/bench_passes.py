"""The cost of the passes: `jit(f).lower(x).as_text()` of a 3,000-equation program and of the
gradient of a scan, with no passes, with the default pipeline (`sj.config.passes`), and with
every jaxpr pass, each beside JAX's lowering (tracing included on both sides)."""
from __future__ import annotations

import sys

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from common import best_time, report, try_import_jax  # noqa: E402
from programs import chain, scan_grad  # noqa: E402

import stablejax as sj  # noqa: E402
import stablejax.numpy as jnp  # noqa: E402
from stablejax import lax  # noqa: E402

_ALL = ("inline", "constant_folding", "simplify", "cse", "dce")


def main() -> None:
  jax, jjnp = try_import_jax()
  programs = [
      ("3000 equations", lambda: chain(jnp, 3000), lambda: chain(jjnp, 3000),
       np.ones((8,), np.float32)),
      ("grad(scan)", lambda: scan_grad(jnp, lax, sj.grad),
       lambda: scan_grad(jjnp, jax.lax, jax.grad), np.ones((16, 8), np.float32)),
  ]
  for name, ours_fn, theirs_fn, x in programs:
    theirs = (best_time(lambda: jax.jit(theirs_fn()).lower(x).as_text(), repeat=3)
              if jax else None)
    for label, names in (("no passes", ()), (f"default {sj.config.passes}", None),
                         ("all jaxpr passes", _ALL)):
      ours = best_time(lambda: sj.jit(ours_fn(), passes=names).lower(x).as_text(), repeat=3)
      report(f"lower, {name}, {label}", ours, theirs, "<= 0.5")


if __name__ == "__main__":
  main()
