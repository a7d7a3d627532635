"""`sj.config.update("log_compiles", True)`: one WARNING record per compile on the `stablejax`
logger, naming the function, its argument types and the seconds spent in each stage of the
pipeline (trace, jaxpr passes, lowering, MLIR passes, XLA compile). A cached call compiles
nothing, so it logs nothing.

The pipeline times its stages into a `CompileRecord` only while the option is on: the trace's
time is kept by the traced jaxpr (`traced`), the others by the lowered module (`attach`) until
its compile logs them (`for_compile`, `log`). Each record carries the `CompileRecord` as its
`compile` attribute, for programs that read the times.
"""
from __future__ import annotations

import contextlib
import logging
import time
import weakref
from typing import Iterator, Sequence

from jaxlib.mlir import ir

from stablejax.jaxpr import ClosedJaxpr

logger = logging.getLogger(__name__)

STAGES = ("trace", "jaxpr passes", "lowering", "MLIR passes", "XLA compile")

_trace_seconds: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # ClosedJaxpr -> s
_records: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # ir.Module -> CompileRecord


class CompileRecord:
  """One compile: the function's `name`, its `arg_types` (`f32[3]`, ...) and `seconds` per
  stage of `STAGES` (the stages it went through)."""

  def __init__(self, name: str, arg_types: Sequence[str], seconds: dict[str, float] | None = None):
    self.name = name
    self.arg_types = list(arg_types)
    self.seconds: dict[str, float] = dict(seconds or {})

  @contextlib.contextmanager
  def stage(self, stage: str) -> Iterator[None]:
    """Time the block as `stage` (added to its time so far)."""
    start = time.perf_counter()
    try:
      yield
    finally:
      self.seconds[stage] = self.seconds.get(stage, 0.0) + time.perf_counter() - start

  def message(self, target: str) -> str:
    times = ", ".join(f"{s} {self.seconds[s] * 1e3:.1f} ms" for s in STAGES if s in self.seconds)
    return (f"Compiling jit({self.name}) for {target} with arguments "
            f"({', '.join(self.arg_types)}): {times} "
            f"(total {sum(self.seconds.values()) * 1e3:.1f} ms)")


_last_traced: list = [lambda: None]  # a weak reference to the jaxpr traced last


def traced(closed: ClosedJaxpr, seconds: float) -> None:
  """Remember how long tracing `closed` took, for the record of its compile."""
  _trace_seconds[closed] = seconds
  _last_traced[0] = weakref.ref(closed)


def _trace_time(closed: ClosedJaxpr) -> float | None:
  """How long tracing `closed` took, if it was timed: it, or the jaxpr traced last if `closed`
  is that one with other arguments or constants (`jit` prunes the unused arguments)."""
  seconds = _trace_seconds.get(closed)
  last = _last_traced[0]()
  if seconds is None and last is not None and _same_equations(last, closed):
    seconds = _trace_seconds.get(last)
  return seconds


def _same_equations(a: ClosedJaxpr, b: ClosedJaxpr) -> bool:
  ea, eb = a.jaxpr.eqns, b.jaxpr.eqns
  return len(ea) == len(eb) and all(x is y for x, y in zip(ea, eb))


def start(closed: ClosedJaxpr, name: str) -> CompileRecord:
  """The record of lowering `closed` (its trace time if it was timed)."""
  seconds = _trace_time(closed)
  return CompileRecord(name, [a.str_short() for a in closed.in_avals],
                       None if seconds is None else {"trace": seconds})


def attach(module: ir.Module, record: CompileRecord) -> None:
  """Remember `module`'s record, for its compile."""
  _records[module] = record


def for_compile(module: ir.Module) -> CompileRecord:
  """The record `module` was lowered with; a new one if it has none (a module edited or read
  from a file: its name and argument types are read from it)."""
  record = _records.get(module)
  if record is None:
    name = ir.StringAttr(module.operation.attributes["sym_name"]).value
    record = CompileRecord(name.removeprefix("jit_"), [str(t) for t in _main_arg_types(module)])
  return record


def log(record: CompileRecord, target: object) -> None:
  logger.warning("%s", record.message(str(target)), extra={"compile": record})


def _main_arg_types(module: ir.Module) -> list:
  for op in module.body.operations:
    if ir.StringAttr(op.attributes["sym_name"]).value == "main":
      return list(ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value).inputs)
  return []
