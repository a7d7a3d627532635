"""Contractions: dot_general (XLA's DotGeneral), dot, and scaled_dot (operands times block
scales, in bfloat16), with their rules and numpy references. The lowering rules live in
`stablejax.lowering.rules.dot`."""
from __future__ import annotations

import enum
import functools
import math
import string
from typing import Any, NamedTuple, Sequence

import numpy as np

from stablejax import core, dtypes, lax
from stablejax.core import ShapedArray
from stablejax.interpreters import ad, batching, flops
from stablejax.interpreters.batching import not_mapped
from stablejax.jaxpr import param_printers
from stablejax.lax.primitive_kit import def_reference, standard_primitive
from stablejax import typed_sharding as typed
from stablejax.lax.sharding import apply_out_sharding, typed_named_sharding
from stablejax.lax.structural import aval_of
from stablejax.util import argsort

__all__ = ["batch_matmul", "dot", "DotAlgorithm", "DotAlgorithmPreset", "dot_general",
           "dot_general_p", "Precision", "scaled_dot", "scaled_dot_p"]

DimensionNumbers = tuple[tuple[tuple[int, ...], tuple[int, ...]],
                         tuple[tuple[int, ...], tuple[int, ...]]]


class Precision(enum.Enum):
  """How precisely accelerators compute float32 contractions (no effect on CPU)."""
  DEFAULT = 0
  HIGH = 1
  HIGHEST = 2

  @classmethod
  def _missing_(cls, value: object) -> Precision | None:
    return _PRECISION_NAMES.get(value)

  def __repr__(self) -> str:
    return f"{type(self).__name__}.{self.name}"

  def __str__(self) -> str:
    return self.name


_PRECISION_NAMES = {
    "highest": Precision.HIGHEST, "float32": Precision.HIGHEST, "high": Precision.HIGH,
    "bfloat16_3x": Precision.HIGH, "tensorfloat32": Precision.HIGH,
    "default": Precision.DEFAULT, "bfloat16": Precision.DEFAULT, "fastest": Precision.DEFAULT,
    None: Precision.DEFAULT,
}

PrecisionPair = tuple[Precision, Precision] | None


class DotAlgorithm(NamedTuple):
  """A dot algorithm (XLA's DotAlgorithm attribute): the types the operands are rounded to, the
  accumulation type, and how many components and primitive operations it uses."""
  lhs_precision_type: Any
  rhs_precision_type: Any
  accumulation_type: Any
  lhs_component_count: int = 1
  rhs_component_count: int = 1
  num_primitive_operations: int = 1
  allow_imprecise_accumulation: bool = False


class DotAlgorithmPreset(enum.Enum):
  """The named dot algorithms of JAX (`precision=` of dot and dot_general). stablejax
  compiles DEFAULT (the default precision); the others are refused with an error."""
  DEFAULT = enum.auto()
  ANY_F8_ANY_F8_F32 = enum.auto()
  ANY_F8_ANY_F8_F32_FAST_ACCUM = enum.auto()
  ANY_F8_ANY_F8_ANY = enum.auto()
  ANY_F8_ANY_F8_ANY_FAST_ACCUM = enum.auto()
  F16_F16_F16 = enum.auto()
  F16_F16_F32 = enum.auto()
  BF16_BF16_BF16 = enum.auto()
  BF16_BF16_F32 = enum.auto()
  BF16_BF16_F32_X3 = enum.auto()
  BF16_BF16_F32_X6 = enum.auto()
  BF16_BF16_F32_X9 = enum.auto()
  TF32_TF32_F32 = enum.auto()
  TF32_TF32_F32_X3 = enum.auto()
  F32_F32_F32 = enum.auto()
  F64_F64_F64 = enum.auto()

  def __repr__(self) -> str:
    return f"{type(self).__name__}.{self.name}"

  def __str__(self) -> str:
    return self.name


