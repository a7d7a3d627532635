"""The lax miscellany: `reduce_precision` (rounding floats to fewer exponent and mantissa bits)
`optimization_barrier` and `copy_p` (JAX's array copy; all linear), `dce_sink` (keeps values
from dead-code elimination), with their rules and numpy references; `collapse` and
`broadcast_to_rank`, which reshape. Lowering rules live in `stablejax.lowering.rules.misc`."""
from __future__ import annotations

from typing import Any

import numpy as np
from jaxlib.xla_client import ArrayCopySemantics

from stablejax import core, dtypes
from stablejax.core import ShapedArray
from stablejax.interpreters import ad, batching, flops
from stablejax.interpreters import partial_eval as pe
from stablejax import typed_sharding as typed
from stablejax.lax.primitive_kit import (check_dtype, def_reference, real_float_dtypes,
                                         standard_primitive)
from stablejax.lax.structural import broadcast_in_dim, reshape
from stablejax.tree_util import tree_flatten, tree_unflatten
from stablejax.util import canonicalize_axis
from stablejax.util import prod as size_of

__all__ = [
    "broadcast_to_rank", "collapse", "copy_p", "dce_sink", "dce_sink_p", "device_put_p", "optimization_barrier", "optimization_barrier_p",
    "reduce_precision", "reduce_precision_p", "stage", "stage_p",
]


# ----------------------------------------------------------------------------------------------
# reduce_precision

def reduce_precision(operand: Any, exponent_bits: int, mantissa_bits: int) -> Any:
  """Round `operand` to the nearest value with `exponent_bits` and `mantissa_bits` (overflow
  to infinity, underflow to zero), keeping its dtype."""
  exponent_bits = _bit_count("exponent_bits", exponent_bits, 1)
  mantissa_bits = _bit_count("mantissa_bits", mantissa_bits, 0)
  return reduce_precision_p.bind(operand, exponent_bits=exponent_bits,
                                 mantissa_bits=mantissa_bits)


def _bit_count(name: str, bits: Any, least: int) -> int:
  value = int(core.concrete_or_error(bits, f"reduce_precision's {name}"))
  if value < least:
    raise ValueError(f"reduce_precision: {name} must be at least {least}; got {value}")
  return value


def _reduce_precision_abstract_eval(x: ShapedArray, *, exponent_bits, mantissa_bits):
  check_dtype("reduce_precision", real_float_dtypes, x)
  return x


def _reduce_precision_reference(x: np.ndarray, *, exponent_bits: int, mantissa_bits: int
                                ) -> np.ndarray:
  """XLA's algorithm on the bits: round the mantissa to nearest even, then saturate the
  exponent (to signed infinity above the range, signed zero at or below its bottom)."""
  info = dtypes.finfo(x.dtype)
  uint = np.dtype(f"u{x.dtype.itemsize}")
  one = uint.type(1)
  bits = x.view(uint)
  src_mantissa, src_exponent = info.nmant, info.nexp
  if mantissa_bits < src_mantissa:
    shift = uint.type(src_mantissa - mantissa_bits)
    last_bit = one << shift
    bias = ((bits & last_bit) >> shift) + ((last_bit >> one) - one)
    bits = (bits + bias) & ~(last_bit - one)
  if exponent_bits < src_exponent:
    exponent_mask = uint.type(((1 << src_exponent) - 1) << src_mantissa)
    sign = bits & uint.type(1 << (8 * x.dtype.itemsize - 1))
    exponent = bits & exponent_mask
    bias, reduced_bias = (1 << (src_exponent - 1)) - 1, (1 << (exponent_bits - 1)) - 1
    overflow = exponent > uint.type((bias + reduced_bias) << src_mantissa)
    underflow = exponent <= uint.type((bias - reduced_bias) << src_mantissa)
    bits = np.where(overflow, sign | exponent_mask, np.where(underflow, sign, bits))
  out = np.asarray(bits, uint).view(x.dtype)
  return np.where(np.isnan(x), x, out)  # XLA keeps NaN a NaN, whatever the widths


reduce_precision_p = standard_primitive("reduce_precision", _reduce_precision_abstract_eval)
def_reference(reduce_precision_p, _reduce_precision_reference)
ad.deflinear2(reduce_precision_p,
              lambda ct, x, **params: [reduce_precision_p.bind(ct, **params)])
batching.defvectorized(reduce_precision_p)


# ----------------------------------------------------------------------------------------------
# copy (JAX's `copy_p`: the identity, staged as an equation of its own)

copy_p = standard_primitive("copy", lambda x: x)
def_reference(copy_p, np.copy)
ad.deflinear(copy_p, lambda ct: [copy_p.bind(ct)])
batching.defvectorized(copy_p)


# ----------------------------------------------------------------------------------------------
# dce_sink: an equation using its operand, with an effect so that no pass removes it

class NoDCEEffect(core.Effect):
  """The effect of `dce_sink`: the equation stays, its operand with it."""

  def __repr__(self) -> str:
    return "NoDCE"


no_dce_effect = NoDCEEffect()


def dce_sink(val: Any, *, prevent_mlir_dce: bool = False) -> None:
  """Keep every array of the pytree `val` from being removed as dead code from the jaxpr."""
  if prevent_mlir_dce:
    raise NotImplementedError("dce_sink(prevent_mlir_dce=True) (an FFI call kept by XLA) is not "
                              "supported by stablejax")
  for leaf in tree_flatten(val)[0]:
    dce_sink_p.bind(leaf, prevent_mlir_dce=False)


