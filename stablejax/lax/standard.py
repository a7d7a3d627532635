"""Helpers that define a primitive from small rules: its abstract evaluation (accepted dtypes,
broadcast shapes) and its numpy reference.

A built-in primitive has no `impl`: evaluated eagerly, it is compiled for its types and run on
the device (`stablejax.pipeline.apply_primitive`, the bottom trace's evaluator).
Its numpy reference, registered with `def_reference` next to the primitive in its family file,
is the test oracle: `evaluate_reference` runs it, and no primitive evaluates with it.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from stablejax import core, dtypes
from stablejax.core import ShapedArray
from stablejax.util import join_sizes

# primitive -> its numpy reference `fn(*operands, **params)`: it takes numpy arrays in the
# operands' dtypes and computes what the primitive does, with XLA's semantics where numpy's differ.
reference_impls: dict[core.Primitive, Callable] = {}


def def_reference(prim: core.Primitive, fn: Callable) -> None:
  """Register `fn` as the numpy reference of `prim`."""
  reference_impls[prim] = fn


def evaluate_reference(prim: core.Primitive, *args: Any, **params: Any) -> Any:
  """Evaluate `prim` on concrete values with its numpy reference, in the dtypes JAX would use
  (the test oracle; inf and NaN results are the semantics, so numpy's warnings are off)."""
  avals = [core.get_aval(x) for x in args]
  out_avals = prim.out_avals(avals, params)
  ins = [np.asarray(x, a.dtype) for x, a in zip(args, avals)]
  with np.errstate(all="ignore"):
    out = reference_impls[prim](*ins, **params)
  outs = out if prim.multiple_results else [out]
  outs = [np.asarray(o, a.dtype).reshape(a.shape) for o, a in zip(outs, out_avals)]
  return outs if prim.multiple_results else outs[0]


def standard_primitive(name: str, abstract_eval: Callable[..., ShapedArray | list],
                       multiple_results: bool = False) -> core.Primitive:
  """A primitive with the given abstract evaluation rule. It has no `impl`: evaluated eagerly,
  it is compiled for its types and run on the device, as every built-in is."""
  prim = core.Primitive(name)
  prim.multiple_results = multiple_results
  prim.def_abstract_eval(abstract_eval)
  return prim


# ----------------------------------------------------------------------------------------------
# dtype classes accepted by primitives

class DTypeClass:
  """A set of dtype kinds a primitive accepts; calling it tests a dtype."""
  __slots__ = ("kinds", "name")

  def __init__(self, kinds: str, name: str):
    self.kinds = kinds
    self.name = name

  def __call__(self, dtype: np.dtype) -> bool:
    return dtypes.kind(dtype) in self.kinds


float_dtypes = DTypeClass("fc", "floating-point")  # inexact: float and complex
real_float_dtypes = DTypeClass("f", "real floating-point")
numeric_dtypes = DTypeClass("iufc", "numeric")
signed_numeric_dtypes = DTypeClass("ifc", "signed integer, floating-point or complex")
real_numeric_dtypes = DTypeClass("iuf", "real numeric")
ordered_dtypes = DTypeClass("biuf", "boolean, integer or real floating-point")
int_dtypes = DTypeClass("iu", "integer")
bool_or_int_dtypes = DTypeClass("biu", "boolean or integer")
any_dtype = DTypeClass("biufc", "array")


def check_dtype(name: str, accepted: DTypeClass, aval: ShapedArray,
                what: str = "operand") -> None:
  if not accepted(aval.dtype):
    raise TypeError(f"{name} does not accept dtype {aval.dtype} ({what} of type "
                    f"{aval.str_short()}); it accepts {accepted.name} types")


def broadcasting_shape(name: str, *avals: ShapedArray) -> tuple[int, ...]:
  """The result shape of an elementwise op: operands have equal rank or rank 0, and each axis
  has one size (or size 1, which broadcasts), as in JAX's lax."""
  shapes = {a.shape for a in avals if a.shape}
  if len(shapes) < 2:
    return shapes.pop() if shapes else ()
  if len({len(s) for s in shapes}) != 1:
    raise TypeError(f"{name} got arrays of different rank: "
                    f"{', '.join(a.str_short() for a in avals)}")
  out = join_sizes(shapes)
  if out is None:
    raise TypeError(f"{name} got incompatible shapes for broadcasting: "
                    f"{', '.join(str(a.shape) for a in avals)}")
  return out


def naryop_abstract_eval(name: str, accepted: Sequence[Callable], result_dtype=None
                         ) -> Callable[..., ShapedArray]:
  """Abstract eval for an elementwise op whose operands share one dtype. `accepted[i]` is the
  dtype class of operand i; `result_dtype(dtype)` maps the operand dtype to the result's."""
  arity, uniform = len(accepted), all(ok is accepted[0] for ok in accepted)

  def checked(avals: tuple) -> ShapedArray:
    if len(avals) != arity:
      raise TypeError(f"{name} takes {arity} operands, got {len(avals)}")
    for i, (aval, ok) in enumerate(zip(avals, accepted)):
      if not ok(aval.dtype):
        check_dtype(name, ok, aval, f"operand {i}")
    dtype = avals[0].dtype
    if any(a.dtype != dtype for a in avals):
      raise TypeError(f"lax.{name} requires arguments to have the same dtypes, got "
                      f"{', '.join(str(a.dtype) for a in avals)} (stablejax.numpy.{name} "
                      "promotes dtypes automatically)")
    out_dtype = dtype if result_dtype is None else result_dtype(dtype)
    weak = all(a.weak_type for a in avals)  # JAX: a comparison of weak values is weak too
    return ShapedArray(broadcasting_shape(name, *avals), out_dtype, weak)

  def abstract_eval(*avals: ShapedArray) -> ShapedArray:
    # The common case inline: one accepted dtype, shapes equal or scalar; else `checked`.
    first = avals[0]
    dtype, shape, weak = first.dtype, first.shape, first.weak_type
    if not uniform or len(avals) != arity or not accepted[0](dtype):
      return checked(avals)
    for a in avals:
      if a is not first:
        if a.dtype != dtype or a.shape != shape and a.shape and shape:
          return checked(avals)
        shape = shape or a.shape
        weak = weak and a.weak_type
    if result_dtype is None:
      if shape is first.shape and weak == first.weak_type:
        return first  # avals are immutable: the operand's type is the result's
      return ShapedArray(shape, dtype, weak)
    return ShapedArray(shape, result_dtype(dtype), weak)
  return abstract_eval

