"""Tensor contractions: dot, matmul and einsum, all through lax.dot_general."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from stablejax import core, dtypes, lax
from stablejax.numpy._axes import expand_axes, squeeze_if_needed, transpose_if_needed
from stablejax.numpy._promotion import convert, dtype, ensure_arraylike, result_type, shape


def _dot_general(a: Any, b: Any, dims: Any, out_dtype: np.dtype, precision: Any = None) -> Any:
  return lax.dot_general(a, b, dims, precision, preferred_element_type=out_dtype)


def output_type(preferred_element_type: Any, *operands: Any) -> tuple[np.dtype, bool]:
  """The (dtype, weak type) of a product: `preferred_element_type` (strong) if given, else the
  operands' promoted type."""
  if preferred_element_type is None:
    return result_type(*operands)
  return dtypes.canonicalize(np.dtype(preferred_element_type)), False


def dot(a: Any, b: Any, *, precision: Any = None, preferred_element_type: Any = None) -> Any:
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
  out = _dot_general(a, b, (contract, ((), ())), out_dtype, precision)
  return convert(out, out_dtype, weak)


def _check_contracted(name: str, a: Any, b: Any, contract: tuple) -> None:
  a_shape, b_shape = shape(a), shape(b)
  if [a_shape[i] for i in contract[0]] != [b_shape[i] for i in contract[1]]:
    raise TypeError(f"{name}: shapes {a_shape} and {b_shape} are not aligned: the contracted "
                     f"axes {contract[0]} and {contract[1]} differ in size")


def matmul(a: Any, b: Any, *, precision: Any = None, preferred_element_type: Any = None) -> Any:
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
  out = _dot_general(a, b, (contract, (plan["a_batch"], plan["b_batch"])), out_dtype,
                     precision)
  out = transpose_if_needed(out, plan["perm"])
  if plan["both_squeeze"]:
    out = expand_axes(out, plan["both_squeeze"])
  return convert(out, out_dtype, weak)


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
  p["perm"] = tuple(np.argsort(p["idx_batch"] + p["idx_a"] + p["idx_b"]))
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
           precision: Any = None, preferred_element_type: Any = None) -> Any:
  """Einstein summation: one operand (sums, traces, transposes), or several contracted left to
  right, two at a time with dot_general; explicit or implicit ('ij,jk') output."""
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
    x, names = _contract((x, names), ops[k], out_names if k == len(ops) - 1 else later,
                         out_dtype, precision)
  return convert(transpose_if_needed(x, [names.index(c) for c in out_names]), out_dtype, weak)


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
  if dtypes.result_type((aval.dtype, aval.weak_type), (out_dtype, False))[0] != aval.dtype:
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


def _contract(a_op: tuple, b_op: tuple, out: str, out_dtype: np.dtype, precision: Any
              ) -> tuple[Any, str]:
  """Contract two prepared operands with one dot_general, ordered as JAX orders it."""
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
  return _dot_general(a, b, dims, out_dtype, precision), batch_names + a_rest + b_rest
