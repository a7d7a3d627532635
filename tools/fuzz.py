"""A differential fuzzing campaign of stablejax against JAX (tests/py/fuzz).

  python tools/fuzz.py --count 10000 --seed 0 --jobs 2 [--time 3600] [--json out.json]
                       [--batch 20 --eager-every 10]

runs `count` random programs eagerly and under jit, vmap, grad, jvp and their compositions with
both libraries, shrinks up to `--shrink` examples of each kind of mismatch and prints a summary:
programs run, mismatches by kind and mode, and each family's shrunk reproducer. With `--batch K`
the compiled modes (jit, jit_vmap, jit_grad) run K programs per compile (tests/py/fuzz/batch.py),
and the other modes, which compile each operation, only every `--eager-every`-th program.
"""
from __future__ import annotations

import argparse
import collections
import json
import multiprocessing
import os
import re
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "py"))
os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

from fuzz import batch, runner, shrink  # noqa: E402  pylint: disable=wrong-import-position

_SEED, _BUDGET, _EAGER_EVERY = 0, 100, 1


def _init(seed: int, budget: int, eager_every: int = 1) -> None:
  global _SEED, _BUDGET, _EAGER_EVERY
  _SEED, _BUDGET, _EAGER_EVERY = seed, budget, eager_every


def _result(index: int, prog, modes: list[str], found: list) -> tuple:
  """(index, lines, checks, [(kind, mode, detail, known reason)]) of one program."""
  return index, len(prog.lines), len(modes), \
      [(m.kind, m.mode, m.detail, runner.known_reason(m, prog)) for m in found]


def _one(index: int) -> list[tuple]:
  """Program `index` checked in every mode."""
  prog = runner.generate(_SEED, index)
  return [_result(index, prog, runner.modes_of(prog), runner.check(prog))]


def _chunk(indices: list[int]) -> list[tuple]:
  """Programs `indices` checked in the compiled modes together, and one in `_EAGER_EVERY` of
  them in the others."""
  progs = [runner.generate(_SEED, i) for i in indices]
  compiled = collections.defaultdict(list)
  for k, m in batch.check_compiled(progs):
    compiled[k].append(m)
  out = []
  for k, (i, prog) in enumerate(zip(indices, progs)):
    modes = [m for m in runner.modes_of(prog) if m in batch.COMPILED_MODES]
    found = compiled[k]
    if i % _EAGER_EVERY == 0:
      modes = runner.modes_of(prog)
      found = found + [m for m in map(lambda mode: runner.check_mode(prog, mode), modes)
                       if m is not None and m.mode not in batch.COMPILED_MODES]
    out.append(_result(i, prog, modes, found))
  return out


def _shrunk(job):
  index, kind, mode, detail = job
  prog = runner.generate(_SEED, index)
  small = shrink.shrink(prog, runner.Mismatch(kind, mode, detail), budget=_BUDGET)
  again = runner.check_mode(small, mode)
  return index, kind, mode, str(again or detail), runner.reproducer(small, mode), \
      tuple(e for _, e in small.lines)


def signature(kind: str, mode: str, detail: str) -> str:
  """A mismatch with its numbers and arrays blanked out (mismatches of one family share it)."""
  return f"{kind} | " + re.sub(r"\[[^\]]*\]|-?\d[\d.e+-]*", "#", detail)[:100]


def ops_signature(exprs: tuple) -> str:
  names = [n for e in exprs for n in re.findall(r"(?:jnp|lax|jax)\.[\w.]+|\.at\[|\*\*|//|%", e)]
  return " ".join(dict.fromkeys(names)) or "(inputs only)"


