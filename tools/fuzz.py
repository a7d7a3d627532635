"""A differential fuzzing campaign of stablejax against JAX (tests/py/fuzz).

  python tools/fuzz.py --count 10000 --seed 0 --jobs 2 [--time 3600] [--json out.json]
                       [--batch 20 --eager-every 10]

runs `count` random programs eagerly and under jit, vmap, grad, jvp and their compositions with
both libraries, shrinks up to `--shrink` examples of each kind of mismatch and prints a summary:
programs run, mismatches by kind and mode, and each family's shrunk reproducer. With `--batch K`
the compiled modes (jit, jit_vmap, jit_grad) run K programs per compile (tests/py/fuzz/batch.py),
and the other modes, which compile each operation, only every `--eager-every`-th program.
Each batch runs in a fresh process: where one dies (XLA crashing on a module) or hangs, the
batch is split until the program stands alone, and each of its modes is run alone by each
library to tell which one dies (a `crash` mismatch).
"""
from __future__ import annotations

import argparse
import collections
import dataclasses
import json
import multiprocessing
import multiprocessing.connection
import os
import re
import signal
import sys
import time
from typing import Callable, Iterator

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "py"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

from fuzz import batch, runner, shrink  # noqa: E402  pylint: disable=wrong-import-position
from progress import Progress  # noqa: E402  (tools/progress.py, beside this file)

_SEED, _BUDGET, _EAGER_EVERY, _BATCH = 0, 100, 1, 0
PER_PROCESS = 5  # batches (or programs, without --batch) per worker process: its caches warm up


def _init(seed: int, budget: int, eager_every: int = 1, batch_size: int = 0) -> None:
  global _SEED, _BUDGET, _EAGER_EVERY, _BATCH
  _SEED, _BUDGET, _EAGER_EVERY, _BATCH = seed, budget, eager_every, batch_size


def _result(index: int, prog, modes: list[str], found: list) -> tuple:
  """(index, lines, checks, [(kind, mode, detail, known reason)]) of one program."""
  return index, len(prog.lines), len(modes), \
      [(m.kind, m.mode, m.detail, runner.known_reason(m, prog)) for m in found]


def _one(index: int) -> list[tuple]:
  """Program `index` checked in every mode."""
  prog = runner.generate(_SEED, index)
  return [_result(index, prog, runner.modes_of(prog), runner.check(prog))]


def _each(indices: list[int]) -> list[tuple]:
  return [r for i in indices for r in _one(i)]


