"""Compile observability: `log_compiles` records (name, argument types, the time of each stage),
`explain_cache_misses` (what changed, worded as JAX's), `Lowered.cost_analysis()` from the flops
rules, `Compiled.memory_analysis()` as JAX's; and a quiet runtime (nothing on stderr)."""
import io
import logging
import os
import subprocess
import sys

import jax
import jax.numpy as jjnp
import numpy as np
import pytest

import stablejax as sj
import stablejax.numpy as jnp
from stablejax.compile_log import STAGES


def compile_records(caplog):
  return [r.compile for r in caplog.records if hasattr(r, "compile")]


def make_f():
  def f(x, n):
    return jnp.sin(x) * n
  return f


def test_a_compile_logs_its_name_argument_types_and_stage_times(caplog):
  f = sj.jit(make_f())
  with caplog.at_level(logging.WARNING, logger="stablejax"), sj.log_compiles(True):
    f(np.ones(3, np.float32), np.int32(2))
  (record,) = compile_records(caplog)
  assert record.name == "f" and record.arg_types == ["f32[3]", "i32[]"]
  assert list(record.seconds) == list(STAGES)  # trace, jaxpr passes, lowering, MLIR, XLA
  assert all(s >= 0 for s in record.seconds.values())
  assert "Compiling jit(f) for" in caplog.text and "(f32[3], i32[])" in caplog.text
  assert "XLA compile" in caplog.text


def test_a_function_with_an_unused_argument_logs_its_trace_time(caplog):
  with caplog.at_level(logging.WARNING, logger="stablejax"), sj.log_compiles(True):
    sj.jit(lambda x, unused: jnp.cos(x))(np.ones(3, np.float32), 1.0)
  (record,) = compile_records(caplog)
  assert record.arg_types == ["f32[3]"]  # (the module takes the argument used)
  assert list(record.seconds) == list(STAGES)


def test_cached_calls_log_nothing(caplog):
  f = sj.jit(make_f())
  x = np.ones(3, np.float32)
  with caplog.at_level(logging.WARNING, logger="stablejax"), sj.log_compiles(True):
    f(x, np.int32(2))
    n = len(caplog.records)
    f(x, np.int32(3))
    f(sj.device_put(x), np.int32(3))
  assert n == 1 and len(caplog.records) == 1


def test_ahead_of_time_compile_logs_too(caplog):
  with caplog.at_level(logging.WARNING, logger="stablejax"), sj.log_compiles(True):
    sj.jit(make_f()).lower(np.ones(2, np.float32), 1.0).compile()
  (record,) = compile_records(caplog)
  assert record.arg_types == ["f32[2]", "f32[]"]
  assert "XLA compile" in record.seconds and "lowering" in record.seconds


def miss_messages(caplog):
  return [r.getMessage() for r in caplog.records if "TRACING CACHE MISS" in r.getMessage()]


def explain(calls, statics=()):
  """The cache-miss explanations of stablejax and JAX for the same calls."""
  out = []
  for api, np_ in ((sj, jnp), (jax, jjnp)):
    def f(x, y, n=1):
      return np_.sin(x) * y * n
    g = api.jit(f, static_argnames=statics)
    handler = _Collect()
    logger = logging.getLogger("stablejax" if api is sj else "jax")
    logger.addHandler(handler)
    try:
      with api.explain_cache_misses(True):
        for args, kwargs in calls:
          g(*args, **kwargs)
    finally:
      logger.removeHandler(handler)
    out.append([m for m in handler.messages if "TRACING CACHE MISS" in m])
  return out


class _Collect(logging.Handler):
  def __init__(self):
    super().__init__(logging.WARNING)
    self.messages = []

  def emit(self, record):
    self.messages.append(record.getMessage())


x3, x4 = np.ones(3, np.float32), np.ones(4, np.float32)