def main(argv=None) -> int:
  ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  ap.add_argument("--count", type=int, default=1000)
  ap.add_argument("--seed", type=int, default=0)
  ap.add_argument("--start", type=int, default=0, help="index of the first program")
  ap.add_argument("--jobs", type=int, default=1)
  ap.add_argument("--time", type=float, default=None, help="stop starting programs after this many s")
  ap.add_argument("--shrink", type=int, default=2, help="examples shrunk per kind of mismatch")
  ap.add_argument("--shrink-budget", type=int, default=100, help="runs per shrink")
  ap.add_argument("--json", default=None, help="write every mismatch here")
  ap.add_argument("--batch", type=int, default=0,
                  help="programs per compile in the compiled modes (0: each program alone)")
  ap.add_argument("--eager-every", type=int, default=1,
                  help="with --batch: check the other modes on one program in this many")
  a = ap.parse_args(argv)
  t0 = time.time()
  for lib in ("jax", "stablejax"):  # imported once, before the workers fork
    runner.library(lib)
  ctx = multiprocessing.get_context("fork")
  results = []
  indices = range(a.start, a.start + a.count)
  tasks = ([list(indices[i:i + a.batch]) for i in range(0, len(indices), a.batch)]
           if a.batch else list(indices))
  # (a worker is replaced after about 200 programs: the libraries' caches keep growing)
  with ctx.Pool(a.jobs, initializer=_init, initargs=(a.seed, a.shrink_budget, a.eager_every),
                maxtasksperchild=max(1, 200 // max(a.batch, 1))) as pool:
    for chunk in pool.imap_unordered(_chunk if a.batch else _one, tasks,
                                     chunksize=1 if a.batch else 4):
      results += chunk
      for index, _, _, found in chunk:  # each new mismatch as it is found
        for kind, mode, detail, known in found:
          if not known:
            print(f"  program {index}: [{kind}] {mode}: {detail}", flush=True)
      if len(results) % 20 < len(chunk):
        bad = sum(1 for r in results if any(not f[3] for f in r[3]))
        print(f"  {len(results)} programs, {bad} mismatching, {time.time() - t0:.0f} s", flush=True)
      if a.time and time.time() - t0 > a.time:
        break
  summarize(a, results, t0)
  groups = collections.defaultdict(list)
  for index, _, _, found in results:
    for kind, mode, detail, known in found:
      if not known:
        groups[signature(kind, mode, detail)].append((index, kind, mode, detail))
  jobs = [g[i] for g in groups.values() for i in range(min(a.shrink, len(g)))]
  shrunk = []
  with ctx.Pool(a.jobs, initializer=_init, initargs=(a.seed, a.shrink_budget)) as pool:
    for r in pool.imap_unordered(_shrunk, jobs):
      shrunk.append(r)
      print(f"=== {r[1]} ({r[2]}), program {r[0]}: {r[3]}\n{r[4]}", flush=True)
  report(a, results, shrunk)
  return 1 if any(not f[3] for r in results for f in r[3]) else 0


def summarize(a, results: list, t0: float) -> None:
  """Programs run and their mismatches by kind and mode."""
  n = len(results)
  bad = [r for r in results if any(not f[3] for f in r[3])]
  by_kind = collections.Counter(f[0] for r in results for f in r[3] if not f[3])
  by_mode = collections.Counter(f"{f[0]}/{f[1]}" for r in results for f in r[3] if not f[3])
  known = collections.Counter(f[3] for r in results for f in r[3] if f[3])
  print(f"\nseed {a.seed}: {n} programs ({sum(r[1] for r in results)} lines, "
        f"{sum(r[2] for r in results)} checks) in {time.time() - t0:.0f} s; "
        f"{len(bad)} programs with new mismatches")
  for reason, c in known.most_common():
    print(f"  known ({c} checks): {reason}")
  for k, c in by_kind.most_common():
    print(f"  {k}: {c}")
  for k, c in by_mode.most_common():
    print(f"    {k}: {c}")
  print(flush=True)
  if a.json:
    with open(a.json, "w") as fh:
      json.dump({"seed": a.seed, "programs": n, "mismatches": [
          {"index": r[0], "found": r[3]} for r in results if r[3]]}, fh, indent=1)


def report(a, results: list, shrunk: list) -> None:
  """The shrunk reproducers, one per family (kind and operations of the shrunk program)."""
  families = collections.defaultdict(list)
  for index, kind, mode, detail, repro, exprs in shrunk:
    families[(kind, ops_signature(exprs))].append((index, mode, detail, repro))
  print(f"\n{len(families)} families of mismatches (kind, operations of the shrunk program):")
  for (kind, ops), members in sorted(families.items()):
    index, mode, detail, repro = min(members, key=lambda m: len(m[3]))
    print(f"\n=== {kind}: {ops}  (program {index}, {mode}) {detail}\n{repro}")
  if a.json:
    with open(a.json) as fh:
      data = json.load(fh)
    data["shrunk"] = [dict(zip(("index", "kind", "mode", "detail", "reproducer"), s[:5]))
                      for s in shrunk]
    with open(a.json, "w") as fh:
      json.dump(data, fh, indent=1)


if __name__ == "__main__":
  sys.exit(main())
