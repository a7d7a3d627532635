"""What the control-flow lowerings share: regions filled with jaxprs, threading the tokens of
their ordered effects (a loop carries them; `cond`'s branches take them from outside)."""
from __future__ import annotations

from typing import Sequence

from jaxlib.mlir import ir

from stablejax import core
from stablejax.jaxpr import ClosedJaxpr
from stablejax.lowering.module import LoweringRuleContext, Tokens, jaxpr_subcomp, token_type


def region_block(region: ir.Region, effects: Sequence[core.Effect], arg_types: Sequence[ir.Type]
                 ) -> tuple[ir.Block, Tokens, list[ir.Value]]:
  """Append `region`'s block, whose arguments are a token per effect of `effects` then values
  of `arg_types`; returns it, its tokens by effect and its other arguments."""
  block = region.blocks.append(*[token_type()] * len(effects), *arg_types)
  args = list(block.arguments)
  return block, dict(zip(effects, args)), args[len(effects):]


def lower_region(ctx: LoweringRuleContext, jaxpr: ClosedJaxpr, args: Sequence[ir.Value],
                 tokens: Tokens, name: str) -> list[ir.Value]:
  """`jaxpr` on `args` at the insertion point (in a region of the op `ctx` lowers), named
  `name` under the equation; `tokens` are threaded through it and updated in place."""
  return jaxpr_subcomp(ctx.module_context, jaxpr.jaxpr, jaxpr.consts, list(args),
                       f"{ctx.name_stack}/{name}", tokens=tokens)
