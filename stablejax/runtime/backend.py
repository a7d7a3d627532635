"""The backends that compile a lowered StableHLO module and run it, behind one small interface:
XLA through PJRT (the default; `runtime.executable`) and IREE (`runtime.iree`, with the optional
extra `stablejax[iree]`). The pipeline lowers and runs the passes the same way for both; a
backend only names the platform its modules are lowered for, compiles, and says where its
results live.

What `compile` returns follows the `Executable` call protocol: calling it with Arrays or numpy
values returns a list of Arrays; `run(buffers)` runs on the buffers of Arrays on `device`
(`sharding` is theirs: jit's dispatch fast path); `in_avals` and `out_avals` are its types."""
from __future__ import annotations

import abc
from typing import Any, Callable, Sequence

from stablejax import core, platforms
from stablejax.runtime import pjrt
from stablejax.runtime.executable import Executable, compile_module


class Backend(abc.ABC):
  """A compiler and runtime for lowered modules. `target` says what to compile for: a platform
  of `stablejax.platforms` for XLA, an IREE target backend (`llvm-cpu`, ...) for IREE."""
  name: str

  @abc.abstractmethod
  def platform(self, target: str | None = None) -> str:
    """The lowering platform of the modules compiled for `target` (the platform of
    `register_lowering(..., platform=)` and of `lower(platform=)`)."""

  @abc.abstractmethod
  def compile(self, module: Any, out_avals: Sequence[core.ShapedArray] | None = None,
              target: str | None = None, in_avals: Sequence[core.ShapedArray] | None = None
              ) -> Any:
    """An executable of the StableHLO `module` (an ir.Module or its text) for `target`;
    `out_avals` and `in_avals` (default: the module's types, as the backend reports them) give
    the results' weak types and the arguments' and results' dtypes."""

  @abc.abstractmethod
  def result_device(self, target: str | None = None) -> pjrt.Device:
    """The device holding the Arrays that executables compiled for `target` return."""


class XlaBackend(Backend):
  """XLA through PJRT: `compile_module` for the first device of the platform `target`
  (default: the default device); results live on that device."""
  name = "xla"

  def platform(self, target: str | None = None) -> str:
    return pjrt.platform_of(self.result_device(target))

  def compile(self, module: Any, out_avals: Sequence[core.ShapedArray] | None = None,
              target: str | None = None, in_avals: Sequence[core.ShapedArray] | None = None,
              host_callbacks: Sequence[Callable] = ()) -> Executable:
    """(XLA reports the argument types exactly: `in_avals` are not needed.)"""
    return compile_module(module, self.result_device(target), out_avals, host_callbacks)

  def result_device(self, target: str | None = None) -> pjrt.Device:
    return pjrt.default_device() if target is None else pjrt.devices(target)[0]


_backends: dict[str, Backend] = {}


def register_backend(backend: Backend) -> Backend:
  """Make `backend` reachable by its name (one of `platforms.BACKENDS`)."""
  _backends[platforms.backend(backend.name)] = backend
  return backend


def get_backend(name: str) -> Backend:
  """The backend called `name` ("xla" or "iree"); a ValueError names the known ones."""
  return _backends[platforms.backend(name)]


register_backend(XlaBackend())
