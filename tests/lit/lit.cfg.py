"""lit configuration: every `.py` file here is a test run as `%PYTHON file | FileCheck file`."""
import getpass
import importlib.util
import os
import shutil
import sys
import tempfile

import lit.formats

config.name = "stablejax"  # noqa: F821  (lit provides `config`)
config.test_format = lit.formats.ShTest(execute_external=False)  # noqa: F821
config.suffixes = [".py"]  # noqa: F821
config.excludes = ["lit.cfg.py", "lit_util.py"]  # noqa: F821
config.test_source_root = os.path.dirname(__file__)  # noqa: F821
# lit's `Output/` goes to the temporary directory, never into the source tree (so lit runs from
# any working directory, in a read-only checkout too).
config.test_exec_root = os.path.join(  # noqa: F821
    tempfile.gettempdir(), f"stablejax-lit-{getpass.getuser()}")

_bin = os.path.dirname(sys.executable)
_filecheck = shutil.which("filecheck", path=_bin + os.pathsep + os.environ.get("PATH", ""))
if _filecheck is None:
  raise RuntimeError("lit: the `filecheck` command was not found (pip install filecheck)")
config.substitutions.append(("%PYTHON", sys.executable))  # noqa: F821
config.substitutions.append(("FileCheck", _filecheck))  # noqa: F821
config.environment["PYTHONPATH"] = os.pathsep.join(  # noqa: F821
    [config.test_source_root, os.environ.get("PYTHONPATH", "")])  # noqa: F821
# The tests import lit_util from here: no __pycache__ written next to it either.
config.environment["PYTHONDONTWRITEBYTECODE"] = "1"  # noqa: F821

# `REQUIRES: flax-on-stablejax`: flax and optax are installed (the `ecosystem` extra) and
# stablejax has the `jax` modules flax imports.
_FLAX_NEEDS = ("flax", "optax", "stablejax.extend", "stablejax.experimental.layout")
if all(importlib.util.find_spec(name) is not None for name in _FLAX_NEEDS):
  config.available_features.add("flax-on-stablejax")  # noqa: F821
