"""stablejax beside JAX on the same programs (bench/programs.py), in one process, as one table.

Usage: python bench/run.py [--quick] [--rows SUBSTRING]... [--json PATH]

  --quick           fewer repeats (well under a minute; the full run takes a few minutes)
  --rows SUBSTRING  only the rows whose name contains SUBSTRING (case-insensitive; repeatable)
  --json PATH       also write the rows to the file PATH as a JSON list of objects with the keys
                    row, unit ("s", "bytes" or "x"), stablejax, jax, ratio, target, target_of
                    ("ratio" or "stablejax growth"), met (true, false, or null where it cannot be
                    judged) and note (why a row has no figure)

Columns: the stablejax figure, the JAX figure, their ratio stablejax/JAX, the target, and MISS
where the target is missed (the IREE/XLA rows: stablejax on IREE, stablejax on XLA, and
IREE/XLA; "not available" without the extra stablejax[iree]; the sj/sj rows: stablejax against
itself, its lowering with the hook of the IR dumps and compile logs (off) and without it, and
with every stage dumped and without). Times are per call (seconds, shown in us/ms/s); the two
sides run
alternately (stablejax, JAX, stablejax, JAX, ...), each figure the median of its runs after a
warm-up, which is also a check that the program's outputs agree with JAX's. Growth rows
show each side's own time(2n) / time(n) and judge stablejax's against the target; the "peak
memory" row shows tracemalloc peaks (Python's heap), the "peak RSS" rows the growth of a fresh
process's resident-set peak (native memory too: the MLIR module); the import and
persistent-cache rows time fresh subprocesses. Without JAX installed, stablejax's figures are
printed alone. Progress (rows done, their rate, the time left) goes to stderr. Exits 1 if a row
failed or disagreed with JAX.
"""
from __future__ import annotations

import argparse
import dataclasses
import functools
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from typing import Any, Callable, Sequence

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "tools"))
import programs  # noqa: E402
from progress import Progress  # noqa: E402  (tools/progress.py)
from common import time_run, try_import_jax  # noqa: E402

import stablejax as sj  # noqa: E402
import stablejax.numpy as jnp  # noqa: E402
from stablejax import lax, lowering, pipeline  # noqa: E402
from stablejax.passes import registry as pass_registry  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
X8 = np.arange(8, dtype=np.float32)
XS = np.linspace(-1.0, 1.0, 4 * 8, dtype=np.float32).reshape(4, 8)
CHECK_EQNS = 30  # the size of the trace programs whose outputs are checked against JAX's


@dataclasses.dataclass(frozen=True)
class Side:
  """One library: its name (also its module), top-level API, numpy and lax modules."""
  name: str
  api: Any
  np: Any
  lax: Any


def load_side(name: str) -> Side | None:
  """The library `name` ("stablejax" or "jax"); None if it is not installed."""
  if name == "stablejax":
    return Side("stablejax", sj, jnp, lax)
  jax, jjnp = try_import_jax()
  return None if jax is None else Side("jax", jax, jjnp, jax.lax)


def load_sides() -> list[Side]:
  """stablejax, then JAX where it is installed."""
  return [s for s in (load_side("stablejax"), load_side("jax")) if s is not None]


@dataclasses.dataclass(frozen=True)
class Settings:
  quick: bool

  def repeat(self, counts: tuple[int, int]) -> int:
    """The number of timed runs: `counts` is (full, quick)."""
    return counts[self.quick]

  @property
  def run_seconds(self) -> float:
    """How long one timed run of a fast call should last (calls are repeated to fill it)."""
    return 0.01 if self.quick else 0.02


class Unavailable(Exception):
  """A row that cannot be measured here; the message says why."""


class Disagree(Exception):
  """The two libraries computed different things: the timing would mean nothing."""


Measure = Callable[[Sequence[Side], Settings], list[float]]


@dataclasses.dataclass(frozen=True)
class Row:
  name: str
  target: float
  measure: Measure
  unit: str = "s"
  growth: bool = False  # the figures are each side's own time(2n)/time(n)


