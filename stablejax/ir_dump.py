"""IR dumps (`sj.config.update("dump_ir_to", DIR)`, or `STABLEJAX_DUMP_IR_TO=DIR`): every stage
and every pass of each compiled function written to files numbered in pipeline order.

One folder per lowering, `DIR/NNNN-jit_<name>/` (the module's name), holds:

  00-jaxpr.txt                          the jaxpr as traced
  01-jaxpr.after-dce.txt                after each jaxpr pass
  02-stablehlo.mlir                     the lowered module
  03-stablehlo.after-mlir-cse.mlir      after each MLIR pass
  04-hlo.before-optimizations.txt       XLA's HLO as it receives it (XLA's own dump)
  05-hlo.after-optimizations.txt        and as it runs it
  06-xla/                               the rest of XLA's dump (per pass with
                                        `dump_ir_xla_passes`)

With `dump_ir_only_changed` a pass's output is written only where it changed the IR (the numbers
stay those of the stages). When a pass fails, the IR it was given is kept in the folder and a
one-line command reproducing the failure is logged and added to the error. The pipeline calls
`start` at the beginning of a lowering, gives the `Dump` to the pass registry to run each pass
through (`Dump.run_pass`), and `for_compile` finds it again by the module when compiling.
"""
from __future__ import annotations

import logging
import os
import weakref
from typing import Any, Callable

from jaxlib.mlir import ir

from stablejax.config import config
from stablejax.jaxpr import ClosedJaxpr
from stablejax.lowering.module import module_text, sanitize_name

logger = logging.getLogger(__name__)

_dumps: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # ir.Module -> its Dump
_next_folder: dict[str, int] = {}  # dump directory -> the number of its last folder


class Dump:
  """The dump folder of one compiled function: each stage's IR, numbered in pipeline order."""

  def __init__(self, root: str, name: str):
    os.makedirs(root, exist_ok=True)
    while True:  # (a folder of an earlier run, or of another process, is never overwritten)
      number = _next_folder[root] = _next_folder.get(root, -1) + 1
      folder = os.path.join(root, f"{number:04d}-{name}")
      try:
        os.mkdir(folder)
        break
      except FileExistsError:
        continue
    self.folder = folder
    self.index = 0  # the number of the next stage
    self.only_changed = config.dump_ir_only_changed
    self._last: tuple[str, str, str | None] | None = None  # (text, extension, file written)

  def write(self, stage: str, text: str, ext: str, is_pass: bool = False) -> str | None:
    """Write stage `stage`'s IR `text` as the next numbered file (a pass's output only if it
    changed the IR, under `dump_ir_only_changed`); its path, or None if it was not written."""
    index, self.index = self.index, self.index + 1
    path = None
    if not (is_pass and self.only_changed and self._last is not None and
            self._last[0] == text):
      path = os.path.join(self.folder, f"{index:02d}-{stage}{ext}")
      with open(path, "w") as f:
        f.write(text)
    self._last = (text, ext, path)
    return path

  def jaxpr(self, stage: str, closed: ClosedJaxpr, is_pass: bool = False) -> None:
    self.write(stage, str(closed), ".txt", is_pass)

  def module(self, stage: str, module: ir.Module, is_pass: bool = False) -> None:
    self.write(stage, module_text(module), ".mlir", is_pass)

  def run_pass(self, name: str, run: Callable[[Any], Any], ir_in: Any) -> Any:
    """Run pass `name` (`run(ir) -> ir`) and dump its output; if it fails, keep its input and
    say how to reproduce the failure."""
    is_module = isinstance(ir_in, ir.Module)
    try:
      out = run(ir_in)
    except Exception as e:
      self.failed(name, e, is_module)
      raise
    if is_module:
      self.module(f"stablehlo.after-{name}", out, is_pass=True)
    elif out is ir_in:  # (unchanged: not printed again)
      self.write(f"jaxpr.after-{name}", self._last[0], ".txt", is_pass=True)
    else:
      self.jaxpr(f"jaxpr.after-{name}", out, is_pass=True)
    return out

  def failed(self, stage: str, error: Exception, is_module: bool = True) -> None:
    """Stage `stage` raised `error`: keep the IR it was given, write the error beside it, and
    add the reproducer to the error and the log."""
    path = self._input_file(stage)
    if is_module:
      how = f"reproduce with: stablejax opt {path} --passes {stage}"
    else:
      how = f"its input is {path}"
    with open(os.path.join(self.folder, f"{self.index:02d}-{stage}.error.txt"), "w") as f:
      f.write(f"{type(error).__name__}: {error}\n{how}\n")
    logger.warning("%s failed (IR dumped in %s); %s", stage, self.folder, how)
    error.add_note(f"stablejax IR dump: {stage} failed; {how}")

  def _input_file(self, stage: str) -> str | None:
    """The file of the last stage's IR, written now if `dump_ir_only_changed` skipped it."""
    if self._last is None:
      return None
    text, ext, path = self._last
    if path is None:
      path = os.path.join(self.folder, f"{self.index:02d}-before-{stage}{ext}")
      with open(path, "w") as f:
        f.write(text)
    return path

  def xla_options(self) -> list[tuple[str, Any]]:
    """XLA's debug options dumping its HLO of this compile into a scratch folder."""
    options = [("xla_dump_to", os.path.join(self.folder, "xla-scratch")),
               ("xla_dump_hlo_as_text", True)]
    if config.dump_ir_xla_passes:
      options.append(("xla_dump_hlo_pass_re", ".*"))
    return options

  def collect_xla(self) -> None:
    """Number XLA's HLO before and after optimization among the stages; the rest of its dump
    (per-pass HLO, buffer assignment, generated code) goes in the folder `NN-xla/`."""
    scratch = os.path.join(self.folder, "xla-scratch")
    if not os.path.isdir(scratch):  # (a persistent-cache hit: XLA compiled nothing)
      return
    names = sorted(os.listdir(scratch))
    for stage, suffix in (("hlo.before-optimizations", ".before_optimizations.txt"),
                          ("hlo.after-optimizations", "after_optimizations.txt")):
      found = [n for n in names if n.endswith(suffix)]
      if found:
        with open(os.path.join(scratch, found[-1])) as f:
          self.write(stage, f.read(), ".txt")
    os.rename(scratch, os.path.join(self.folder, f"{self.index:02d}-xla"))
    self.index += 1


def start(name: str) -> Dump | None:
  """The dump of a new lowering of `jit_<name>`, or None when dumps are off."""
  root = config.dump_ir_to
  return None if root is None else Dump(root, sanitize_name(f"jit_{name}").rstrip("_"))


def attach(module: ir.Module, dump: Dump | None) -> None:
  """Remember `module`'s dump, for its compile."""
  if dump is not None:
    _dumps[module] = dump


def for_compile(module: ir.Module, name: str) -> Dump | None:
  """The dump `module` was lowered with; a new one holding it if it has none (a module edited
  or read from a file); None when dumps are off."""
  if config.dump_ir_to is None:
    return None
  dump = _dumps.get(module)
  if dump is None:
    dump = start(name.removeprefix("jit_"))
    dump.module("stablehlo", module)
  return dump