def _dot_algorithm(precision: Any) -> PrecisionPair:
  """The precision pair of a dot algorithm stablejax compiles (the DEFAULT preset, as the
  default precision); a clear error for the others."""
  if isinstance(precision, str):
    precision = DotAlgorithmPreset[precision]
  if precision is DotAlgorithmPreset.DEFAULT:
    return None
  raise NotImplementedError(f"dot_general: the dot algorithm {precision!r} is not supported by "
                            f"stablejax (only DotAlgorithmPreset.DEFAULT and lax.Precision "
                            f"values are)")


def canonicalize_precision(precision: Any) -> PrecisionPair:
  """None, or a (lhs, rhs) pair of `Precision`s from a Precision, its name, or a pair of them
  (a `DotAlgorithmPreset`, or its name, or a `DotAlgorithm`: see `_dot_algorithm`)."""
  if precision is None:
    return None
  if isinstance(precision, (DotAlgorithm, DotAlgorithmPreset)) or (
      isinstance(precision, str) and precision in DotAlgorithmPreset.__members__):
    return _dot_algorithm(precision)
  try:
    if isinstance(precision, (str, Precision)):
      return (Precision(precision),) * 2
    if isinstance(precision, (tuple, list)) and len(precision) == 2:
      return tuple(Precision(p) for p in precision)
  except ValueError:
    pass
  names = sorted(n for n in _PRECISION_NAMES if n)
  raise ValueError(f"Precision argument must be None, a string in {names}, a lax.Precision "
                   f"value or a tuple of two lax.Precision values or strings; but got "
                   f"{precision!r}.")


def dot_general(lhs: Any, rhs: Any, dimension_numbers: Any, precision: Any = None,
                preferred_element_type: Any = None, *, out_sharding: Any = None) -> Any:
  """Contract `lhs` with `rhs`: dimension_numbers = ((lhs_contract, rhs_contract),
  (lhs_batch, rhs_batch)). The result has the batch axes, then the free axes of lhs, then
  those of rhs. `precision` (see `Precision`) becomes the op's precision config."""
  preferred = None if preferred_element_type is None else dtypes.canonicalize(
      preferred_element_type)
  dims = _canonical_dims(dimension_numbers)
  params = {}
  if out_sharding is not None:  # (part of the result's type: it settles the sharding rule)
    (lc, _), (lb, _) = dims
    ndim = core.get_aval(lhs).ndim + core.get_aval(rhs).ndim - 2 * len(lc) - len(lb)
    out_sharding = typed_named_sharding(out_sharding, ndim, "lax.dot_general")
    out_type = typed.of_sharding(out_sharding, ndim)
    if out_type is not None:
      params["out_sharding"] = out_type
  out = dot_general_p.bind(lhs, rhs, dimension_numbers=dims,
                           precision=canonicalize_precision(precision),
                           preferred_element_type=preferred, **params)
  return apply_out_sharding(out, out_sharding, "lax.dot_general")


def dot(lhs: Any, rhs: Any, precision: Any = None, preferred_element_type: Any = None, *,
        dimension_numbers: Any = None, out_sharding: Any = None) -> Any:
  """Vector/matrix products: contract the last axis of `lhs` with the first of `rhs` (or
  `dot_general`'s `dimension_numbers`, when given)."""
  if dimension_numbers is None:
    l_shape, r_shape = core.get_aval(lhs).shape, core.get_aval(rhs).shape
    if not (1 <= len(l_shape) <= 2 and 1 <= len(r_shape) <= 2 and l_shape[-1] == r_shape[0]):
      raise ValueError("jax.lax.dot: dimension_numbers must be specified when not performing "
                       "simple un-batched matrix-matrix, matrix-vector, or vector-vector "
                       f"products; got lhs_shape={l_shape} rhs_shape={r_shape}")
    dimension_numbers = (((len(l_shape) - 1,), (0,)), ((), ()))
  return dot_general(lhs, rhs, dimension_numbers, precision, preferred_element_type,
                     out_sharding=out_sharding)