def alternate(runs: Sequence[Callable[[], float]], repeat: int) -> list[float]:
  """Runs each of `runs` in turn, `repeat` rounds; the median of each."""
  results: list[list[float]] = [[] for _ in runs]
  for _ in range(repeat):
    for run, out in zip(runs, results):
      out.append(run())
  return [statistics.median(out) for out in results]


def leaves(tree: Any) -> list[np.ndarray]:
  if isinstance(tree, (list, tuple)):
    return [leaf for t in tree for leaf in leaves(t)]
  return [np.asarray(tree)]


def agree(check: Callable[[Side], Any], sides: Sequence[Side]) -> None:
  """Raises Disagree unless `check` gives the same shapes, dtypes and (close) values on each
  side."""
  ours, *others = [leaves(check(s)) for s in sides]
  for theirs in others:
    same = len(ours) == len(theirs) and all(
        a.shape == b.shape and a.dtype == b.dtype and np.allclose(a, b, rtol=1e-4, atol=1e-5)
        for a, b in zip(ours, theirs))
    if not same:
      raise Disagree(f"outputs differ from JAX's: {ours} vs {theirs}")


def calibrated(thunk: Callable[[], Any], finish: Callable | None,
               cfg: Settings) -> Callable[[], float]:
  """One timed run of `thunk`, repeated to last about `cfg.run_seconds`, after a warm-up."""
  thunk()
  number = max(1, min(20_000, int(cfg.run_seconds / time_run(thunk, 1, finish))))
  return functools.partial(time_run, thunk, number, finish)


def timed(make: Callable[[Side], Callable[[], Any]], check: Callable[[Side], Any], *,
          block: bool = False, fresh: bool = False,
          repeat: tuple[int, int] = (15, 5)) -> Measure:
  """Per-call time of `make(side)()`, after `check` (also the warm-up). With `fresh` each run is
  one call (of a fresh program that no cache answers); without, calls repeat to fill a run.
  `block` waits for the last result inside the timed region."""
  def measure(sides: Sequence[Side], cfg: Settings) -> list[float]:
    agree(check, sides)
    runs = []
    for side in sides:
      finish = side.api.block_until_ready if block else None
      runs.append(functools.partial(time_run, make(side), 1, finish) if fresh
                  else calibrated(make(side), finish, cfg))
    return alternate(runs, cfg.repeat(repeat))
  return measure


# The trace-heavy work, as `work(side, n)` giving a thunk that builds and traces a fresh program,
# each with a check of the same program at CHECK_EQNS equations.

def trace(side: Side, n: int) -> Callable[[], Any]:
  return lambda: side.api.make_jaxpr(programs.chain(side.np, n))(X8)


def grad_trace(side: Side, n: int) -> Callable[[], Any]:
  return lambda: side.api.make_jaxpr(side.api.grad(programs.scalar_chain(side.np, n)))(X8)


def lower(side: Side, n: int) -> Callable[[], Any]:
  return lambda: side.api.jit(programs.chain(side.np, n)).lower(X8).as_text()


def vmap_trace(side: Side, n: int) -> Callable[[], Any]:
  return lambda: side.api.make_jaxpr(side.api.vmap(programs.chain(side.np, n)))(XS)


def jvp_trace(side: Side, n: int) -> Callable[[], Any]:
  def run():
    f = programs.chain(side.np, n)
    return side.api.make_jaxpr(lambda x, t: side.api.jvp(f, (x,), (t,)))(X8, X8)
  return run


def checked_value(side: Side) -> Any:
  return side.api.jit(programs.chain(side.np, CHECK_EQNS))(X8)


CHECKS: dict[Callable, Callable[[Side], Any]] = {
    trace: lambda s: (len(trace(s, CHECK_EQNS)().eqns), checked_value(s)),
    grad_trace: lambda s: s.api.jit(s.api.grad(programs.scalar_chain(s.np, CHECK_EQNS)))(X8),
    lower: lambda s: (lower(s, CHECK_EQNS)().count("stablehlo.sine"), checked_value(s)),
    vmap_trace: lambda s: s.api.vmap(programs.chain(s.np, CHECK_EQNS))(XS),
    jvp_trace: lambda s: s.api.jvp(programs.chain(s.np, CHECK_EQNS), (X8,), (X8,)),
}


