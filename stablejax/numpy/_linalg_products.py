"""numpy's linear algebra, matrix and vector products: dot, matmul, einsum (and einsum_path),
vdot, vecdot, inner, outer, matvec, vecmat, tensordot, kron, cross, and trace, through
lax.dot_general and elementwise ops with JAX's dtypes (the rest of numpy's linear algebra is the
public submodule `linalg`)."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from stablejax.util import argsort, canonicalize_axis
from stablejax.runtime import Array
from stablejax import core, dtypes, lax
from stablejax.lax.sharding import apply_out_sharding
from stablejax.partition_spec import PartitionSpec
from stablejax.numpy._axes import expand_axes, squeeze_if_needed, transpose_if_needed
from stablejax.numpy._creation import eye
from stablejax.numpy._functional import vectorize
from stablejax.numpy._manipulation_shape import moveaxis, ravel, reshape, stack
from stablejax.numpy._math_arithmetic import conjugate, multiply, subtract
from stablejax.numpy._promotion import (
    broadcast_shapes, broadcast_to, convert, dtype as dtype_of, dtype, ensure_arraylike,
    promote_dtypes, result_type, shape)
from stablejax.numpy._math_sums import sum as sum_


def _dot_general(a: Any, b: Any, dims: Any, out_dtype: np.dtype, precision: Any = None,
                 out_sharding: Any = None, dot_general: Any = lax.dot_general) -> Any:
  """`dot_general` (lax's, or the one a caller of einsum gives) called as JAX's einsum calls it:
  `out_sharding` passed only when there is one."""
  sharding = {} if out_sharding is None else {"out_sharding": out_sharding}
  return dot_general(a, b, dims, precision, preferred_element_type=out_dtype, **sharding)


def output_type(preferred_element_type: Any, *operands: Any) -> tuple[np.dtype, bool]:
  """The (dtype, weak type) of a product: `preferred_element_type` (strong) if given, else the
  operands' promoted type."""
  if preferred_element_type is None:
    return result_type(*operands)
  return dtypes.canonicalize(np.dtype(preferred_element_type)), False


def dot(a: Any, b: Any, *, precision: Any = None, preferred_element_type: Any = None,
        out_sharding: Any = None) -> Any:
  """numpy.dot: scalars multiply; otherwise contract the last axis of `a` with the last axis of
  a vector `b` or the second-to-last of `b`."""
  a, b = ensure_arraylike("dot", a, b)
  out_dtype, weak = output_type(preferred_element_type, a, b)
  a_ndim, b_ndim = len(shape(a)), len(shape(b))
  if a_ndim == 0 or b_ndim == 0:
    contract = ((), ())
  else:
    contract = ((a_ndim - 1,), (max(b_ndim - 2, 0),))
  _check_contracted("dot", a, b, contract)
  out = _dot_general(a, b, (contract, ((), ())), out_dtype, precision, out_sharding)
  return apply_out_sharding(convert(out, out_dtype, weak), out_sharding, "jnp.dot")


def _check_contracted(name: str, a: Any, b: Any, contract: tuple) -> None:
  a_shape, b_shape = shape(a), shape(b)
  if [a_shape[i] for i in contract[0]] != [b_shape[i] for i in contract[1]]:
    raise TypeError(f"{name}: shapes {a_shape} and {b_shape} are not aligned: the contracted "
                     f"axes {contract[0]} and {contract[1]} differ in size")


def matmul(a: Any, b: Any, *, precision: Any = None, preferred_element_type: Any = None,
           out_sharding: Any = None) -> Any:
  """numpy.matmul (the @ operator): matrix products broadcast over leading batch axes."""
  a, b = ensure_arraylike("matmul", a, b)
  for i, x in enumerate((a, b)):
    if not shape(x):
      raise ValueError(f"matmul input operand {i} must have ndim at least 1, but it has ndim 0")
  out_dtype, weak = output_type(preferred_element_type, a, b)
  plan = _matmul_plan(shape(a), shape(b))
  a = squeeze_if_needed(a, plan["a_squeeze"])
  b = squeeze_if_needed(b, plan["b_squeeze"])
  a_ndim, b_ndim = len(shape(a)), len(shape(b))
  contract = ((a_ndim - 1,), (b_ndim - 1 - plan["b_is_mat"],))
  _check_contracted("matmul", a, b, contract)
  in_order = list(plan["perm"]) == sorted(plan["perm"]) and not plan["both_squeeze"]
  out = _dot_general(a, b, (contract, (plan["a_batch"], plan["b_batch"])), out_dtype,
                     precision, out_sharding if in_order else None)
  out = transpose_if_needed(out, plan["perm"])
  if plan["both_squeeze"]:
    out = expand_axes(out, plan["both_squeeze"])
  return apply_out_sharding(convert(out, out_dtype, weak), out_sharding, "jnp.matmul")


def _matmul_plan(a_shape: tuple, b_shape: tuple) -> dict:
  """JAX's matmul strategy: which size-1 batch axes to squeeze, which axes are batch axes of
  dot_general, and the permutation putting dot_general's output in numpy's order."""
  a_is_mat, b_is_mat = len(a_shape) > 1, len(b_shape) > 1
  a_batch_dims = a_shape[:-2] if a_is_mat else ()
  b_batch_dims = b_shape[:-2] if b_is_mat else ()
  n = max(len(a_batch_dims), len(b_batch_dims))
  a_batch_dims = (None,) * (n - len(a_batch_dims)) + a_batch_dims
  b_batch_dims = (None,) * (n - len(b_batch_dims)) + b_batch_dims
  p = dict(a_squeeze=[], b_squeeze=[], both_squeeze=[], a_batch=[], b_batch=[],
           idx_batch=[], idx_a=[], idx_b=[], b_is_mat=b_is_mat)
  for i, (ba, bb) in enumerate(zip(a_batch_dims, b_batch_dims)):
    _plan_batch_axis(p, i, ba, bb, a_shape, b_shape)
  if a_is_mat:
    p["idx_a"].append(n)
  if b_is_mat:
    p["idx_b"].append(n + a_is_mat)
  p["perm"] = tuple(argsort(p["idx_batch"] + p["idx_a"] + p["idx_b"]))
  return p


def _plan_batch_axis(p: dict, i: int, ba: int | None, bb: int | None, a_shape: tuple,
                     b_shape: tuple) -> None:
  a_pos = len(p["idx_batch"]) + len(p["idx_a"]) + len(p["a_squeeze"])
  b_pos = len(p["idx_batch"]) + len(p["idx_b"]) + len(p["b_squeeze"])
  if ba is None:
    p["idx_b"].append(i)
  elif bb is None:
    p["idx_a"].append(i)
  elif ba == 1 and bb == 1:
    p["a_squeeze"].append(a_pos)
    p["b_squeeze"].append(b_pos)
    p["both_squeeze"].append(i)
  elif ba == 1:
    p["idx_b"].append(i)
    p["a_squeeze"].append(a_pos)
  elif bb == 1:
    p["idx_a"].append(i)
    p["b_squeeze"].append(b_pos)
  elif ba == bb:
    p["a_batch"].append(len(p["idx_batch"]) + len(p["idx_a"]))
    p["b_batch"].append(len(p["idx_batch"]) + len(p["idx_b"]))
    p["idx_batch"].append(i)
  else:
    raise ValueError(f"matmul: incompatible batch shapes for arguments of shapes {a_shape} and "
                     f"{b_shape}")


# ----------------------------------------------------------------------------------------------
# einsum

def einsum(subscripts: str, /, *operands: Any, out: None = None, optimize: Any = "auto",
           precision: Any = None, preferred_element_type: Any = None, out_sharding: Any = None,
           _dot_general: Any = lax.dot_general) -> Any:
  """Einstein summation: one operand (sums, traces, transposes), or several contracted left to
  right, two at a time with `_dot_general` (lax's, or a caller's: flax passes its own);
  explicit or implicit ('ij,jk') output."""
  if not operands:
    raise ValueError("einsum: at least one operand is required")
  if out is not None:
    raise NotImplementedError("The 'out' argument to jnp.einsum is not supported.")
  operands = ensure_arraylike("einsum", *operands)
  spec, operands = _expand_ellipses(subscripts.replace(" ", ""), operands)
  inputs, out_names = _parse_subscripts(spec, [shape(x) for x in operands])
  out_dtype, weak = output_type(preferred_element_type, *operands)
  # as JAX's, operands keep their types (dot_general takes mixed ones): a gradient sees them
  ops = [_prepare(x, names, inputs, out_names, k, out_dtype) for k, (x, names) in
         enumerate(zip(operands, inputs))]
  x, names = ops[0]
  for k in range(1, len(ops)):
    # an index both share stays (as a batch axis) while the output or a later operand uses it
    later = out_names + "".join(n for _, n in ops[k + 1:])
    last = k == len(ops) - 1
    x, names = _contract((x, names), ops[k], out_names if last else later, out_dtype, precision,
                         out_sharding if last else None, _dot_general)
  x = convert(transpose_if_needed(x, [names.index(c) for c in out_names]), out_dtype, weak)
  return apply_out_sharding(x, out_sharding, "jnp.einsum")


def _expand_ellipses(spec: str, operands: list) -> tuple[str, list]:
  """Name the axes each '...' stands for (right-aligned across the operands, as numpy
  broadcasts them) with capitals the spec does not use, and broadcast size-1 ones."""
  if "." not in spec:
    return spec, operands
  ins, arrow, out = spec.partition("->")
  terms = ins.split(",")
  if len(terms) != len(operands) or any(t.count(".") not in (0, 3) or
                                        (t.count(".") and "..." not in t) for t in terms):
    raise ValueError(f"einsum: invalid ellipses in subscripts {spec!r}")
  ranks = [len(shape(x)) - len(t.replace("...", "")) if "..." in t else 0
           for t, x in zip(terms, operands)]
  if min(ranks) < 0:
    raise ValueError(f"einsum: subscripts {spec!r} have more indices than their operands")
  free = [c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ" if c not in spec]
  names = "".join(free[:max(ranks)])
  if len(names) < max(ranks):
    raise ValueError(f"einsum: too many axes under the ellipses of {spec!r}")
  sizes = np.broadcast_shapes(*(shape(x)[t.index("...") if "..." in t else 0:][:r]
                                for t, x, r in zip(terms, operands, ranks)))
  expanded = []
  for k, (t, r) in enumerate(zip(terms, ranks)):
    if "..." in t:
      start = t.index("...")
      target = list(shape(operands[k]))
      target[start:start + r] = sizes[len(sizes) - r:]
      if tuple(target) != shape(operands[k]):
        operands[k] = lax.broadcast_in_dim(operands[k], tuple(target), range(len(target)))
      t = t.replace("...", names[len(names) - r:])
    expanded.append(t)
  if not arrow:
    counts = "".join(expanded)
    out = names + "".join(sorted(c for c in set(counts) if counts.count(c) == 1
                                 and c not in names))
  return ",".join(expanded) + "->" + out.replace("...", names), operands


def _parse_subscripts(spec: str, shapes: list) -> tuple[list[str], str]:
  ins, arrow, out = spec.partition("->")
  inputs = ins.split(",")
  if len(inputs) != len(shapes) or not all(c.isalpha() for n in inputs + [out] for c in n):
    raise ValueError(f"einsum: subscripts {spec!r} don't match {len(shapes)} operand(s) "
                     "(letters only, one comma-separated term per operand)")
  for names, s in zip(inputs, shapes):
    if len(names) != len(s):
      raise ValueError(f"einsum: term {names!r} has {len(names)} indices but its operand has "
                       f"shape {s}")
  if not arrow:
    counts = "".join(inputs)
    out = "".join(sorted(c for c in set(counts) if counts.count(c) == 1))
  _check_sizes(spec, inputs, shapes, out)
  return inputs, out


def _check_sizes(subscripts: str, inputs: list[str], shapes: list, out: str) -> None:
  sizes: dict[str, int] = {}
  for names, s in zip(inputs, shapes):
    for c, d in zip(names, s):
      if sizes.setdefault(c, d) != d:
        raise ValueError(f"einsum: index {c!r} in {subscripts!r} has sizes {sizes[c]} and {d}")
  missing = set(out) - set(sizes)
  if missing or len(set(out)) != len(out):
    raise ValueError(f"einsum: output subscripts {out!r} must be distinct indices of the inputs")


def _prepare(x: Any, names: str, inputs: list[str], out: str, k: int, out_dtype: np.dtype
             ) -> tuple[Any, str]:
  """Sum out indices no other term uses, then reduce repeated indices to diagonals."""
  others = out + "".join(n for j, n in enumerate(inputs) if j != k)
  unique = tuple(i for i, c in enumerate(names) if c not in others and names.count(c) == 1)
  if unique:
    x = _sum(x, unique, out_dtype)
    names = "".join(c for i, c in enumerate(names) if i not in unique)
  for c in dict.fromkeys(names):
    count = names.count(c)
    if count > 1:
      axes = [i for i, n in enumerate(names) if n == c]
      x = lax.select_n(_delta(shape(x), axes), lax.full_like(x, 0), x)
      kept = c in others
      x = _sum(x, tuple(axes[:-1] if kept else axes), out_dtype)
      names = names.replace(c, "", count - 1 if kept else count)
  return x, names


def _sum(x: Any, axes: Sequence[int], out_dtype: np.dtype) -> Any:
  """einsum's sum over `axes`, in x's dtype unless the output's is wider (logical or for
  booleans), strongly typed as JAX's `lax.reduce` from a numpy 0 makes it (einsum's result takes
  the weak type back at the end, so a gradient through it is weak, as JAX's)."""
  aval = core.get_aval(x)
  if dtypes.lattice_join((aval.dtype, aval.weak_type), (out_dtype, False))[0] != aval.dtype:
    x = convert(x, out_dtype)
  out = (lax.reduce_or if dtype(x) == dtypes.bool_ else lax.reduce_sum)(x, tuple(axes))
  return convert(out, dtype(x))


def _delta(x_shape: tuple, axes: list[int]) -> Any:
  """The boolean mask of `x_shape` that is True where the indices along `axes` are equal."""
  base = tuple(x_shape[i] for i in axes)
  iotas = [lax.broadcasted_iota(np.dtype(np.uint32), base, i) for i in range(len(base))]
  mask = lax.eq(iotas[0], iotas[1])
  for i1, i2 in zip(iotas[1:-1], iotas[2:]):
    mask = lax.bitwise_and(mask, lax.eq(i1, i2))
  return mask if base == x_shape else lax.broadcast_in_dim(mask, x_shape, axes)


def _contract(a_op: tuple, b_op: tuple, out: str, out_dtype: np.dtype, precision: Any,
              out_sharding: Any = None, dot_general: Any = lax.dot_general) -> tuple[Any, str]:
  """Contract two prepared operands with one dot_general, ordered as JAX orders it;
  `out_sharding` lays out the axes `out`."""
  (a, a_names), (b, b_names) = a_op, b_op
  batch = [c for c in a_names if c in b_names and c in out]
  contracted = [c for c in a_names if c in b_names and c not in out]
  a_rest = "".join(c for c in a_names if c not in batch and c not in contracted)
  b_rest = "".join(c for c in b_names if c not in batch and c not in contracted)
  batch_names = "".join(batch)
  if batch_names + a_rest + b_rest != out:  # JAX then tries the operands the other way round
    (a, a_names, a_rest), (b, b_names, b_rest) = (b, b_names, b_rest), (a, a_names, a_rest)
  dims = (([a_names.index(c) for c in contracted], [b_names.index(c) for c in contracted]),
          ([a_names.index(c) for c in batch], [b_names.index(c) for c in batch]))
  names = batch_names + a_rest + b_rest
  return _dot_general(a, b, dims, out_dtype, precision, _reordered(out_sharding, out, names),
                      dot_general), names


def _reordered(out_sharding: Any, out: str, names: str) -> Any:
  """`out_sharding` (a NamedSharding or PartitionSpec of the axes `out`) for the axes `names`."""
  if out_sharding is None or set(names) != set(out):
    return None
  spec = out_sharding if isinstance(out_sharding, PartitionSpec) else out_sharding.spec
  padded = (*spec, *[None] * (len(out) - len(spec)))
  reordered = PartitionSpec(*[padded[out.index(c)] for c in names])
  return reordered if isinstance(out_sharding, PartitionSpec) else out_sharding.update(
      spec=reordered)

def einsum_path(subscripts: str, /, *operands: Any,
                optimize: bool | str | list = "auto") -> tuple[list[tuple[int, ...]], str]:
  """The contraction order einsum would use (as JAX's: the list of contracted operand pairs)
  and numpy's report of it; computed on shapes only."""
  shaped = [np.empty(shape(x), dtype_of(x)) if isinstance(x, (Array, core.Tracer)) else x
            for x in operands]
  strategy = "greedy" if isinstance(optimize, bool) or optimize == "auto" else optimize
  path, report = np.einsum_path(subscripts, *shaped, optimize=strategy)
  if optimize is False:
    return [(0, 1)] * (len(shaped) - 1), report
  return [tuple(step) for step in path[1:]], report


def matvec(x1: Any, x2: Any, /) -> Any:
  """Batched matrix-vector products: x1 (..., n, m) with x2 (..., m)."""
  x1, x2 = ensure_arraylike("matvec", x1, x2)
  return vectorize(matmul, signature="(n,m),(m)->(n)")(x1, x2)


def vecmat(x1: Any, x2: Any, /) -> Any:
  """Batched vector-matrix products conj(x1) (..., n) with x2 (..., n, m)."""
  x1, x2 = ensure_arraylike("vecmat", x1, x2)
  return vectorize(matmul, signature="(n),(n,m)->(m)")(conjugate(x1), x2)


def _conj_if_complex(x: Any) -> Any:
  return lax.conj(x) if dtypes.is_complex(core.get_aval(x).dtype) else x


def _contract_typed(a: Any, b: Any, dims: Any, precision: Any,
                    preferred_element_type: Any) -> Any:
  """dot_general of `a` and `b`, returned in the product's dtype and weak type."""
  out_dtype, weak = output_type(preferred_element_type, a, b)
  out = lax.dot_general(a, b, dims, precision, preferred_element_type=out_dtype)
  return convert(out, out_dtype, weak)


def vdot(a: Any, b: Any, *, precision: Any = None, preferred_element_type: Any = None) -> Any:
  """The dot product of the flattened arrays, conjugating `a` if it is complex."""
  a, b = ensure_arraylike("vdot", a, b)
  return dot(ravel(_conj_if_complex(a)), ravel(b), precision=precision,
             preferred_element_type=preferred_element_type)


def vecdot(x1: Any, x2: Any, /, *, axis: int = -1, precision: Any = None,
           preferred_element_type: Any = None) -> Any:
  """Vector dot products along `axis` (conjugating `x1` if complex), broadcasting the others."""
  x1, x2 = ensure_arraylike("vecdot", x1, x2)
  s1, s2 = shape(x1), shape(x2)
  if s1[canonicalize_axis(axis, len(s1))] != s2[canonicalize_axis(axis, len(s2))]:
    raise ValueError(f"axes must match; got shapes {s1} and {s2} with axis={axis}")
  x1, x2 = moveaxis(x1, axis, -1), moveaxis(x2, axis, -1)
  batch = broadcast_shapes("vecdot", shape(x1)[:-1], shape(x2)[:-1])
  x1, x2 = (broadcast_to(x, batch + shape(x)[-1:]) for x in (x1, x2))
  batch_dims = tuple(range(len(batch)))
  dims = (((len(batch),), (len(batch),)), (batch_dims, batch_dims))
  return _contract_typed(_conj_if_complex(x1), x2, dims, precision, preferred_element_type)


def inner(a: Any, b: Any, *, precision: Any = None, preferred_element_type: Any = None) -> Any:
  """The sum product over the last axes of `a` and `b` (a product if either is a scalar)."""
  a, b = ensure_arraylike("inner", a, b)
  if not shape(a) or not shape(b):
    out_dtype, weak = output_type(preferred_element_type, a, b)
    return convert(multiply(a, b), out_dtype, weak)
  return tensordot(a, b, (-1, -1), precision=precision,
                   preferred_element_type=preferred_element_type)


def outer(a: Any, b: Any, out: None = None) -> Any:
  """The outer product of the flattened arrays."""
  if out is not None:
    raise NotImplementedError("The 'out' argument to jnp.outer is not supported.")
  a, b = ensure_arraylike("outer", a, b)
  a, b = ravel(a), ravel(b)
  return multiply(reshape(a, (-1, 1)), reshape(b, (1, -1)))


def kron(a: Any, b: Any) -> Any:
  """The Kronecker product: blocks a[i, j] * b."""
  a, b = promote_dtypes(*ensure_arraylike("kron", a, b))
  ndim = max(len(shape(a)), len(shape(b)))
  a, b = (reshape(x, (1,) * (ndim - len(shape(x))) + shape(x)) for x in (a, b))
  a_spread = reshape(a, tuple(d for n in shape(a) for d in (n, 1)))
  b_spread = reshape(b, tuple(d for n in shape(b) for d in (1, n)))
  out_shape = tuple(int(m * n) for m, n in zip(shape(a), shape(b)))
  return reshape(multiply(a_spread, b_spread), out_shape)


def tensordot(a: Any, b: Any, axes: int | Sequence[int] | Sequence[Sequence[int]] = 2, *,
              precision: Any = None, preferred_element_type: Any = None,
              out_sharding: Any = None) -> Any:
  """Contract the last `axes` axes of `a` with the first of `b`, or the axes listed in the pair
  `axes`."""
  a, b = ensure_arraylike("tensordot", a, b)
  a_ndim, b_ndim = len(shape(a)), len(shape(b))
  if a_ndim < 1 or b_ndim < 1:
    raise TypeError(f"tensordot requires a.ndim and b.ndim to be at least 1, got {a_ndim} and "
                    f"{b_ndim}.")
  contract = _tensordot_axes(axes, a_ndim, b_ndim)
  out = _contract_typed(a, b, (contract, ((), ())), precision, preferred_element_type)
  return apply_out_sharding(out, out_sharding, "jnp.tensordot")


def _tensordot_axes(axes: Any, a_ndim: int, b_ndim: int) -> tuple[tuple[int, ...], ...]:
  if isinstance(axes, (int, np.integer)):
    if axes > min(a_ndim, b_ndim) or axes < 0:
      raise TypeError(f"Number of tensordot axes (axes {axes}) exceeds input ranks ({a_ndim} "
                      f"and {b_ndim})")
    return tuple(range(a_ndim - axes, a_ndim)), tuple(range(axes))
  if isinstance(axes, (tuple, list)) and len(axes) == 2:
    ax1, ax2 = axes
    if isinstance(ax1, (int, np.integer)) and isinstance(ax2, (int, np.integer)):
      return (canonicalize_axis(ax1, a_ndim),), (canonicalize_axis(ax2, b_ndim),)
    if isinstance(ax1, (tuple, list)) and isinstance(ax2, (tuple, list)):
      if len(ax1) != len(ax2):
        raise TypeError(f"tensordot requires axes lists to have equal length, got {ax1} and "
                        f"{ax2}.")
      return (tuple(canonicalize_axis(i, a_ndim) for i in ax1),
              tuple(canonicalize_axis(i, b_ndim) for i in ax2))
    raise TypeError(f"tensordot requires both axes lists to be either ints, tuples or lists, "
                    f"got {ax1} and {ax2}")
  raise TypeError("tensordot axes argument must be an int, a pair of ints, or a pair of "
                  f"lists/tuples of ints; got {axes!r}.")


def _component(x: Any, i: int) -> Any:
  """x[..., i]."""
  return lax.squeeze(lax.slice_in_dim(x, i, i + 1, axis=-1), (len(shape(x)) - 1,))


def cross(a: Any, b: Any, axisa: int = -1, axisb: int = -1, axisc: int = -1,
          axis: int | None = None) -> Any:
  """The cross product of 2- or 3-vectors along `axisa` of `a` and `axisb` of `b` (both set by
  `axis`), the result's vector axis at `axisc` (a scalar for two 2-vectors)."""
  a, b = promote_dtypes(*ensure_arraylike("cross", a, b))
  if axis is not None:
    axisa = axisb = axisc = axis
  a, b = moveaxis(a, axisa, -1), moveaxis(b, axisb, -1)
  if shape(a)[-1] not in (2, 3) or shape(b)[-1] not in (2, 3):
    raise ValueError("Dimension must be either 2 or 3 for cross product")
  if shape(a)[-1] == 2 and shape(b)[-1] == 2:
    return subtract(multiply(_component(a, 0), _component(b, 1)),
                     multiply(_component(a, 1), _component(b, 0)))
  a0, a1, a2 = _components3(a)
  b0, b1, b2 = _components3(b)
  c = stack([subtract(multiply(a1, b2), multiply(a2, b1)),
             subtract(multiply(a2, b0), multiply(a0, b2)),
             subtract(multiply(a0, b1), multiply(a1, b0))])
  return moveaxis(c, 0, axisc)


def _components3(x: Any) -> list:
  parts = [_component(x, i) for i in range(shape(x)[-1])]
  return parts if len(parts) == 3 else parts + [lax.full_like(parts[0], 0)]


def trace(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None,
          out: None = None) -> Any:
  """The sum along the diagonal `offset` of the 2-d slices over `axis1` and `axis2`."""
  if out is not None:
    raise NotImplementedError("The 'out' argument to jnp.trace is not supported.")
  (a,) = ensure_arraylike("trace", a)
  offset = int(core.concrete_or_error(offset, "the offset of jnp.trace"))
  a_shape = shape(a)
  n, m = a_shape[canonicalize_axis(axis1, len(a_shape))], a_shape[
      canonicalize_axis(axis2, len(a_shape))]
  a = moveaxis(a, (axis1, axis2), (-2, -1))
  diagonal = broadcast_to(eye(n, m, offset, dtype=bool), shape(a))
  return sum_(lax.select_n(diagonal, lax.full_like(a, 0), a), axis=(-2, -1), dtype=dtype)
