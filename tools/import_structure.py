"""The import structure of the library (stablejax/, lowering/, passes/): cycles among its modules
through module-level imports, and function-level imports of library modules (each one hides an
arrow of the pipeline). Usage: python tools/import_structure.py [PROJECT_ROOT]; exits 1 on any
cycle or function-level import. tests/py/test_import_structure.py runs it in CI."""
from __future__ import annotations

import ast
import os
import sys
from typing import NamedTuple

# source folder -> the package it is installed as (setup.py's ROOTS)
ROOTS = {"stablejax": "stablejax", "lowering": "stablejax.lowering", "passes": "stablejax.passes"}


class Report(NamedTuple):
  cycles: list[list[str]]   # each a strongly connected set of modules, sorted
  local_imports: list[str]  # "path:line" of each function-level import of a library module


def library_modules(root: str) -> dict[str, str]:
  """Module name -> source file, for every module of the library under `root`."""
  modules = {}
  for folder, package in ROOTS.items():
    for dirpath, _, files in os.walk(os.path.join(root, folder)):
      for file in files:
        if file.endswith(".py"):
          path = os.path.join(dirpath, file)
          rel = os.path.relpath(path, os.path.join(root, folder))[:-3].replace(os.sep, ".")
          modules[package if rel == "__init__" else
                  package + "." + rel.removesuffix(".__init__")] = path
  return modules


def _imported_names(node: ast.Import | ast.ImportFrom, module: str, is_package: bool) -> list[str]:
  """The absolute names an import statement may refer to (a module or a name in one)."""
  if isinstance(node, ast.Import):
    return [alias.name for alias in node.names]
  base = node.module or ""
  if node.level:
    parts = module.split(".") if is_package else module.split(".")[:-1]
    parts = parts[:len(parts) - node.level + 1]
    base = ".".join(parts + ([base] if base else []))
  return [base + "." + alias.name for alias in node.names] + [base]


def _resolve(name: str, modules: dict[str, str]) -> str | None:
  """The library module `name` is or lies in, or None outside the library."""
  while name and name not in modules:
    name = name.rpartition(".")[0]
  return name or None


def _module_level_ids(tree: ast.Module) -> tuple[set[int], set[int]]:
  """Ids of the import nodes run at import time, and of those under `if TYPE_CHECKING:`."""
  module_level, typing_only = {id(node) for node in tree.body}, set()
  for block in tree.body:
    if isinstance(block, (ast.If, ast.Try)):
      ids = {id(node) for node in ast.walk(block)}
      module_level |= ids
      if isinstance(block, ast.If) and "TYPE_CHECKING" in ast.dump(block.test):
        typing_only |= ids
  return module_level, typing_only


def import_graph(root: str) -> tuple[dict[str, set[str]], list[str]]:
  """Module -> the library modules it imports at module level; and the function-level imports."""
  modules = library_modules(root)
  edges, local = {module: set() for module in modules}, []
  for module, path in modules.items():
    with open(path) as source:
      tree = ast.parse(source.read())
    module_level, typing_only = _module_level_ids(tree)
    for node in ast.walk(tree):
      if not isinstance(node, (ast.Import, ast.ImportFrom)) or id(node) in typing_only:
        continue
      names = _imported_names(node, module, path.endswith("__init__.py"))
      hit = {_resolve(name, modules) for name in names} - {None, module}
      if not hit:
        continue
      if id(node) in module_level:
        # a package's imports of its own children (re-exports) are no arrow of the pipeline
        edges[module] |= {target for target in hit if not target.startswith(module + ".")}
      else:
        local.append(f"{os.path.relpath(path, root)}:{node.lineno}")
  return edges, local


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
  """The strongly connected sets of more than one module (Tarjan's algorithm, iterative)."""
  index, low, on_stack, stack, found = {}, {}, set(), [], []
  for start in edges:
    if start in index:
      continue
    work = [(start, iter(sorted(edges[start])))]
    index[start] = low[start] = len(index)
    stack.append(start)
    on_stack.add(start)
    while work:
      node, successors = work[-1]
      successor = next(successors, None)
      if successor is None:
        work.pop()
        if work:
          low[work[-1][0]] = min(low[work[-1][0]], low[node])
        if low[node] == index[node]:
          component = []
          while not component or component[-1] != node:
            component.append(stack.pop())
            on_stack.discard(component[-1])
          if len(component) > 1:
            found.append(sorted(component))
      elif successor not in index:
        index[successor] = low[successor] = len(index)
        stack.append(successor)
        on_stack.add(successor)
        work.append((successor, iter(sorted(edges[successor]))))
      elif successor in on_stack:
        low[node] = min(low[node], index[successor])
  return found


def check(root: str = ".") -> Report:
  """The import cycles and function-level imports of the library under `root`."""
  edges, local = import_graph(root)
  return Report(cycles(edges), local)


def main(argv: list[str]) -> int:
  report = check(argv[1] if len(argv) > 1 else ".")
  for component in report.cycles:
    print(f"cycle of {len(component)} modules: {', '.join(component)}")
  for place in report.local_imports:
    print(f"function-level import of a library module: {place}")
  print(f"import structure: {len(report.cycles)} cycles, {len(report.local_imports)} "
        f"function-level imports (want 0 and 0)")
  return 1 if report.cycles or report.local_imports else 0


if __name__ == "__main__":
  sys.exit(main(sys.argv))
