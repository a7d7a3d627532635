"""Lowering replay: every function of golden_corpus.py lowers (no compile) to the module text
stored in tests/golden/; a change in the emitted MLIR fails with its unified diff and the
command that accepts it (`python tools/update_goldens.py NAME`)."""
import difflib
import importlib.util
import os

import pytest

import golden_corpus
from golden_corpus import BY_NAME, CORPUS, UPDATE_COMMAND, lower_text, stale_files

MAX_DIFF_LINES = 200


def golden_diff(name: str, stored: str, now: str) -> str:
  """The unified diff from the stored text to today's, cut at MAX_DIFF_LINES lines."""
  lines = list(difflib.unified_diff(stored.splitlines(), now.splitlines(),
                                    f"tests/golden/{name}.mlir (stored)", f"{name} (lowered now)",
                                    lineterm=""))
  if len(lines) > MAX_DIFF_LINES:
    lines = lines[:MAX_DIFF_LINES] + [f"... ({len(lines) - MAX_DIFF_LINES} more diff lines)"]
  return "\n".join(lines)


def check_golden(name: str) -> None:
  entry = BY_NAME[name]
  now = lower_text(entry)
  accept = f"{UPDATE_COMMAND} {name}"
  if not os.path.exists(entry.path):
    pytest.fail(f"{name}: no stored module tests/golden/{name}.mlir; write it with: {accept}",
                pytrace=False)
  with open(entry.path) as file:
    stored = file.read()
  if now != stored:
    pytest.fail(f"{name}: the emitted MLIR changed:\n{golden_diff(name, stored, now)}\n\n"
                f"If the change is intended, accept it with: {accept}\n"
                f"(or every entry: {UPDATE_COMMAND}), and review `git diff tests/golden`.",
                pytrace=False)


@pytest.mark.parametrize("name", [entry.name for entry in CORPUS])
def test_lowering_matches_golden(name):
  check_golden(name)


def test_no_stale_goldens():
  assert stale_files() == [], (f"files in tests/golden that no corpus entry writes; "
                               f"delete them with: {UPDATE_COMMAND}")


def test_a_changed_lowering_fails_with_a_diff_and_the_command(tmp_path, monkeypatch):
  entry = BY_NAME["bench_affine"]
  edited = tmp_path / "bench_affine.mlir"
  edited.write_text(open(entry.path).read().replace("stablehlo.add", "stablehlo.subtract"))
  monkeypatch.setattr(type(entry), "path", property(lambda self: str(edited)))
  with pytest.raises(pytest.fail.Exception) as failure:
    check_golden("bench_affine")
  message = str(failure.value)
  assert "-    %3 = stablehlo.subtract" in message and "+    %3 = stablehlo.add" in message
  assert "--- tests/golden/bench_affine.mlir (stored)" in message
  assert f"{UPDATE_COMMAND} bench_affine" in message


def _update_goldens_tool():
  path = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, "tools", "update_goldens.py")
  spec = importlib.util.spec_from_file_location("update_goldens", path)
  module = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(module)
  return module


def test_the_update_command_rewrites_the_goldens(tmp_path, monkeypatch):
  tool = _update_goldens_tool()
  monkeypatch.setattr(golden_corpus, "GOLDEN_DIR", str(tmp_path))
  (tmp_path / "removed_entry.mlir").write_text("module {}\n")
  assert tool.update(["bench_affine"]) == ["bench_affine"]
  assert sorted(os.listdir(tmp_path)) == ["bench_affine.mlir", "removed_entry.mlir"]
  changed = tool.update([])  # the others written, the stale file deleted
  assert "removed_entry.mlir (deleted)" in changed and len(changed) == len(CORPUS)
  assert sorted(os.listdir(tmp_path)) == sorted(f"{e.name}.mlir" for e in CORPUS)
  assert tool.update([]) == []
  with pytest.raises(SystemExit, match="no corpus entry named nonesuch"):
    tool.update(["nonesuch"])
