"""`stablejax.lit_config` in a user's own test folder (two lines of lit.cfg.py), the choice of
FileCheck, and the type strings of `stablejax.lit_util`, each documented form."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from stablejax import lit_config, test_util
from stablejax.lit_util import arg, print_stablehlo

USER_CFG = "from stablejax.lit_config import configure\nconfigure(config)\n"
README = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, "README.md")


def _readme_example() -> str:
  """The lit test of the README's "Writing lit tests"."""
  with open(README) as file:
    section = file.read().split("### Writing lit tests", 1)[1]
  return re.search(r"```\n(.*?)```", section, re.S).group(1)


PASSING = _readme_example()
FAILING = PASSING.replace("stablehlo.add", "stablehlo.subtract")
LLVM_ONLY = "# REQUIRES: llvm-filecheck\n" + PASSING


def _user_folder(tmp_path, **tests):
  folder = tmp_path / "my_tests"
  folder.mkdir()
  (folder / "lit.cfg.py").write_text(USER_CFG)
  for name, text in tests.items():
    (folder / f"{name}.py").write_text(text)
  return folder


def _lit(folder, cwd, **env):
  """lit run by this Python (the one stablejax is installed in), from `cwd`."""
  proc = subprocess.run([sys.executable, "-c", "from lit.main import main; main()", "-v",
                         str(folder)], cwd=cwd, capture_output=True, text=True,
                        env={**os.environ, **env})
  counts = dict(re.findall(r"^\s*(Passed|Failed|Unsupported)\s*:\s*(\d+)", proc.stdout, re.M))
  return proc, {k: int(v) for k, v in counts.items()}


def _fake_llvm_filecheck(folder):
  """A `FileCheck` that notes its use and checks with the Python one."""
  folder.mkdir()
  marker = folder / "used"
  script = folder / "FileCheck"
  script.write_text(f"#!/bin/sh\necho used > {marker}\nexec {lit_config._python_filecheck().path} "
                    '"$@"\n')
  script.chmod(0o755)
  return script, marker


def test_a_user_folder_with_two_config_lines_passes_and_fails_as_its_checks_say(tmp_path):
  folder = _user_folder(tmp_path, passing=PASSING, failing=FAILING, llvm_only=LLVM_ONLY)
  proc, counts = _lit(folder, cwd=tmp_path, STABLEJAX_FILECHECK="python")
  assert proc.returncode != 0
  assert counts == {"Passed": 1, "Failed": 1, "Unsupported": 1}, proc.stdout + proc.stderr
  assert "FAIL: my_tests :: failing.py" in proc.stdout
  assert "stablehlo.subtract" in proc.stdout  # FileCheck's message names the check that failed
  assert sorted(os.listdir(folder)) == ["failing.py", "lit.cfg.py", "llvm_only.py", "passing.py"]


def test_llvm_filecheck_when_asked_for(tmp_path):
  script, marker = _fake_llvm_filecheck(tmp_path / "llvm")
  folder = _user_folder(tmp_path, passing=PASSING, llvm_only=LLVM_ONLY)
  proc, counts = _lit(folder, cwd=tmp_path, STABLEJAX_FILECHECK=str(script))
  assert proc.returncode == 0 and counts == {"Passed": 2}, proc.stdout + proc.stderr
  assert marker.exists()


def test_filecheck_choice(tmp_path, monkeypatch):
  script, _ = _fake_llvm_filecheck(tmp_path / "llvm")
  monkeypatch.delenv(lit_config.FILECHECK_ENV, raising=False)
  monkeypatch.setenv("PATH", str(tmp_path / "llvm") + os.pathsep + os.environ["PATH"])
  assert lit_config.find_filecheck() == (str(script), "llvm")  # found on PATH
  assert lit_config.find_filecheck("python").kind == "python"
  monkeypatch.setenv(lit_config.FILECHECK_ENV, "python")
  assert lit_config.find_filecheck().kind == "python"
  monkeypatch.setenv("PATH", str(tmp_path))
  assert lit_config.find_filecheck(None).kind == "python"  # no FileCheck on PATH
  with pytest.raises(RuntimeError, match="`FileCheck` is not on PATH"):
    lit_config.find_filecheck("llvm")
  with pytest.raises(RuntimeError, match="is not an executable"):
    lit_config.find_filecheck(str(tmp_path / "nowhere" / "FileCheck"))


def _main_signature(capsys, fn, *args):
  print_stablehlo(fn, *args)
  text = capsys.readouterr().out
  return re.search(r"func.func public @main\((.*)\) ->", text).group(1)


@pytest.mark.parametrize("spec, mlir_type", [
    ("f32[2,3]", "tensor<2x3xf32>"), ("i32[]", "tensor<i32>"), ("bool[4]", "tensor<4xi1>"),
    ("bf16[8]", "tensor<8xbf16>"), ("u8[1, 2]", "tensor<1x2xui8>"),
    ("c64[2]", "tensor<2xcomplex<f32>>"),
    ("f32[3]=1,2,3", "tensor<3xf32>")])
def test_each_documented_type_string(capsys, spec, mlir_type):
  assert _main_signature(capsys, lambda x: x, spec) == f"%arg0: {mlir_type}"


def test_type_strings_anywhere_in_the_pytrees(capsys):
  signature = _main_signature(capsys, lambda xs, y: (xs[0], xs[1], y), ["f32[2]", "i32[3]"],
                              np.ones(4, np.float32))
  assert signature == "%arg0: tensor<2xf32>, %arg1: tensor<3xi32>, %arg2: tensor<4xf32>"


def test_64_bit_type_strings_need_x64(capsys):
  with test_util.x64(False), pytest.raises(ValueError, match="64-bit types need x64"):
    arg("f64[2]")
  with test_util.x64(True):
    assert _main_signature(capsys, lambda x, y: (x, y), "f64[2]", "i64[]") == \
        "%arg0: tensor<2xf64>, %arg1: tensor<i64>"


@pytest.mark.parametrize("spec", ["x32[2]", "f32[2", "f32", "f32[3]=a,b"])
def test_a_bad_type_string_is_refused_clearly(spec):
  with pytest.raises(ValueError, match=re.escape(repr(spec))):
    arg(spec)