def traced(work: Callable[[Side, int], Callable[[], Any]], n: int,
           repeat: tuple[int, int] = (7, 2)) -> Measure:
  """Time of `work` at `n` equations, a fresh program each run."""
  return timed(lambda s: work(s, n), CHECKS[work], fresh=True, repeat=repeat)


def growth(work: Callable[[Side, int], Callable[[], Any]], n: int,
           repeat: tuple[int, int] = (5, 1)) -> Measure:
  """Each side's own time(2n) / time(n) of `work`."""
  def measure(sides: Sequence[Side], cfg: Settings) -> list[float]:
    agree(CHECKS[work], sides)
    runs = []
    for side in sides:
      runs += [functools.partial(time_run, work(side, n)),
               functools.partial(time_run, work(side, 2 * n))]
    times = alternate(runs, cfg.repeat(repeat))
    return [big / small for small, big in zip(times[::2], times[1::2])]
  return measure


def peak_bytes(fn: Callable[[], Any]) -> float:
  """The tracemalloc peak of one call of `fn`, from a clean heap."""
  time_run(lambda: None)  # collects garbage
  tracemalloc.start()
  try:
    fn()
    return float(tracemalloc.get_traced_memory()[1])
  finally:
    tracemalloc.stop()


def peak_memory(work: Callable[[Side, int], Callable[[], Any]], n: int) -> Measure:
  def measure(sides: Sequence[Side], cfg: Settings) -> list[float]:
    agree(CHECKS[work], sides)
    return alternate([functools.partial(peak_bytes, work(s, n)) for s in sides],
                     cfg.repeat((3, 1)))
  return measure


WORKS = {work.__name__: work for work in CHECKS}


def memory_child(side_name: str, work_name: str, n: int) -> None:
  """The child process of the peak-RSS rows: prints the growth of the resident set's peak over
  one run of `work` at `n` equations, after a warm-up at CHECK_EQNS (imports, caches, the MLIR
  context). Linux's /proc/self/clear_refs resets the peak first; a JSON line either way."""
  side, work = load_side(side_name), WORKS[work_name]
  work(side, CHECK_EQNS)()
  time_run(lambda: None)  # collects garbage
  try:
    with open("/proc/self/clear_refs", "w") as f:
      f.write("5")  # the peak (VmHWM) starts again from the resident set now
  except OSError as e:
    print(json.dumps({"unavailable": f"needs Linux's /proc/self/clear_refs ({e})"}))
    return
  before = _status_bytes("VmRSS")
  work(side, n)()
  print(json.dumps({"bytes": _status_bytes("VmHWM") - before}))


def _status_bytes(key: str) -> float:
  with open("/proc/self/status") as f:
    line = next(line for line in f if line.startswith(key + ":"))
  return float(line.split()[1]) * 1024  # (in kB)


def peak_rss(work: Callable[[Side, int], Callable[[], Any]], n: int) -> Measure:
  """The peak resident memory `work` adds at `n` equations, each run a fresh process: unlike
  tracemalloc's, it counts the MLIR module and the other native memory of lowering."""
  def child_bytes(side: Side) -> float:
    out = json.loads(child(os.path.abspath(__file__), "--memory-child", side.name,
                           work.__name__, str(n)))
    if "unavailable" in out:
      raise Unavailable(out["unavailable"])
    return out["bytes"]

  def measure(sides: Sequence[Side], cfg: Settings) -> list[float]:
    agree(CHECKS[work], sides)
    return alternate([functools.partial(child_bytes, s) for s in sides], cfg.repeat((2, 1)))
  return measure


def lowered(build: Callable[[Side, int], tuple[Callable, tuple]], n: int = 3000) -> Measure:
  """`jit(...).lower(*args).as_text()` of a fresh program: `build(side, n)` gives the jitted
  program of about `n` equations and its arguments; checked by running it at CHECK_EQNS."""
  def make(side: Side) -> Callable[[], str]:
    def run():
      fun, args = build(side, n)
      return fun.lower(*args).as_text()
    return run

  def check(side: Side) -> Any:
    fun, args = build(side, CHECK_EQNS)
    return fun(*args)
  return timed(make, check, fresh=True, repeat=(7, 2))


