"""The explorer's cost on a 3,000-equation program (`chain` of bench/programs.py: a Python loop
of `x = sin(x) * 2 + x`): building its model (`stablejax.explorer.build_model`: trace, passes,
lowering, the views, XLA's compile) and rendering its page (`page.render`), the best of a few
fresh runs. The issue's target: the page written in under 2 s; the model, XLA's compile left
out, well under 1.5 s.

Usage: python bench/explore.py [--repeat N] [--eqns N]"""
from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from programs import chain  # noqa: E402

import stablejax.numpy as jnp  # noqa: E402
from stablejax.explorer import build_model, page  # noqa: E402

X = np.linspace(-1.0, 1.0, 8, dtype=np.float32)


def one_run(n_eqns: int) -> dict[str, float]:
  """Seconds of one fresh build and render, and of their parts."""
  f = chain(jnp, n_eqns)
  start = time.perf_counter()
  model = build_model(f, X)
  built = time.perf_counter()
  html = page.render(model)
  rendered = time.perf_counter()
  return {"model": built - start, "compile": model["timings"].get("compile", 0.0),
          "model without compile": built - start - model["timings"].get("compile", 0.0),
          "render": rendered - built, "total": rendered - start,
          "model json MB": len(json.dumps(model)) / 1e6, "page MB": len(html) / 1e6,
          "eqns": model["totals"]["eqns"]}


def main() -> None:
  parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
  parser.add_argument("--repeat", type=int, default=3)
  parser.add_argument("--eqns", type=int, default=3000)
  args = parser.parse_args()
  one_run(30)  # (warm-up: imports, first compiles)
  runs = [one_run(args.eqns) for _ in range(args.repeat)]
  best = min(runs, key=lambda r: r["total"])
  for name, value in best.items():
    unit = "" if name in ("eqns",) or name.endswith("MB") else " s"
    print(f"explore {args.eqns} eqns: {name:<22} {value:8.3f}{unit}")


if __name__ == "__main__":
  main()
