"""The explorer's jaxpr view: the jaxpr's text line by line with each equation's source lines,
and the equations' FLOPs (from the flops rules) attributed to the lines that staged them."""
from __future__ import annotations

from typing import Any, Callable, NamedTuple

from stablejax import core
from stablejax.explorer.source_map import SourceMap, code_frames, ir_line, unique_locs
from stablejax.interpreters.flops import UnknownFlopsError, eqn_flops
from stablejax.jaxpr import (ClosedJaxpr, Jaxpr, JaxprEqn, call_primitives, pp_jaxpr_lines,
                             subjaxprs)
from stablejax.lax.control_flow.scan import scan_p
from stablejax.lax.control_flow.while_loop import while_p

# A loop primitive -> the fold mark of its line (its body is printed once).
FOLDS: dict[core.Primitive, Callable[[JaxprEqn], dict]] = {
    scan_p: lambda eqn: {"kind": "scan", "trip_count": int(eqn.params["length"])},
    while_p: lambda eqn: {"kind": "while", "trip_count": None},
}

# A higher-order primitive -> how many times one evaluation of it runs its sub-jaxprs, so that
# their equations' lines get their FLOPs (others keep their sub-jaxprs' FLOPs on their line).
REPEATS: dict[core.Primitive, Callable[[JaxprEqn], int]] = {
    scan_p: lambda eqn: int(eqn.params["length"]),
    **{p: (lambda eqn: 1) for p in call_primitives},
}


class EqnInfo(NamedTuple):
  locs: list[list[int]]
  name_stack: str
  flops: float  # its own, its sub-jaxprs' equations with a line of their own left out


def eqn_name_stack(eqn: JaxprEqn) -> str:
  stack = core.name_stack_str(eqn.source_info.name_stack) if eqn.source_info else ""
  return f"{stack}/{eqn.primitive.name}" if stack else eqn.primitive.name


def _flops(eqn: JaxprEqn) -> float:
  try:
    return float(eqn_flops(eqn))
  except UnknownFlopsError:  # (a while with a dynamic trip count, an ffi_call: not counted)
    return 0.0


def _attribute_flops(jaxpr: Jaxpr, scale: float, out: dict[JaxprEqn, float]) -> float:
  """Each equation's FLOPs per evaluation of `jaxpr` x `scale` into `out`; their sum."""
  total = 0.0
  for eqn in jaxpr.eqns:
    own = _flops(eqn) * scale
    repeat = REPEATS.get(eqn.primitive)
    if repeat is not None:
      inner = sum(_attribute_flops(_open(sub), scale * repeat(eqn), out) for sub in subjaxprs(eqn))
      own -= inner
      total += inner
    out[eqn] = own
    total += own
  return total


def _open(j: ClosedJaxpr | Jaxpr) -> Jaxpr:
  return j.jaxpr if isinstance(j, ClosedJaxpr) else j


def jaxpr_view(closed: ClosedJaxpr, sources: SourceMap
               ) -> tuple[list[dict[str, Any]], dict[JaxprEqn, EqnInfo]]:
  """The view's lines and, per equation printed, its locations, name stack and FLOPs.
  An equation's continuation lines (its params, its sub-jaxprs' headers) carry its
  locations too; the lines of a sub-jaxpr's equations, their own."""
  flops: dict[JaxprEqn, float] = {}
  _attribute_flops(closed.jaxpr, 1.0, flops)
  infos: dict[JaxprEqn, EqnInfo] = {}
  locs_of: dict[tuple, list[list[int]]] = {}
  lines: list[dict[str, Any]] = []
  open_eqns: list[tuple[int, JaxprEqn]] = []  # (indent, equation) whose text may go on
  for text, eqns in pp_jaxpr_lines(closed):
    stripped = text.lstrip()
    indent = len(text) - len(stripped)
    while open_eqns and (open_eqns[-1][0] > indent or open_eqns[-1][0] == indent and (
        eqns or not stripped.startswith(("]", ")")))):  # (`] b a` ends its equation)
      open_eqns.pop()
    for eqn in eqns:
      frames = eqn.source_info.frames if eqn.source_info else ()
      if frames not in locs_of:  # (equations staged from one line share their frames)
        locs_of[frames] = sources.locs(code_frames(frames))
      infos[eqn] = EqnInfo(locs_of[frames], eqn_name_stack(eqn), flops.get(eqn, 0.0))
    owner = eqns[0] if eqns else open_eqns[-1][1] if open_eqns else None
    if owner is None:
      lines.append(ir_line(text, []))
      continue
    locs = [loc for e in (eqns or [owner]) for loc in infos[e].locs]
    fold = FOLDS[owner.primitive](owner) if eqns and owner.primitive in FOLDS else None
    lines.append(ir_line(text, unique_locs(locs), infos[owner].name_stack, fold=fold))
    if eqns:
      open_eqns.append((indent, eqns[-1]))
  return lines, infos
