"""Shrinks a mismatching program to a minimal one that still mismatches the same way."""
from __future__ import annotations

import copy
import re
from typing import Callable, Iterator

import numpy as np

from . import program as P
from . import runner


def _rename(expr: str, old: int, new: int) -> str:
  return re.sub(rf"\bv{old}\b", f"v{new}", expr)


def _live(prog: P.Program) -> P.Program:
  """`prog` without the lines and inputs its outputs do not need (inputs renumbered)."""
  need = set(prog.outputs)
  for n, e in reversed(prog.lines):
    if n in need:
      need |= set(P.deps(e))
  lines = [(n, e) for n, e in prog.lines if n in need]
  keep = [i for i in range(len(prog.inputs)) if i in need] or [0]
  out = P.Program([prog.inputs[i] for i in keep], lines, list(prog.outputs))
  for new, old in enumerate(keep):
    if new != old:
      out.lines = [(n, _rename(e, old, new)) for n, e in out.lines]
      out.outputs = [new if o == old else o for o in out.outputs]
  return out


def _without_line(prog: P.Program, k: int) -> Iterator[P.Program]:
  """`prog` with line k removed, its uses replaced by each of its operands in turn."""
  n, expr = prog.lines[k]
  for d in dict.fromkeys(P.deps(expr)):
    lines = [(m, _rename(e, n, d)) for m, e in prog.lines if m != n]
    yield P.Program(prog.inputs, lines, list(dict.fromkeys(d if o == n else o for o in prog.outputs)))


def _simpler_inputs(prog: P.Program) -> Iterator[P.Program]:
  """`prog` with one input made smaller (an axis cut to length 1) or its values simpler."""
  for i, x in enumerate(prog.inputs):
    if x.scalar:
      continue
    for ax, d in enumerate(x.value.shape):
      if d > 1:
        cut = lambda v, a: None if v is None else np.take(v, [0], axis=a)
        y = P.Input(cut(x.value, ax), cut(x.batched, ax + 1), cut(x.tangent, ax))
        yield _with_input(prog, i, y)
    if x.value.size and (x.value != 1).any():
      ones = lambda v: None if v is None else np.ones_like(v)
      yield _with_input(prog, i, P.Input(ones(x.value), ones(x.batched), x.tangent))
    if x.batched.shape[0] > 1:
      yield _with_input(prog, i, P.Input(x.value, x.batched[:1], x.tangent))


def _with_input(prog: P.Program, i: int, x: P.Input) -> P.Program:
  out = copy.copy(prog)
  out.inputs = list(prog.inputs)
  out.inputs[i] = x
  return out


def _candidates(prog: P.Program) -> Iterator[P.Program]:
  if len(prog.outputs) > 1:
    for o in prog.outputs:
      yield P.Program(prog.inputs, prog.lines, [o])
  for k in reversed(range(len(prog.lines))):
    yield from _without_line(prog, k)
  yield from _simpler_inputs(prog)


def shrink(prog: P.Program, mismatch: runner.Mismatch, budget: int = 200) -> P.Program:
  """The smallest program found (within `budget` runs) with a mismatch of the same kind and mode."""
  still: Callable[[P.Program], bool] = lambda p: mismatch.mode in runner.modes_of(p) and (
      (m := runner.check_mode(p, mismatch.mode)) is not None and m.kind == mismatch.kind)
  prog = _live(prog)
  tries = 0
  progress = True
  while progress and tries < budget:
    progress = False
    for cand in _candidates(prog):
      cand = _live(cand)
      tries += 1
      if still(cand):
        prog, progress = cand, True
        break
      if tries >= budget:
        break
  return prog
