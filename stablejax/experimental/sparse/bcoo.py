"""jax.experimental.sparse.bcoo: `JAXSparse` (the base class of sparse
arrays) and `BCOO`, JAX's batched-coordinate format, here with sparse dimensions only (no batch
or dense dimensions): `nse` stored values `data` at the rows of `indices` (an `(nse, ndim)`
integer array), out-of-bounds rows being padding. Conversion to and from dense arrays, summing
duplicates, reductions and products with dense arrays are gathers and scatters."""
from __future__ import annotations

import operator
from typing import Any, Sequence

import numpy as np

from stablejax import core, lax
from stablejax import numpy as jnp
from stablejax.tree_util import register_pytree_node_class

__all__ = ["BCOO", "JAXSparse", "bcoo_fromdense", "bcoo_multiply_dense", "bcoo_reduce_sum",
           "bcoo_sum_duplicates", "bcoo_todense"]


class JAXSparse:
  """The base class of stablejax's sparse arrays: a shape, a dtype and a dense form."""
  data: Any
  shape: tuple[int, ...]

  @property
  def dtype(self) -> np.dtype:
    return core.get_aval(self.data).dtype

  @property
  def ndim(self) -> int:
    return len(self.shape)

  @property
  def size(self) -> int:
    return int(np.prod(self.shape))

  def __len__(self) -> int:
    return self.shape[0]

  def todense(self) -> Any:
    raise NotImplementedError


@register_pytree_node_class
class BCOO(JAXSparse):
  """A sparse array from `(data, indices)` and its `shape`."""

  def __init__(self, args: tuple[Any, Any], *, shape: Sequence[int],
               indices_sorted: bool = False, unique_indices: bool = False):
    data, indices = args
    self.data, self.indices = jnp.asarray(data), jnp.asarray(indices)
    self.shape = tuple(operator.index(d) for d in shape)
    self.indices_sorted, self.unique_indices = indices_sorted, unique_indices
    if np.ndim(self.data) != 1 or np.ndim(self.indices) != 2:
      raise NotImplementedError(
          "stablejax's BCOO has sparse dimensions only (no batch or dense dimensions): data "
          f"must be 1-d and indices 2-d, got {core.get_aval(self.data).str_short()} and "
          f"{core.get_aval(self.indices).str_short()}")
    if self.indices.shape != (self.data.shape[0], len(self.shape)):
      raise ValueError(f"BCOO: indices of shape {self.indices.shape} do not match data of "
                       f"shape {self.data.shape} and shape {self.shape}")

  nse = property(lambda self: self.data.shape[0])
  n_batch = property(lambda self: 0)
  n_dense = property(lambda self: 0)
  n_sparse = property(lambda self: len(self.shape))

  def __repr__(self) -> str:
    return f"BCOO({self.dtype.name}{list(self.shape)}, nse={self.nse})".replace("'", "")

  @classmethod
  def fromdense(cls, mat: Any, *, nse: int | None = None, index_dtype: Any = np.int32,
                n_dense: int = 0, n_batch: int = 0) -> BCOO:
    return bcoo_fromdense(mat, nse=nse, index_dtype=index_dtype, n_dense=n_dense,
                          n_batch=n_batch)

  def todense(self) -> Any:
    return bcoo_todense(self)

  def sum_duplicates(self, nse: int | None = None, remove_zeros: bool = True) -> BCOO:
    return bcoo_sum_duplicates(self, nse=nse)

  def tree_flatten(self):
    return (self.data, self.indices), {"shape": self.shape, "indices_sorted": self.indices_sorted,
                                       "unique_indices": self.unique_indices}

  @classmethod
  def tree_unflatten(cls, aux: dict, children: Any) -> BCOO:
    obj = object.__new__(cls)
    obj.data, obj.indices = children
    obj.shape, obj.indices_sorted, obj.unique_indices = (
        aux["shape"], aux["indices_sorted"], aux["unique_indices"])
    return obj


