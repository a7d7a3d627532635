"""A `stablejax` package whose `stablejax.lowering` or `stablejax.passes` would come from another
checkout is refused at import, naming both paths; the layouts of a checkout and of a wheel import.

Each case runs `import stablejax` in a fresh process of this tree's interpreter, whose editable
install maps `stablejax.lowering` and `stablejax.passes` to this checkout."""
from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys

import stablejax

CHECKOUT = pathlib.Path(stablejax.__file__).resolve().parent.parent


def _import_stablejax(pythonpath: pathlib.Path, cwd: pathlib.Path) -> subprocess.CompletedProcess:
  env = dict(os.environ, PYTHONPATH=str(pythonpath))
  code = "import stablejax, stablejax.lowering as l; print(stablejax.__file__); print(l.__file__)"
  return subprocess.run([sys.executable, "-c", code], env=env, cwd=cwd, capture_output=True,
                        text=True, timeout=300)


def _copy_package(source: pathlib.Path, target: pathlib.Path) -> None:
  shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))


def test_a_package_from_another_checkout_is_refused_naming_both_paths(tmp_path):
  tmp_path = tmp_path.resolve()
  _copy_package(CHECKOUT / "stablejax", tmp_path / "stablejax")
  result = _import_stablejax(tmp_path, tmp_path)
  assert result.returncode != 0
  assert "ImportError: mixed stablejax trees" in result.stderr, result.stderr
  assert str(tmp_path / "stablejax") in result.stderr
  assert str(CHECKOUT / "lowering") in result.stderr


def test_this_checkout_imports(tmp_path):
  tmp_path = tmp_path.resolve()
  result = _import_stablejax(CHECKOUT, tmp_path)
  assert result.returncode == 0, result.stderr
  package_file, lowering_file = result.stdout.split()
  assert package_file == str(CHECKOUT / "stablejax" / "__init__.py")
  assert lowering_file == str(CHECKOUT / "lowering" / "__init__.py")


def test_the_layout_of_a_wheel_imports(tmp_path):
  tmp_path = tmp_path.resolve()
  # site-packages/stablejax/{lowering,passes}: the subpackages sit inside the package.
  _copy_package(CHECKOUT / "stablejax", tmp_path / "stablejax")
  for sub in ("lowering", "passes"):
    _copy_package(CHECKOUT / sub, tmp_path / "stablejax" / sub)
  result = _import_stablejax(tmp_path, tmp_path)
  assert result.returncode == 0, result.stderr
  assert result.stdout.split() == [str(tmp_path / "stablejax" / "__init__.py"),
                                   str(tmp_path / "stablejax" / "lowering" / "__init__.py")]


def test_passes_from_another_checkout_is_refused(tmp_path):
  tmp_path = tmp_path.resolve()
  _copy_package(CHECKOUT / "stablejax", tmp_path / "stablejax")
  _copy_package(CHECKOUT / "lowering", tmp_path / "stablejax" / "lowering")
  result = _import_stablejax(tmp_path, tmp_path)
  assert result.returncode != 0
  assert "ImportError: mixed stablejax trees" in result.stderr, result.stderr
  assert str(tmp_path / "stablejax") in result.stderr
  assert str(CHECKOUT / "passes") in result.stderr