def scaled_chain(side: Side, n: int) -> tuple[Callable, tuple]:
  return side.api.jit(programs.chain(side.np, n, scale=1.0001)), (X8,)


def grad_chain(side: Side, n: int) -> tuple[Callable, tuple]:
  return side.api.jit(side.api.grad(programs.scalar_chain(side.np, n))), (X8,)


def vmap_chain(side: Side, n: int) -> tuple[Callable, tuple]:
  return side.api.jit(side.api.vmap(programs.chain(side.np, n))), (XS,)


# Dispatch, eager operations and steps of compiled programs.

def dispatch(program: Callable, n_args: int, floor: bool = False, depth: int = 0) -> Measure:
  """A cached jitted call of `program` on `n_args` f32[8] device arrays, made `depth` Python
  frames further down the stack (a call inside a training loop inside a library). With `floor`,
  stablejax's side is what no Python dispatch can beat: its compiled executable run straight on
  the arrays (jaxlib's execution, its results made Arrays), against JAX's whole cached call."""
  args = [X8 + i for i in range(n_args)]

  def make(side):
    f, xs = side.api.jit(program), side.api.device_put(args)
    if floor and side.name == "stablejax":
      exe = f.lower(*xs).compile().executable
      return lambda: exe.launch(xs)
    def call():
      return f(*xs)
    return functools.partial(down, depth, call) if depth else call
  return timed(make, lambda s: make(s)(), block=True)


def down(depth: int, call: Callable[[], Any]) -> Any:
  """`call()`, `depth` frames further down the stack."""
  return down(depth - 1, call) if depth else call()


def eager(fn: Callable[[Side], Callable], n_args: int) -> Measure:
  """`fn(side)` called eagerly on `n_args` f32[8] device arrays."""
  args = [X8 - i for i in range(n_args)]

  def make(side):
    f, xs = fn(side), side.api.device_put(args)
    return lambda: f(*xs)
  return timed(make, lambda s: make(s)(), block=True)


def host_call(program: Callable[[Side], Callable], args: Callable[[Side], tuple]) -> Measure:
  """A cached jitted call of `program(side)` on `args(side)`: numpy arrays and Python scalars
  as they are (each call transfers them), or device arrays. Two untimed calls first: stablejax
  packs a signature's numpy arrays into one transfer from its second call."""
  def make(side):
    f, xs = side.api.jit(program(side)), args(side)
    f(*xs)
    f(*xs)
    return lambda: f(*xs)
  return timed(make, lambda s: make(s)(), block=True)


def eager_mixed(op: Callable[[Any, Any], Any], other: Any) -> Measure:
  """`op(x, other)` eagerly: `x` an f32[8] device array, `other` a numpy value or a Python
  scalar (transferred by each call)."""
  def make(side):
    x = side.api.device_put(X8)
    return lambda: op(x, other)
  return timed(make, lambda s: make(s)(), block=True)


def fresh_wrapper(side: Side) -> Callable[[], Any]:
  x = side.api.device_put(X8)
  return lambda: side.api.jit(programs.affine)(x)


def salted(build: Callable[[Side, float], Callable], data: tuple) -> Measure:
  """The first call of a fresh jitted program, `build(side, salt)`: each call a new constant
  `salt`, so no cache of traces, modules or executables answers, on either side."""
  salts = itertools.count(1)

  def make(side):
    args = side.api.device_put(data)
    return lambda: build(side, 1.0 + next(salts) * 1e-3)(*args)
  return timed(make, lambda s: build(s, 1.0)(*s.api.device_put(data)), block=True, fresh=True,
               repeat=(5, 1))


def stepped(build: Callable[[Side, float], Callable], data: tuple, carry: bool) -> Measure:
  """A cached step of the jitted program `build(side, 1.0)`, waiting for each result; `carry`
  feeds the step's first output back as its first argument (a training loop)."""
  def make(side):
    step, args = build(side, 1.0), list(side.api.device_put(data))

    def run():
      out = side.api.block_until_ready(step(*args))
      if carry:
        args[0] = out[0]
      return out
    return run
  return timed(make, lambda s: make(s)())


def mlp(side: Side, salt: float) -> Callable:
  return programs.mlp_step(side.api, side.np, lr=0.01 * salt)


