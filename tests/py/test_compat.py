"""`stablejax_compat`, JAX's private modules for `install_as_jax`: kept apart (nothing in
stablejax imports it), every name it records exists and behaves as JAX's, and a private module
it does not answer is refused with an error naming `jax._src.<name>`."""
import ast
import importlib
import pathlib
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest

import stablejax as sj
import stablejax_compat
from stablejax_compat import core as compat_core
from stablejax_compat import dtypes as compat_dtypes
from stablejax_compat import traceback_util

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _imported_modules(path: pathlib.Path) -> set[str]:
  names = set()
  for node in ast.walk(ast.parse(path.read_text())):
    if isinstance(node, ast.Import):
      names.update(a.name for a in node.names)
    elif isinstance(node, ast.ImportFrom) and node.module:
      names.add(node.module)
  return names


def test_nothing_in_stablejax_imports_the_compat_package():
  # jax_alias names the package (a string the hook maps `jax._src` to); nothing imports it.
  for folder in ("stablejax", "lowering", "passes"):
    for path in (ROOT / folder).rglob("*.py"):
      assert not any(m.split(".")[0] == "stablejax_compat" for m in _imported_modules(path)), path
      if path.name != "jax_alias.py":
        assert "stablejax_compat" not in path.read_text(), path


def _available(module: str) -> bool:
  try:
    importlib.import_module("stablejax_compat." + module)
  except ModuleNotFoundError as e:  # a stablejax module another change brings (checkify)
    if e.name.startswith("stablejax."):
      return False
    raise
  return True


def test_every_recorded_name_exists():
  for module, names in stablejax_compat.NEEDED_BY.items():
    if not _available(module):
      continue
    mod = importlib.import_module("stablejax_compat." + module)
    for entry in names:
      for name in entry.split(", "):
        if not name.startswith("("):
          assert hasattr(mod, name), f"jax._src.{module}.{name}"


def test_supports_inf_matches_jax():
  from jax._src import dtypes as jax_dtypes
  floats = [np.float16, np.float32, np.float64, np.int32, np.bool_, np.complex64] + [
      getattr(ml_dtypes, n) for n in dir(ml_dtypes) if n.startswith("float") and n != "finfo"]
  for dtype in floats:
    assert compat_dtypes.supports_inf(dtype) == jax_dtypes.supports_inf(dtype), dtype


def test_aliases_are_stablejax_objects():
  import stablejax.tree_util as tu
  from stablejax_compat import tree_util
  from stablejax_compat.state import types
  assert tree_util._registry is tu._registry and list in tree_util._registry
  from stablejax.lax.state import AbstractRef
  assert types.AbstractRef is AbstractRef
  assert compat_dtypes.extended is sj.dtypes.extended
  with pytest.raises(compat_dtypes.TypePromotionError):  # equinox catches this one
    sj.numpy.promote_types(ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2)


def test_trace_state_clean_is_false_under_a_transformation():
  seen = []
  sj.jit(lambda x: seen.append(compat_core.trace_state_clean()) or x)(1.0)
  sj.grad(lambda x: seen.append(compat_core.trace_state_clean()) or x)(1.0)
  assert seen == [False, False] and compat_core.trace_state_clean()


def test_traceback_exclusions_are_recorded_and_api_boundary_keeps_the_function():
  def f(x):
    return x
  assert traceback_util.api_boundary(f) is f
  traceback_util.register_exclusion("/some/library/file.py")
  assert "/some/library/file.py" in traceback_util._exclude_paths
  traceback_util._exclude_paths.remove("/some/library/file.py")


def _hooked(code: str) -> subprocess.CompletedProcess:
  return subprocess.run([sys.executable, "-c", "import stablejax; stablejax.install_as_jax()\n"
                         + code], capture_output=True, text=True)


def test_jax_src_modules_resolve_through_the_hook():
  out = _hooked("from jax._src import dtypes, core\nimport jax._src.dispatch\n"
                "from jax._src.tree_util import _registry\n"
                "print(dtypes.__name__, core.ShapedArray.__module__, jax._src.__name__)")
  assert out.returncode == 0, out.stderr
  assert out.stdout.split() == ["stablejax_compat.dtypes", "stablejax.core", "stablejax_compat"]


def test_unanswered_private_names_are_refused_naming_them():
  out = _hooked("import jax._src.earray")
  assert out.returncode != 0 and "jax._src.earray" in out.stderr and "stablejax" in out.stderr
  out = _hooked("from jax._src import dtypes\ndtypes.float0_like")
  assert "jax._src.dtypes.float0_like: stablejax does not have it" in out.stderr
