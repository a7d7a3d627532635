"""The public kit for defining a primitive: `standard_primitive` and its numpy reference
(`def_reference`), the dtype classes and broadcasting abstract eval of elementwise ops, the
elementwise builders `naryop`/`unop`/`binop`, JVP rules that broadcast tangents as the primitive
broadcasts its operands (`defjvp`, `defjvp2`), and the constants rules build (`const_like`,
`full_like`). docs/architecture.md ("Adding a primitive") shows it used step by step.

A built-in primitive has no `impl`: evaluated eagerly, it is compiled for its types and run on
the device (`stablejax.pipeline.apply_primitive`, the bottom trace's evaluator). The one
exception, as in JAX, is `slice`, whose `impl` binds `dynamic_slice` so that windows of one shape
share a program.
Its numpy reference, registered with `def_reference` next to the primitive in its family file,
is the test oracle: `evaluate_reference` runs it, and no primitive evaluates with it.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from stablejax import core, dtypes, lax
from stablejax.core import ShapedArray
from stablejax.interpreters import ad, batching, flops
from stablejax.shape_poly import is_symbolic_dim
from stablejax.typed_sharding import elementwise_rule, sharding_rules
from stablejax.util import join_sizes

__all__ = [
    "DTypeClass", "any_dtype", "binop", "bool_or_int_dtypes", "broadcast_elementwise",
    "broadcasting_shape", "check_dtype", "const_like", "def_reference", "defjvp", "defjvp2",
    "evaluate_reference", "float_dtypes", "full", "full_like", "int_dtypes", "linear_ct",
    "naryop",
    "naryop_abstract_eval", "numeric_dtypes", "ordered_dtypes", "real_float_dtypes",
    "real_numeric_dtypes", "reference_impls", "signed_numeric_dtypes", "standard_primitive",
    "unbroadcast", "unop",
]

# JVP rules from one rule per operand, each contribution broadcast to the output's shape
# (the same functions as `stablejax.interpreters.ad`'s, as JAX's `ad.defjvp`/`ad.defjvp2`).
defjvp = ad.defjvp
defjvp2 = ad.defjvp2
broadcast_elementwise = ad.broadcast_elementwise

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

  def abstract_eval(*avals: ShapedArray, **params: Any) -> ShapedArray:
    # (Params, as integer_pow's exponent, do not change the type.) The common case inline:
    # one accepted dtype, shapes equal or scalar; else `checked`.
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



# ----------------------------------------------------------------------------------------------
# Elementwise primitive builders

def naryop(name: str, accepted: Sequence[DTypeClass], reference: Callable, *jvps: Callable,
           result_dtype: Callable | None = None, abstract_eval: Callable | None = None
           ) -> core.Primitive:
  """An elementwise primitive of `len(accepted)` operands of one dtype, broadcasting rank-0 and
  size-1 operands: its abstract eval (`naryop_abstract_eval` unless given), numpy reference,
  batching, a FLOPS count of 1 per output element, its sharding rule (operands' splits must
  agree), and, when given, one JVP rule per operand
  `rule(g, ans, *operands, **params)` (`defjvp2`). Its lowering is registered in its family's
  rules file."""
  if abstract_eval is None:
    abstract_eval = naryop_abstract_eval(name, accepted, result_dtype)
  prim = standard_primitive(name, abstract_eval)
  def_reference(prim, reference)
  if len(accepted) == 1:
    batching.defvectorized(prim)
  else:
    batching.defbroadcasting(prim)
  flops.flops_rules[prim] = flops.out_size
  sharding_rules[prim] = elementwise_rule(name)
  if jvps:
    defjvp2(prim, *jvps)
  return prim


def unop(name: str, accepted: DTypeClass, reference: Callable, jvp: Callable | None = None, *,
         result_dtype: Callable | None = None, abstract_eval: Callable | None = None
         ) -> core.Primitive:
  """An elementwise unary primitive (`naryop` of one operand)."""
  jvps = () if jvp is None else (jvp,)
  return naryop(name, [accepted], reference, *jvps, result_dtype=result_dtype,
                abstract_eval=abstract_eval)


def binop(name: str, accepted: DTypeClass, reference: Callable, *jvps: Callable,
          result_dtype: Callable | None = None, abstract_eval: Callable | None = None
          ) -> core.Primitive:
  """An elementwise binary primitive (`naryop` of two operands of the same dtype class)."""
  return naryop(name, [accepted, accepted], reference, *jvps, result_dtype=result_dtype,
                abstract_eval=abstract_eval)


def unbroadcast(aval: ShapedArray, ct: Any) -> Any:
  """Sum the cotangent `ct` of a broadcast operand of type `aval` back to the operand's shape."""
  ct_shape = core.get_aval(ct).shape
  if ct_shape == aval.shape:
    return ct
  if not aval.shape:
    return lax.reduce_sum(ct, tuple(range(len(ct_shape))))
  axes = tuple(i for i, (c, a) in enumerate(zip(ct_shape, aval.shape)) if c != a)
  return lax.reshape(lax.reduce_sum(ct, axes), aval.shape)


