"""The README's Python examples run as written, its shell command runs, its set-up commands are
the ones CI runs, and the files it links to exist."""
import os
import re
import shlex
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir)
README = os.path.join(ROOT, "README.md")


def _text() -> str:
  with open(README) as file:
    return file.read()


def _bash_commands() -> list[str]:
  return [line for block in re.findall(r"```bash\n(.*?)```", _text(), re.S)
          for line in block.splitlines()]


def test_readme_python_blocks_run():
  blocks = re.findall(r"```python\n(.*?)```", _text(), re.S)
  assert len(blocks) >= 2
  for block in blocks:
    exec(compile(block, "README.md", "exec"), {})


def test_set_up_commands_are_the_ones_ci_runs():
  with open(os.path.join(ROOT, ".ci", "run")) as file:
    ci_lines = {line.replace(" -q", "") for line in file.read().splitlines()}  # CI runs quietly
  install, test = _bash_commands()[:2]
  for step in install.split(" && ") + [test]:
    assert step in ci_lines, step


def test_cli_command_prints_stablehlo():
  command = next(line for line in _bash_commands() if line.startswith("stablejax lower"))
  proc = subprocess.run([sys.executable, "-m", "stablejax", *shlex.split(command)[1:]], cwd=ROOT,
                        capture_output=True, text=True, timeout=300)
  assert proc.returncode == 0, proc.stderr
  assert "func.func public @main" in proc.stdout and "stablehlo.dot_general" in proc.stdout


def test_explore_command_writes_the_page(tmp_path):
  command = next(line for line in _bash_commands() if line.startswith("stablejax explore"))
  args = shlex.split(command)[1:]
  args[args.index("-o") + 1] = str(tmp_path / "predict.html")
  proc = subprocess.run([sys.executable, "-m", "stablejax", *args], cwd=ROOT,
                        capture_output=True, text=True, timeout=300)
  assert proc.returncode == 0, proc.stderr
  page = (tmp_path / "predict.html").read_text()
  assert 'id="model"' in page and "stablehlo.tanh" in page and "def predict" in page


def test_linked_files_exist():
  links = re.findall(r"\]\(([^)#]+)\)", _text())
  assert {"docs/architecture.md", "docs/benchmarks.md", "tests/README.md"} <= set(links)
  for link in links:
    assert os.path.exists(os.path.join(ROOT, link)), link
