"""`ffi_call`: a call to a compiled kernel registered with XLA's typed FFI (see stablejax/ffi.py
for the user API and lowering/rules/ffi.py for its `stablehlo.custom_call`).

The kernel is user code: there is no numpy reference, no derivative (JAX raises too: wrap the
call in `custom_jvp`/`custom_vjp` or write a primitive with its own rules), and `vmap` does what
the call's `vmap_method` says. With `has_side_effect` the call carries an (unordered) effect, so
dead-code elimination keeps it when its results are unused.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from stablejax import core
from stablejax.interpreters import ad, batching
from stablejax.lax.control_flow.scan import scan
from stablejax.util import merge_lists, partition_list

__all__ = ["ffi_call_p"]

VMAP_METHODS = ("sequential", "sequential_unrolled", "expand_dims", "broadcast_all")


class ArrayAttribute:
  """A numpy array given as a kernel attribute, hashable by value (params key compile caches)."""
  __slots__ = ("value", "_key")

  def __init__(self, value: np.ndarray):
    self.value = np.array(value)
    self.value.setflags(write=False)
    self._key = (self.value.dtype.str, self.value.shape, self.value.tobytes())

  def __hash__(self) -> int:
    return hash(self._key)

  def __eq__(self, other: Any) -> bool:
    return isinstance(other, ArrayAttribute) and self._key == other._key

  def __repr__(self) -> str:
    return f"{self.value.dtype}{list(self.value.shape)}"


class FfiEffect(core.Effect):
  """The effect of an `ffi_call` with `has_side_effect=True`, printed as JAX prints it."""

  def __repr__(self) -> str:
    return "FFI"


ffi_effect = FfiEffect()

ffi_call_p = core.Primitive("ffi_call")
ffi_call_p.multiple_results = True


def _ffi_call_abstract_eval(*avals: core.ShapedArray, result_avals: tuple, **params: Any
                            ) -> list[core.ShapedArray]:
  return list(result_avals)


def _ffi_call_effects(*, has_side_effect: bool, **params: Any) -> tuple:
  return (ffi_effect,) if has_side_effect else ()


def _ffi_call_jvp(primals, tangents, *, target_name: str, **params: Any):
  raise ValueError(f"The FFI call to `{target_name}` cannot be differentiated. You can use "
                   "`custom_jvp` or `custom_vjp` to add support.")


def _batched_aliases(aliases: tuple, in_avals: Sequence[core.ShapedArray],
                     out_avals: Sequence[core.ShapedArray]) -> tuple:
  """The aliases still possible after batching (an operand given a size-1 batch axis by
  `expand_dims` no longer has its result's shape)."""
  return tuple((i, o) for i, o in aliases if in_avals[i].shape == out_avals[o].shape)


def _ffi_call_batch(axis_data, args, dims, *, target_name: str, result_avals: tuple,
                    vmap_method: str | None, input_output_aliases: tuple, **params: Any):
  """`sequential`(`_unrolled`): one call per element, in a scan; `expand_dims`: one call on a
  leading batch axis, of size 1 for the unbatched operands; `broadcast_all`: one call with every
  operand batched. The kernel sees the batch as the leading dimension."""
  size = axis_data.size
  if vmap_method in ("sequential", "sequential_unrolled"):
    args = [x if d is None else batching.moveaxis(x, d, 0) for x, d in zip(args, dims)]
    batched = [d is not None for d in dims]
    fixed, mapped = partition_list(batched, args)

    def body(carry, xs):
      return carry, ffi_call_p.bind(
          *merge_lists(batched, fixed, xs), target_name=target_name, result_avals=result_avals,
          vmap_method=vmap_method, input_output_aliases=input_output_aliases, **params)
    _, outs = scan(body, (), mapped, unroll=vmap_method == "sequential_unrolled")
  elif vmap_method in ("expand_dims", "broadcast_all"):
    width = 1 if vmap_method == "expand_dims" else size
    args = [batching.matchaxis(width, d, 0, x) for x, d in zip(args, dims)]
    out_avals = tuple(a.update(shape=(size,) + a.shape) for a in result_avals)
    in_avals = [core.get_aval(x) for x in args]
    aliases = _batched_aliases(input_output_aliases, in_avals, out_avals)
    outs = ffi_call_p.bind(*args, target_name=target_name, result_avals=out_avals,
                           vmap_method=vmap_method, input_output_aliases=aliases, **params)
  else:
    raise NotImplementedError(
        f"vmap of the FFI call to `{target_name}` needs a vmap_method: one of "
        f"{', '.join(repr(m) for m in VMAP_METHODS)} (got {vmap_method!r})")
  return list(outs), [0] * len(outs)


ffi_call_p.def_abstract_eval(_ffi_call_abstract_eval)
ffi_call_p.def_effects(_ffi_call_effects)
ad.primitive_jvps[ffi_call_p] = _ffi_call_jvp
batching.fancy_primitive_batchers[ffi_call_p] = _ffi_call_batch
# No numpy reference: the kernel is the user's compiled code (tests/py/test_rules.py NO_REFERENCE).