def _row_major_keys(indices: Any, shape: tuple[int, ...]) -> Any:
  """Each index row as one int32, its row-major position; padding rows become `prod(shape)`."""
  size = int(np.prod(shape))
  if size >= 2**31:
    raise NotImplementedError(f"BCOO: shape {shape} has more than 2**31 elements")
  strides = np.cumprod((1,) + shape[::-1])[::-1][1:].astype(np.int32)
  oob = jnp.any(indices >= np.asarray(shape, np.int32), axis=1)
  return jnp.where(oob, size, jnp.sum(indices.astype(np.int32) * strides, axis=1))


def bcoo_fromdense(mat: Any, *, nse: int | None = None, index_dtype: Any = np.int32,
                   n_dense: int = 0, n_batch: int = 0) -> BCOO:
  """The nonzeros of `mat` in row-major order, padded (zero data, indices `shape`) to `nse`."""
  if n_dense or n_batch:
    raise NotImplementedError("stablejax's BCOO has no batch or dense dimensions")
  mat = jnp.asarray(mat)
  nonzero = mat != 0
  if nse is None:
    nse = int(core.concrete_or_error(jnp.sum(nonzero), "bcoo_fromdense: nse must be static"))
  idx = jnp.nonzero(nonzero, size=nse, fill_value=tuple(mat.shape))
  indices = jnp.stack([i.astype(index_dtype) for i in idx], axis=1).reshape(nse, mat.ndim)
  data = mat.at[idx].get(mode="fill", fill_value=0)
  return BCOO((data, indices), shape=mat.shape, indices_sorted=True, unique_indices=True)


def bcoo_todense(mat: BCOO) -> Any:
  """The dense array: the data scattered (summed) at the indices, padding rows dropped."""
  if not mat.shape:
    return jnp.sum(mat.data)
  out = jnp.zeros(mat.shape, mat.dtype)
  return out.at[tuple(mat.indices[:, i] for i in range(mat.ndim))].add(mat.data, mode="drop")


def bcoo_sum_duplicates(mat: BCOO, nse: int | None = None) -> BCOO:
  """The same array with each index once (sorted row-major), duplicates summed, padded to
  `nse` (default: the number of distinct indices)."""
  keys = _row_major_keys(mat.indices, mat.shape)
  pad = int(np.prod(mat.shape))
  if nse is None:
    nse = int(core.concrete_or_error(jnp.sum(jnp.unique(keys, size=mat.nse, fill_value=pad)
                                             < pad), "bcoo_sum_duplicates: nse must be static"))
  unique, inverse = jnp.unique(keys, return_inverse=True, size=nse, fill_value=pad)
  data = jnp.zeros(nse, mat.dtype).at[inverse.reshape(-1)].add(mat.data, mode="drop")
  unravelled = jnp.unravel_index(jnp.minimum(unique, pad - 1), mat.shape)
  indices = jnp.stack([jnp.where(unique < pad, u, d).astype(mat.indices.dtype)
                       for u, d in zip(unravelled, mat.shape)], axis=1).reshape(nse, mat.ndim)
  return BCOO((data, indices), shape=mat.shape, indices_sorted=True, unique_indices=True)


def bcoo_reduce_sum(mat: BCOO, *, axes: Sequence[int]) -> BCOO:
  """The sum over `axes`: their index columns dropped (duplicates are not merged, as JAX)."""
  axes = {int(a) % mat.ndim for a in axes}
  kept = [i for i in range(mat.ndim) if i not in axes]
  shape = tuple(mat.shape[i] for i in kept)
  indices = mat.indices[:, np.asarray(kept, np.int32)] if kept else mat.indices[:, :0]
  return BCOO((mat.data, indices), shape=shape)


def bcoo_multiply_dense(sp_mat: BCOO, v: Any) -> Any:
  """The data of the elementwise product of `sp_mat` and dense `v` (broadcast to its shape)."""
  v = jnp.broadcast_to(jnp.asarray(v), sp_mat.shape)
  picked = v.at[tuple(sp_mat.indices[:, i] for i in range(sp_mat.ndim))].get(mode="fill",
                                                                              fill_value=0)
  return sp_mat.data * picked
