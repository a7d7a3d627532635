"""A new primitive with all its rules, built with the public kit (`stablejax.lax.primitive_kit`),
after JAX's "primitives" walkthrough: `multiply_add(x, y, z) = x * y + z`, with its abstract
evaluation and batching (from `naryop`), a numpy reference, a StableHLO lowering, a CUDA-only
lowering that replaces it on that platform, JVP, transpose and FLOPS rules. Its impl (eager
evaluation) is `dispatch.apply_primitive`: compiled through its lowering and run like a built-in.

Run it: `python examples/custom_primitive.py`."""
import functools

import numpy as np

import stablejax as sj
from stablejax import dispatch, lax
from stablejax.flops import register_flops_rule
from stablejax.interpreters import ad
from stablejax.lax.primitive_kit import float_dtypes, linear_ct, naryop
from stablejax.lowering import hlo, register_lowering
from stablejax.lowering.rules.elementwise import broadcast_operands

# Three float operands of one dtype, broadcasting rank-0 ones; one JVP rule per operand,
# `rule(tangent, out, x, y, z)`, whose result is broadcast to the output's shape for us.
multiply_add_p = naryop("multiply_add", [float_dtypes] * 3, lambda x, y, z: x * y + z,
                        lambda g, out, x, y, z: lax.mul(g, y),
                        lambda g, out, x, y, z: lax.mul(x, g),
                        lambda g, out, x, y, z: g)


def multiply_add(x, y, z):
  """x * y + z, as one primitive."""
  return multiply_add_p.bind(x, y, z)


def _lowering(ctx, x, y, z):
  x, y, z = broadcast_operands(ctx, [x, y, z])
  return [hlo.add(hlo.multiply(x, y), z)]


def _cuda_lowering(ctx, x, y, z):
  """On CUDA, the same computation written as (x + z/y) * y: a stand-in for a hardware-specific
  formulation (a real one might call a fused kernel through `lowering.custom_call`)."""
  x, y, z = broadcast_operands(ctx, [x, y, z])
  return [hlo.multiply(hlo.add(x, hlo.divide(z, y)), y)]


register_lowering(multiply_add_p, _lowering)
register_lowering(multiply_add_p, _cuda_lowering, platform="cuda")
multiply_add_p.def_impl(functools.partial(dispatch.apply_primitive, multiply_add_p))


def _transpose(ct, x, y, z):
  """Linear in x (y constant) or in y (x constant), with z: the tangent equation's form."""
  return [linear_ct(x, ct, lambda c: lax.mul(c, y)), linear_ct(y, ct, lambda c: lax.mul(x, c)),
          linear_ct(z, ct)]


ad.primitive_transposes[multiply_add_p] = _transpose
register_flops_rule(multiply_add_p, lambda avals_in, avals_out: 2 * avals_out[0].size)


def square_add(a, b):
  return multiply_add(a, a, b)


if __name__ == "__main__":
  a, b = np.float32(2.0), np.float32(10.0)
  print("eager:", square_add(a, b))
  print("jit:", sj.jit(square_add)(a, b))
  print(sj.make_jaxpr(square_add)(a, b))
  print("grad w.r.t. a:", sj.grad(square_add)(a, b))
  print("vmap:", sj.vmap(square_add, in_axes=(0, None))(np.arange(3, dtype=np.float32), b))
  print("flops:", sj.flops(square_add)(a, b))
  print("lowered for cpu:\n" + sj.jit(square_add).lower(a, b, platform="cpu").as_text())
  print("lowered for cuda:\n" + sj.jit(square_add).lower(a, b, platform="cuda").as_text())
