"""The explorer's model: everything its page shows of one function, as a JSON-serialisable dict
(the MODEL of the explorer's contract: sources, IR views linked to source lines, per-line
stats and totals, stage timings, XLA's memory analysis, the pass timeline and the errors).

The pipeline's stages are run one by one, as `pipeline.lower` and `pipeline.compile` string
them, to see between them: tracing (`jit(f).trace`), the jaxpr passes, the lowering with
debug info, the MLIR passes (both through a `PassTimeline` observer) and XLA's compile. A
stage that fails after tracing is recorded in "errors" with the user's line where it is
known, and the stages after it are left out; a tracing failure raises.
"""
from __future__ import annotations

import collections
import contextlib
import time
import traceback
from typing import Any, Callable, Sequence

from jaxlib.mlir import ir

from stablejax import lowering, pipeline, runtime
from stablejax.config import enable_x64
from stablejax.explorer.hlo_view import HloView, hlo_view
from stablejax.explorer.jaxpr_view import EqnInfo, jaxpr_view
from stablejax.explorer.mlir_view import MlirView, mlir_view
from stablejax.explorer.pass_timeline import PassTimeline
from stablejax.explorer.source_map import SourceMap
from stablejax.jaxpr import ClosedJaxpr
from stablejax.jit import jit
from stablejax.passes import registry


class _Build:
  """The model being built, and what each stage hands the next."""

  def __init__(self, f: Callable, passes: Sequence[str] | None, platform: str | None):
    self.sources = SourceMap(f)
    self.chosen = registry.choose(passes)
    self.show_passes = passes is not None
    self.platforms = lowering.canonical_platforms(
        platform or runtime.platform_of(runtime.default_device()))
    self.timeline = PassTimeline()
    self.closed: ClosedJaxpr | None = None
    self.module: ir.Module | None = None
    self.eqns: dict[Any, EqnInfo] = {}
    self.folds: dict[tuple, dict] = {}  # an equation's source lines -> its fold mark
    self.mlir: MlirView | None = None
    self.hlo: HloView | None = None
    self.model: dict[str, Any] = {
        "name": "", "sources": self.sources.sources, "views": [],
        "stats": {}, "totals": {}, "timings": {}, "memory": None, "passes": [], "errors": []}

  def view(self, view_id: str, title: str, lines: list[dict]) -> None:
    self.model["views"].append({"id": view_id, "title": title, "lines": lines})

  def jaxpr_passes(self, traced: ClosedJaxpr) -> None:
    """Run the jaxpr passes; the jaxpr view is of their result (if one fails, of the jaxpr
    as traced)."""
    try:
      self.closed = pipeline.jaxpr_passes(traced, self.chosen, self.timeline)
    finally:
      self.show_jaxpr(self.closed or traced)

  def show_jaxpr(self, closed: ClosedJaxpr) -> None:
    lines, self.eqns = jaxpr_view(closed, self.sources)
    self.folds = {tuple(map(tuple, line["locs"])): line["fold"] for line in lines if line["fold"]}
    self.view("jaxpr", "jaxpr", lines)

  def lower(self) -> None:
    start = time.perf_counter()
    self.module = lowering.lower_jaxpr(self.closed, self.model["name"], self.platforms,
                                       debug_info=True)
    self.model["timings"]["lower"] = time.perf_counter() - start
    self.mlir = mlir_view(self.module, self.sources, self.folds)
    self.view("stablehlo", "StableHLO", self.mlir.lines)

  def mlir_passes(self) -> None:
    self.module = registry.run_mlir(self.module, self.chosen, self.timeline)
    if self.show_passes:
      self.mlir = mlir_view(self.module, self.sources, self.folds)
      self.view("stablehlo-passes", "StableHLO after passes", self.mlir.lines)

  def compile(self) -> None:
    start = time.perf_counter()
    exe = pipeline.compile(self.module, runtime.devices(self.platforms[0])[0],
                           self.closed.out_avals, self.platforms, self.closed.in_avals)
    self.model["timings"]["compile"] = time.perf_counter() - start
    self.hlo = hlo_view(exe.as_text(), self.sources, self.mlir.by_metadata, self.folds)
    self.view("hlo", "XLA optimized HLO", self.hlo.lines)
    self.model["memory"] = _memory(exe)

  def error(self, stage: str, e: BaseException) -> None:
    message = "\n".join([f"{type(e).__name__}: {e}", *getattr(e, "__notes__", ())])
    bound_at = getattr(e, "bound_at", None)  # (the lowering's: the equation's user line)
    where = None if bound_at is None else self.sources.line(bound_at)
    for frame in reversed(traceback.extract_tb(e.__traceback__)):
      if where is None and frame.lineno is not None:
        where = self.sources.line((frame.filename, frame.lineno))
    self.model["errors"].append({"stage": stage, "message": message,
                                 "src": where[0] if where else None,
                                 "line": where[1] if where else None})