def batch_matmul(lhs: Any, rhs: Any, precision: Any = None) -> Any:
  """Matrix products over the last two axes, batched over the leading axes (equal ranks)."""
  l_ndim, r_ndim = core.get_aval(lhs).ndim, core.get_aval(rhs).ndim
  if min(l_ndim, r_ndim) < 2:
    raise ValueError(f"Arguments to batch_matmul must be at least 2D, got {l_ndim}, {r_ndim}")
  if l_ndim != r_ndim:
    raise ValueError(f"Arguments to batch_matmul must have same ndim, got {l_ndim}, {r_ndim}")
  batch = tuple(range(l_ndim - 2))
  return dot_general(lhs, rhs, (((l_ndim - 1,), (r_ndim - 2,)), (batch, batch)), precision)


def _canonical_dims(dimension_numbers: Any) -> DimensionNumbers:
  try:
    (lc, rc), (lb, rb) = dimension_numbers
    return ((tuple(map(int, lc)), tuple(map(int, rc))), (tuple(map(int, lb)), tuple(map(int, rb))))
  except (TypeError, ValueError):
    raise TypeError(f"dot_general dimension_numbers must be ((lhs_contracting, "
                    f"rhs_contracting), (lhs_batch, rhs_batch)) of integer sequences, got "
                    f"{dimension_numbers!r}") from None


# ----------------------------------------------------------------------------------------------
# Abstract evaluation

def _check_side(side: str, aval: ShapedArray, contract: tuple, batch: tuple) -> None:
  for what, dims in (("contracting", contract), ("batch", batch)):
    if any(not 0 <= d < aval.ndim for d in dims) or len(set(dims)) != len(dims):
      raise TypeError(f"dot_general requires {side} {what} dimensions {dims} to be distinct "
                      f"axes in [0, {aval.ndim}) of the {side} operand {aval.str_short()}")
  if set(contract) & set(batch):
    raise TypeError(f"dot_general requires {side} batch dimensions {batch} and contracting "
                    f"dimensions {contract} to be disjoint ({side} operand {aval.str_short()})")


def _check_pairs(what: str, lhs: ShapedArray, rhs: ShapedArray, l_dims: tuple, r_dims: tuple
                 ) -> None:
  l_sizes = tuple(lhs.shape[d] for d in l_dims)
  r_sizes = tuple(rhs.shape[d] for d in r_dims)
  if l_sizes != r_sizes:
    raise TypeError(f"dot_general requires {what} dimensions of equal sizes, got lhs dims "
                    f"{l_dims} of sizes {l_sizes} ({lhs.str_short()}) and rhs dims {r_dims} of "
                    f"sizes {r_sizes} ({rhs.str_short()})")


def _free_dims(ndim: int, *removed: Sequence[int]) -> list[int]:
  gone = {d for dims in removed for d in dims}
  return [d for d in range(ndim) if d not in gone]


@functools.lru_cache(maxsize=None)  # (a key per dtype: every dot_general asks twice)
def _precision_key(dtype: np.dtype) -> tuple:
  """XLA's order of "higher precision" types (primitive_util.h's HigherPrecisionType)."""
  real = np.zeros((), dtype).real.dtype
  info = dtypes.finfo(real) if dtypes.kind(real) == "f" else None
  return (dtype.kind == "c", info.maxexp if info else -1, info.nmant if info else -1,
          1 if real.kind == "b" else real.itemsize * 8, real.kind != "u")


def _bit_width(dtype: np.dtype) -> int:
  return np.zeros((), dtype).real.dtype.itemsize * 8