def rnn(side: Side, salt: float) -> Callable:
  return programs.rnn(side.api, side.np, side.lax, scale=salt)


# Fresh processes: import time, and compiling with the persistent compilation cache.

def child(*args: str, env: dict | None = None) -> str:
  """The standard output of `python *args` run from the repository root (in `env`)."""
  done = subprocess.run([sys.executable, *args], cwd=REPO, capture_output=True, text=True,
                        check=False, env=env)
  if done.returncode != 0:
    raise RuntimeError(f"subprocess {args[:2]} failed: {done.stderr.strip()[-500:]}")
  return done.stdout.strip().splitlines()[-1]


def import_seconds(module: str, env: dict) -> float:
  return float(child("-c", f"import time; t = time.perf_counter(); import {module}; "
                           "print(time.perf_counter() - t)", env=env))


def import_time(sides: Sequence[Side], cfg: Settings) -> list[float]:
  """Both libraries imported from bytecode, as installed packages are (pip compiles it): an
  environment with PYTHONDONTWRITEBYTECODE would otherwise compile stablejax's sources (an
  editable install) on every import, and not JAX's. The bytecode goes to a fresh cache
  directory, written by an untimed first import of each."""
  with tempfile.TemporaryDirectory() as cache:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = cache
    runs = [functools.partial(import_seconds, s.name, env) for s in sides]
    for run in runs:
      run()
    return alternate(runs, cfg.repeat((7, 2)))


def cached_compile(side_name: str, cache_dir: str) -> dict:
  """In a fresh process: the first-call time of the MLP step with the persistent compilation cache
  in `cache_dir`, and the loss it computed."""
  out = json.loads(child(os.path.abspath(__file__), "--cache-child", side_name, cache_dir))
  if "unavailable" in out:
    raise Unavailable(out["unavailable"])
  return out


def persistent_cache(sides: Sequence[Side], cfg: Settings) -> list[float]:
  """A first process fills the cache; each timed run is a second process compiling again."""
  with tempfile.TemporaryDirectory() as root:
    dirs = [os.path.join(root, s.name) for s in sides]
    losses = [cached_compile(s.name, d)["loss"] for s, d in zip(sides, dirs)]
    if not np.allclose(losses, losses[0], rtol=1e-4):
      raise Disagree(f"losses differ from JAX's: {losses}")
    return alternate([functools.partial(lambda s, d: cached_compile(s, d)["seconds"], s.name, d)
                      for s, d in zip(sides, dirs)], cfg.repeat((3, 1)))


def enable_cache(side: Side, cache_dir: str) -> None:
  """Turns on `side`'s persistent compilation cache in `cache_dir`; Unavailable if it has none."""
  if side.name == "jax":
    side.api.config.update("jax_compilation_cache_dir", cache_dir)
    side.api.config.update("jax_persistent_cache_min_compile_time_secs", 0)
    side.api.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
  elif hasattr(side.api.config, "compilation_cache_dir"):
    side.api.config.update("compilation_cache_dir", cache_dir)
  else:
    raise Unavailable("sj.config has no 'compilation_cache_dir' option yet")


def cache_child(side_name: str, cache_dir: str) -> None:
  """The child process of the persistent-cache row: prints one JSON line."""
  side = load_side(side_name)
  try:
    enable_cache(side, cache_dir)
  except Unavailable as e:
    print(json.dumps({"unavailable": str(e)}))
    return
  params, x, y = programs.mlp_data()
  args = side.api.device_put((params, x, y))
  start = time.perf_counter()
  _, loss = side.api.block_until_ready(mlp(side, 1.0)(*args))
  print(json.dumps({"seconds": time.perf_counter() - start, "loss": float(loss)}))


class IreeApi:
  """stablejax with every `jit` compiled by IREE (`backend="iree"`): the first side of the IREE
  rows, whose second side is stablejax on XLA."""

  def __getattr__(self, name: str) -> Any:
    return getattr(sj, name)

  @staticmethod
  def jit(fun: Callable, **kwargs: Any) -> Callable:
    return sj.jit(fun, backend="iree", **kwargs)


