"""`jax._src.traceback_util`. stablejax does not filter tracebacks: `api_boundary` leaves its
function as it is, and `register_exclusion` records the path in `_exclude_paths` (as JAX does)
for a caller to read; nothing is hidden from a traceback."""
from __future__ import annotations

import types
from typing import Callable, TypeVar

F = TypeVar("F", bound=Callable)

_exclude_paths: list[str] = []


def register_exclusion(path: str) -> None:
  """Mark the source file `path` as library code (recorded only: no traceback is filtered)."""
  _exclude_paths.append(path)


def api_boundary(fun: F) -> F:
  """The function itself: JAX's boundary only filters tracebacks, which stablejax does not."""
  return fun


def include_frame(frame: types.FrameType) -> bool:
  """Whether `frame` is user code: its file is under no registered library path."""
  filename = frame.f_code.co_filename
  return not any(filename.startswith(path) for path in _exclude_paths)
