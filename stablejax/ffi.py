"""`stablejax.ffi`, as `jax.ffi`: call compiled kernels written against XLA's typed FFI.

The whole path (examples/ffi_kernel/ shows it end to end): write a handler with the headers in
`include_dir()` and build a shared library; load it with ctypes and register its symbol with
`register_ffi_target(name, pycapsule(lib.Symbol))`; call it with `ffi_call(name, result types)`
eagerly or under `jit`, `vmap` (as `vmap_method` says), `scan`, ... A primitive of your own can
also lower to the kernel with `stablejax.lowering.custom_call` and carry its own JVP, transpose
and batching rules.
"""
from __future__ import annotations

import ctypes
import os
from typing import Any, Callable, Sequence

import jaxlib
import numpy as np
from jaxlib import xla_client

from stablejax import core, platforms
from stablejax.lax.ffi import VMAP_METHODS, ArrayAttribute, ffi_call_p

__all__ = ["ffi_call", "include_dir", "pycapsule", "register_ffi_target"]

TYPED_FFI = 1  # `register_ffi_target`'s api_version for the typed XLA FFI


def include_dir() -> str:
  """The directory of the XLA FFI headers bundled with jaxlib (`xla/ffi/api/ffi.h`)."""
  return os.path.join(os.path.dirname(os.path.abspath(jaxlib.__file__)), "include")


def pycapsule(funcptr: Any) -> Any:
  """A PyCapsule holding the address of `funcptr`, a function loaded with ctypes (for example
  `ctypes.cdll.LoadLibrary("kernel.so").MyHandler`), as `register_ffi_target` takes it."""
  destructor = ctypes.CFUNCTYPE(None, ctypes.py_object)
  new_capsule = ctypes.pythonapi.PyCapsule_New
  new_capsule.restype = ctypes.py_object
  new_capsule.argtypes = (ctypes.c_void_p, ctypes.c_char_p, destructor)
  return new_capsule(ctypes.cast(funcptr, ctypes.c_void_p).value, None, destructor(0))


def register_ffi_target(name: str, fn: Any, platform: str = "cpu", api_version: int = 1,
                        **kwargs: Any) -> None:
  """Register the typed-FFI handler in the PyCapsule `fn` (or a dict of FFI stage name ->
  capsule) as custom-call target `name` on `platform`. Only the typed FFI (api_version 1) is
  supported: the untyped custom-call API (api_version 0) is deprecated in XLA."""
  if api_version != TYPED_FFI:
    raise ValueError(
        f"register_ffi_target({name!r}): api_version={api_version} is not supported; stablejax "
        f"calls handlers of the typed XLA FFI only (api_version={TYPED_FFI}, built with "
        "XLA_FFI_DEFINE_HANDLER_SYMBOL), not the deprecated untyped custom-call API")
  canonical = platforms.canonical(platform)
  xla_platform = "cpu" if canonical == "cpu" else canonical.upper()
  xla_client.register_custom_call_target(name, fn, xla_platform, api_version, **kwargs)


def _result_avals(target_name: str, results: Sequence[Any]) -> tuple[core.ShapedArray, ...]:
  avals = []
  for i, r in enumerate(results):
    if not hasattr(r, "shape") or not hasattr(r, "dtype"):
      raise ValueError(f"ffi_call({target_name!r}): every element of result_shape_dtypes must "
                       f"have 'shape' and 'dtype' attributes (a ShapeDtypeStruct), got {r!r} at "
                       f"position {i}")
    avals.append(core.ShapedArray(tuple(r.shape), np.dtype(r.dtype)))
  return tuple(avals)


def _attribute(target_name: str, name: str, value: Any) -> Any:
  """A keyword attribute as the custom call carries it: Python ints as i64, floats as f64,
  bools, strings, numpy scalars in their dtype, numpy arrays as dense elements."""
  if isinstance(value, (bool, int, float, str)):
    return value
  if isinstance(value, np.generic) and value.dtype.kind in "biuf":
    return value
  if isinstance(value, np.ndarray) and value.dtype.kind in "biuf":
    return ArrayAttribute(value)
  raise TypeError(
      f"ffi_call({target_name!r}): attribute {name}={value!r} of type {type(value).__name__} "
      "is not supported; attributes are Python bool, int, float or str, numpy scalars, or "
      "numpy arrays of booleans, integers or floats")


def _aliases(target_name: str, aliases: dict[int, int] | None,
             in_avals: Sequence[core.ShapedArray], out_avals: Sequence[core.ShapedArray]
             ) -> tuple[tuple[int, int], ...]:
  checked = []
  for i, o in sorted((aliases or {}).items()):
    i, o = int(i), int(o)
    if not 0 <= i < len(in_avals) or not 0 <= o < len(out_avals):
      raise ValueError(
          f"ffi_call({target_name!r}): input_output_aliases maps input {i} to output {o}, but "
          f"there are {len(in_avals)} inputs and {len(out_avals)} outputs")
    a, b = in_avals[i], out_avals[o]
    if a.shape != b.shape or a.dtype != b.dtype:
      raise ValueError(
          f"ffi_call({target_name!r}): input_output_aliases maps input {i} of type "
          f"{a.str_short()} to output {o} of a different type {b.str_short()}")
    checked.append((i, o))
  return tuple(checked)


def ffi_call(target_name: str, result_shape_dtypes: Any, *, has_side_effect: bool = False,
             vmap_method: str | None = None, input_output_aliases: dict[int, int] | None = None
             ) -> Callable[..., Any]:
  """A function `(*args, **attributes)` calling the FFI target `target_name` (registered with
  `register_ffi_target`) on the arrays `args`, with the keyword `attributes` passed to the
  handler by name. It returns one array when `result_shape_dtypes` is one ShapeDtypeStruct (or
  anything with `shape` and `dtype`), else a list (a tuple for a tuple) of them.

  `has_side_effect`: the call runs even when its results are unused. `vmap_method`: how `vmap`
  batches it: "sequential" (one call per element, in a loop; "sequential_unrolled" unrolls it),
  "expand_dims" (one call, unbatched operands given a leading axis of size 1), "broadcast_all"
  (one call, every operand broadcast to the batch); None: `vmap` raises. `input_output_aliases`
  maps an input index to the output that may reuse its buffer."""
  if vmap_method is not None and vmap_method not in VMAP_METHODS:
    raise ValueError(f"ffi_call({target_name!r}): vmap_method must be one of {VMAP_METHODS} or "
                     f"None, got {vmap_method!r}")
  multiple = isinstance(result_shape_dtypes, Sequence)
  result_avals = _result_avals(target_name,
                               result_shape_dtypes if multiple else [result_shape_dtypes])

  def call(*args: Any, **attributes: Any) -> Any:
    in_avals = [core.get_aval(x) for x in args]
    outs = ffi_call_p.bind(
        *args, target_name=target_name, result_avals=result_avals, vmap_method=vmap_method,
        has_side_effect=has_side_effect,
        input_output_aliases=_aliases(target_name, input_output_aliases, in_avals, result_avals),
        attributes=tuple((k, _attribute(target_name, k, v)) for k, v in sorted(attributes.items())))
    if not multiple:
      return outs[0]
    return tuple(outs) if isinstance(result_shape_dtypes, tuple) else list(outs)

  return call
