"""The library's imports follow the pipeline: no import cycle and no function-level import of a
library module (`tools/import_structure.py`, run here so that CI runs it)."""
from __future__ import annotations

import importlib.util
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _load_tool():
  spec = importlib.util.spec_from_file_location("import_structure",
                                                ROOT / "tools" / "import_structure.py")
  tool = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(tool)
  return tool


def test_no_import_cycles_and_no_function_level_imports():
  report = _load_tool().check(str(ROOT))
  assert report.cycles == [], f"import cycles: {report.cycles}"
  assert report.local_imports == [], f"function-level imports: {report.local_imports}"


def test_the_check_sees_a_cycle_and_a_function_level_import(tmp_path):
  for folder in ("stablejax", "lowering", "passes"):
    (tmp_path / folder).mkdir()
    (tmp_path / folder / "__init__.py").write_text("")
  (tmp_path / "stablejax" / "core.py").write_text("from stablejax import api\n")
  (tmp_path / "stablejax" / "api.py").write_text("import stablejax.core\n")
  (tmp_path / "passes" / "dce.py").write_text("def f():\n  from stablejax import core\n")
  report = _load_tool().check(str(tmp_path))
  assert report.cycles == [["stablejax.api", "stablejax.core"]]
  assert report.local_imports == [str(pathlib.Path("passes", "dce.py")) + ":2"]