def iree_vs_xla(measure: Measure) -> Measure:
  """`measure` of stablejax on IREE against stablejax on XLA (the ratio is IREE/XLA)."""
  def run(sides: Sequence[Side], cfg: Settings) -> list[float]:
    if not sj.runtime.iree.available():
      raise Unavailable(f"IREE is not installed ({sj.runtime.iree.INSTALL})")
    return measure([Side("stablejax-iree", IreeApi(), jnp, lax), load_side("stablejax")], cfg)
  return run


# The observability hooks (stablejax/ir_dump.py, compile_log.py), stablejax against itself: the
# first figure with the hook, the second without it (the ratio is their cost).

def _chain_jaxpr(n: int) -> Any:
  return sj.make_jaxpr(programs.chain(jnp, n))(X8)


def _lower_unhooked(closed: Any) -> Any:
  """`pipeline.lower` as it was before the dump and log hooks: the stages called directly."""
  passes = pass_registry.choose(None)
  module = lowering.lower_jaxpr(pipeline.jaxpr_passes(closed, passes), "chain", "cpu")
  return pass_registry.run_mlir(module, passes)


def hooks_off(n: int) -> Measure:
  """`pipeline.lower` of `n` equations with dumps and logs off, against the same stages
  without the hook."""
  def measure(sides: Sequence[Side], cfg: Settings) -> list[float]:
    closed = _chain_jaxpr(n)
    runs = [functools.partial(time_run, lambda: pipeline.lower(closed, "chain", "cpu")),
            functools.partial(time_run, lambda: _lower_unhooked(closed))]
    runs[0](), runs[1]()  # (warm-up)
    times: list[list[float]] = [[], []]
    for _ in range(cfg.repeat((31, 9))):
      for run, out in zip(runs, times):
        out.append(run())
    # the fastest runs: the hook costs nanoseconds, the machine's load milliseconds
    return [min(t) for t in times]
  return measure


def dumps_on(n: int) -> Measure:
  """`pipeline.lower` of `n` equations with every stage and pass dumped, against it without
  dumps (the dump takes under twice the lowering when the ratio is under 3)."""
  def measure(sides: Sequence[Side], cfg: Settings) -> list[float]:
    closed = _chain_jaxpr(n)
    lower_now = lambda: pipeline.lower(closed, "chain", "cpu")
    with tempfile.TemporaryDirectory() as root:
      def dumped() -> float:
        sj.config.update("dump_ir_to", root)
        try:
          return time_run(lower_now)
        finally:
          sj.config.update("dump_ir_to", None)
      return alternate([dumped, functools.partial(time_run, lower_now)], cfg.repeat((7, 3)))
  return measure


MLP_DATA = tuple(programs.mlp_data())
RNN_DATA = tuple(programs.rnn_data())
PRED = np.bool_(True)

MLP3_DATA = programs.mlp3_data()