def _result_dtype(lhs: ShapedArray, rhs: ShapedArray, preferred) -> np.dtype:
  l_key, r_key = _precision_key(lhs.dtype), _precision_key(rhs.dtype)
  if l_key == r_key and lhs.dtype != rhs.dtype:
    raise TypeError(f"dot_general argument type error: {lhs.str_short()}, {rhs.str_short()}")
  dtype = lhs.dtype if l_key >= r_key else rhs.dtype
  if preferred is None or preferred == dtype:
    return dtype
  # XLA's MaybeUpcast: any kind may be asked for, but a non-float result only widens.
  if not dtypes.is_float(dtype) and _bit_width(preferred) < _bit_width(dtype):
    raise TypeError(f"dot_general: preferred_element_type must not be narrower than the "
                    f"original type, got {preferred} for a result of type {dtype}")
  return preferred


def _dot_general_abstract_eval(lhs: ShapedArray, rhs: ShapedArray, *, dimension_numbers,
                               preferred_element_type, precision=None, out_sharding=None):
  (lc, rc), (lb, rb) = dimension_numbers
  if len(lb) != len(rb) or len(lc) != len(rc):
    raise TypeError(f"dot_general requires as many lhs as rhs batch dimensions and contracting "
                    f"dimensions, got dimension_numbers {dimension_numbers}")
  _check_side("lhs", lhs, lc, lb)
  _check_side("rhs", rhs, rc, rb)
  _check_pairs("batch", lhs, rhs, lb, rb)
  _check_pairs("contracting", lhs, rhs, lc, rc)
  shape = (tuple(lhs.shape[d] for d in lb) +
           tuple(lhs.shape[d] for d in _free_dims(lhs.ndim, lc, lb)) +
           tuple(rhs.shape[d] for d in _free_dims(rhs.ndim, rc, rb)))
  weak = lhs.weak_type and rhs.weak_type  # (with a preferred type too, as JAX)
  return ShapedArray(shape, _result_dtype(lhs, rhs, preferred_element_type), weak)


def _dot_general_reference(lhs: np.ndarray, rhs: np.ndarray, *, dimension_numbers,
                           preferred_element_type, precision=None, out_sharding=None
                           ) -> np.ndarray:
  """An einsum whose output lists batch axes, then lhs free axes, then rhs free axes."""
  (lhs_contract, rhs_contract), (lhs_batch, rhs_batch) = dimension_numbers
  letters = iter(string.ascii_letters)
  lhs_names = [next(letters) for _ in range(lhs.ndim)]
  rhs_names = [next(letters) for _ in range(rhs.ndim)]
  for l, r in zip(lhs_contract + lhs_batch, rhs_contract + rhs_batch):
    rhs_names[r] = lhs_names[l]
  out = ([lhs_names[d] for d in lhs_batch] +
         [n for d, n in enumerate(lhs_names) if d not in lhs_contract + lhs_batch] +
         [n for d, n in enumerate(rhs_names) if d not in rhs_contract + rhs_batch])
  dtype = preferred_element_type or np.result_type(lhs, rhs)
  spec = f"{''.join(lhs_names)},{''.join(rhs_names)}->{''.join(out)}"
  return np.einsum(spec, lhs.astype(dtype), rhs.astype(dtype))


dot_general_p = standard_primitive("dot_general", _dot_general_abstract_eval)
def_reference(dot_general_p, _dot_general_reference)


# ----------------------------------------------------------------------------------------------
# JVP and transposition (it is bilinear)

ad.defjvp(dot_general_p,
          lambda t, lhs, rhs, **params: dot_general_p.bind(t, rhs, **params),
          lambda t, lhs, rhs, **params: dot_general_p.bind(lhs, t, **params))


def _consecutive(*lengths: int) -> list[tuple[int, ...]]:
  out, start = [], 0
  for n in lengths:
    out.append(tuple(range(start, start + n)))
    start += n
  return out


