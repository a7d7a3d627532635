"""The explorer's view of XLA's optimized HLO (`compiled.as_text()`): each instruction with the
source lines of its metadata and the fusion it ended in.

XLA keeps of an op's location its name stack (`op_name`) and a stack frame id into the
module's `FileLocations`/`StackFrames` tables, printed before the computations; the innermost
frame is read from them and the whole chain of source lines taken from the StableHLO op with
the same name stack and innermost frame. An instruction in a fused computation belongs to the
fusion instruction that calls it, and a fusion instruction is shown with the lines of all the
instructions fused into it."""
from __future__ import annotations

import re
from typing import Any, NamedTuple

from stablejax.explorer.source_map import SourceMap, ir_line, unique_locs

_TABLES = ("FileNames", "FunctionNames", "FileLocations", "StackFrames")
_ENTRY = re.compile(r'^(\d+) (?:"(.*)"|\{(.*)\})$')
_FIELD = re.compile(r"(\w+)=(\d+)")
_COMPUTATION = re.compile(r"^(?:ENTRY )?%([^\s(]+) ")
_INSTRUCTION = re.compile(r"^\s+(?:ROOT )?%([^\s=]+) = ")
_METADATA = re.compile(r'metadata=\{op_name="((?:[^"\\]|\\.)*)"([^}]*)\}')
_CALLS = re.compile(r"\bfusion\(.*\bcalls=%([^\s,]+)")
_LOOP = re.compile(r"\bwhile\(")


class HloView(NamedTuple):
  lines: list[dict[str, Any]]
  instructions: int
  fusions: int
  # per instruction in a fusion: (its innermost source line, the fusion), for the stats
  fused: list[tuple[list[int] | None, str]]


def _tables(lines: list[str]) -> tuple[dict[int, tuple[str, int]], int]:
  """The file and line of each stack frame id, and the index of the first line after the
  tables."""
  tables: dict[str, dict[int, Any]] = {name: {} for name in _TABLES}
  table, end = None, 0
  for i, line in enumerate(lines):
    if line in _TABLES:
      table = line
    elif table is not None and (m := _ENTRY.match(line)):
      tables[table][int(m.group(1))] = (m.group(2) if m.group(2) is not None else
                                        {k: int(v) for k, v in _FIELD.findall(m.group(3))})
      end = i + 1
    elif table is not None and line.startswith("%"):
      break
  files, locations = tables["FileNames"], tables["FileLocations"]
  frames = {}
  for frame_id, frame in tables["StackFrames"].items():
    location = locations.get(frame.get("file_location_id"))
    if location is not None and location.get("file_name_id") in files:
      frames[frame_id] = (files[location["file_name_id"]], location["line"])
  return frames, end


def _fusion_of(lines: list[str]) -> dict[str, str]:
  """Fused computation -> the fusion instruction calling it."""
  out = {}
  for line in lines:
    m = _CALLS.search(line)
    if m and (inst := _INSTRUCTION.match(line)):
      out[m.group(1)] = inst.group(1)
  return out


def hlo_view(text: str, sources: SourceMap,
             by_metadata: dict[tuple[str, tuple[str, int] | None], list[list[int]]],
             folds: dict[tuple, dict]) -> HloView:
  """The view of optimized HLO `text`; StableHLO's ops by (name stack, innermost frame)
  give an instruction its chain of source lines."""
  raw = text.rstrip("\n").split("\n")
  frames, start = _tables(raw)
  if start:
    raw = raw[:1] + raw[start:]
  fusion_of = _fusion_of(raw)
  view = HloView([], 0, len(fusion_of), [])
  fused_locs: dict[str, list[list[int]]] = {}  # fusion -> the lines of what it fused
  fusion_lines: list[dict[str, Any]] = []
  computation_fusion = None
  instructions = 0
  for line in raw:
    if (m := _COMPUTATION.match(line)) is not None:
      computation_fusion = fusion_of.get(m.group(1))
    inst = _INSTRUCTION.match(line)
    if inst is None:
      view.lines.append(ir_line(line, []))
      continue
    instructions += 1
    name_stack, locs = _metadata(line, frames, sources, by_metadata)
    fusion = computation_fusion or (inst.group(1) if _CALLS.search(line) else None)
    fold = _fold(line, locs, folds)
    view.lines.append(ir_line(line, locs, name_stack, fusion, fold))
    if fusion is not None:
      view.fused.append((locs[0] if locs else None, fusion))
      fused_locs.setdefault(fusion, []).extend(locs)
      if computation_fusion is None:
        fusion_lines.append(view.lines[-1])
  for line in fusion_lines:  # (a fusion's computation may be printed after it)
    line["locs"] = unique_locs(line["locs"] + fused_locs.get(line["fusion"], []))
  return view._replace(instructions=instructions)


def _metadata(line: str, frames: dict[int, tuple[str, int]], sources: SourceMap,
              by_metadata: dict) -> tuple[str, list[list[int]]]:
  m = _METADATA.search(line)
  if m is None:
    return "", []
  name_stack, fields = m.group(1), dict(_FIELD.findall(m.group(2)))
  frame = frames.get(int(fields["stack_frame_id"])) if "stack_frame_id" in fields else None
  if frame is None and (file := re.search(r'source_file="([^"]*)"', m.group(2))):
    frame = (file.group(1), int(fields.get("source_line", 0)))
  locs = by_metadata.get((name_stack, frame))
  if locs is None:
    locs = sources.locs([frame]) if frame is not None else []
  return name_stack, locs


def _fold(line: str, locs: list[list[int]], folds: dict[tuple, dict]) -> dict | None:
  if not _LOOP.search(line):
    return None
  return folds.get(tuple(map(tuple, locs)), {"kind": "while", "trip_count": None})
