"""Rewrite the lowering replay's stored modules (tests/golden/NAME.mlir) from today's lowering:
run it after a deliberate change of the emitted MLIR, then review `git diff tests/golden`.
Usage: python tools/update_goldens.py [NAME ...]; with no names every entry of
tests/py/golden_corpus.py is rewritten and the files of removed entries are deleted."""
from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "tests",
                                "py"))
import golden_corpus  # noqa: E402  (tests/py, put on the path above)


def update(names: list[str]) -> list[str]:
  """Write the goldens of `names` (all if empty); the names whose text changed."""
  unknown = sorted(set(names) - set(golden_corpus.BY_NAME))
  if unknown:
    raise SystemExit(f"update_goldens: no corpus entry named {', '.join(unknown)} "
                     f"(see tests/py/golden_corpus.py)")
  os.makedirs(golden_corpus.GOLDEN_DIR, exist_ok=True)
  changed = []
  for entry in [golden_corpus.BY_NAME[n] for n in names] or golden_corpus.CORPUS:
    text = golden_corpus.lower_text(entry)
    old = open(entry.path).read() if os.path.exists(entry.path) else None
    if text != old:
      with open(entry.path, "w") as file:
        file.write(text)
      changed.append(entry.name)
  if not names:
    for stale in golden_corpus.stale_files():
      os.remove(os.path.join(golden_corpus.GOLDEN_DIR, stale))
      changed.append(f"{stale} (deleted)")
  return changed


def main(argv: list[str]) -> None:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("names", nargs="*", help="corpus entries (default: all)")
  changed = update(parser.parse_args(argv).names)
  print(f"update_goldens: {len(changed)} changed" + "".join(f"\n  {c}" for c in changed))


if __name__ == "__main__":
  main(sys.argv[1:])