def _dce_sink_batcher(args, dims, **params):
  dce_sink_p.bind(*args, **params)
  return [], []


dce_sink_p = standard_primitive("dce_sink", lambda x, **_: [], multiple_results=True)
dce_sink_p.def_effects(lambda **_: [no_dce_effect])
def_reference(dce_sink_p, lambda x, **_: [])
ad.deflinear(dce_sink_p, lambda cts, **_: [None])
batching.primitive_batchers[dce_sink_p] = _dce_sink_batcher


# ----------------------------------------------------------------------------------------------
# optimization_barrier

def optimization_barrier(operand: Any, /) -> Any:
  """`operand` (a pytree of arrays) unchanged, but XLA may not move computations across it."""
  leaves, tree = tree_flatten(operand)
  return tree_unflatten(tree, optimization_barrier_p.bind(*leaves))


def _optimization_barrier_jvp(primals, tangents):
  """A barrier on the primals and one on the tangents (which is linear), as in JAX."""
  return (optimization_barrier_p.bind(*primals),
          optimization_barrier_p.bind(*map(ad.instantiate_zeros, tangents)))


optimization_barrier_p = standard_primitive("optimization_barrier", lambda *avals: list(avals),
                                            multiple_results=True)
def_reference(optimization_barrier_p, lambda *xs: list(xs))
ad.primitive_jvps[optimization_barrier_p] = _optimization_barrier_jvp
ad.primitive_transposes[optimization_barrier_p] = lambda cts, *args: (
    optimization_barrier_p.bind(*map(ad.instantiate_zeros, cts)))
batching.primitive_batchers[optimization_barrier_p] = lambda args, dims: (
    optimization_barrier_p.bind(*args), list(dims))


# ----------------------------------------------------------------------------------------------
# device_put (JAX's `device_put_p`: what `device_put` stages under a trace; the identity on
# values, its params naming the devices, the sources and the copy semantics of each operand)

def _device_put_jvp(primals, tangents, **params):
  return (device_put_p.bind(*primals, **params),
          device_put_p.bind(*map(ad.instantiate_zeros, tangents), **params))


def _device_put_transpose(cts, *args, devices, srcs, copy_semantics):
  """Back from the destinations to the sources, copying (as JAX)."""
  if ArrayCopySemantics.DONATE_INPUT in copy_semantics:
    raise ValueError("donate=True is not allowed during transposition of device_put")
  return device_put_p.bind(*map(ad.instantiate_zeros, cts), devices=srcs, srcs=devices,
                           copy_semantics=(ArrayCopySemantics.ALWAYS_COPY,) * len(cts))


device_put_p = standard_primitive(
    "device_put", lambda *avals, devices, srcs, copy_semantics: list(avals),
    multiple_results=True)
def_reference(device_put_p, lambda *xs, devices, srcs, copy_semantics: list(xs))
ad.primitive_jvps[device_put_p] = _device_put_jvp
ad.primitive_transposes[device_put_p] = _device_put_transpose
batching.primitive_batchers[device_put_p] = lambda args, dims, **params: (
    device_put_p.bind(*args, **params), list(dims))


# ----------------------------------------------------------------------------------------------
# stage (JAX's `stage`: the identity that lifts a value into the active trace)

stage_p = standard_primitive("stage", lambda x: x.update(sharding=x.sharding))
def_reference(stage_p, np.asarray)
ad.deflinear(stage_p, lambda ct: [ct])
batching.defvectorized(stage_p)


def stage(x: Any, /) -> Any:
  """Lift `x` (a Python scalar, a numpy array) into the active trace: a staging trace makes it
  a traced value without an equation, as JAX; outside any trace it becomes an Array."""
  trace = core.current_trace()
  if isinstance(trace, pe.DynamicJaxprTrace):
    return trace.stage_value(x)
  return stage_p.bind(x)


# ----------------------------------------------------------------------------------------------
# Reshapes

def collapse(operand: Any, start_dimension: int, stop_dimension: int | None = None) -> Any:
  """Merge axes [start_dimension, stop_dimension) of `operand` into one."""
  shape = core.get_aval(operand).shape
  start = canonicalize_axis(start_dimension, len(shape))
  stop = len(shape) if stop_dimension is None else stop_dimension
  stop = stop + len(shape) if stop < 0 else stop
  if start > stop:
    raise ValueError(f"collapse: start_dimension {start_dimension} must not come after "
                     f"stop_dimension {stop_dimension} (operand shape {shape})")
  return reshape(operand, shape[:start] + (size_of(shape[start:stop]),) + shape[stop:])


def broadcast_to_rank(x: Any, rank: int) -> Any:
  """`x` with leading size-1 axes added up to `rank` (unchanged if its rank is not lower)."""
  shape = core.get_aval(x).shape
  lead = rank - len(shape)
  if lead <= 0:
    return x
  return broadcast_in_dim(x, (1,) * lead + shape, tuple(range(lead, rank)))


# ----------------------------------------------------------------------------------------------
# FLOPS (conventions: stablejax.flops)

flops.flops_rules[reduce_precision_p] = flops.out_size
flops.flops_rules[optimization_barrier_p] = flops.free
flops.flops_rules[copy_p] = flops.free
flops.flops_rules[device_put_p] = flops.free
flops.flops_rules[stage_p] = flops.free
flops.flops_rules[dce_sink_p] = flops.free

# ----------------------------------------------------------------------------------------------
# Sharding in types (stablejax.typed_sharding)

typed.sharding_rules[reduce_precision_p] = typed.same_rule
