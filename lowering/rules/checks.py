"""Lowering of `check` (`stablejax.lax.checks`): a debug check lowers to nothing; any other
must have been functionalized by `checkify` before it is staged (JAX's error on CPU and GPU
without its `xla_runtime_errors` option)."""
from __future__ import annotations

from stablejax.lax.checks import check_p
from stablejax.lowering.module import LoweringRuleContext
from stablejax.lowering.registry import register_lowering

FUNCTIONALIZATION_ERROR = (
    "Cannot abstractly evaluate a checkify.check which was not functionalized. This probably "
    "means you tried to stage (jit/scan/pmap/...) a `check` without functionalizing it through "
    "`checkify.checkify`.")


def _check_lowering(ctx: LoweringRuleContext, *args, err_tree, debug: bool) -> list:
  if not debug:
    raise ValueError(FUNCTIONALIZATION_ERROR)
  return []


register_lowering(check_p, _check_lowering)
