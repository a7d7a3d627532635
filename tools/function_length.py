"""The functions of the library (stablejax/, lowering/, passes/) longer than the house limit of
60 lines, from `def` to their last line. Usage: python tools/function_length.py [PROJECT_ROOT];
exits 1 if there is any. tests/py/test_function_length.py runs it in CI."""
from __future__ import annotations

import ast
import os
import sys

LIMIT = 60
FOLDERS = ("stablejax", "lowering", "passes")


def long_functions(root: str, limit: int = LIMIT) -> list[tuple[int, str]]:
  """(length, "path:line name") of each function under `root`'s library folders over `limit`
  lines, longest first."""
  found = []
  for folder in FOLDERS:
    for dirpath, _, files in os.walk(os.path.join(root, folder)):
      for file in sorted(f for f in files if f.endswith(".py")):
        path = os.path.join(dirpath, file)
        with open(path, encoding="utf-8") as f:
          tree = ast.parse(f.read(), path)
        for node in ast.walk(tree):
          if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = node.end_lineno - node.lineno + 1
            if length > limit:
              found.append((length, f"{os.path.relpath(path, root)}:{node.lineno} {node.name}"))
  return sorted(found, reverse=True)


def main(argv: list[str]) -> int:
  root = argv[1] if len(argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
  found = long_functions(root)
  for length, where in found:
    print(f"{where}: {length} lines")
  print(f"function length: {len(found)} functions over {LIMIT} lines (want 0)")
  return 1 if found else 0


if __name__ == "__main__":
  sys.exit(main(sys.argv))
