"""A program run through `install_as_jax()` beside the same program written against stablejax.

Usage: python bench/hook.py [--quick]

Both sides are stablejax in one process: `import jax` answered by the hook, and `stablejax`
imported directly. The rows are bench/run.py's, measured the same way (alternating runs, each
figure a median, outputs checked to agree); the ratio is hook/direct and its target 1.05, the
noise of two runs of the same code.
"""
from __future__ import annotations

import os
import sys

import stablejax

stablejax.install_as_jax()  # before bench/run.py imports `jax`: from here on it is stablejax

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402

TARGET = 1.05
ROWS = ("make_jaxpr, 3,000 eqns", "jit(f).lower(x).as_text(), 3,000 eqns",
        "cached jit dispatch 3 in/2 out f32[8]", "MLP compile (first call of a fresh jit(step))",
        "MLP training step (cached)")


def main(argv: list[str]) -> int:
  direct, hooked = run.load_sides()
  if hooked.api.jit is not stablejax.jit:
    raise SystemExit("bench/hook.py: `import jax` did not resolve to stablejax through the hook")
  cfg = run.Settings("--quick" in argv)
  print(f"{'row':<46} {'hook':>11} {'direct':>11} {'ratio':>6}  target", flush=True)
  failed = False
  for row in (r for r in run.ROWS if r.name in ROWS):
    out = run.result(run.Row(row.name, TARGET, row.measure, row.unit), [hooked, direct], cfg)
    failed |= out["note"] is not None
    print(run.line(out), flush=True)
  return int(failed)


if __name__ == "__main__":
  sys.exit(main(sys.argv[1:]))
