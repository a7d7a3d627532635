"""lit configuration for a folder of Python lit tests, ours (`tests/lit`) or a user's own. In the
folder's `lit.cfg.py`:

    from stablejax.lit_config import configure
    configure(config)

Every `.py` file there is then a test whose `# RUN: %PYTHON %s | FileCheck %s` line runs it and
checks its output. `FileCheck` is LLVM's when asked for (`configure(config, filecheck="llvm")`,
a path to it, or the environment variable `STABLEJAX_FILECHECK`) or when `FileCheck` is on PATH,
else the Python `filecheck` package's. Tests can name the one they need:
`REQUIRES: llvm-filecheck` (or `python-filecheck`)."""
from __future__ import annotations

import getpass
import hashlib
import os
import shutil
import sys
import tempfile
from typing import Any, NamedTuple

import lit.formats

FILECHECK_ENV = "STABLEJAX_FILECHECK"
# files of a test folder that are not tests
NOT_TESTS = ("lit.cfg.py", "lit.site.cfg.py", "lit_util.py")


class FileCheck(NamedTuple):
  path: str
  kind: str  # "llvm" or "python": the lit feature `llvm-filecheck` / `python-filecheck`


def _python_filecheck() -> FileCheck:
  bin_dir = os.path.dirname(sys.executable)
  path = shutil.which("filecheck", path=bin_dir + os.pathsep + os.environ.get("PATH", ""))
  if path is None:
    raise RuntimeError("lit: no FileCheck: the Python `filecheck` command was not found "
                       "(pip install filecheck) and LLVM's `FileCheck` is not on PATH")
  return FileCheck(path, "python")


def _llvm_on_path() -> str | None:
  """LLVM's `FileCheck` on PATH (not the Python one, found through a case-insensitive file
  system)."""
  path = shutil.which("FileCheck")
  python = shutil.which("filecheck", path=os.path.dirname(sys.executable))
  if path is None or (python is not None and os.path.samefile(path, python)):
    return None
  return path


def find_filecheck(choice: str | None = None) -> FileCheck:
  """The FileCheck to run. `choice`: "llvm" (LLVM's, on PATH), "python" (the `filecheck`
  package's), a path to LLVM's FileCheck, or None: `$STABLEJAX_FILECHECK` if set, else LLVM's
  if on PATH, else the Python one."""
  choice = choice or os.environ.get(FILECHECK_ENV) or None
  if choice == "python":
    return _python_filecheck()
  if choice == "llvm":
    path = _llvm_on_path()
    if path is None:
      raise RuntimeError(f"lit: LLVM's FileCheck was asked for ({FILECHECK_ENV} or filecheck="
                         "'llvm') but `FileCheck` is not on PATH; give its path instead")
    return FileCheck(path, "llvm")
  if choice is not None:
    path = shutil.which(choice)
    if path is None:
      raise RuntimeError(f"lit: FileCheck {choice!r} (from {FILECHECK_ENV} or filecheck=) is not "
                         "an executable; use 'llvm', 'python' or a path to LLVM's FileCheck")
    return FileCheck(path, "llvm")
  path = _llvm_on_path()
  return FileCheck(path, "llvm") if path else _python_filecheck()


def _caller_folder() -> str:
  """The folder of the `lit.cfg.py` calling `configure` (lit runs it with `__file__` set)."""
  cfg_file = sys._getframe(2).f_globals.get("__file__")
  if cfg_file is None:
    raise ValueError("configure(config): call it from a lit.cfg.py, or pass root=")
  return os.path.dirname(os.path.abspath(cfg_file))


def configure(config: Any, root: str | None = None, filecheck: str | None = None,
              name: str | None = None) -> FileCheck:
  """Set up lit's `config` for the folder of Python lit tests `root` (by default the folder of
  the calling `lit.cfg.py`); returns the FileCheck chosen (see `find_filecheck`)."""
  root = os.path.abspath(root) if root else _caller_folder()
  config.name = name or os.path.basename(root)
  config.test_format = lit.formats.ShTest(execute_external=False)
  config.suffixes = [".py"]
  config.excludes = list(NOT_TESTS)
  config.test_source_root = root
  # lit's `Output/` goes to the temporary directory, never into the source tree (so lit runs
  # from any working directory, in a read-only checkout too); one folder per test folder.
  digest = hashlib.sha1(root.encode()).hexdigest()[:8]
  config.test_exec_root = os.path.join(
      tempfile.gettempdir(), f"stablejax-lit-{getpass.getuser()}", f"{config.name}-{digest}")
  checker = find_filecheck(filecheck)
  config.substitutions.append(("%PYTHON", sys.executable))
  config.substitutions.append(("FileCheck", checker.path))
  config.available_features.add(f"{checker.kind}-filecheck")
  # the tests import helpers from their own folder; no __pycache__ written next to them
  config.environment["PYTHONPATH"] = os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])
  config.environment["PYTHONDONTWRITEBYTECODE"] = "1"
  # lit runs the tests in a clean environment: stablejax's settings go through
  config.environment.update({k: v for k, v in os.environ.items() if k.startswith("STABLEJAX_")})
  return checker