def linear_ct(arg: Any, ct: Any, fn: Callable[[Any], Any] | None = None) -> Any:
  """In a transpose rule, the cotangent of operand `arg` of an elementwise op that is linear in
  it, from the output cotangent `ct` mapped by `fn`: None for a constant operand, a symbolic
  zero for a zero `ct`, else summed back to the operand's shape (`unbroadcast`)."""
  if not ad.is_undefined_primal(arg):
    return None
  if type(ct) is ad.Zero:
    return ad.Zero(arg.aval)
  return unbroadcast(arg.aval, ct if fn is None else fn(ct))


# ----------------------------------------------------------------------------------------------
# Constants of an operand's type, for rules

def const_like(x: Any, value: Any) -> Any:
  """A rank-0 constant of x's dtype (staged as a literal), weakly typed where `x` is a weakly
  typed scalar, as JAX's `lax._const` (so derivatives keep a Python scalar's weak type)."""
  aval = x if isinstance(x, ShapedArray) else core.get_aval(x)
  if aval.weak_type and not aval.ndim:
    return lax.convert_element_type(value, aval.dtype, weak_type=True)
  return np.array(value, aval.dtype)


_python_types = {"i": int, "f": float, "c": complex}  # (a Python bool is not weakly typed)


def _fill_scalar(fill_value: Any, dtype: np.dtype, weak_type: bool) -> Any:
  """`fill_value` as a scalar of `dtype`: a weakly typed Python scalar if `weak_type` and
  `dtype` is the default dtype of its kind (a weak bool, as a comparison's, converted), else a
  numpy scalar; for float0 its one (empty) value."""
  if dtype == dtypes.float0:
    return np.zeros((), dtype)
  if dtypes.is_python_scalar(fill_value):
    py = _python_types.get(dtypes.kind(dtype))
    if weak_type and py is not None and dtypes.python_scalar_dtype(py(fill_value)) == dtype:
      return py(fill_value)
    if weak_type and dtypes.kind(dtype) == "b":
      return lax.convert_element_type(np.asarray(fill_value, dtype)[()], dtype, weak_type=True)
    return np.asarray(fill_value, dtype)[()]
  if core.is_concrete(fill_value):
    return np.asarray(fill_value, dtype)[()]
  if core.get_aval(fill_value).dtype != dtype:
    return lax.convert_element_type(fill_value, dtype)
  return fill_value


def full(shape: Sequence[int], fill_value: Any, dtype: Any = None) -> Any:
  """An array of `shape` filled with the scalar `fill_value` (weakly typed if it is a Python
  scalar and no dtype is given; a symbolic dimension fills it with its value)."""
  if is_symbolic_dim(fill_value):
    fill_value = lax.dimension_as_value(fill_value)
  fill_aval = core.get_aval(fill_value)
  if fill_aval.ndim:
    raise TypeError(f"full must be called with a scalar fill_value, got one of type "
                    f"{fill_aval.str_short()}")
  weak = dtype is None and fill_aval.weak_type
  dtype = dtypes.dtype_of(fill_value) if dtype is None else dtypes.canonicalize(dtype)
  return lax.broadcast_in_dim(_fill_scalar(fill_value, dtype, weak), shape, ())


def full_like(x: Any, fill_value: Any, dtype: Any = None, shape: Sequence[int] | None = None
              ) -> Any:
  """An array like `x` (a value or a ShapedArray: its shape, dtype and weak type unless given)
  filled with `fill_value`. A rank-0 one like a traced `x` is the scalar itself (a literal, as
  in JAX's jaxprs); like a concrete `x`, a device array."""
  aval = x if isinstance(x, ShapedArray) else core.get_aval(x)
  weak = dtype is None and aval.weak_type
  dtype = aval.dtype if dtype is None else dtypes.canonicalize(dtype)
  shape = aval.shape if shape is None else shape
  scalar = _fill_scalar(fill_value, dtype, weak)
  if shape or core.is_concrete(x):
    return lax.broadcast_in_dim(scalar, shape, ())
  return scalar
