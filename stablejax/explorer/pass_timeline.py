"""The explorer's pass timeline: an observer of the pass registry (`passes.registry.Observer`,
as the IR dumps' `Dump.run_pass`) that records, for each jaxpr and MLIR pass, the op count
before and after, a unified diff of the IR and the time spent."""
from __future__ import annotations

import difflib
import time
from typing import Any, Callable

from jaxlib.mlir import ir

from stablejax.explorer.mlir_view import count_ops
from stablejax.jaxpr import ClosedJaxpr, Jaxpr, pp_jaxpr, subjaxprs
from stablejax.lowering.module import module_text


def count_eqns(jaxpr: ClosedJaxpr | Jaxpr) -> int:
  """The equations of `jaxpr` and of its sub-jaxprs (each body counted once)."""
  jaxpr = jaxpr.jaxpr if isinstance(jaxpr, ClosedJaxpr) else jaxpr
  return len(jaxpr.eqns) + sum(count_eqns(sub) for eqn in jaxpr.eqns for sub in subjaxprs(eqn))


def _measure(ir_value: Any) -> tuple[str, int]:
  if isinstance(ir_value, ir.Module):
    return module_text(ir_value), count_ops(ir_value)
  return pp_jaxpr(ir_value), count_eqns(ir_value)


class PassTimeline:
  """Call it as the registry's observer; `entries` are the MODEL's "passes"."""

  def __init__(self):
    self.entries: list[dict[str, Any]] = []
    self.seconds = 0.0  # in the passes themselves (not in printing their IR)

  def __call__(self, name: str, run: Callable[[Any], Any], ir_in: Any) -> Any:
    stage = "mlir" if isinstance(ir_in, ir.Module) else "jaxpr"
    before, ops_before = _measure(ir_in)  # (an MLIR pass rewrites its module in place)
    start = time.perf_counter()
    out = run(ir_in)
    self.seconds += time.perf_counter() - start
    after, ops_after = (before, ops_before) if out is ir_in and stage == "jaxpr" else _measure(out)
    diff = "" if after == before else "\n".join(difflib.unified_diff(
        before.split("\n"), after.split("\n"), f"before {name}", f"after {name}", lineterm=""))
    self.entries.append({"stage": stage, "name": name, "ops_before": ops_before,
                         "ops_after": ops_after, "diff": diff})
    return out
