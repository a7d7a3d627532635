"""The lowering replay corpus: about fifty functions (the examples, the bench programs, the
whole-program tests, one row per primitive family of `primitive_cases.py`, the transformations
and control flow) whose StableHLO text, `as_text()` without locations, is stored in
`tests/golden/NAME.mlir`. test_golden.py lowers each and diffs it with its file;
`python tools/update_goldens.py [NAME ...]` rewrites the files after a deliberate change."""
from __future__ import annotations

import dataclasses
import importlib.util
import os
import sys
from typing import Any, Callable

import numpy as np

import stablejax as sj
import stablejax.numpy as jnp
from stablejax import lax, test_util

import primitive_cases
import test_programs

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir)
GOLDEN_DIR = os.path.join(ROOT, "tests", "golden")
UPDATE_COMMAND = "python tools/update_goldens.py"


def _load(relpath: str, name: str):
  """The module at `relpath` from the root (examples/ and bench/ are not packages), once."""
  if name not in sys.modules:
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, relpath))
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
  return sys.modules[name]


@dataclasses.dataclass(frozen=True)
class Entry:
  """One function of the corpus: `build()` -> (the function, or a jitted one; its arguments)."""
  name: str
  build: Callable[[], tuple[Callable, tuple]]
  platforms: tuple[str, ...] = ("cpu",)
  x64: bool = False

  @property
  def path(self) -> str:
    return os.path.join(GOLDEN_DIR, self.name + ".mlir")


def lower_text(entry: Entry) -> str:
  """The module text `entry` lowers to now (no locations; x64 as the entry says)."""
  fn, args = entry.build()
  jitted = fn if hasattr(fn, "lower") else sj.jit(fn)
  where = (dict(platform=entry.platforms[0]) if len(entry.platforms) == 1
           else dict(platforms=entry.platforms))
  with test_util.x64(entry.x64):
    return jitted.lower(*args, **where).as_text()


def _f32(*shape: int) -> np.ndarray:
  return np.linspace(-1, 1, int(np.prod(shape)), dtype=np.float32).reshape(shape)


# ----------------------------------------------------------------------------------------------
# examples/

def _examples() -> list[Entry]:
  mlp = _load("examples/mlp.py", "examples_mlp")
  custom = _load("examples/custom_primitive.py", "examples_custom_primitive")
  params, x, y = (_f32(4, 16), _f32(16)), _f32(8, 4), _f32(8, 16)
  square_add = lambda: (custom.square_add, (np.float32(2), _f32(3)))
  return [
      Entry("example_mlp_predict", lambda: (mlp.predict, (*params, x))),
      Entry("example_mlp_grad", lambda: (sj.value_and_grad(mlp.loss), (params, x, y))),
      Entry("example_mlp_sgd_step", lambda: (mlp.sgd_step, (params, x, y))),
      Entry("example_custom_primitive_cpu", square_add),
      Entry("example_custom_primitive_cuda", square_add, platforms=("cuda",)),
      Entry("example_custom_primitive_cpu_cuda", square_add, platforms=("cpu", "cuda")),
  ]


# ----------------------------------------------------------------------------------------------
# bench/programs.py

def _bench() -> list[Entry]:
  bp = _load("bench/programs.py", "bench_programs")
  small_mlp = lambda: bp.mlp_data(sizes=(8, 16, 16, 1), batch=4)
  return [
      Entry("bench_chain_30", lambda: (bp.chain(jnp, 30), (_f32(8),))),
      Entry("bench_chain_30_f64", lambda: (bp.chain(jnp, 30), (_f32(8).astype(np.float64),)),
            x64=True),
      Entry("bench_grad_scalar_chain", lambda: (sj.grad(bp.scalar_chain(jnp, 30)), (_f32(8),))),
      Entry("bench_scan_grad", lambda: (bp.scan_grad(jnp, lax, sj.grad), (_f32(5, 3),))),
      Entry("bench_affine", lambda: (bp.affine, (_f32(4),))),
      Entry("bench_three_in_two_out", lambda: (bp.three_in_two_out, (_f32(3),) * 3)),
      Entry("bench_mlp_step", lambda: (bp.mlp_step(sj, jnp), small_mlp())),
      Entry("bench_rnn", lambda: (bp.rnn(sj, jnp, lax), bp.rnn_data(4, 2, 3, 5))),
      Entry("bench_cond", lambda: (bp.eager_cond(jnp, lax), (np.bool_(True), _f32(3)))),
      Entry("bench_while", lambda: (bp.eager_while(jnp, lax), (_f32(3),))),
      Entry("bench_mlp3", lambda: (bp.mlp3(jnp), bp.mlp3_data())),
  ]


