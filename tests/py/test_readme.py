"""The README's Python examples run as written."""
import os
import re

README = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, "README.md")


def test_readme_python_blocks_run():
  text = open(README).read()
  blocks = re.findall(r"```python\n(.*?)```", text, re.S)
  assert len(blocks) >= 2
  for block in blocks:
    exec(compile(block, "README.md", "exec"), {})