def _transpose_lhs(ct, x_aval: ShapedArray, y, dimension_numbers, precision,
                   preferred_element_type, swap_ans: bool = False):
  """The cotangent of the lhs: contract ct with y over y's free axes, then put x's axes back
  in order (JAX's _dot_general_transpose_lhs)."""
  (x_contract, y_contract), (x_batch, y_batch) = dimension_numbers
  x_kept = _free_dims(x_aval.ndim, x_contract, x_batch)
  y_kept = _free_dims(aval_of(y).ndim, y_contract, y_batch)
  if swap_ans:
    ans_batch, ans_y, _ = _consecutive(len(x_batch), len(y_kept), len(x_kept))
  else:
    ans_batch, _, ans_y = _consecutive(len(x_batch), len(x_kept), len(y_kept))
  dims = ((ans_y, tuple(y_kept)), (ans_batch, y_batch))
  x_contract_by_y = [x_contract[i] for i in argsort(y_contract)]
  unsorted = list(x_batch) + x_kept + x_contract_by_y
  params = {}
  x_type = x_aval.typed_sharding
  if x_type is not None:  # laid out as x (its contraction may be ambiguous otherwise), as JAX
    params["out_sharding"] = x_type.update(spec=[x_type.spec[d] for d in unsorted])
  out = dot_general_p.bind(ct, y, dimension_numbers=_canonical_dims(dims), precision=precision,
                           preferred_element_type=preferred_element_type, **params)
  x_bar = lax.transpose(out, tuple(argsort(unsorted)))
  if core.get_aval(x_bar).dtype != x_aval.dtype:
    x_bar = lax.convert_element_type(x_bar, x_aval.dtype, weak_type=x_aval.weak_type)
  return x_bar


def _dot_general_transpose(ct, lhs, rhs, *, dimension_numbers, preferred_element_type,
                           precision=None, out_sharding=None):
  if ad.is_undefined_primal(lhs) and ad.is_undefined_primal(rhs):
    raise TypeError("dot_general transpose: only one operand may be linear (it is bilinear)")
  (lc, rc), (lb, rb) = dimension_numbers
  if ad.is_undefined_primal(lhs):
    return [_transpose_lhs(ct, lhs.aval, rhs, dimension_numbers, precision,
                           preferred_element_type), None]
  swapped = ((rc, lc), (rb, lb))
  swapped_precision = precision and precision[::-1]
  return [None, _transpose_lhs(ct, rhs.aval, lhs, swapped, swapped_precision,
                               preferred_element_type, swap_ans=True)]


ad.primitive_transposes[dot_general_p] = ad.zero_ct_aware(_dot_general_transpose)


# ----------------------------------------------------------------------------------------------
# Batching

def _plus1(dims: Sequence[int]) -> tuple[int, ...]:
  return tuple(d + 1 for d in dims)


def _dot_general_batcher(args, dims, *, dimension_numbers, preferred_element_type,
                         precision=None, out_sharding=None):
  """Both batched: a new leading batch dimension. One batched: its batch axis becomes a free
  axis of that side, which lands after the batch axes (lhs) or after the lhs free axes (rhs)."""
  (lhs, rhs), (ld, rd) = args, dims
  (lc, rc), (lb, rb) = dimension_numbers
  params = dict(precision=precision, preferred_element_type=preferred_element_type)
  if ld is not not_mapped and rd is not not_mapped:
    lhs, rhs = batching.moveaxis(lhs, ld, 0), batching.moveaxis(rhs, rd, 0)
    dn, out_dim = ((_plus1(lc), _plus1(rc)), ((0,) + _plus1(lb), (0,) + _plus1(rb))), 0
  elif ld is not not_mapped:
    lhs = batching.moveaxis(lhs, ld, 0)
    dn, out_dim = ((_plus1(lc), rc), (_plus1(lb), rb)), len(lb)
  else:
    rhs = batching.moveaxis(rhs, rd, 0)
    dn = ((lc, _plus1(rc)), (lb, _plus1(rb)))
    out_dim = len(lb) + core.get_aval(lhs).ndim - len(lc) - len(lb)
  if out_sharding is not None:  # the batch dimension is not split
    spec = list(out_sharding.spec)
    params["out_sharding"] = out_sharding.update(spec=spec[:out_dim] + [None] + spec[out_dim:])
  return dot_general_p.bind(lhs, rhs, dimension_numbers=dn, **params), out_dim


