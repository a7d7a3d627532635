"""MLIR pass pipelines on lowered modules, through `jaxlib.mlir.passmanager`. A pipeline rewrites
the module it is given: `pipeline.lower` runs it on the module it has just lowered, before any
`Lowered` or cache holds it, and `Lowered.compiler_ir()` gives a copy to run one on by hand. A
pipeline is a textual pass pipeline ("canonicalize,cse", or anchored:
"builtin.module(func.func(cse))") or a callable that rewrites the module in place or returns a
new one."""
from __future__ import annotations

from typing import Callable, Sequence

from jaxlib.mlir import ir, passmanager
from jaxlib.mlir._mlir_libs import _jax_mlir_ext

MlirPipeline = str | Callable[[ir.Module], ir.Module | None]

# Upstream MLIR passes checked to work on stablejax's modules (tests/py/test_passes.py); jaxlib's
# bindings cannot list the passes registered in it. `inline` and `loop-invariant-code-motion`
# parse and run but change no call or loop of a StableHLO module (jaxlib registers no inliner
# for `func.call`, and `stablehlo.while` is not a loop to MLIR): the jaxpr pass "inline" inlines.
UPSTREAM_PASSES = ("canonicalize", "cse", "symbol-dce", "sccp", "strip-debuginfo")

# Registering jaxlib's dialects also registers MLIR's upstream passes, process-wide: a pipeline
# parses in any context after this.
_jax_mlir_ext.register_dialects(ir.DialectRegistry())


def anchored(pipeline: str) -> str:
  """`pipeline` nested under the module op unless it names its anchor already."""
  pipeline = pipeline.strip()
  return pipeline if pipeline.startswith("builtin.module(") else f"builtin.module({pipeline})"


def parse(pipeline: str, context: ir.Context | None = None,
          registered: Sequence[str] = ()) -> passmanager.PassManager:
  """The pass manager of textual `pipeline`; a ValueError naming the passes known to work (and
  `registered`, the MLIR passes of the stablejax registry) if it does not parse."""
  try:
    return passmanager.PassManager.parse(anchored(pipeline), context=context or ir.Context())
  except ValueError as e:
    raise ValueError(
        f"MLIR pass pipeline {pipeline!r} does not parse: {str(e).strip()}\n"
        f"registered MLIR passes of stablejax.passes: {sorted(registered)}; upstream MLIR "
        f"passes known to work: {list(UPSTREAM_PASSES)}") from None


def run_pipeline(module: ir.Module, pipeline: MlirPipeline, registered: Sequence[str] = ()
                 ) -> ir.Module:
  """`pipeline` run on `module` (rewritten in place); the result, verified."""
  if callable(pipeline):
    module = pipeline(module) or module
  else:
    with module.context:
      parse(pipeline, module.context, registered).run(module.operation)
  if not module.operation.verify():
    raise ValueError(f"MLIR pass pipeline {pipeline!r} produced an invalid module")
  return module
