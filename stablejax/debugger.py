"""`debug.breakpoint`'s debugger: the Python frames where it was called, their local variables
with the values they have when the program reaches it (under `jit` too), and a pdb-like
command loop over them (`jdb`, as JAX's CLI debugger: `p`, `pp`, `u`, `d`, `l`, `w`, `c`, `q`)."""
from __future__ import annotations

import cmd
import inspect
import pprint
import sys
import threading
import traceback
from typing import IO, Any

from stablejax import core
from stablejax.tree_util import tree_flatten, tree_unflatten


class DebuggerFrame:
  """One Python frame: its file, line, source and variables (`locals`, `globals`)."""

  def __init__(self, filename: str, lineno: int, source: list[str], offset: int | None,
               local_vars: dict[str, Any], global_vars: dict[str, Any]):
    self.filename, self.lineno, self.source, self.offset = filename, lineno, source, offset
    self.locals, self.globals = local_vars, global_vars

  @classmethod
  def from_frame_info(cls, info: inspect.FrameInfo) -> DebuggerFrame:
    try:
      lines, start = inspect.getsourcelines(info.frame)
      source = "".join(lines).split("\n")  # (with the empty last line, as JAX shows it)
      offset = info.lineno - max(start, 1)
      if offset >= len(source):
        source, offset = [], None
    except (OSError, TypeError):
      source, offset = [], None
    return cls(info.filename, info.lineno, source, offset, dict(info.frame.f_locals), {})


def user_frames(stack: list[inspect.FrameInfo], filter_frames: bool,
                num_frames: int | None) -> list[DebuggerFrame]:
  """The frames of `stack` (innermost first), stablejax's own left out with `filter_frames`."""
  infos = [f for f in stack if not (filter_frames and f.filename.startswith(core._LIB_DIRS))]
  frames = [DebuggerFrame.from_frame_info(f) for f in infos]
  return frames if num_frames is None else frames[:num_frames]


def split_traced(frames: list[DebuggerFrame]) -> tuple[list, Any]:
  """The traced values among the frames' local variables (the callback's operands), and how
  to put their values back: `rebuild(values)` gives the frames with the values in place."""
  traced, slots = [], []
  for i, frame in enumerate(frames):
    for name, value in frame.locals.items():
      try:
        leaves, tree = tree_flatten(value)
      except Exception:  # noqa: BLE001 -- a value that is no pytree is kept as it is
        continue
      where = [k for k, leaf in enumerate(leaves) if isinstance(leaf, core.Tracer)]
      if where:
        slots.append((i, name, leaves, tree, where, len(traced)))
        traced.extend(leaves[k] for k in where)

  def rebuild(values: list) -> list[DebuggerFrame]:
    out = [DebuggerFrame(f.filename, f.lineno, f.source, f.offset, dict(f.locals), f.globals)
           for f in frames]
    for i, name, leaves, tree, where, start in slots:
      new = list(leaves)
      for k, v in zip(where, values[start:start + len(where)]):
        new[k] = v
      out[i].locals[name] = tree_unflatten(tree, new)
    return out

  return traced, rebuild


class CliDebugger(cmd.Cmd):
  """A text debugger over the frames, innermost first (JAX's `jdb`)."""
  prompt = "(jdb) "

  def __init__(self, frames: list[DebuggerFrame], thread_id: int | None,
               stdin: IO[str] | None = None, stdout: IO[str] | None = None,
               completekey: str = "tab"):
    super().__init__(stdin=stdin, stdout=stdout, completekey=completekey)
    self.use_rawinput = stdin is None
    self.frames, self.frame_index, self.thread_id = frames, 0, thread_id
    self.intro = "Entering jdb:"

  def _evaluate(self, expr: str) -> Any:
    frame = self.frames[self.frame_index]
    return eval(expr, {}, {**frame.globals, **frame.locals})  # noqa: S307  (a debugger)

  def _show(self, expr: str, fmt: Any) -> None:
    try:
      print(fmt(self._evaluate(expr)), file=self.stdout)
    except Exception:  # noqa: BLE001 -- any error of the user's expression is shown
      msg = traceback.format_exception_only(*sys.exc_info()[:2])[-1].strip()
      print("***", msg, file=self.stdout)

  def default(self, line: str) -> None:
    """Evaluate an expression and print its repr."""
    self._show(line, repr)

  def do_p(self, arg: str) -> None:
    """p expression: print the value of an expression."""
    self._show(arg, repr)

  def do_pp(self, arg: str) -> None:
    """pp expression: pretty-print the value of an expression."""
    self._show(arg, pprint.pformat)

  def _print_context(self, num_lines: int = 2) -> None:
    frame = self.frames[self.frame_index]
    lines = [f"> {frame.filename}({frame.lineno})"]
    if frame.offset is not None:
      for i, line in enumerate(frame.source):
        if frame.offset - 1 - num_lines <= i <= frame.offset + num_lines:
          lines.append(f"{'->  ' if i == frame.offset else '    '}{line}")
    print("\n".join(lines), file=self.stdout)

  def do_up(self, arg: str) -> None:
    """u(p): move up a stack frame."""
    if self.frame_index == len(self.frames) - 1:
      print("At topmost frame.", file=self.stdout)
    else:
      self.frame_index += 1
    self._print_context()

  def do_down(self, arg: str) -> None:
    """d(own): move down a stack frame."""
    if self.frame_index == 0:
      print("At bottommost frame.", file=self.stdout)
    else:
      self.frame_index -= 1
    self._print_context()

  def do_list(self, arg: str) -> None:
    """l(ist): list the source around the current line."""
    self._print_context(num_lines=5)

  def do_where(self, arg: str) -> None:
    """w(here): print the stack, the most recent frame last ('bt' too)."""
    lines = ["Traceback:"]
    for frame in reversed(self.frames):
      lines.append(f'  File "{frame.filename}", line {frame.lineno}')
      lines.append("    <no source>" if frame.offset is None
                   else f"    {frame.source[frame.offset].strip()}")
    print("\n".join(lines), file=self.stdout)

  def do_continue(self, arg: str) -> bool:
    """c(ont(inue)): continue the program."""
    return True

  def do_quit(self, arg: str) -> None:
    """q(uit), exit: quit the debugger; the program exits."""
    sys.exit(0)

  do_u, do_d, do_l = do_up, do_down, do_list
  do_w = do_bt = do_where
  do_c = do_cont = do_continue
  do_q = do_EOF = do_exit = do_quit


_debug_lock = threading.Lock()


def run_debugger(frames: list[DebuggerFrame], **kwargs: Any) -> None:
  """Enter the debugger over `frames` (one at a time over threads)."""
  thread_id = (None if threading.current_thread() is threading.main_thread()
               else threading.get_ident())
  with _debug_lock:
    CliDebugger(frames, thread_id, **kwargs).cmdloop()