batching.primitive_batchers[dot_general_p] = _dot_general_batcher


def _pp_dot_general_params(params: dict) -> list[tuple[str, Any]]:
  """As JAX prints them: the dimension numbers as jax.numpy builds them (lists inside the
  tuples), then out_sharding, precision and preferred_element_type unless None."""
  (lc, rc), (lb, rb) = params["dimension_numbers"]
  dn = ((list(lc), list(rc)), (list(lb), list(rb)))
  optional = [(k, params.get(k))
              for k in ("out_sharding", "precision", "preferred_element_type")]
  return [("dimension_numbers", dn)] + [(k, v) for k, v in optional if v is not None]


param_printers[dot_general_p] = _pp_dot_general_params

# ----------------------------------------------------------------------------------------------
# scaled_dot: (lhs * lhs_scale) . (rhs * rhs_scale) in bfloat16, each scale repeated along the
# contracting dimensions (JAX's scaled_dot_p; not differentiable, as in JAX)

def scaled_dot(lhs: Any, rhs: Any, *, lhs_scale: Any = None, rhs_scale: Any = None,
               dimension_numbers: Any = None, preferred_element_type: Any = None) -> Any:
  """`dot_general` of the operands times their scales (a scale's contracting dimensions divide
  the operand's: each entry scales a block of at least 2), in `preferred_element_type`
  (default bfloat16). Without dimension numbers: the last axis of `lhs` with the one before the
  last of `rhs`, batched over the leading axes."""
  if dimension_numbers is None:
    n = core.get_aval(lhs).ndim
    if n < 2:
      raise TypeError("scaled_dot does not support 0-rank and 1-rank operands.")
    dimension_numbers = (((n - 1,), (n - 2,)), (tuple(range(n - 2)), tuple(range(n - 2))))
  dimension_numbers = _canonical_dims(dimension_numbers)
  (lc, rc), _ = dimension_numbers
  lhs_scale = _unit_scale(lhs, lc) if lhs_scale is None else lhs_scale
  rhs_scale = _unit_scale(rhs, rc) if rhs_scale is None else rhs_scale
  dtype = dtypes.canonicalize(dtypes.bfloat16 if preferred_element_type is None
                              else preferred_element_type)
  return scaled_dot_p.bind(lhs, rhs, lhs_scale, rhs_scale, dimension_numbers=dimension_numbers,
                           preferred_element_type=dtype)


def _unit_scale(operand: Any, contracting: Sequence[int]) -> Any:
  shape = [1 if i in contracting else n for i, n in enumerate(core.get_aval(operand).shape)]
  return lax.convert_element_type(lax.full(shape, 1, dtypes.bfloat16), dtypes.float8_e8m0fnu)


def _check_scale(side: str, operand: ShapedArray, scale: ShapedArray, contracting) -> None:
  for i, size in enumerate(operand.shape):
    if i not in contracting:
      if scale.shape[i] != size:
        raise TypeError(f"{side} dim {i} of size {size} does not match scale dim size "
                        f"{scale.shape[i]}.")
    elif size % scale.shape[i]:
      raise TypeError(f"{side} contracting dim {i} of size {size} must be divisible by its "
                      f"scale's dim size {scale.shape[i]}.")
    elif size // scale.shape[i] < 2:
      raise TypeError(f"The ratio of {side} contracting dim {i} to its scale's dim size "
                      f"({size // scale.shape[i]}) must be at least 2.")


