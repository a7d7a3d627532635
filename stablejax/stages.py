"""The ahead-of-time API: `jit(f).lower(*args)` -> Lowered -> `.compile()` -> Compiled."""
from __future__ import annotations

from typing import Any

from jaxlib.mlir import ir

from stablejax import runtime
from stablejax.dispatch import JaxprExecutable, lower
from stablejax.jaxpr import ClosedJaxpr
from stablejax.tree_util import PyTreeDef, tree_flatten, tree_unflatten


class Lowered:
  """A function lowered to StableHLO for one argument signature and platform."""

  def __init__(self, jaxpr: ClosedJaxpr, name: str, out_tree: PyTreeDef, in_tree: PyTreeDef,
               platform: str | None):
    self.jaxpr = jaxpr
    self.name = name
    self.out_tree = out_tree
    self.in_tree = in_tree
    # Lowering needs only the platform's name, so a module for 'cuda' can be inspected on a
    # machine without a GPU; a device is needed only to compile.
    self.platform = (runtime.pjrt.canonical_platform(platform) if platform else
                     runtime.pjrt.platform_of(runtime.default_device()))
    self._module = lower(jaxpr, name, self.platform)
    self._debug_module = None

  def as_text(self, debug_info: bool = False) -> str:
    """The StableHLO module as MLIR text; `debug_info` adds the user's source locations."""
    if not debug_info:
      return str(self._module)
    if self._debug_module is None:
      self._debug_module = lower(self.jaxpr, self.name, self.platform, debug_info=True)
    return self._debug_module.operation.get_asm(enable_debug_info=True)

  def compiler_ir(self) -> ir.Module:
    """The `jaxlib.mlir.ir.Module`."""
    return self._module

  def compile(self) -> Compiled:
    """Compile for the first device of the platform (an error if it has none here)."""
    device = runtime.devices(self.platform)[0]
    executable = runtime.compile_module(str(self._module), device, self.jaxpr.out_avals)
    return Compiled(JaxprExecutable(executable), self.in_tree, self.out_tree, self.jaxpr)


class Compiled:
  """A compiled function for one argument signature: call it, or read XLA's optimized HLO."""

  def __init__(self, executable: JaxprExecutable, in_tree: PyTreeDef, out_tree: PyTreeDef,
               jaxpr: ClosedJaxpr):
    self._executable = executable
    self.in_tree = in_tree
    self.out_tree = out_tree
    self.in_avals = jaxpr.in_avals

  def __call__(self, *args: Any, **kwargs: Any) -> Any:
    flat, tree = tree_flatten((args, kwargs))
    if tree != self.in_tree:
      raise TypeError(f"compiled function called with arguments of structure {tree}, but it "
                      f"was compiled for {self.in_tree}")
    from stablejax import core
    for i, (x, aval) in enumerate(zip(flat, self.in_avals)):
      got = core.get_aval(x)
      if (got.shape, got.dtype) != (aval.shape, aval.dtype):
        raise TypeError(f"compiled function argument {i} has type {got.str_short()}, but it "
                        f"was compiled for {aval.str_short()}")
    return tree_unflatten(self.out_tree, self._executable(*flat))

  def as_text(self) -> str:
    """XLA's optimized HLO."""
    return self._executable.executable.as_text()

  def cost_analysis(self) -> dict:
    """What XLA reports for the program (flops, bytes accessed, ...)."""
    return self._executable.executable.cost_analysis()
