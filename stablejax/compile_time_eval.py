"""`ensure_compile_time_eval`: inside it, an operation whose operands are all concrete is
evaluated at once, even while a transformation (`jit`, `vmap`, ...) traces; one with traced
operands is traced as usual (JAX's eager constant folding)."""
from __future__ import annotations

import contextlib
from typing import Any, Iterator, Sequence

from stablejax import core


class _CompileTimeEvalTrace(core.Trace):
  """Evaluates primitives of concrete operands; hands the others to the trace it sits on."""

  def process_primitive(self, primitive: core.Primitive, args: Sequence, params: dict) -> Any:
    if any(isinstance(x, core.Tracer) for x in args):
      with core.set_current_trace(self.parent):
        return primitive.bind(*args, **params)
    with core.set_current_trace(core.eval_trace):
      return primitive.bind(*args, **params)


@contextlib.contextmanager
def ensure_compile_time_eval() -> Iterator[None]:
  """Context manager: operations of concrete values inside it are evaluated while tracing, so
  their results are concrete (usable in Python control flow, or folded into the program)."""
  current = core.current_trace()
  if current is core.eval_trace or isinstance(current, _CompileTimeEvalTrace):
    yield
    return
  with core.set_current_trace(_CompileTimeEvalTrace(current)):
    yield