def _scaled_dot_abstract_eval(lhs: ShapedArray, rhs: ShapedArray, lhs_scale: ShapedArray,
                              rhs_scale: ShapedArray, *, dimension_numbers,
                              preferred_element_type) -> ShapedArray:
  """JAX's checks: one rank, matching batch and contracting sizes, scales dividing them."""
  (lc, rc), (lb, rb) = dimension_numbers
  if len({lhs.ndim, rhs.ndim, lhs_scale.ndim, rhs_scale.ndim}) > 1:
    raise TypeError(f"All input tensors must have the same rank. Got lhs rank: {lhs.ndim} rhs "
                    f"rank: {rhs.ndim} lhs_scale rank: {lhs_scale.ndim} rhs_scale rank: "
                    f"{rhs_scale.ndim}.")
  for what, l_dims, r_dims in (("batch", lb, rb), ("contracting", lc, rc)):
    if len(l_dims) != len(r_dims):
      raise TypeError(f"LHS and RHS must have the same number of {what} dimensions, got "
                      f"{len(l_dims)} and {len(r_dims)}.")
  for i, j in zip(lb, rb):
    if len({lhs.shape[i], rhs.shape[j], lhs_scale.shape[i], rhs_scale.shape[j]}) > 1:
      raise TypeError(f"All input tensors must have the same batch dimension size for batch "
                      f"dims ({i}, {j}).")
  for i, j in zip(lc, rc):
    if lhs.shape[i] != rhs.shape[j]:
      raise TypeError(f"LHS contracting dim {i} of size {lhs.shape[i]} does not match RHS "
                      f"contracting dim {j} of size {rhs.shape[j]}.")
  _check_scale("LHS", lhs, lhs_scale, lc)
  _check_scale("RHS", rhs, rhs_scale, rc)
  shape = (tuple(lhs.shape[d] for d in lb) +
           tuple(lhs.shape[d] for d in _free_dims(lhs.ndim, lc, lb)) +
           tuple(rhs.shape[d] for d in _free_dims(rhs.ndim, rc, rb)))
  return ShapedArray(shape, np.dtype(preferred_element_type))


def scaled_dot_decomposition(lhs: Any, rhs: Any, lhs_scale: Any, rhs_scale: Any, *,
                             dimension_numbers, preferred_element_type) -> Any:
  """What scaled_dot computes, with lax ops (its lowering, as JAX's decomposition)."""
  (lc, rc), _ = dimension_numbers

  def scaled(x: Any, scale: Any, contracting: Sequence[int]) -> Any:
    shape = core.get_aval(x).shape
    for i in contracting:  # each scale entry repeated over its block
      s = core.get_aval(scale).shape
      m = shape[i] // s[i]
      spread = s[:i + 1] + (m,) + s[i + 1:]
      kept = tuple(d for d in range(len(spread)) if d != i + 1)
      scale = lax.reshape(lax.broadcast_in_dim(scale, spread, kept),
                          s[:i] + (s[i] * m,) + s[i + 1:])
    bf16 = lambda v: lax.convert_element_type(v, dtypes.bfloat16)  # noqa: E731
    return lax.mul(bf16(x), bf16(scale))
  return dot_general(scaled(lhs, lhs_scale, lc), scaled(rhs, rhs_scale, rc), dimension_numbers,
                     preferred_element_type=preferred_element_type)