# The dispatch targets are set at the floor a Python-level Array can reach (docs/benchmarks.md)
ROWS = [
    Row("cached jit dispatch 1 in/1 out f32[8]", 1.10, dispatch(programs.affine, 1)),
    Row("cached jit dispatch 3 in/2 out f32[8]", 1.10, dispatch(programs.three_in_two_out, 3)),
    Row("cached jit dispatch 30 frames down f32[8]", 1.0,
        dispatch(programs.affine, 1, depth=30)),
    Row("floor: sj executable run alone vs JAX dispatch", 1.0,
        dispatch(programs.affine, 1, floor=True)),
    Row("eager sin f32[8]", 1.15, eager(lambda s: s.np.sin, 1)),
    Row("eager add f32[8] (x + y)", 1.0, eager(lambda s: lambda x, y: x + y, 2)),
    Row("jit MLP, 7 numpy arguments", 1.2,
        host_call(lambda s: programs.mlp3(s.np), lambda s: MLP3_DATA)),
    Row("jit MLP, 7 device arrays", 1.0,
        host_call(lambda s: programs.mlp3(s.np), lambda s: s.api.device_put(MLP3_DATA))),
    Row("jit sin, 1 numpy f32[8]", 1.2, host_call(lambda s: s.np.sin, lambda s: (X8,))),
    Row("jit x * lr, lr a Python float", 1.2,
        host_call(lambda s: lambda x, lr: x * lr, lambda s: (s.api.device_put(X8), 0.01))),
    Row("eager array + numpy array f32[8]", 1.2, eager_mixed(lambda x, y: x + y, X8 + 1)),
    Row("eager array * 2.0 f32[8]", 1.2, eager_mixed(lambda x, y: x * y, 2.0)),
    Row("jit(f)(x), fresh wrapper each call", 1.0,
        timed(fresh_wrapper, lambda s: fresh_wrapper(s)(), block=True)),
    Row("make_jaxpr, 3,000 eqns", 0.2, traced(trace, 3000)),
    Row("make_jaxpr(grad), 3,000 eqns", 0.2, traced(grad_trace, 3000)),
    Row("jit(f).lower(x).as_text(), 3,000 eqns", 0.3, traced(lower, 3000)),
    Row("make_jaxpr(vmap), 3,000 eqns", 0.3, traced(vmap_trace, 3000)),
    Row("make_jaxpr(jvp), 3,000 eqns", 0.3, traced(jvp_trace, 3000)),
    Row("make_jaxpr, 30,000 eqns", 0.2, traced(trace, 30000, repeat=(3, 1))),
    Row("jit(f).lower(x).as_text(), 30,000 eqns", 0.3, traced(lower, 30000, repeat=(3, 1))),
    Row("growth 3,000->6,000: make_jaxpr", 2.1, growth(trace, 3000), "x", True),
    Row("growth 3,000->6,000: make_jaxpr(grad)", 2.1, growth(grad_trace, 3000), "x", True),
    Row("growth 3,000->6,000: lower", 2.1, growth(lower, 3000), "x", True),
    Row("lower, sin(x) * 1.0001 + x, 3,000 eqns", 0.3, lowered(scaled_chain)),
    Row("lower, jit(grad(f)), 3,000 eqns", 0.3, lowered(grad_chain)),
    Row("lower, jit(vmap(f)), 3,000 eqns", 0.3, lowered(vmap_chain)),
    Row("lower, MLP training step", 0.3,
        lowered(lambda s, n: (mlp(s, 1.0), MLP_DATA))),
    Row("lower, scan RNN", 0.3, lowered(lambda s, n: (rnn(s, 1.0), RNN_DATA))),
    Row("growth 50,000->100,000: make_jaxpr", 2.1, growth(trace, 50000, (3, 1)), "x", True),
    Row("growth 50,000->100,000: lower", 2.1, growth(lower, 50000, (3, 1)), "x", True),
    Row("MLP compile (first call of a fresh jit(step))", 1.0, salted(mlp, MLP_DATA)),
    Row("MLP training step (cached)", 1.0, stepped(mlp, MLP_DATA, carry=True)),
    Row("scan RNN compile (first call)", 1.0, salted(rnn, RNN_DATA)),
    Row("scan RNN step (cached)", 1.0, stepped(rnn, RNN_DATA, carry=False)),
    Row("eager lax.cond f32[8]", 1.0, eager(lambda s: functools.partial(
        programs.eager_cond(s.np, s.lax), s.api.device_put(PRED)), 1)),
    Row("eager lax.while_loop f32[8], 10 trips", 1.0,
        eager(lambda s: programs.eager_while(s.np, s.lax), 1)),
    Row("peak memory, make_jaxpr 3,000 eqns", 1.0, peak_memory(trace, 3000), "bytes"),
    Row("peak RSS, make_jaxpr 100,000 eqns", 1.0, peak_rss(trace, 100000), "bytes"),
    Row("peak RSS, lower 100,000 eqns", 1.0, peak_rss(lower, 100000), "bytes"),
    # stablejax with the hook (first figure) against without it (second): the ratio is its cost
    Row("sj/sj: lower 3,000 eqns, dumps+logs off/no hook", 1.01, hooks_off(3000)),
    Row("sj/sj: lower 3,000 eqns, dumps on/off", 3.0, dumps_on(3000)),
    Row("import time", 1.0, import_time),
    Row("MLP compile, 2nd process, persistent cache", 1.0, persistent_cache),
    # stablejax on IREE (first figure) against stablejax on XLA (second): the ratio is IREE/XLA
    Row("IREE/XLA: MLP compile (first call)", 20.0, iree_vs_xla(salted(mlp, MLP_DATA))),
    Row("IREE/XLA: MLP training step (cached)", 20.0,
        iree_vs_xla(stepped(mlp, MLP_DATA, carry=True))),
    Row("IREE/XLA: scan RNN compile (first call)", 20.0, iree_vs_xla(salted(rnn, RNN_DATA))),
    Row("IREE/XLA: scan RNN step (cached)", 20.0,
        iree_vs_xla(stepped(rnn, RNN_DATA, carry=False))),
]


