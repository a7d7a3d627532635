"""The explorer's StableHLO views: a module's text line by line, each op with its name stack
and the source lines of its location (the module is lowered with debug info)."""
from __future__ import annotations

import re
from typing import Any, NamedTuple

from jaxlib.mlir import ir

from stablejax.explorer.mlir_locations import Location, LocationParser
from stablejax.explorer.source_map import SourceMap, ir_line
from stablejax.lowering.module import module_text

_LABEL = re.compile(r"^(\^|\w+ \{$)")  # a block label, or a region's `cond {`: not an op
_LOOP_OPS = ("stablehlo.while",)


class MlirView(NamedTuple):
  lines: list[dict[str, Any]]
  ops: list[int]  # the indexes of the lines that start an op
  # (name stack, innermost frame) -> the op's source lines: what XLA's metadata keeps of them
  by_metadata: dict[tuple[str, tuple[str, int] | None], list[list[int]]]


def _split(raw: str, parser: LocationParser) -> tuple[str, Location | None]:
  """An op line's text and its trailing `loc(...)`, if it has one."""
  at = raw.rfind(" loc(")
  if at < 0 or not raw.endswith(")"):
    return raw, None
  try:
    loc, end = parser.parse(raw[at + 1:])
  except ValueError:
    return raw, None
  return (raw[:at], loc) if at + 1 + end == len(raw) else (raw, None)


def mlir_view(module: ir.Module, sources: SourceMap, folds: dict[tuple, dict]) -> MlirView:
  """The view of `module`; a loop op's line gets the fold mark of the jaxpr equation with its
  source lines in `folds` (else a `while` of unknown trip count)."""
  body, aliases = [], {}
  for raw in module_text(module, debug_info=True).split("\n"):
    if raw.startswith("#loc"):
      name, _, text = raw.partition(" = ")
      aliases[name] = text
    elif raw:
      body.append(raw)
  parser = LocationParser(aliases)
  view = MlirView([], [], {})
  locs_of: dict[Location, list[list[int]]] = {}
  headers: dict[int, int] = {}  # indent -> the last line there that may open a region op
  for raw in body:
    text, loc = _split(raw, parser)
    stripped = text.lstrip()
    indent = len(text) - len(stripped)
    at = len(view.lines)
    view.lines.append(ir_line(text, []))
    if stripped.startswith("}"):  # a region closes: its location is its op's
      at = headers.get(indent) if loc is not None else None
      if at is None:
        continue
    elif loc is None:
      if not _LABEL.match(stripped):
        headers[indent] = at
      continue
    if loc not in locs_of:
      locs_of[loc] = sources.locs(loc.frames)
      view.by_metadata.setdefault((loc.name_stack, loc.frames[0] if loc.frames else None),
                                  locs_of[loc])
    line = view.lines[at]
    line.update(ir_line(line["text"], locs_of[loc], loc.name_stack))
    view.ops.append(at)
  _mark_folds(view, folds)
  return view


def _mark_folds(view: MlirView, folds: dict[tuple, dict]) -> None:
  for at in view.ops:
    line = view.lines[at]
    if any(op in line["text"] for op in _LOOP_OPS):
      key = tuple(map(tuple, line["locs"]))
      line["fold"] = folds.get(key, {"kind": "while", "trip_count": None})


def count_ops(module: ir.Module) -> int:
  """The number of operations in `module` (itself included)."""
  count = 0

  def visit(op: Any) -> ir.WalkResult:
    nonlocal count
    count += 1
    return ir.WalkResult.ADVANCE

  module.operation.walk(visit)
  return count
