"""Lowering of `custom_linear_solve`: its `solve` jaxpr, inlined (as JAX)."""
from __future__ import annotations

from stablejax.lax.control_flow.solves import linear_solve_impl, linear_solve_p
from stablejax.lowering.module import lower_fun
from stablejax.lowering.registry import register_lowering

register_lowering(linear_solve_p, lower_fun(linear_solve_impl, multiple_results=True))
