"""The MLIR locations of equations: a name (`jit(f)/vmap(mul)`) around the call-site chain of the
user's frames that staged the equation (`file:line:col`, innermost first), as JAX has them.

Locations are attributes of the thread's MLIR context (`context.make_ir_context`), which lives as
long as the thread, so they are built once per thread: lowering the same code again (a new
shape, a fresh `jit`) reuses them. Frames and code objects are keyed by identity, each entry
keeping its key's objects (so alive, their ids not reused) to check it: a code object hashes
all of its constants (10 us for a module's code). The tables are bounded."""
from __future__ import annotations

import threading
from typing import Any

from jaxlib.mlir import ir

from stablejax import core
from stablejax.util import bounded

_LIMIT = 8192  # (entries per table: they keep code objects alive)


class _Tables(threading.local):
  def __init__(self):
    self.plain: dict[str, ir.Location] = {}  # name -> its NameLoc
    self.named: dict[tuple, tuple[Any, ir.Location]] = {}  # (scope, name, id(frames)) ->
    self.frames: dict[tuple, tuple[Any, ir.Location]] = {}  # (id(code), lasti) ->


_tables = _Tables()


def plain_location(name: str) -> ir.Location:
  """The NameLoc `name` (no frames: lowering without debug info)."""
  loc = _tables.plain.get(name)
  if loc is None:
    loc = bounded(_tables.plain, _LIMIT)[name] = ir.Location.name(name)
  return loc


def equation_location(scope: str, name: str, frames: tuple) -> ir.Location:
  """The NameLoc `scope/name` around `frames_location(frames)`."""
  key = (scope, name, id(frames))
  hit = _tables.named.get(key)
  if hit is None or hit[0] is not frames:
    full = f"{scope}/{name}" if scope and name else scope or name
    hit = bounded(_tables.named, _LIMIT)[key] = (frames, ir.Location.name(
        full, childLoc=frames_location(frames)))
  return hit[1]


def frames_location(frames: tuple) -> ir.Location:
  """`callsite(innermost at ... at outermost)` of `frames` ((code, last instruction) pairs),
  each frame `loc("function"("file":line:col to end_line:end_col))`; unknown if none."""
  if not frames:
    return ir.Location.unknown()
  locs = [_frame_location(code, lasti) for code, lasti in frames]
  return locs[0] if len(locs) == 1 else ir.Location.callsite(locs[0], locs[1:])


def _frame_location(code: Any, lasti: int) -> ir.Location:
  hit = _tables.frames.get((id(code), lasti))
  if hit is None or hit[0] is not code:
    file, line, col, end_line, end_col = core.frame_position(code, lasti)
    hit = bounded(_tables.frames, _LIMIT)[(id(code), lasti)] = (code, ir.Location.name(
        code.co_qualname, childLoc=ir.Location.file(file, line, col, end_line, end_col)))
  return hit[1]
