"""`Executable`: a program compiled for one device, and the one way to run it."""
from __future__ import annotations

from typing import Any, Callable, Sequence

from stablejax import core
from stablejax.runtime import pjrt
from stablejax.runtime.array import Array, canonical_aval, check_device, put, result_wrap


class Executable:
  """A compiled program on one device. Calling it with Arrays already on its device is the
  cached-dispatch fast path; other values are checked against `in_avals` and put there."""
  __slots__ = ("device", "sharding", "in_avals", "out_avals", "_loaded", "run", "__weakref__")

  def __init__(self, loaded: pjrt.Loaded, in_avals: Sequence[core.ShapedArray],
               out_avals: Sequence[core.ShapedArray]):
    self.device = loaded.device
    self.sharding = pjrt.sharding(loaded.device)  # the `_sharding` of every buffer on `device`
    self.in_avals = tuple(in_avals)
    self.out_avals = tuple(map(canonical_aval, out_avals))
    self._loaded = loaded
    # `run(buffers)`: execute on buffers already on `device` (no checks); the fast paths.
    self.run = loaded.launcher([core.physical_aval(a) for a in self.out_avals],
                               [result_wrap(a) for a in self.out_avals])

  def __call__(self, *args: Any) -> list[Array]:
    sh = self.sharding
    for x in args:
      if type(x) is not Array or x._buf._sharding is not sh:
        return self.run(self._put_all(args))
    return self.run([x._buf for x in args])

  def launch(self, arrays: Sequence[Array]) -> list[Array]:
    """Run on Arrays the caller knows are on this executable's device (no checks)."""
    return self.run([x._buf for x in arrays])

  def _put_all(self, args: Sequence[Any]) -> list:
    if len(args) != len(self.in_avals):
      raise TypeError(f"the executable takes {len(self.in_avals)} arguments, got {len(args)}")
    return [self._prepare(i, x)._buf for i, x in enumerate(args)]

  def _prepare(self, i: int, x: Any) -> Array:
    want, got = self.in_avals[i], core.physical_aval(core.get_aval(x))
    if (got.shape, got.dtype) != (want.shape, want.dtype):
      raise TypeError(f"argument {i} has type {got.str_short()} but the executable was compiled "
                      f"for {want.str_short()}")
    return put(x, self.device)

  def as_text(self) -> str:
    """XLA's optimized HLO."""
    return self._loaded.as_text()

  def cost_analysis(self) -> dict:
    """What XLA reports for the program (flops, bytes accessed, ...)."""
    return self._loaded.cost_analysis()

  def memory_analysis(self) -> Any:
    """XLA's sizes of the arguments, outputs, temporaries and generated code."""
    return self._loaded.memory_analysis()


def _avals(shapes: Sequence[tuple]) -> list[core.ShapedArray]:
  return [core.ShapedArray(shape, dtype) for shape, dtype in shapes]


def compile_module(module: Any, device: pjrt.Device | None = None,
                   out_avals: Sequence[core.ShapedArray] | None = None,
                   host_callbacks: Sequence[Callable] = (),
                   compiler_options: Sequence[tuple[str, Any]] = ()) -> Executable:
  """Compile a StableHLO module (text, bytecode, or an ir.Module calling `host_callbacks`) for
  `device` with XLA's `compiler_options`; `out_avals` (default: from XLA) keep weak types."""
  device = pjrt.default_device() if device is None else check_device(device)
  pjrt.check_dtypes([a.dtype for a in out_avals or ()], device)
  loaded = pjrt.compile(module, device, host_callbacks, compiler_options)
  if out_avals is None:
    out_avals = _avals(loaded.out_shapes)
  elif [(a.shape, a.dtype) for a in map(core.physical_aval, out_avals)] != loaded.out_shapes:
    raise TypeError(f"out_avals {[a.str_short() for a in out_avals]} do not match the compiled "
                    f"results {[core.ShapedArray(*s).str_short() for s in loaded.out_shapes]}")
  return Executable(loaded, _avals(loaded.in_shapes), out_avals)

