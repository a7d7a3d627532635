"""The one registry of passes, by name: jaxpr passes (`ClosedJaxpr -> ClosedJaxpr`, run between
tracing and lowering) and MLIR passes (pipelines run on the lowered module). `jit(f,
passes=...)`, `jit(f).lower(x, passes=...)` and `sj.config.update("passes", ...)` choose among
them by name; each choice runs its jaxpr passes in order, then its MLIR passes in order."""
from __future__ import annotations

import functools
from typing import Any, Callable, Literal, Sequence

from jaxlib.mlir import ir

from stablejax.config import config
from stablejax.jaxpr import ClosedJaxpr, JaxprTypeError, check_jaxpr
from stablejax.passes import mlir
from stablejax.passes.constant_folding import fold_constants
from stablejax.passes.cse import cse
from stablejax.passes.dce import dce_closed_jaxpr
from stablejax.passes.discharge import discharge_state
from stablejax.passes.inline import inline_calls
from stablejax.passes.simplify import simplify

JaxprPass = Callable[[ClosedJaxpr], ClosedJaxpr]

_jaxpr_passes: dict[str, JaxprPass] = {}
_mlir_passes: dict[str, mlir.MlirPipeline] = {}


def register(name: str, fn: JaxprPass | mlir.MlirPipeline,
             level: Literal["jaxpr", "mlir"] = "jaxpr") -> None:
  """Register pass `name`: at level "jaxpr" a function `ClosedJaxpr -> ClosedJaxpr`; at level
  "mlir" a textual MLIR pass pipeline (checked to parse now) or a function rewriting an
  `ir.Module`. Registering a name again replaces its pass."""
  if not isinstance(name, str) or not name:
    raise TypeError(f"passes.register: the name must be a non-empty string, got {name!r}")
  if level == "jaxpr":
    if not callable(fn):
      raise TypeError(f"passes.register: jaxpr pass {name!r} must be a function ClosedJaxpr "
                      f"-> ClosedJaxpr, got {fn!r}")
    _mlir_passes.pop(name, None)
    _jaxpr_passes[name] = fn
  elif level == "mlir":
    if isinstance(fn, str):
      mlir.parse(fn, registered=_mlir_passes)
    elif not callable(fn):
      raise TypeError(f"passes.register: MLIR pass {name!r} must be a pass pipeline string or a "
                      f"function of an ir.Module, got {fn!r}")
    _jaxpr_passes.pop(name, None)
    _mlir_passes[name] = fn
  else:
    raise ValueError(f"passes.register: level must be 'jaxpr' or 'mlir', got {level!r}")


def registered(level: Literal["jaxpr", "mlir"] | None = None) -> list[str]:
  """The names of the registered passes (of one level, or all)."""
  names = [] if level == "mlir" else list(_jaxpr_passes)
  return names + ([] if level == "jaxpr" else list(_mlir_passes))


def choose(passes: Sequence[str] | None) -> tuple[str, ...]:
  """The pass names to run: `passes`, or the config default when None; checked to be
  registered (a ValueError listing them otherwise)."""
  names = config.passes if passes is None else (passes,) if isinstance(passes, str) else passes
  names = tuple(names)
  for n in names:
    if n not in _jaxpr_passes and n not in _mlir_passes:
      raise ValueError(f"unknown pass {n!r}; registered jaxpr passes: {list(_jaxpr_passes)}, "
                       f"MLIR passes: {list(_mlir_passes)} (add one with "
                       "stablejax.passes.register)")
  return names


# Runs one pass for the pipeline, `observer(name, run, ir) -> run(ir)`, seeing its input and
# output (the IR dumps: `stablejax.ir_dump.Dump.run_pass`).
Observer = Callable[[str, Callable[[Any], Any], Any], Any]


def run(closed: ClosedJaxpr, passes: Sequence[str] | None = None,
        observer: Observer | None = None) -> ClosedJaxpr:
  """The jaxpr passes among `passes` (default: the config's) run on `closed` in order, each
  through `observer` if given; under `sj.config.check_passes` the result of each is
  type-checked."""
  for name in choose(passes):
    fn = _jaxpr_passes.get(name)
    if fn is None:
      continue
    if config.check_passes or config.enable_checks:
      fn = functools.partial(_checked, name, fn)
    closed = fn(closed) if observer is None else observer(name, fn, closed)
  return closed


def _checked(name: str, fn: JaxprPass, closed: ClosedJaxpr) -> ClosedJaxpr:
  closed = fn(closed)
  check(closed, name)
  return closed


def run_mlir(module: ir.Module, passes: Sequence[str] | None = None,
             observer: Observer | None = None) -> ir.Module:
  """The MLIR passes among `passes` (default: the config's) run in order on `module`, each
  through `observer` if given; they rewrite it in place (run them on `Lowered.compiler_ir()`,
  a copy); returns the result."""
  for name in choose(passes):
    pipeline = _mlir_passes.get(name)
    if pipeline is None:
      continue
    run_one = functools.partial(mlir.run_pipeline, pipeline=pipeline, registered=_mlir_passes)
    module = run_one(module) if observer is None else observer(name, run_one, module)
  return module


def check(closed: ClosedJaxpr, name: str) -> None:
  """Type-check the result of pass `name`: a JaxprTypeError naming the pass if it is ill-typed."""
  if not isinstance(closed, ClosedJaxpr):
    raise TypeError(f"jaxpr pass {name!r} returned {type(closed).__name__}, not a ClosedJaxpr")
  try:
    check_jaxpr(closed.jaxpr)
  except JaxprTypeError as e:
    raise JaxprTypeError(f"after jaxpr pass {name!r}: {e}") from e


register("dce", dce_closed_jaxpr)
register("discharge", discharge_state)
register("cse", cse)
register("inline", inline_calls)
register("constant_folding", fold_constants)
register("simplify", simplify)
for _name in mlir.UPSTREAM_PASSES:
  register(f"mlir-{_name}", _name, level="mlir")