def _chunks(indices: list[int]) -> list[tuple]:
  return [r for k in range(0, len(indices), _BATCH) for r in _chunk(indices[k:k + _BATCH])]


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
      others = [m for m in runner.modes_of(prog) if m not in batch.COMPILED_MODES]
      modes += others
      found = found + [m for m in map(lambda mode: runner.check_mode(prog, mode), others)
                       if m is not None]
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
  _init(a.seed, a.shrink_budget, a.eager_every, a.batch)
  ctx = multiprocessing.get_context("fork")
  results = []
  indices = range(a.start, a.start + a.count)
  size = max(a.batch, 1) * PER_PROCESS
  tasks = collections.deque(list(indices[i:i + size]) for i in range(0, len(indices), size))
  run_chunk = _chunks if a.batch else _each
  progress = Progress(a.count, "programs", sys.stdout)
  for chunk, out in isolated(ctx, a.jobs, tasks, run_chunk, lambda ix: 600 + 120 * len(ix),
                             stop=lambda: a.time and time.time() - t0 > a.time):
    if isinstance(out, Died):  # a crash or a hang: narrowed down to the program, then the mode
      if len(chunk) > 1:
        tasks.extendleft([chunk[len(chunk) // 2:], chunk[:len(chunk) // 2]])
        continue
      out = [_died(ctx, chunk[0], out)]
    results += out
    for index, _, _, found in out:  # each new mismatch as it is found
      for kind, mode, detail, known in found:
        if not known:
          print(f"  program {index}: [{kind}] {mode}: {detail}", flush=True)
    if progress.tty or len(results) % 20 < len(out):
      bad = sum(1 for r in results if any(not f[3] for f in r[3]))
      progress.update(len(results), f"{bad} mismatching")
  summarize(a, results, t0, unrun=sorted(set(indices) - {r[0] for r in results}))
  groups = collections.defaultdict(list)
  for index, _, _, found in results:
    for kind, mode, detail, known in found:
      if not known and kind != "crash":  # (a crash is reported whole: shrinking would crash)
        groups[signature(kind, mode, detail)].append((index, kind, mode, detail))
  jobs = collections.deque(g[i] for g in groups.values() for i in range(min(a.shrink, len(g))))
  shrunk = []
  for job, r in isolated(ctx, a.jobs, jobs, _shrunk, lambda job: 1800):
    if not isinstance(r, Died):
      shrunk.append(r)
      print(f"=== {r[1]} ({r[2]}), program {r[0]}: {r[3]}\n{r[4]}", flush=True)
  report(a, results, shrunk)
  return 1 if any(not f[3] for r in results for f in r[3]) else 0


@dataclasses.dataclass
class Died:
  """A worker process that ended without an answer."""
  why: str


def _child(conn, fn: Callable, task) -> None:
  conn.send(fn(task))
  conn.close()


def isolated(ctx, jobs: int, tasks: collections.deque, fn: Callable, limit_s: Callable,
             stop: Callable[[], bool] = lambda: False) -> Iterator[tuple]:
  """(task, fn(task)) for each task of `tasks`, each run in a fresh forked process, `jobs` at a
  time; `Died` in place of the result where the process died (a crash in XLA kills it) or ran
  past `limit_s(task)` seconds. Tasks the caller appends while iterating are run too; none are
  started once `stop()`."""
  running = {}
  while running or (tasks and not stop()):
    while tasks and len(running) < jobs and not stop():
      task = tasks.popleft()
      r, w = ctx.Pipe(duplex=False)
      proc = ctx.Process(target=_child, args=(w, fn, task), daemon=True)
      proc.start()
      w.close()
      running[r] = (proc, task, time.time())
    for r in multiprocessing.connection.wait(list(running), timeout=5):
      proc, task, _ = running.pop(r)
      try:
        out = r.recv()
      except EOFError:
        proc.join()
        code = proc.exitcode
        out = Died(f"killed by {signal.Signals(-code).name}" if code and code < 0
                   else f"exited with code {code}")
      proc.join()
      r.close()
      yield task, out
    for r, (proc, task, started) in list(running.items()):
      if time.time() - started > limit_s(task):
        proc.kill()
        proc.join()
        del running[r]
        r.close()
        yield task, Died(f"no answer after {limit_s(task)} s")


def _probe(job: tuple) -> bool:
  """Whether library `lib` runs program `index` under `mode` without dying (errors are fine)."""
  lib, index, mode = job
  runner.run(lib, runner.generate(_SEED, index), mode)
  return True


def _modes(index: int) -> list[str]:
  return runner.modes_of(runner.generate(_SEED, index))


def _crash_result(job: tuple) -> tuple:
  index, found = job
  prog = runner.generate(_SEED, index)
  return _result(index, prog, runner.modes_of(prog), found)


def _alone(ctx, fn: Callable, task):
  """fn(task) in a process of its own (`Died` if it dies)."""
  (_, out), = isolated(ctx, 1, collections.deque([task]), fn, lambda _: 600)
  return out


def _died(ctx, index: int, died: Died) -> tuple:
  """The result of program `index`, whose worker died: each mode run alone by each library in
  a process of its own, to tell which library dies under which mode. (Generating a program
  starts JAX's runtime, whose threads make a later fork unsafe: this process leaves even that
  to its children.)"""
  modes = _alone(ctx, _modes, index)
  if isinstance(modes, Died):
    return index, 0, 0, [("crash", "generate", f"generating the program dies ({modes.why})", None)]
  jobs = collections.deque((lib, index, m) for m in modes for lib in ("jax", "stablejax"))
  dead = {job: out.why for job, out in isolated(ctx, 2, jobs, _probe, lambda job: 600)
          if isinstance(out, Died)}
  found = []
  for m in modes:
    j, s = dead.get(("jax", index, m)), dead.get(("stablejax", index, m))
    if j or s:
      detail = (f"both die ({s})" if j and s else f"stablejax dies ({s}); JAX runs" if s
                else f"JAX dies ({j}); stablejax runs")
      found.append(runner.Mismatch("crash", m, detail))
  if not found:  # died only among other programs (a batch), never alone
    found.append(runner.Mismatch("crash", "batch", f"a worker died ({died.why}) on this "
                                 "program among others; every mode alone runs in both"))
  return _alone(ctx, _crash_result, (index, found))


def spans(indices: list[int]) -> str:
  """Sorted `indices` as runs: [0, 1, 2, 5, 7, 8] -> '0-2, 5, 7-8'."""
  runs = []
  for i in indices:
    if runs and runs[-1][1] == i - 1:
      runs[-1][1] = i
    else:
      runs.append([i, i])
  return ", ".join(f"{a}-{b}" if a != b else f"{a}" for a, b in runs)


def summarize(a, results: list, t0: float, unrun: list[int] = ()) -> None:
  """Programs run and their mismatches by kind and mode, and the programs `--time` left unrun
  (a later run with `--start` covers them)."""
  n = len(results)
  bad = [r for r in results if any(not f[3] for f in r[3])]
  by_kind = collections.Counter(f[0] for r in results for f in r[3] if not f[3])
  by_mode = collections.Counter(f"{f[0]}/{f[1]}" for r in results for f in r[3] if not f[3])
  known = collections.Counter(f[3] for r in results for f in r[3] if f[3])
  print(f"\nseed {a.seed}: {n} programs ({sum(r[1] for r in results)} lines, "
        f"{sum(r[2] for r in results)} checks) in {time.time() - t0:.0f} s; "
        f"{len(bad)} programs with new mismatches")
  if unrun:
    print(f"  not run (--time): programs {spans(unrun)}")
  for reason, c in known.most_common():
    print(f"  known ({c} checks): {reason}")
  for k, c in by_kind.most_common():
    print(f"  {k}: {c}")
  for k, c in by_mode.most_common():
    print(f"    {k}: {c}")
  print(flush=True)
  if a.json:
    with open(a.json, "w") as fh:
      json.dump({"seed": a.seed, "programs": n, "not_run": spans(unrun), "mismatches": [
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
