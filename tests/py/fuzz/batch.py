"""Checking many programs at once under the compiled modes (jit, jit_vmap, jit_grad): one
`jit` of all of them side by side, so each library compiles once per batch instead of once per
program. Where a batch fails on either side, it is split in halves until the failing programs
stand alone; a program whose batched results differ, or that fails alone, is checked again by
itself (`runner.check_mode`, which decides). The batch is a fast filter: what it reports comes
from the single-program check."""
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


def _jit(lib: str, nss: list[dict]) -> Callable[[], list]:
  jax = runner.library(lib)["jax"]
  spans = _spans([len(ns["args"]) for ns in nss])
  fused = jax.jit(lambda *a: [ns["f"](*a[s]) for ns, s in zip(nss, spans)])
  return lambda: fused(*[x for ns in nss for x in ns["args"]])


def _jit_vmap(lib: str, nss: list[dict]) -> Callable[[], list]:
  jax = runner.library(lib)["jax"]
  spans = _spans([len(ns["bargs"]) for ns in nss])
  axes = tuple(a for ns in nss for a in ns["AXES"])
  fused = jax.jit(jax.vmap(lambda *a: [ns["f"](*a[s]) for ns, s in zip(nss, spans)],
                           in_axes=axes))
  return lambda: fused(*[x for ns in nss for x in ns["bargs"]])


def _jit_grad(lib: str, nss: list[dict]) -> Callable[[], list]:
  jax = runner.library(lib)["jax"]
  spans = _spans([len(ns["args"]) for ns in nss])
  argnums = tuple(s.start + i for ns, s in zip(nss, spans) for i in ns["GRAD_ARGNUMS"])
  total = lambda *a: sum(ns["loss"](*a[s]) for ns, s in zip(nss, spans))
  fused = jax.jit(jax.grad(total, argnums=argnums))

  def run():
    grads = iter(fused(*[x for ns in nss for x in ns["args"]]))
    return [tuple(next(grads) for _ in ns["GRAD_ARGNUMS"]) for ns in nss]
  return run


_FUSED = {"jit": _jit, "jit_vmap": _jit_vmap, "jit_grad": _jit_grad}


def _outcomes(lib: str, progs: list[P.Program], mode: str) -> list:
  """Each program's `runner.run`-style result under `mode`, from batches split where they
  fail (a lone failing program's result is its error)."""
  try:
    with runner.alarm(30 + 2 * len(progs)), warnings.catch_warnings():
      warnings.simplefilter("ignore")
      nss = [runner.namespace(lib, p) for p in progs]
      outs = _FUSED[mode](lib, nss)()
      return [[runner.describe(x) for x in runner.leaves(o)] for o in outs]
  except Exception as e:  # pylint: disable=broad-except
    if len(progs) == 1:
      return [e]
    half = len(progs) // 2
    return _outcomes(lib, progs[:half], mode) + _outcomes(lib, progs[half:], mode)


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
        if isinstance(w, BaseException) or isinstance(g, BaseException) or runner.compare(w, g):
          m: Optional[runner.Mismatch] = runner.check_mode(progs[i], mode)
          if m is not None:
            found.append((i, m))
  return found
