"""Rewrites (installed as stablejax.passes): jaxpr passes run between tracing and lowering, MLIR
passes run on lowered modules, and the one registry that names them (`register`, `run`)."""
from stablejax.passes.constant_folding import fold_constants
from stablejax.passes.cse import cse
from stablejax.passes.discharge import discharge_refs, discharge_state
from stablejax.passes.dce import dce_closed_jaxpr, dce_jaxpr, dce_rules, prune_jaxpr
from stablejax.passes.inline import inline_calls
from stablejax.passes.registry import choose, register, registered, run, run_mlir
from stablejax.passes.simplify import simplify, simplify_rules

__all__ = ["choose", "cse", "dce_closed_jaxpr", "dce_jaxpr", "dce_rules", "discharge_refs",
           "discharge_state", "fold_constants",
           "inline_calls", "prune_jaxpr", "register", "registered", "run", "run_mlir",
           "simplify", "simplify_rules"]
