"""Lowering of `random_gamma`: JAX's rejection sampler written with lax ops (threefry keys, a
vectorized while loop), lowered in place with `lower_fun`, as JAX lowers it; and of the typed
key primitives: their physical functions on the raw keys storing the keys."""
from __future__ import annotations

from stablejax import lax
from stablejax.lowering.module import lower_fun
from stablejax.lowering.registry import physical_lowerings, register_lowering

register_lowering(lax.random_gamma_p, lower_fun(lax.random.gamma_impl))

for _prim, _impl in lax.random.physical_impls.items():
  register_lowering(_prim, lower_fun(_impl))
  physical_lowerings.add(_prim)
