"""Check the code anchors of the docs: each `` `path.py:N` `symbol` `` in docs/*.md must have
`symbol` (a function, class, method or assigned name, dotted through classes and functions:
`Jitted.__call__`) defined at line N of `path` (relative to the project root). Usage:
python tools/doc_anchors.py [--fix] [ROOT]; --fix rewrites each stale N to where the symbol is
defined now. Exits 1 on a stale anchor (without --fix) or on a symbol or file that is gone.
tests/py/test_docs.py runs it in CI."""
from __future__ import annotations

import ast
import functools
import glob
import os
import re
import sys
from typing import NamedTuple

ANCHOR = re.compile(r"`(?P<path>[\w./-]+\.py):(?P<line>\d+)` `(?P<symbol>[\w.]+)`")


class Problem(NamedTuple):
  doc: str     # the document, relative to the root
  line: int    # its line holding the anchor
  anchor: str  # `path:N symbol`
  message: str
  fix: int | None  # the line the symbol is defined at now (None: it cannot be fixed)

  def __str__(self) -> str:
    return f"{self.doc}:{self.line}: {self.anchor}: {self.message}"


def _assigned_names(node: ast.stmt) -> list[str]:
  targets = (node.targets if isinstance(node, ast.Assign) else
             [node.target] if isinstance(node, ast.AnnAssign) else [])
  names = []
  for target in targets:
    names += [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]
  return names


def _collect(body: list[ast.stmt], prefix: str, out: dict[str, list[int]]) -> None:
  for node in body:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
      out.setdefault(prefix + node.name, []).append(node.lineno)
      _collect(node.body, f"{prefix}{node.name}.", out)
    elif isinstance(node, (ast.If, ast.Try, ast.With, ast.For, ast.While)):
      for block in (node.body, getattr(node, "orelse", []), getattr(node, "finalbody", []),
                    *(h.body for h in getattr(node, "handlers", []))):
        _collect(block, prefix, out)
    else:
      for name in _assigned_names(node):
        out.setdefault(prefix + name, []).append(node.lineno)


@functools.cache
def definitions(path: str) -> dict[str, list[int]]:
  """Dotted name -> the lines defining it, for every definition in the Python file `path`."""
  with open(path) as source:
    tree = ast.parse(source.read(), path)
  out: dict[str, list[int]] = {}
  _collect(tree.body, "", out)
  return out


def _check_anchor(root: str, match: re.Match) -> tuple[str, int | None] | None:
  """None if the anchor is right, else (what is wrong, the line to fix it to or None)."""
  path, line, symbol = match["path"], int(match["line"]), match["symbol"]
  full = os.path.join(root, path)
  if not os.path.isfile(full):
    return f"no file {path}", None
  lines = definitions(full).get(symbol)
  if not lines:
    return f"{symbol} is not defined in {path}", None
  if line in lines:
    return None
  return f"{symbol} is defined at line {lines[0]}, not {line}", lines[0]


def check_doc(root: str, doc: str) -> list[Problem]:
  """The wrong anchors of the document `doc` (a path relative to `root`)."""
  problems = []
  with open(os.path.join(root, doc)) as file:
    for number, text in enumerate(file, 1):
      for match in ANCHOR.finditer(text):
        wrong = _check_anchor(root, match)
        if wrong is not None:
          anchor = f"{match['path']}:{match['line']} {match['symbol']}"
          problems.append(Problem(doc, number, anchor, *wrong))
  return problems


def fix_doc(root: str, doc: str) -> int:
  """Rewrite the stale line numbers of `doc`'s anchors; returns how many were rewritten."""
  full = os.path.join(root, doc)
  with open(full) as file:
    text = file.read()
  fixed = 0

  def replace(match: re.Match) -> str:
    nonlocal fixed
    wrong = _check_anchor(root, match)
    if wrong is None or wrong[1] is None:
      return match[0]
    fixed += 1
    return f"`{match['path']}:{wrong[1]}` `{match['symbol']}`"

  new = ANCHOR.sub(replace, text)
  if fixed:
    with open(full, "w") as file:
      file.write(new)
  return fixed


def documents(root: str) -> list[str]:
  """The documents whose anchors are checked: docs/*.md."""
  return sorted(os.path.relpath(p, root) for p in glob.glob(os.path.join(root, "docs", "*.md")))


def main(argv: list[str]) -> int:
  fix = "--fix" in argv[1:]
  args = [a for a in argv[1:] if a != "--fix"]
  root = args[0] if args else "."
  if fix:
    for doc in documents(root):
      count = fix_doc(root, doc)
      if count:
        print(f"{doc}: {count} anchors moved")
  problems = [p for doc in documents(root) for p in check_doc(root, doc)]
  for problem in problems:
    print(problem)
  print(f"doc anchors: {len(problems)} wrong in {', '.join(documents(root))}")
  return 1 if problems else 0


if __name__ == "__main__":
  sys.exit(main(sys.argv))
