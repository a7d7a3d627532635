"""Shared helpers for the lit tests: the `@run` decorator and printing a function's StableHLO."""
import numpy as np

import stablejax as sj


def run(f):
  """Run a test case, announcing it for `CHECK-LABEL: TEST: name`."""
  print(f"\nTEST: {f.__name__}", flush=True)
  f()
  return f


def print_stablehlo(fn, *args, **kwargs):
  """Print the StableHLO module of `jit(fn)` for `args` (numpy values or type strings)."""
  print(sj.jit(fn).lower(*args, **kwargs).as_text(), flush=True)


def f32(*shape):
  return np.zeros(shape, np.float32)


def i32(*shape):
  return np.zeros(shape, np.int32)
