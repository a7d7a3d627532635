"""jax.experimental.sparse.sparsify: `f` traced on the dense types of its arguments, then its
jaxpr evaluated with `BCOO` values where the arguments were sparse: sums and differences of
sparse arrays concatenate their entries, products with dense arrays and zero-preserving
elementwise functions map the stored values, and a primitive without a sparse rule is JAX's
NotImplementedError."""
from __future__ import annotations

import functools
from typing import Any, Callable, Sequence

from stablejax import core, lax, pipeline
from stablejax.experimental.sparse.bcoo import BCOO, JAXSparse, bcoo_multiply_dense
from stablejax.jaxpr import ClosedJaxpr, JaxprEqn, bind_eqn, eval_jaxpr
from stablejax.lax.call import jit_p
from stablejax.tree_util import tree_flatten, tree_unflatten

__all__ = ["sparsify", "sparse_rules"]

# primitive -> rule(*values, **params) -> the result, where some values are BCOO
sparse_rules: dict[core.Primitive, Callable] = {}

# Elementwise functions f with f(0) == 0: applied to the stored values only.
_ZERO_PRESERVING = [lax.neg_p, lax.abs_p, lax.sign_p, lax.sin_p, lax.sinh_p, lax.sqrt_p,
                    lax.tan_p, lax.tanh_p, lax.asin_p, lax.asinh_p, lax.atan_p, lax.atanh_p,
                    lax.expm1_p, lax.log1p_p, lax.real_p, lax.imag_p,
                    lax.convert_element_type_p, lax.copy_p]
# Elementwise functions with f(0) != 0: a sparse operand would give a dense result.
_DENSIFYING = {lax.acos_p, lax.acosh_p, lax.cos_p, lax.cosh_p, lax.eq_p, lax.exp_p, lax.ge_p,
               lax.gt_p, lax.le_p, lax.lt_p, lax.log_p, lax.ne_p, lax.xor_p}


def _unimplemented(prim: core.Primitive) -> NotImplementedError:
  if prim in _DENSIFYING:
    return NotImplementedError(
        f"sparse rule for {prim} is not implemented because it would result in dense output. "
        "If this is your intent, use sparse.todense() to convert your arguments to dense "
        "matrices.")
  return NotImplementedError(f"sparse rule for {prim} is not implemented.")


class _Sparse:
  """A sparse value in the interpreter: the matrix and its indices' identity (values computed
  from the same indices share it; each argument has its own, as in JAX)."""
  __slots__ = ("mat", "ref")

  def __init__(self, mat: BCOO, ref: object | None = None):
    self.mat, self.ref = mat, object() if ref is None else ref

  def like(self, data: Any) -> _Sparse:
    """These indices with new stored values."""
    m = self.mat
    return _Sparse(BCOO((data, m.indices), shape=m.shape, indices_sorted=m.indices_sorted,
                        unique_indices=m.unique_indices), self.ref)


def _unary(prim: core.Primitive) -> Callable:
  def rule(x: _Sparse, **params: Any) -> _Sparse:
    return x.like(prim.bind(x.mat.data, **params))
  return rule


for _prim in _ZERO_PRESERVING:
  sparse_rules[_prim] = _unary(_prim)


def _add(x: Any, y: Any) -> Any:
  if isinstance(x, _Sparse) and isinstance(y, _Sparse):
    if x.mat.shape != y.mat.shape:
      raise NotImplementedError("Addition between sparse matrices of different shapes.")
    if x.ref is y.ref:
      return x.like(lax.add(x.mat.data, y.mat.data))
    return _Sparse(BCOO((lax.concatenate([x.mat.data, y.mat.data], 0),
                         lax.concatenate([x.mat.indices, y.mat.indices], 0)), shape=x.mat.shape))
  sp, dense = (x, y) if isinstance(x, _Sparse) else (y, x)
  if tuple(dense.shape) != tuple(lax.broadcast_shapes(sp.mat.shape, dense.shape)):
    raise NotImplementedError(
        "Addition between a sparse array X and a dense array Y is not implemented when the "
        "output shape is larger than Y.shape. This is to prevent silent densification of a "
        "large sparse array. If this is your intent, you can explicitly cast the sparse array "
        "to a dense matrix.")
  return sp.mat.todense() + dense


def _sub(x: Any, y: Any) -> Any:
  if not (isinstance(x, _Sparse) and isinstance(y, _Sparse)):
    raise NotImplementedError("Subtraction between sparse and dense array.")
  return _add(x, y.like(lax.neg(y.mat.data)))


def _mul(x: Any, y: Any) -> _Sparse:
  if isinstance(x, _Sparse) and isinstance(y, _Sparse):
    if x.ref is y.ref and x.mat.unique_indices:
      return x.like(lax.mul(x.mat.data, y.mat.data))
    raise NotImplementedError("sparse rule for mul of two sparse arrays with different "
                              "indices is not implemented (stablejax has no "
                              "bcoo_multiply_sparse).")
  sp, dense = (x, y) if isinstance(x, _Sparse) else (y, x)
  return sp.like(bcoo_multiply_dense(sp.mat, dense))


sparse_rules[lax.add_p] = _add
sparse_rules[lax.sub_p] = _sub
sparse_rules[lax.mul_p] = _mul


def _eval(closed: ClosedJaxpr, *args: Any) -> list:
  """Evaluate `closed` on `args` (arrays and `_Sparse`s), sparse rules where one is sparse."""
  return eval_jaxpr(closed.jaxpr, closed.consts, *args, eval_eqn=_eval_eqn)


def _eval_eqn(eqn: JaxprEqn, ins: Sequence[Any]) -> Any:
  if not any(isinstance(x, _Sparse) for x in ins):
    return bind_eqn(eqn, ins)
  if eqn.primitive is jit_p:
    return _eval(eqn.params["jaxpr"], *ins)
  if eqn.primitive in sparse_rules:
    return sparse_rules[eqn.primitive](*ins, **eqn.params)
  raise _unimplemented(eqn.primitive)


def _aval(x: Any) -> core.ShapedArray:
  if isinstance(x, JAXSparse):
    return core.ShapedArray(x.shape, x.dtype)
  return core.get_aval(x)


def sparsify(f: Callable, use_tracer: bool = False) -> Callable:
  """`f`, taking and returning sparse arrays where it is given them."""
  if use_tracer:
    raise NotImplementedError("sparsify(use_tracer=True): stablejax sparsifies jaxprs only")

  @functools.wraps(f)
  def wrapped(*args: Any, **kwargs: Any) -> Any:
    leaves, in_tree = tree_flatten((args, kwargs), is_leaf=lambda x: isinstance(x, JAXSparse))
    if not any(isinstance(x, JAXSparse) for x in leaves):
      return f(*args, **kwargs)
    trees = []

    def flat(*xs: Any) -> list:
      a, k = tree_unflatten(in_tree, xs)
      out, tree = tree_flatten(f(*a, **k))
      trees.append(tree)
      return out

    closed, closed_over = pipeline.trace(flat, [_aval(x) for x in leaves])
    ins = [_Sparse(x) if isinstance(x, BCOO) else x for x in leaves]
    outs = _eval(closed, *closed_over, *ins)
    return tree_unflatten(trees[0], [x.mat if isinstance(x, _Sparse) else x for x in outs])
  return wrapped
