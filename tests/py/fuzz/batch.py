"""Checking many programs at once under the compiled modes (jit, jit_vmap, jit_grad): one
`jit` of all of them side by side, so each library compiles once per batch instead of once per
program. Programs that fail to trace alone are left out; where a batch still fails on either
side, it is split in halves until the failing programs stand alone; a program whose batched
results differ, or that fails alone, is checked again by itself (`runner.check_mode`, which
decides). The batch is a fast filter: what it reports comes from the single-program check."""
from __future__ import annotations

import collections
import warnings
from typing import Callable, Optional

from . import program as P
from . import runner

COMPILED_MODES = ("jit", "jit_vmap", "jit_grad")


def _spans(sizes: list[int]) -> list[slice]:
  out, start = [], 0
  for n in sizes:
    out.append(slice(start, start + n))
    start += n
  return out


def _jit(jax, nss: list[dict]) -> tuple[Callable, list, Callable]:
  spans = _spans([len(ns["args"]) for ns in nss])
  return (lambda *a: [ns["f"](*a[s]) for ns, s in zip(nss, spans)],
          [x for ns in nss for x in ns["args"]], list)


def _jit_vmap(jax, nss: list[dict]) -> tuple[Callable, list, Callable]:
  spans = _spans([len(ns["bargs"]) for ns in nss])
  axes = tuple(a for ns in nss for a in ns["AXES"])
  return (jax.vmap(lambda *a: [ns["f"](*a[s]) for ns, s in zip(nss, spans)], in_axes=axes),
          [x for ns in nss for x in ns["bargs"]], list)


def _jit_grad(jax, nss: list[dict]) -> tuple[Callable, list, Callable]:
  spans = _spans([len(ns["args"]) for ns in nss])
  argnums = tuple(s.start + i for ns, s in zip(nss, spans) for i in ns["GRAD_ARGNUMS"])
  total = lambda *a: sum(ns["loss"](*a[s]) for ns, s in zip(nss, spans))

  def unpack(grads):
    grads = iter(grads)
    return [tuple(next(grads) for _ in ns["GRAD_ARGNUMS"]) for ns in nss]
  return jax.grad(total, argnums=argnums), [x for ns in nss for x in ns["args"]], unpack


# each mode's (function to jit, its arguments, the function's output split per program)
_FUSED = {"jit": _jit, "jit_vmap": _jit_vmap, "jit_grad": _jit_grad}


def _trace_error(lib: str, prog: P.Program, mode: str) -> Optional[Exception]:
  """The error tracing `prog` alone under `mode` raises (most failures are found so, without
  compiling), or None."""
  jax = runner.library(lib)["jax"]
  try:
    with warnings.catch_warnings():
      warnings.simplefilter("ignore")
      fn, args, _ = _FUSED[mode](jax, [runner.namespace(lib, prog)])
      jax.eval_shape(fn, *args)
    return None
  except Exception as e:  # pylint: disable=broad-except
    return e


def _outcomes(lib: str, progs: list[P.Program], mode: str) -> list:
  """Each program's `runner.run`-style result under `mode`: a program that fails to trace
  alone gets its error; the others run in one jit, split in halves where it fails (a lone
  failing program's result is its error)."""
  errors = [_trace_error(lib, p, mode) for p in progs] if len(progs) > 1 else [None]
  ok = [p for p, e in zip(progs, errors) if e is None]
  results = iter(_run_fused(lib, ok, mode) if ok else [])
  return [e if e is not None else next(results) for e in errors]


def _run_fused(lib: str, progs: list[P.Program], mode: str) -> list:
  jax = runner.library(lib)["jax"]
  try:
    with runner.alarm(30 + 2 * len(progs)), warnings.catch_warnings():
      warnings.simplefilter("ignore")
      fn, args, unpack = _FUSED[mode](jax, [runner.namespace(lib, p) for p in progs])
      outs = unpack(jax.jit(fn)(*args))
      return [[runner.describe(x) for x in runner.leaves(o)] for o in outs]
  except Exception as e:  # pylint: disable=broad-except
    if len(progs) == 1:
      return [e]
    half = len(progs) // 2
    return _run_fused(lib, progs[:half], mode) + _run_fused(lib, progs[half:], mode)


def _batches(progs: list[P.Program], mode: str) -> list[list[int]]:
  """Indices of the programs the mode applies to, grouped so one jit can run each group (vmap
  needs one batch size)."""
  groups = collections.defaultdict(list)
  for i, p in enumerate(progs):
    if mode in runner.modes_of(p):
      size = next((x.batched.shape[0] for x in p.inputs if not x.scalar), None)
      groups[size if mode == "jit_vmap" else None].append(i)
  return list(groups.values())


def check_compiled(progs: list[P.Program], modes: tuple[str, ...] = COMPILED_MODES
                   ) -> list[tuple[int, runner.Mismatch]]:
  """(index in `progs`, mismatch) of every program that mismatches under the compiled modes."""
  found = []
  for mode in modes:
    for group in _batches(progs, mode):
      members = [progs[i] for i in group]
      want, got = _outcomes("jax", members, mode), _outcomes("stablejax", members, mode)
      for i, w, g in zip(group, want, got):
        if isinstance(w, BaseException) and isinstance(g, runner.CLEAN_ERRORS):
          continue  # (both fail alone, stablejax cleanly: check_mode would find no mismatch)
        if isinstance(w, BaseException) or isinstance(g, BaseException) or runner.compare(w, g):
          m: Optional[runner.Mismatch] = runner.check_mode(progs[i], mode)
          if m is not None:
            found.append((i, m))
  return found
