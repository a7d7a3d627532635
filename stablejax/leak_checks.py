"""`config.check_tracer_leaks` (`sj.checking_leaks()`): after a `jit` trace, the traced values
of the traces that ended must be dead; one the user kept (in a global, a list, ...) is a leak,
raised as JAX raises it."""
from __future__ import annotations

import gc

from stablejax import core


def check_leaks() -> None:
  """Raise if a tracer of a trace ended since the last check is still alive."""
  ended, core.ended_traces[:] = list(core.ended_traces), []
  if not ended:
    return
  gc.collect()  # (tracers alive only through reference cycles cannot be used: not leaks)
  for ref in ended:
    trace = ref()
    if trace is None:
      continue
    leaked = [r for r in gc.get_referrers(trace) if isinstance(r, core.Tracer)]
    if leaked:
      listed = "\n\n".join(f"{t!r}" for t in leaked)
      raise Exception(f"Leaked trace {trace}. Leaked tracer(s):\n\n{listed}\n")  # noqa: TRY002
