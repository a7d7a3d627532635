"""Host callbacks of a module: a lowering rule registers a Python function with
`register_host_callback` and calls it by its index (the custom call's `index` attribute); the
module lists its functions in the attribute `stablejax.host_callbacks`, and `host_callbacks`
gives them back when the module is compiled (the runtime hands them to XLA)."""
from __future__ import annotations

import itertools
import weakref
from typing import Callable

from jaxlib.mlir import ir

ATTRIBUTE = "stablejax.host_callbacks"

# id -> function; weak, so a function lives as long as the jaxpr (or executable) holding it.
_functions: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
_ids = itertools.count()


def _ids_of(module: ir.Module) -> list[int]:
  attrs = module.operation.attributes
  return list(ir.DenseI64ArrayAttr(attrs[ATTRIBUTE])) if ATTRIBUTE in attrs else []


def register_host_callback(module: ir.Module, fn: Callable) -> int:
  """Make `fn` a host callback of `module`; returns its index there."""
  ids = _ids_of(module)
  new = next(_ids)
  _functions[new] = fn
  module.operation.attributes[ATTRIBUTE] = ir.DenseI64ArrayAttr.get(ids + [new])
  return len(ids)


def host_callbacks(module: ir.Module) -> list[Callable]:
  """The host callbacks of `module`, in index order."""
  try:
    return [_functions[i] for i in _ids_of(module)]
  except KeyError:
    raise RuntimeError("a host callback of this module no longer exists (the jaxpr it was "
                       "lowered from was freed); lower the function again") from None