def _scaled_dot_reference(lhs, rhs, lhs_scale, rhs_scale, *, dimension_numbers,
                          preferred_element_type) -> np.ndarray:
  (lc, rc), _ = dimension_numbers

  def scaled(x: np.ndarray, scale: np.ndarray, contracting) -> np.ndarray:
    for i in contracting:
      scale = np.repeat(scale, x.shape[i] // scale.shape[i], axis=i)
    bf16 = lambda v: v.astype(np.float32).astype(dtypes.bfloat16)  # noqa: E731
    return (bf16(x) * bf16(scale)).astype(np.float32)
  out = _dot_general_reference(scaled(lhs, lhs_scale, lc), scaled(rhs, rhs_scale, rc),
                               dimension_numbers=dimension_numbers,
                               preferred_element_type=np.float32)
  return out.astype(preferred_element_type)


def _scaled_dot_batcher(args, dims, *, dimension_numbers, preferred_element_type):
  """JAX's rule: every operand batched at the front, one more batch dimension."""
  size = batching.axis_size_of(args, dims)
  args = [batching.bdim_at_front(x, d, size) for x, d in zip(args, dims)]
  (lc, rc), (lb, rb) = dimension_numbers
  dn = ((_plus1(lc), _plus1(rc)), ((0,) + _plus1(lb), (0,) + _plus1(rb)))
  return scaled_dot_p.bind(*args, dimension_numbers=dn,
                           preferred_element_type=preferred_element_type), 0


def _scaled_dot_jvp(primals, tangents, **params):
  raise NotImplementedError("Differentiation rule for 'scaled_dot' not implemented")


scaled_dot_p = standard_primitive("scaled_dot", _scaled_dot_abstract_eval)
def_reference(scaled_dot_p, _scaled_dot_reference)
batching.primitive_batchers[scaled_dot_p] = _scaled_dot_batcher
ad.primitive_jvps[scaled_dot_p] = _scaled_dot_jvp


# ----------------------------------------------------------------------------------------------
# FLOPS (conventions: stablejax.flops)

def _dot_general_flops(avals_in, avals_out, *, dimension_numbers, **_) -> float:
  (lhs_contract, _), _ = dimension_numbers
  contracted = math.prod(avals_in[0].shape[d] for d in lhs_contract)
  return 2 * avals_out[0].size * contracted


flops.flops_rules[dot_general_p] = _dot_general_flops

# ----------------------------------------------------------------------------------------------
# Sharding in types (stablejax.typed_sharding)

def _dot_general_sharding(lhs: ShapedArray, rhs: ShapedArray, *, dimension_numbers,
                          out_sharding=None, **params: Any) -> tuple:
  """Batch dimensions split alike on both sides, then each side's free dimensions as split;
  contracting dimensions split on both sides leave the result's layout to `out_sharding`
  (JAX's dot_general rule)."""
  if out_sharding is not None:
    return tuple(out_sharding.spec)
  (lc, rc), (lb, rb) = dimension_numbers
  lspec, rspec = typed.parts(lhs), typed.parts(rhs)
  lb_spec, rb_spec = tuple(lspec[d] for d in lb), tuple(rspec[d] for d in rb)
  lc_spec, rc_spec = tuple(lspec[d] for d in lc), tuple(rspec[d] for d in rc)
  for what, l, r in (("lhs batch dimensions and rhs batch dimensions to have the consistent",
                      lb_spec, rb_spec), ("contracting dimensions to have consistent",
                                          lc_spec, rc_spec)):
    if any(a is not None and b is not None and a != b for a, b in zip(l, r)):
      raise typed.ShardingTypeError(f"dot_general requires {what} sharding, got {l} and {r}.")
  if any(a is not None and b is not None for a, b in zip(lc_spec, rc_spec)):
    raise typed.ShardingTypeError(
        "Contracting dimensions are sharded and it is ambiguous how the output should be "
        "sharded. Please specify the output sharding via the `out_sharding` parameter. Got "
        f"lhs_contracting_spec={lc_spec} and rhs_contracting_spec={rc_spec}")
  return (lb_spec + tuple(lspec[d] for d in _free_dims(lhs.ndim, lc, lb)) +
          tuple(rspec[d] for d in _free_dims(rhs.ndim, rc, rb)))


typed.sharding_rules[dot_general_p] = _dot_general_sharding


flops.flops_rules[scaled_dot_p] = lambda avals_in, avals_out, **params: _dot_general_flops(
    avals_in[:2], avals_out, **params)
