"""No function of the library is over 60 lines (`tools/function_length.py`, run here so that CI
runs it)."""
from __future__ import annotations

import importlib.util
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _load_tool():
  spec = importlib.util.spec_from_file_location("function_length",
                                                ROOT / "tools" / "function_length.py")
  tool = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(tool)
  return tool


def test_no_function_is_over_60_lines():
  assert _load_tool().long_functions(str(ROOT)) == []


def test_the_check_sees_a_long_function(tmp_path):
  (tmp_path / "passes").mkdir()
  body = "".join(f"  x{i} = {i}\n" for i in range(60))
  (tmp_path / "passes" / "long.py").write_text("def f():\n" + body + "\n\ndef g():\n  pass\n")
  assert _load_tool().long_functions(str(tmp_path)) == [
      (61, str(pathlib.Path("passes", "long.py")) + ":1 f")]