@pytest.mark.parametrize("second, line", [
    (((x4, 2.0), {}), "  * at x, now f32[4] and before f32[3]"),
    (((x3.astype(np.int32), 2.0), {}), "  * at x, now i32[3] and before f32[3]"),
    (((x3, np.float32(2.0)), {}),
     "  * at y, now f32[]{weak_type=False} and before f32[]{weak_type=True}"),
])
def test_cache_miss_names_the_argument_and_what_changed_as_jax(second, line):
  ours, theirs = explain([((x3, 2.0), {}), second])
  assert "never seen function" in ours[0] and "never seen function" in theirs[0]
  assert "different input types" in ours[1] and line in ours[1]
  assert line in theirs[1]  # JAX's words for the same change


def test_cache_miss_names_a_static_argument_the_tree_and_the_config():
  ours, _ = explain([((x3, 2.0), {}), ((x3, 2.0), {"n": 3})], statics=("n",))
  assert "different static arguments" in ours[1]
  assert "static argument at keyword 'n': now 3 and before not given" in ours[1]
  ours, theirs = explain([((x3, 2.0), {}), ((x3,), {"y": 2.0})])
  assert "different input pytree" in ours[1] and "different input pytree" in theirs[1]
  f = sj.jit(make_f())
  handler = _Collect()
  logging.getLogger("stablejax").addHandler(handler)
  try:
    with sj.explain_cache_misses(True):
      f(x3, 2.0)
      with sj.numpy_rank_promotion("raise"):
        f(x3, 2.0)
  finally:
    logging.getLogger("stablejax").removeHandler(handler)
  assert "tracing context doesn't match" in handler.messages[1]
  assert "numpy_rank_promotion differs: now raise and before allow" in handler.messages[1]


def test_cost_analysis_flops_from_the_rules_equal_jax_without_compiling():
  def f(a, b):  # (no reduction: XLA counts one flop fewer per output than the rules)
    return (a @ b + 1.0) * a[:, :5]
  a, b = np.ones((4, 8), np.float32), np.ones((8, 5), np.float32)
  lowered = sj.jit(f).lower(a, b)
  cost = lowered.cost_analysis()
  assert cost["flops"] == sj.flops(f)(a, b) == 2 * 4 * 8 * 5 + 20 + 20
  jax_f = lambda a, b: (a @ b + 1.0) * a[:, :5]
  assert cost["flops"] == jax.jit(jax_f).lower(a, b).cost_analysis()["flops"]
  assert not lowered._compiled  # nothing was compiled


def test_memory_analysis_has_jax_fields_and_sizes():
  def f(a, b):
    return a @ b
  a, b = np.ones((4, 8), np.float32), np.ones((8, 5), np.float32)
  ours = sj.jit(f).lower(a, b).compile().memory_analysis()
  theirs = jax.jit(f).lower(a, b).compile().memory_analysis()
  assert type(ours) is type(theirs)
  for field in ("argument_size_in_bytes", "output_size_in_bytes", "alias_size_in_bytes",
                "temp_size_in_bytes", "generated_code_size_in_bytes"):
    assert getattr(ours, field) == getattr(theirs, field), field
  assert ours.argument_size_in_bytes == a.nbytes + b.nbytes
  assert ours.output_size_in_bytes == 4 * 5 * 4


def test_the_runtime_is_quiet_on_stderr():
  """No jaxlib INFO lines (pjrt_client.cc) on stderr: the log level is set before jaxlib
  loads, as JAX does."""
  env = {k: v for k, v in os.environ.items() if k != "TF_CPP_MIN_LOG_LEVEL"}
  code = ("import numpy as np, stablejax as sj\n"
          "print(sj.jit(lambda x: x * 2)(np.ones(3, np.float32)))\n")
  out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       check=True)
  assert out.stdout.strip() == "[2. 2. 2.]"
  assert out.stderr == ""


def test_progress_shows_the_rate_and_the_time_left(monkeypatch):
  """Long work (tools/fuzz.py, bench/run.py) prints done/total, the rate and an ETA."""
  sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
  try:
    import progress
  finally:
    sys.path.pop(0)
  clock = iter([100.0, 110.0])
  monkeypatch.setattr(progress.time, "perf_counter", lambda: next(clock))
  p = progress.Progress(40, "programs", out=io.StringIO())
  p.update(10, "0 mismatching")
  assert p.out.getvalue() == ("10/40 programs (25%), 1.00 programs/s, 10 s elapsed, ETA 30 s, "
                              "0 mismatching\n")
