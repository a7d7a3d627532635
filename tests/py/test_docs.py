"""The docs stay true to the code: every code anchor of docs/*.md points at the line defining its
symbol (`tools/doc_anchors.py`), and tests/README.md maps every test file and only real ones."""
from __future__ import annotations

import importlib.util
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _load_tool():
  spec = importlib.util.spec_from_file_location("doc_anchors", ROOT / "tools" / "doc_anchors.py")
  tool = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(tool)
  return tool


def test_every_anchor_points_at_its_symbol():
  tool = _load_tool()
  docs = tool.documents(str(ROOT))
  assert "docs/architecture.md" in docs
  problems = [p for doc in docs for p in tool.check_doc(str(ROOT), doc)]
  assert not problems, ("stale doc anchors (python tools/doc_anchors.py --fix moves them):\n" +
                        "\n".join(map(str, problems)))
  text = (ROOT / "docs" / "architecture.md").read_text()
  assert len(tool.ANCHOR.findall(text)) >= 50  # the walks and the registry table are anchored


def _toy_project(root: pathlib.Path, doc: str) -> None:
  (root / "docs").mkdir()
  (root / "pkg").mkdir()
  (root / "pkg" / "mod.py").write_text(
      "TABLE = {}\n\n\nclass Thing:\n  def run(self):\n    pass\n\n\ndef helper():\n  pass\n")
  (root / "docs" / "guide.md").write_text(doc)


def test_a_stale_anchor_is_reported_and_fixed(tmp_path):
  tool = _load_tool()
  _toy_project(tmp_path, "See `pkg/mod.py:5` `Thing.run`, `pkg/mod.py:2` `helper` and\n"
                         "`pkg/mod.py:1` `TABLE`.\n")
  problems = tool.check_doc(str(tmp_path), "docs/guide.md")
  assert [(p.line, p.anchor, p.fix) for p in problems] == [(1, "pkg/mod.py:2 helper", 9)]
  assert tool.main(["doc_anchors.py", str(tmp_path)]) == 1
  assert tool.main(["doc_anchors.py", "--fix", str(tmp_path)]) == 0
  assert "`pkg/mod.py:9` `helper`" in (tmp_path / "docs" / "guide.md").read_text()
  assert tool.check_doc(str(tmp_path), "docs/guide.md") == []


def test_a_symbol_or_file_that_is_gone_cannot_be_fixed(tmp_path):
  tool = _load_tool()
  _toy_project(tmp_path, "`pkg/mod.py:4` `Thing.stop` and `pkg/gone.py:1` `helper`\n")
  problems = tool.check_doc(str(tmp_path), "docs/guide.md")
  assert [p.fix for p in problems] == [None, None]
  assert "Thing.stop is not defined" in problems[0].message
  assert "no file pkg/gone.py" in problems[1].message
  assert tool.main(["doc_anchors.py", "--fix", str(tmp_path)]) == 1


def test_tests_readme_maps_every_test_file():
  text = (ROOT / "tests" / "README.md").read_text()
  named = set(re.findall(r"`(test_\w+\.py)`", text))
  present = {path.name for path in (ROOT / "tests" / "py").glob("test_*.py")}
  assert present - named == set(), "test files missing from tests/README.md"
  assert named - present == set(), "tests/README.md names test files that do not exist"
