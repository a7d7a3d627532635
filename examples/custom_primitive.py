"""A new primitive with all its rules, after JAX's "primitives" walkthrough: `multiply_add(x, y,
z) = x * y + z`, with eager evaluation, abstract evaluation, a StableHLO lowering, a CUDA-only
lowering that replaces it on that platform, JVP, transpose and batching rules.

Run it: `python examples/custom_primitive.py`."""
import numpy as np

import stablejax as sj
from stablejax import core, lax
from stablejax.interpreters import ad, batching
from stablejax.lowering import hlo, register_lowering

multiply_add_p = core.Primitive("multiply_add")


def multiply_add(x, y, z):
  """x * y + z, as one primitive."""
  return multiply_add_p.bind(x, y, z)


@multiply_add_p.def_impl
def _impl(x, y, z):
  return np.add(np.multiply(x, y), z)


@multiply_add_p.def_abstract_eval
def _abstract_eval(x, y, z):
  if not (x.shape == y.shape == z.shape and x.dtype == y.dtype == z.dtype):
    raise TypeError(f"multiply_add needs operands of one type, got {x.str_short()}, "
                    f"{y.str_short()}, {z.str_short()}")
  return core.ShapedArray(x.shape, x.dtype)


def _lowering(ctx, x, y, z):
  return [hlo.add(hlo.multiply(x, y), z)]


def _cuda_lowering(ctx, x, y, z):
  """On CUDA, the same computation written as (x + z/y) * y: a stand-in for a hardware-specific
  formulation (a real one might call a fused kernel through `lowering.custom_call`)."""
  return [hlo.multiply(hlo.add(x, hlo.divide(z, y)), y)]


register_lowering(multiply_add_p, _lowering)
register_lowering(multiply_add_p, _cuda_lowering, platform="cuda")


def _jvp(primals, tangents):
  x, y, z = primals
  xt, yt, zt = (ad.instantiate_zeros(t) for t in tangents)
  return multiply_add(x, y, z), multiply_add(xt, y, multiply_add(x, yt, zt))


def _transpose(ct, x, y, z):
  """Linear in x (y constant) or in y (x constant), and always in z."""
  if type(ct) is ad.Zero:
    return [None, None, None]
  ct_x = lax.mul(ct, y) if ad.is_undefined_primal(x) else None
  ct_y = lax.mul(x, ct) if ad.is_undefined_primal(y) else None
  return [ct_x, ct_y, ct if ad.is_undefined_primal(z) else None]


def _batch(args, dims):
  size = batching.axis_size_of(args, dims)
  args = [batching.bdim_at_front(a, d, size) for a, d in zip(args, dims)]
  return multiply_add(*args), 0


ad.primitive_jvps[multiply_add_p] = _jvp
ad.primitive_transposes[multiply_add_p] = _transpose
batching.primitive_batchers[multiply_add_p] = _batch


def square_add(a, b):
  return multiply_add(a, a, b)


if __name__ == "__main__":
  a, b = np.float32(2.0), np.float32(10.0)
  print("eager:", square_add(a, b))
  print("jit:", sj.jit(square_add)(a, b))
  print(sj.make_jaxpr(square_add)(a, b))
  print("grad w.r.t. a:", sj.grad(square_add)(a, b))
  print("vmap:", sj.vmap(square_add, in_axes=(0, None))(np.arange(3, dtype=np.float32), b))
  print("lowered for cpu:\n" + sj.jit(square_add).lower(a, b, platform="cpu").as_text())
  print("lowered for cuda:\n" + sj.jit(square_add).lower(a, b, platform="cuda").as_text())
