"""The user's source for the explorer: the traced function and every user function its
equations come from, each once, and the map from a stack of frames (file, line), innermost
first, to the `[source id, line]` pairs the views carry."""
from __future__ import annotations

import ast
import inspect
import linecache
import os
from typing import Any, Callable, Iterable, Sequence

from stablejax import core

# installed packages are not shown either (their frames are the user's to the traceback)
_INSTALLED = (os.sep + "site-packages" + os.sep, os.sep + "dist-packages" + os.sep)

Frame = tuple[str, int]  # (file, line)


def is_user_file(path: str) -> bool:
  path = os.path.abspath(path)
  return (core.is_user_path(path) and not any(p in path for p in _INSTALLED)
          and os.path.isfile(path))


def _outer_functions(path: str) -> list[tuple[int, int]]:
  """(first line with decorators, last line) of each function in `path` that no other
  function encloses."""
  try:
    tree = ast.parse("".join(linecache.getlines(path)), path)
  except (SyntaxError, ValueError):
    return []
  spans: list[tuple[int, int]] = []
  todo: list[ast.AST] = [tree]
  while todo:
    node = todo.pop()
    for child in ast.iter_child_nodes(node):
      if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
        first = min([child.lineno] + [d.lineno for d in child.decorator_list])
        spans.append((first, child.end_lineno or child.lineno))
      else:
        todo.append(child)
  return sorted(spans)


class SourceMap:
  """The sources shown (`sources`, the MODEL's list) and the lines of frames in them."""

  def __init__(self, fn: Callable):
    self.sources: list[dict[str, Any]] = []
    self._spans: dict[str, list[tuple[int, int, int]]] = {}  # file -> (first, last, id)
    self._functions: dict[str, list[tuple[int, int]]] = {}  # file -> its outer functions
    self._line: dict[Frame, tuple[int, int] | None] = {}
    self.root = self._add_root(inspect.unwrap(fn))

  def _add_root(self, fn: Callable) -> int | None:
    """The traced function's source, first (None where Python has no source for it)."""
    try:
      path = inspect.getsourcefile(fn)
      lines, first = inspect.getsourcelines(fn)
    except (TypeError, OSError):
      return None
    if path is None or not os.path.isfile(path):
      return None
    return self._add(os.path.abspath(path), max(first, 1), [l.rstrip("\n") for l in lines])

  def _add(self, path: str, first: int, lines: list[str]) -> int:
    src = len(self.sources)
    self.sources.append({"id": src, "file": path, "first_line": first, "lines": lines})
    self._spans.setdefault(path, []).append((first, first + len(lines) - 1, src))
    return src

  def line(self, frame: Frame) -> tuple[int, int] | None:
    """`(source id, line)` of a frame in the user's code, its function added to the sources
    if new; None for a frame outside any user function."""
    if frame not in self._line:
      self._line[frame] = self._find(*frame)
    return self._line[frame]

  def _find(self, path: str, line: int) -> tuple[int, int] | None:
    path = os.path.abspath(path)
    for first, last, src in self._spans.get(path, ()):
      if first <= line <= last:
        return src, line
    if not is_user_file(path):
      return None
    if path not in self._functions:
      self._functions[path] = _outer_functions(path)
    for first, last in self._functions[path]:
      if first <= line <= last:
        lines = linecache.getlines(path)[first - 1:last]
        return self._add(path, first, [l.rstrip("\n") for l in lines]), line
    return None

  def locs(self, frames: Iterable[Frame]) -> list[list[int]]:
    """The `[source id, line]` of each user frame, innermost first, up to the traced function's
    own frame (its callers, such as the code calling `explore`, are not shown)."""
    out: list[list[int]] = []
    for frame in frames:
      found = self.line(frame)
      if found is None:
        continue
      if list(found) not in out:
        out.append(list(found))
      if found[0] == self.root:
        break
    return out


def code_frames(frames: Sequence[tuple[Any, int]]) -> list[Frame]:
  """A jaxpr equation's frames ((code, last instruction) pairs) as (file, line)."""
  return [core.frame_position(code, lasti)[:2] for code, lasti in frames]


def ir_line(text: str, locs: list[list[int]], name_stack: str = "", fusion: str | None = None,
            fold: dict | None = None) -> dict[str, Any]:
  """One line of an IR view (the MODEL's LINE): a backward-pass op (`transpose(...)` in its
  name stack) is not primal; its locations are its primal line's."""
  return {"text": text, "locs": locs, "name_stack": name_stack,
          "primal": "transpose(" not in name_stack, "fusion": fusion, "fold": fold}


def unique_locs(locs: Iterable[Sequence[int]]) -> list[list[int]]:
  """`locs` without repeats, in order."""
  return [list(loc) for loc in dict.fromkeys(map(tuple, locs))]
