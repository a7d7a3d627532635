"""Elementwise primitives: arithmetic, math functions, comparisons, logic, select and casts.

Each primitive sits with its rules: abstract eval and eager impl (through `standard`), JVP,
batching and transpose. Lowering rules live in `stablejax.lowering.rules`.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from stablejax import core
from stablejax.interpreters import ad, batching
from stablejax.interpreters.ad import Zero
from stablejax.lax.standard import binop, float_dtypes, numeric_dtypes, unop


def add(x: Any, y: Any) -> Any:
  """Elementwise addition (operands of one dtype; rank-0 and size-1 axes broadcast)."""
  return add_p.bind(x, y)


def mul(x: Any, y: Any) -> Any:
  return mul_p.bind(x, y)


def neg(x: Any) -> Any:
  return neg_p.bind(x)


def sin(x: Any) -> Any:
  return sin_p.bind(x)


def cos(x: Any) -> Any:
  return cos_p.bind(x)


add_p = binop("add", numeric_dtypes)
ad.defjvp(add_p, lambda g, x, y: _broadcast_like(g, y), lambda g, x, y: _broadcast_like(g, x))
batching.defbroadcasting(add_p)

mul_p = binop("mul", numeric_dtypes)
ad.defjvp(mul_p, lambda g, x, y: mul(g, y), lambda g, x, y: mul(x, g))
batching.defbroadcasting(mul_p)

neg_p = unop("neg", numeric_dtypes)
ad.deflinear(neg_p, lambda ct: [neg(ct)])
batching.defvectorized(neg_p)

sin_p = unop("sin", float_dtypes)
ad.defjvp(sin_p, lambda g, x: mul(g, cos(x)))
batching.defvectorized(sin_p)

cos_p = unop("cos", float_dtypes)
ad.defjvp(cos_p, lambda g, x: neg(mul(g, sin(x))))
batching.defvectorized(cos_p)


def _broadcast_like(t: Any, other: Any) -> Any:
  """Broadcast tangent `t` of one operand of a broadcasting binary op to the result's shape."""
  t_shape, o_shape = core.get_aval(t).shape, core.get_aval(other).shape
  if not o_shape or t_shape == o_shape:
    return t
  from stablejax.lax.standard import broadcasting_shape
  shape = broadcasting_shape("add", core.get_aval(t), core.get_aval(other))
  if t_shape == shape:
    return t
  from stablejax.lax.structural import broadcast_in_dim
  dims = tuple(range(len(shape))) if t_shape else ()
  return broadcast_in_dim(t, shape, dims)