def result(row: Row, sides: Sequence[Side], cfg: Settings) -> dict:
  """Measures `row`: the JSON object of the --json output."""
  out = {"row": row.name, "unit": row.unit, "stablejax": None, "jax": None, "ratio": None,
         "target": row.target, "target_of": "stablejax growth" if row.growth else "ratio",
         "met": None, "note": None}
  try:
    figures = row.measure(sides, cfg)
  except Unavailable as e:
    out["note"] = f"not available: {e}"
    return out
  except Exception as e:  # a broken program or library: reported in its row, the others go on
    out["note"] = f"ERROR {type(e).__name__}: {str(e).splitlines()[0][:160] if str(e) else ''}"
    return out
  out["stablejax"], out["jax"] = figures[0], figures[1] if len(figures) > 1 else None
  if out["jax"] is not None and not row.growth:
    out["ratio"] = out["stablejax"] / out["jax"]
  judged = out["stablejax"] if row.growth else out["ratio"]
  out["met"] = None if judged is None else judged <= row.target
  return out


def human(value: float | None, unit: str) -> str:
  if value is None:
    return "-"
  if unit == "x":
    return f"{value:.2f}x"
  if unit == "bytes":
    return f"{value / 2**20:.2f} MiB"
  for scale, suffix in ((1e-3, "us"), (1.0, "ms")):
    if value < scale:
      return f"{value / scale * 1e3:.1f} {suffix}"
  return f"{value:.2f} s"


HEADER = f"{'row':<46} {'stablejax':>11} {'JAX':>11} {'ratio':>6}  {'target':<10} mark"


def line(out: dict) -> str:
  if out["note"] is not None:
    return f"{out['row']:<46} {out['note']}"
  ratio = "-" if out["ratio"] is None else f"{out['ratio']:.2f}"
  target = ("sj <= " if out["target_of"] != "ratio" else "<= ") + f"{out['target']}"
  mark = "MISS" if out["met"] is False else ""
  return (f"{out['row']:<46} {human(out['stablejax'], out['unit']):>11} "
          f"{human(out['jax'], out['unit']):>11} {ratio:>6}  {target:<10} {mark}").rstrip()


def main(argv: Sequence[str] | None = None) -> int:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--quick", action="store_true", help="fewer repeats")
  parser.add_argument("--rows", action="append", metavar="SUBSTRING",
                      help="only rows whose name contains SUBSTRING (repeatable)")
  parser.add_argument("--json", metavar="PATH", help="also write the rows as JSON to PATH")
  parser.add_argument("--cache-child", nargs=2, help=argparse.SUPPRESS)
  parser.add_argument("--memory-child", nargs=3, help=argparse.SUPPRESS)
  args = parser.parse_args(argv)
  if args.cache_child:
    cache_child(*args.cache_child)
    return 0
  if args.memory_child:
    side_name, work_name, n = args.memory_child
    memory_child(side_name, work_name, int(n))
    return 0
  sides, cfg = load_sides(), Settings(args.quick)
  rows = [r for r in ROWS
          if not args.rows or any(s.lower() in r.name.lower() for s in args.rows)]
  if len(sides) == 1:
    print("jax is not installed: stablejax's figures alone")
  print(HEADER, flush=True)
  results, progress = [], Progress(len(rows), "rows")
  for row in rows:
    results.append(result(row, sides, cfg))
    print(line(results[-1]), flush=True)
    progress.update(len(results))
  if args.json:
    with open(args.json, "w") as f:
      json.dump(results, f, indent=1)
  return int(any(r["note"] and r["note"].startswith("ERROR") for r in results))


if __name__ == "__main__":
  sys.exit(main())
