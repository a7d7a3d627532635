"""Lowering of `random_gamma`: JAX's rejection sampler written with lax ops (threefry keys, a
vectorized while loop), lowered in place with `lower_fun`, as JAX lowers it."""
from __future__ import annotations

from stablejax import lax
from stablejax.lowering.module import lower_fun
from stablejax.lowering.registry import register_lowering

register_lowering(lax.random_gamma_p, lower_fun(lax.random.gamma_impl))
