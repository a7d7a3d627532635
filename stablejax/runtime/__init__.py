"""The runtime: devices, `Array`, `device_put`, and compiled executables (through PJRT)."""
from __future__ import annotations

from typing import Any, Sequence

from stablejax import core, tree_util
from stablejax.runtime import pjrt
from stablejax.runtime.array import Array, from_buffer
from stablejax.runtime.pjrt import CompileError, Device, default_device, devices

__all__ = ["Array", "CompileError", "Device", "Executable", "compile_module", "default_device",
           "device_put", "devices"]


def _check_device(device: Any) -> Device:
  if not isinstance(device, Device):
    raise TypeError(f"device must be a device from stablejax.devices(), got {device!r}")
  return device


def _put_leaf(x: Any, device: Device | None) -> Array:
  if isinstance(x, Array):
    if device is None or device == x.device:
      return x
    return Array(pjrt.copy_to(x._buf, _check_device(device)), x.aval)
  if isinstance(x, core.Tracer):
    raise TypeError(f"device_put of a traced value {x!r} is not supported; device_put values "
                    "outside of jit/grad/vmap")
  aval = core.get_aval(x)
  device = default_device() if device is None else _check_device(device)
  return Array(pjrt.put(x, aval, device), aval)


def device_put(x: Any, device: Device | None = None) -> Any:
  """Put `x` (an array, a numpy value, a Python scalar, or a pytree of them) on `device`."""
  return tree_util.tree_map(lambda leaf: _put_leaf(leaf, device), x)


class Executable(pjrt.Launcher):
  """A compiled module on one device; `exe(*arrays)` is the unchecked fast path, `call` checks."""
  __slots__ = ("compiled", "in_avals", "out_avals")

  def __init__(self, compiled: pjrt.Compiled, in_avals: Sequence[core.ShapedArray],
               out_avals: Sequence[core.ShapedArray]):
    super().__init__(compiled, out_avals, from_buffer)
    self.compiled = compiled
    self.in_avals = tuple(in_avals)
    self.out_avals = tuple(out_avals)

  @property
  def device(self) -> Device:
    return self.compiled.device

  def call(self, *args: Any) -> list[Array]:
    """Run on any values: they are checked against `in_avals` and put on the device."""
    if len(args) != len(self.in_avals):
      raise TypeError(f"the executable takes {len(self.in_avals)} arguments, got {len(args)}")
    return self(*[self._prepare(i, x) for i, x in enumerate(args)])

  def _prepare(self, i: int, x: Any) -> Array:
    want = self.in_avals[i]
    got = core.get_aval(x)
    if (got.shape, got.dtype) != (want.shape, want.dtype):
      raise TypeError(f"argument {i} has type {got.str_short()} but the executable was compiled "
                      f"for {want.str_short()}")
    return _put_leaf(x, self.device)

  def as_text(self) -> str:
    """XLA's optimized HLO."""
    return self.compiled.as_text()

  def cost_analysis(self) -> dict:
    """XLA's cost analysis (flops, bytes accessed, ...)."""
    return self.compiled.cost_analysis()


def _avals(shapes: Sequence[tuple]) -> list[core.ShapedArray]:
  return [core.ShapedArray(shape, dtype) for shape, dtype in shapes]


def compile_module(module: str | bytes, device: Device | None = None,
                   out_avals: Sequence[core.ShapedArray] | None = None) -> Executable:
  """Compile a StableHLO module for `device`; `out_avals` (default: from XLA) keep weak types."""
  device = default_device() if device is None else _check_device(device)
  compiled = pjrt.compile(module, device)
  in_avals = _avals(compiled.in_shapes)
  if out_avals is None:
    out_avals = _avals(compiled.out_shapes)
  elif [(a.shape, a.dtype) for a in out_avals] != compiled.out_shapes:
    raise TypeError(f"out_avals {[a.str_short() for a in out_avals]} do not match the compiled "
                    f"results {[core.ShapedArray(*s).str_short() for s in compiled.out_shapes]}")
  return Executable(compiled, in_avals, out_avals)