def _memory(exe: Any) -> dict[str, int] | None:
  try:
    stats = exe.memory_analysis()
  except Exception:  # noqa: BLE001  (a backend without the analysis)
    return None
  if stats is None:
    return None
  return {"argument_bytes": int(stats.argument_size_in_bytes),
          "output_bytes": int(stats.output_size_in_bytes),
          "temp_bytes": int(stats.temp_size_in_bytes),
          "generated_code_bytes": int(stats.generated_code_size_in_bytes)}


def _stats(b: _Build) -> None:
  """Per source line (its innermost location): equations, FLOPs, StableHLO ops and the fusions
  its HLO instructions ended in; and the totals."""
  stats: dict[str, dict[str, Any]] = collections.defaultdict(
      lambda: {"eqns": 0, "ops": 0, "flops": 0.0, "fusions": []})
  key = lambda loc: f"{loc[0]}:{loc[1]}"  # noqa: E731
  for info in b.eqns.values():
    if info.locs:
      stats[key(info.locs[0])]["eqns"] += 1
      stats[key(info.locs[0])]["flops"] += info.flops
  for at in b.mlir.ops if b.mlir else ():
    if locs := b.mlir.lines[at]["locs"]:
      stats[key(locs[0])]["ops"] += 1
  for loc, fusion in b.hlo.fused if b.hlo else ():
    if loc is not None and fusion not in stats[key(loc)]["fusions"]:
      stats[key(loc)]["fusions"].append(fusion)
  b.model["stats"] = dict(stats)
  b.model["totals"] = {
      "eqns": len(b.eqns), "ops": len(b.mlir.ops) if b.mlir else 0,
      "hlo_instructions": b.hlo.instructions if b.hlo else 0,
      "fusions": b.hlo.fusions if b.hlo else 0,
      "flops": sum(info.flops for info in b.eqns.values())}


def build_model(f: Callable, *args: Any, platform: str | None = None,
                passes: Sequence[str] | None = None, x64: bool = False,
                static_argnums: int | Sequence[int] = (), **kwargs: Any) -> dict[str, Any]:
  """The explorer's model of `f(*args, **kwargs)` lowered for `platform` (default: the
  default device's) with `passes` (default: the config's; given, the module after them is a
  view of its own). Raises if `f` fails to trace; a later stage's failure is in "errors"."""
  with enable_x64(True) if x64 else contextlib.nullcontext():
    b = _Build(f, passes, platform)
    start = time.perf_counter()
    traced = jit(f, static_argnums=static_argnums).trace(*args, **kwargs)
    b.model["timings"]["trace"] = time.perf_counter() - start
    b.model["name"] = traced.name
    stages = [("passes", lambda: b.jaxpr_passes(traced.jaxpr)), ("lower", b.lower),
              ("passes", b.mlir_passes), ("compile", b.compile)]
    for stage, run in stages:
      try:
        run()
      except Exception as e:  # noqa: BLE001  (shown on the page with the stages before it)
        b.error(stage, e)
        break
    b.model["timings"]["passes"] = b.timeline.seconds
    b.model["passes"] = b.timeline.entries
    _stats(b)
  return b.model
