"""The cost of checking rule results (stablejax/interpreters/rule_checks.py, lowering/module.py):
tracing the gradient, the vmap and the JVP of a 3,000-equation program, and lowering it, with
stablejax's own rules trusted (the default) and with every rule's results checked
(`check_transform_rules` and `check_lowering_rules` on): the process's CPU time, the best of
alternating runs (the least disturbed by other work on a shared machine), and the ratio
checked/default. Run from an older tree (without the flag) it prints the default
figures alone, to compare before and after.

Usage: python bench/bench_rule_checks.py [--repeat N]"""
from __future__ import annotations

import argparse
import gc
import sys
import time
from typing import Callable

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from programs import chain, scalar_chain  # noqa: E402

import stablejax as sj  # noqa: E402
import stablejax.numpy as jnp  # noqa: E402
from stablejax.lowering.module import lower_jaxpr  # noqa: E402

N_EQNS = 3000
X = np.linspace(-1.0, 1.0, 8, dtype=np.float32)
XS = np.stack([X] * 4)
FLAGS = ("check_transform_rules", "check_lowering_rules")


def _cases() -> list[tuple[str, Callable[[], object]]]:
  """Each benchmark as a thunk tracing (or lowering) a fresh program, so no cache answers."""
  lowered = sj.make_jaxpr(chain(jnp, N_EQNS))(X)
  return [
      ("trace grad", lambda: sj.make_jaxpr(sj.grad(scalar_chain(jnp, N_EQNS)))(X)),
      ("trace vmap", lambda: sj.make_jaxpr(sj.vmap(chain(jnp, N_EQNS)))(XS)),
      ("trace jvp", lambda: sj.make_jaxpr(
          lambda x, t: sj.jvp(chain(jnp, N_EQNS), (x,), (t,)))(X, X)),
      ("lower", lambda: lower_jaxpr(lowered, "chain")),
  ]


def _cpu_time(thunk: Callable[[], object]) -> float:
  """This process's CPU seconds for one call of `thunk`, from a clean heap."""
  gc.collect()
  start = time.process_time()
  thunk()
  return time.process_time() - start


def _set_checks(on: bool) -> None:
  for flag in FLAGS:
    sj.config.update(flag, on)


def main() -> None:
  parser = argparse.ArgumentParser()
  parser.add_argument("--repeat", type=int, default=15)
  repeat = parser.parse_args().repeat
  has_flag = hasattr(sj.config, "check_transform_rules")
  modes = (False, True) if has_flag else (False,)
  print(f"{N_EQNS}-equation program, CPU time, best of {repeat} runs"
        + ("" if has_flag else " (a tree without check_transform_rules: default only)"))
  print(f"{'':<12}{'default':>12}" + (f"{'checked':>12}{'ratio':>9}" if has_flag else ""))
  for name, thunk in _cases():
    times: dict[bool, list[float]] = {m: [] for m in modes}
    for mode in modes:  # warm-up
      if has_flag:
        _set_checks(mode)
      thunk()
    for _ in range(repeat):
      for mode in modes:
        if has_flag:
          _set_checks(mode)
        times[mode].append(_cpu_time(thunk))
    best = {m: min(t) for m, t in times.items()}
    row = f"{name:<12}{best[False] * 1e3:10.1f}ms"
    if has_flag:
      row += f"{best[True] * 1e3:10.1f}ms{best[True] / best[False]:9.3f}"
    print(row)
  if has_flag:
    _set_checks(False)


if __name__ == "__main__":
  main()
