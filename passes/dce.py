"""The `dce` pass: dead-code elimination of a closed jaxpr, run before every lowering. The
algorithm and the per-primitive rules (`dce_rules`, registered by each higher-order primitive's
family file) are in stablejax/interpreters/dce.py, low enough for lax to use and extend."""
from __future__ import annotations

from stablejax.interpreters.dce import dce_jaxpr, dce_rules, prune_jaxpr
from stablejax.jaxpr import ClosedJaxpr

__all__ = ["dce_closed_jaxpr", "dce_jaxpr", "dce_rules", "prune_jaxpr"]


def dce_closed_jaxpr(closed: ClosedJaxpr) -> ClosedJaxpr:
  """`closed` without the equations none of its outputs depend on (the same object when
  nothing is dead)."""
  return dce_jaxpr(closed)
