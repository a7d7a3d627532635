"""Lowering of `while` to `stablehlo.while`: a cond and a body region over the carry, each
ending in `stablehlo.return`; the regions use the loop's consts from the enclosing region
directly. The tokens of the loop's ordered effects are carried first. When the cond itself
has ordered effects (it cannot return tokens), the predicate is carried too, as JAX does:
`pred = cond(x); while pred: x = body(x); pred = cond(x)`."""
from __future__ import annotations

from typing import Sequence

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from stablejax import lax
from stablejax.jaxpr import ClosedJaxpr
from stablejax.lowering.module import LoweringRuleContext, Tokens, ordered_effects
from stablejax.lowering.registry import register_lowering
from stablejax.lowering.rules.control_flow.common import lower_region, region_block
from stablejax.util import split_list


def _while_rule(ctx: LoweringRuleContext, *args: ir.Value, cond_jaxpr: ClosedJaxpr,
                body_jaxpr: ClosedJaxpr, cond_nconsts: int, body_nconsts: int
                ) -> list[ir.Value]:
  cond_consts, body_consts, carry = split_list(args, [cond_nconsts, body_nconsts])
  effects = list(ctx.tokens_in)
  if ordered_effects(cond_jaxpr.effects):
    return _while_with_effectful_cond(ctx, cond_jaxpr, body_jaxpr, cond_consts, body_consts,
                                      carry, effects)
  types = [v.type for v in carry]
  tokens = [ctx.tokens_in[e] for e in effects]
  loop = hlo.WhileOp([v.type for v in tokens] + types, [*tokens, *carry])
  block, _, x = region_block(loop.regions[0], effects, types)
  with ir.InsertionPoint(block):
    hlo.return_(lower_region(ctx, cond_jaxpr, [*cond_consts, *x], {}, "cond_fun"))
  block, tokens, x = region_block(loop.regions[1], effects, types)
  with ir.InsertionPoint(block):
    outs = lower_region(ctx, body_jaxpr, [*body_consts, *x], tokens, "body_fun")
    hlo.return_([tokens[e] for e in effects] + outs)
  results = list(loop.results)
  ctx.set_tokens_out(dict(zip(effects, results)))
  return results[len(effects):]


def _while_with_effectful_cond(ctx: LoweringRuleContext, cond_jaxpr: ClosedJaxpr,
                               body_jaxpr: ClosedJaxpr, cond_consts: Sequence[ir.Value],
                               body_consts: Sequence[ir.Value], carry: Sequence[ir.Value],
                               effects: list) -> list[ir.Value]:
  """The loop carrying its predicate, computed by the cond before the loop and after each
  iteration, so that the cond's effects are ordered too."""
  def cond(x: Sequence[ir.Value], tokens: Tokens) -> ir.Value:
    return lower_region(ctx, cond_jaxpr, [*cond_consts, *x], tokens, "cond_fun")[0]

  tokens = dict(ctx.tokens_in)
  pred = cond(carry, tokens)
  operands = [pred, *(tokens[e] for e in effects), *carry]
  types = [v.type for v in operands]
  loop = hlo.WhileOp(types, operands)
  block = loop.regions[0].blocks.append(*types)
  with ir.InsertionPoint(block):
    hlo.return_([block.arguments[0]])
  block = loop.regions[1].blocks.append(*types)
  with ir.InsertionPoint(block):
    _, token_args, x = split_list(list(block.arguments), [1, len(effects)])
    tokens = dict(zip(effects, token_args))
    x = lower_region(ctx, body_jaxpr, [*body_consts, *x], tokens, "body_fun")
    pred = cond(x, tokens)
    hlo.return_([pred, *(tokens[e] for e in effects), *x])
  _, token_results, results = split_list(list(loop.results), [1, len(effects)])
  ctx.set_tokens_out(dict(zip(effects, token_results)))
  return results


register_lowering(lax.while_p, _while_rule)
