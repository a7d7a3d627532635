"""Helpers for Python lit tests (see `lit_config`): the `@run` decorator and printing a function's
StableHLO for arguments given as values or as type strings.

A type string is the `--arg` notation of the CLI, `DTYPE[DIMS]`:
  - `"f32[2,3]"`: a 2x3 float32 argument; `"i32[]"`: a scalar; `"bool[4]"`, `"bf16[8]"`, ...
    (dtypes: bf16 f16 f32 f64 i8 i16 i32 i64 u8 u16 u32 u64 bool c64 c128);
  - `"f32[3]=1,2,3"`: values may follow, as on the command line (a lowering does not read them);
  - 64-bit types (`f64`, `i64`, `u64`, `c128`) need `enable_x64`: without it they are refused,
    not silently lowered as 32-bit;
  - type strings may stand anywhere in the arguments' pytrees: `print_stablehlo(f, ["f32[2]",
    "f32[3]"], np.ones(4))`.
"""
from __future__ import annotations

import argparse
import dataclasses
from typing import Any, Callable

import numpy as np

import stablejax as sj
from stablejax import dtypes
from stablejax.__main__ import parse_type
from stablejax.tree_util import tree_map


def run(f: Callable[[], Any]) -> Callable[[], Any]:
  """Run a test case, announcing it for `CHECK-LABEL: TEST: name`."""
  print(f"\nTEST: {f.__name__}", flush=True)
  f()
  return f


def arg(spec: str) -> sj.ShapeDtypeStruct:
  """The argument a type string stands for (see the module docstring)."""
  try:
    parsed = parse_type(spec)
  except argparse.ArgumentTypeError as e:
    raise ValueError(str(e).replace("--arg ", "")) from None
  dtype = dataclasses.replace(parsed, shape=(), values=None).array().dtype  # values unread
  if dtypes.canonicalize_dtype(dtype) != dtype:
    raise ValueError(f"type string {spec!r}: 64-bit types need x64 "
                     "(sj.config.update('enable_x64', True) or STABLEJAX_ENABLE_X64=1)")
  return sj.ShapeDtypeStruct(parsed.shape, dtype)


def lower_args(args: tuple) -> tuple:
  """`args` with each type string replaced by its `ShapeDtypeStruct`."""
  return tree_map(lambda x: arg(x) if isinstance(x, str) else x, args)


def print_stablehlo(fn: Callable, *args: Any, **kwargs: Any) -> None:
  """Print the StableHLO module of `jit(fn)` for `args` (values, or type strings such as
  `"f32[2,3]"`); keyword arguments go to `lower` (static arguments)."""
  print(sj.jit(fn).lower(*lower_args(args), **kwargs).as_text(), flush=True)


def f32(*shape: int) -> np.ndarray:
  return np.zeros(shape, np.float32)


def i32(*shape: int) -> np.ndarray:
  return np.zeros(shape, np.int32)
