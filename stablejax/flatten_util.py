"""`ravel_pytree`: a pytree of arrays as one flat vector, and the function taking such a vector
back to the pytree, as `jax.flatten_util`."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from stablejax import core, dtypes, lax
from stablejax import numpy as jnp
from stablejax.tree_util import tree_flatten, tree_unflatten


def ravel_pytree(pytree: Any) -> tuple[Any, Callable[[Any], Any]]:
  """`(flat, unravel)`: the leaves of `pytree` raveled and concatenated into one 1-D array of
  their promoted dtype, and `unravel(flat)` rebuilding the pytree (each leaf in its dtype)."""
  leaves, treedef = tree_flatten(pytree)
  avals = [core.get_aval(x) for x in leaves]
  if avals:
    dtype = dtypes.lattice_join(*((a.dtype, a.weak_type) for a in avals))[0]
  else:
    dtype = dtypes.default_float()
  flat = (jnp.concatenate([jnp.ravel(x).astype(dtype) for x in leaves]) if leaves
          else jnp.zeros((0,), dtype))
  sizes = np.cumsum([a.size for a in avals])[:-1].tolist()

  def unravel(flat_vector: Any) -> Any:
    got = core.get_aval(flat_vector)
    if got.shape != (flat.shape[0],):
      raise ValueError(f"The unravel function expected an array of shape {(flat.shape[0],)}, "
                       f"got shape {got.shape}.")
    if got.dtype != dtype and len({a.dtype for a in avals}) > 1:  # (one dtype: converted)
      raise TypeError(f"unravel function given array of dtype {got.dtype}, but expected "
                      f"dtype {dtype}")
    pieces = jnp.split(flat_vector, sizes) if avals else []
    return tree_unflatten(treedef, [lax.convert_element_type(p, a.dtype).reshape(a.shape)
                                    for p, a in zip(pieces, avals)])

  return flat, unravel