# ----------------------------------------------------------------------------------------------
# the whole-program tests (test_programs.py)

def _program(name: str) -> Callable[[], tuple[Callable, tuple]]:
  make, make_args = test_programs.PROGRAMS[name]
  return lambda: (make(sj, jnp), tuple(make_args(np.random.default_rng(0))))


def _programs() -> list[Entry]:
  entries = [Entry(f"program_{name}", _program(name)) for name in sorted(test_programs.PROGRAMS)]
  mlp = _program("mlp")
  return entries + [Entry("program_mlp_jacrev", lambda: (sj.jacrev(mlp()[0]), mlp()[1]))]


# ----------------------------------------------------------------------------------------------
# one row of primitive_cases.py per family of lax/ (control flow: the bench programs above)

FAMILY_CASES = {
    "elementwise": "add_scalar", "elementwise_math": "logistic", "comparison": "lt_to",
    "conversion": "convert_round_trip", "special": "lgamma", "bitwise": "shift_right_logical",
    "misc": "reduce_precision_bf16", "random": "random_gamma", "structural": "pad_negative",
    "stacking": "stack", "slicing_dynamic": "dynamic_update_slice", "gather": "gather_rows",
    "scatter": "scatter_add", "sorting": "sort_key_val", "top_k": "top_k_indices",
    "linalg": "cholesky", "linalg_lu": "lu", "fft": "rfft", "utility": "iota_int32",
    "reductions": "argmax", "cumulative": "cumsum_reverse",
    "windowed_reductions": "reduce_window_max", "dot": "dot_general_batch",
    "convolution": "conv_general_dilated_nhwc_dilated_grouped",
}


def _family(case_id: str) -> Callable[[], tuple[Callable, tuple]]:
  case = primitive_cases.CASE_BY_ID[case_id]
  return lambda: (case.fn, tuple(primitive_cases.make_args(case.args, case.dtypes[0], seed=0)))


def _families() -> list[Entry]:
  return [Entry(f"family_{family}", _family(case_id)) for family, case_id in FAMILY_CASES.items()]


# ----------------------------------------------------------------------------------------------
# transformations, custom derivatives and control flow inside jit

def _softplus_sum(x: Any) -> Any:
  return jnp.sum(sj.nn.softplus(x) + sj.nn.relu(x))  # custom_jvp (relu) and its derivative


def _transformations() -> list[Entry]:
  x = _f32(4, 3)
  fori = lambda x: lax.fori_loop(0, 5, lambda i, c: c * 0.5 + jnp.sin(c), x)
  return [
      Entry("vmap_matvec", lambda: (sj.vmap(jnp.dot, in_axes=(None, 0)), (_f32(3, 4), _f32(5, 4)))),
      Entry("jvp_tanh", lambda: (lambda x, t: sj.jvp(jnp.tanh, (x,), (t,)), (x, x))),
      Entry("grad_custom_jvp", lambda: (sj.grad(_softplus_sum), (x,))),
      Entry("hessian_softmax_sum", lambda: (sj.hessian(lambda v: jnp.sum(sj.nn.softmax(v) ** 2)),
                                            (_f32(4),))),
      Entry("checkpoint_grad", lambda: (sj.grad(sj.checkpoint(_softplus_sum)), (x,))),
      Entry("fori_loop", lambda: (fori, (x,))),
      Entry("switch", lambda: (lambda i, x: lax.switch(i, [jnp.sin, jnp.cos, jnp.exp], x),
                               (np.int32(1), x))),
      Entry("random_normal", lambda: (lambda k: sj.random.normal(k, (3, 2)),
                                      (sj.random.PRNGKey(0),))),
      Entry("nested_jit", lambda: (lambda x: sj.jit(jnp.sin)(x) * 2, (x,))),
  ]


CORPUS: list[Entry] = _examples() + _bench() + _programs() + _families() + _transformations()
BY_NAME: dict[str, Entry] = {entry.name: entry for entry in CORPUS}
if len(BY_NAME) != len(CORPUS):
  raise ValueError("golden_corpus: two entries with the same name")


def stale_files() -> list[str]:
  """The files of tests/golden that no entry writes."""
  if not os.path.isdir(GOLDEN_DIR):
    return []
  return sorted(f for f in os.listdir(GOLDEN_DIR)
                if f.removesuffix(".mlir") not in BY_NAME or not f.endswith(".mlir"))
