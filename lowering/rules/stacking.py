"""Lowering rules of tile, split, stack and unstack: through the structural primitives, as the
`composite_*` functions of `stablejax.lax.stacking` write them."""
from __future__ import annotations

from stablejax.lax import stacking
from stablejax.lowering.module import lower_fun
from stablejax.lowering.registry import register_lowering

for _prim, _fn, _multiple in [(stacking.tile_p, stacking.composite_tile, False),
                              (stacking.split_p, stacking.composite_split, True),
                              (stacking.stack_p, stacking.composite_stack, False),
                              (stacking.unstack_p, stacking.composite_unstack, True)]:
  register_lowering(_prim, lower_fun(_fn, multiple_results=_multiple))
