"""IREE as a second backend (the optional extra `stablejax[iree]`: iree-base-compiler and
iree-base-runtime 3.13.0), so the emitted StableHLO runs on a compiler other than XLA.

A module lowered for the `iree` platform is compiled by `iree.compiler.compile_str(...,
input_type="stablehlo")` for an IREE target backend (`llvm-cpu` by default, for this machine's
CPU; other targets are passed through, run with their driver from
`iree.runtime.TARGET_BACKEND_TO_DRIVER`) and run by `iree.runtime`. Arguments are read to the
host and handed to IREE; results are copied from IREE's buffers into Arrays on the default (XLA)
device, so they mix with every other stablejax value. The iree packages are imported on first
use: stablejax imports without them, and using the backend without them raises an ImportError
naming `pip install stablejax[iree]`."""
from __future__ import annotations

import functools
import importlib
import re
from typing import Any, Sequence

import numpy as np

from stablejax import core
from stablejax.runtime import pjrt
from stablejax.runtime.array import Array, canonical_aval, put
from stablejax.runtime.backend import Backend, register_backend

INSTALL = "pip install stablejax[iree]"
DEFAULT_TARGET = "llvm-cpu"


def _import(name: str) -> Any:
  """The module `name` of the iree packages; an ImportError naming the extra if absent."""
  try:
    return importlib.import_module(name)
  except ImportError as e:
    raise ImportError(f"the IREE backend needs the optional extra: {INSTALL} (iree-base-compiler "
                      f"and iree-base-runtime 3.13.0); importing {name} failed: {e}") from None


def available() -> bool:
  """Whether the iree packages can be imported here."""
  try:
    _import("iree.compiler")
    _import("iree.runtime")
  except ImportError:
    return False
  return True


class IreeCompileError(pjrt.CompileError):
  """IREE rejected a module: its diagnostics, each naming the primitive that built the op."""


# A diagnostic's first location: stablejax names each op's location after the equation that
# built it (`cholesky`, `qr/geqrf` inside a rule lowering `qr` in place, `jit(f)/cholesky` with
# debug info), possibly inside a call site.
_LOC = re.compile(r'loc\((?:callsite\()?"((?:[^"\\]|\\.)*)"')


def _describe(line: str) -> str:
  """One `error:` line of IREE's diagnostics, with the primitive that built the op."""
  message = line.split("error:", 1)[1].strip()
  match = _LOC.search(line)
  if match is None:
    return f"  {message}"
  stack = match.group(1)
  if message.startswith("loc("):  # the location again, then the message
    message = message.split("): ", 1)[-1]
  where = f"built by the lowering rule of primitive '{stack.rsplit('/', 1)[-1]}'"
  return f"  {where}{f' (at {stack})' if '/' in stack else ''}: {message}"


def _compile_error(name: str, target: str, diagnostics: str) -> IreeCompileError:
  errors = [_describe(line) for line in diagnostics.splitlines() if "error:" in line]
  return IreeCompileError(
      f"IREE could not compile the module {name} for target {target!r}:\n"
      + "\n".join(errors or [diagnostics.strip()])
      + "\n(an IREE-specific rule is registered with "
        "register_lowering(primitive, rule, platform='iree'))")


def _flags(target: str) -> list[str]:
  return ["--iree-llvmcpu-target-cpu=host"] if target == "llvm-cpu" else []


def compile_vmfb(text: str, name: str, target: str = DEFAULT_TARGET) -> bytes:
  """IREE's compiled module (a VM flatbuffer) of StableHLO `text` for `target`."""
  compiler = _import("iree.compiler")
  try:
    return compiler.compile_str(text, target_backends=[target], input_type="stablehlo",
                                extra_args=_flags(target))
  except compiler.CompilerToolError as e:
    raise _compile_error(name, target, str(e).split("Invoked with:")[0]) from None


@functools.cache
def _config(driver: str) -> Any:
  """IREE's runtime configuration (instance and device) of `driver`, one per process."""
  return _import("iree.runtime").Config(driver)


# Element types of IREE's ABI declarations -> dtypes.
_ELEMENT_TYPES = {"i1": np.bool_, **{f"i{n}": f"int{n}" for n in (8, 16, 32, 64)},
                  **{f"ui{n}": f"uint{n}" for n in (8, 16, 32, 64)},
                  **{f"f{n}": f"float{n}" for n in (16, 32, 64)},
                  "complex<f32>": np.complex64, "complex<f64>": np.complex128}
_TENSOR = re.compile(r"%(input|output)\d+: tensor<((?:\d+x)*)(\w+(?:<\w+>)?)>")


def _signature(declaration: str) -> tuple[list[core.ShapedArray], list[core.ShapedArray]]:
  """The argument and result types of `main` from IREE's ABI declaration
  (`sync func @main(%input0: tensor<2x3xf32>) -> (%output0: tensor<f32>)`)."""
  avals: dict[str, list[core.ShapedArray]] = {"input": [], "output": []}
  for kind, dims, element in _TENSOR.findall(declaration):
    dtype = _ELEMENT_TYPES.get(element)
    if dtype is None:
      raise TypeError(f"the IREE backend has no dtype for element type {element!r} of "
                      f"{declaration}")
    shape = tuple(int(d) for d in dims.split("x") if d)
    avals[kind].append(core.ShapedArray(shape, np.dtype(dtype)))
  return avals["input"], avals["output"]


def _same_type(a: core.ShapedArray, b: core.ShapedArray) -> bool:
  """Whether `a` and `b` are one type to IREE, whose integers are signless."""
  if a.shape != b.shape:
    return False
  return a.dtype == b.dtype or (a.dtype.kind in "iu" and b.dtype.kind in "iu" and
                                a.dtype.itemsize == b.dtype.itemsize)


def _checked(name: str, given: Sequence[core.ShapedArray] | None,
             declared: list[core.ShapedArray]) -> Sequence[core.ShapedArray]:
  """The types `given` (default: `declared`, IREE's) after checking that they are IREE's."""
  if given is None:
    return declared
  if len(given) != len(declared) or not all(map(_same_type, given, declared)):
    raise TypeError(f"{name} {[a.str_short() for a in given]} do not match the IREE module's "
                    f"{[a.str_short() for a in declared]}")
  return given


def _as(value: np.ndarray, dtype: np.dtype) -> np.ndarray:
  """`value` with `dtype`, the same bits (IREE's integers are signless: u32 comes back i32)."""
  return value if value.dtype == dtype else value.view(dtype)


class IreeExecutable:
  """A module compiled by IREE, with the `Executable` call protocol: called with Arrays or
  numpy values it returns a list of Arrays on `device` (the default device)."""
  __slots__ = ("target", "device", "sharding", "in_avals", "out_avals", "vmfb", "_main",
               "_context", "_declaration", "__weakref__")

  def __init__(self, vmfb: bytes, target: str,
               out_avals: Sequence[core.ShapedArray] | None = None,
               in_avals: Sequence[core.ShapedArray] | None = None):
    rt = _import("iree.runtime")
    driver = rt.TARGET_BACKEND_TO_DRIVER.get(target, target)
    self._context = rt.SystemContext(config=_config(driver))
    vm = rt.VmModule.copy_buffer(self._context.instance, vmfb)
    self._context.add_vm_module(vm)
    self._main = self._context.modules[vm.name]["main"]
    self._declaration = vm.lookup_function("main").reflection.get("iree.abi.declaration", "")
    module_in, module_out = _signature(self._declaration)
    self.target, self.vmfb = target, vmfb
    self.device = pjrt.default_device()
    self.sharding = pjrt.sharding(self.device)
    self.in_avals = tuple(_checked("in_avals", in_avals, module_in))
    self.out_avals = tuple(map(canonical_aval, _checked("out_avals", out_avals, module_out)))

  def __call__(self, *args: Any) -> list[Array]:
    if len(args) != len(self.in_avals):
      raise TypeError(f"the executable takes {len(self.in_avals)} arguments, got {len(args)}")
    for i, (x, want) in enumerate(zip(args, self.in_avals)):
      got = core.get_aval(x)
      if (got.shape, got.dtype) != (want.shape, want.dtype):
        raise TypeError(f"argument {i} has type {got.str_short()} but the executable was "
                        f"compiled for {want.str_short()}")
    return self._execute([np.asarray(x, a.dtype) for x, a in zip(args, self.in_avals)])

  def run(self, buffers: Sequence[pjrt.Buffer]) -> list[Array]:
    """Run on the buffers of Arrays (jit's dispatch fast path)."""
    return self._execute([pjrt.to_numpy(b) for b in buffers])

  def launch(self, arrays: Sequence[Array]) -> list[Array]:
    return self._execute([np.asarray(x) for x in arrays])

  def _execute(self, values: list[np.ndarray]) -> list[Array]:
    outs = self._main(*values)
    if outs is None:
      outs = ()
    elif not isinstance(outs, tuple):
      outs = (outs,)
    return [Array(pjrt.put(_as(o.to_host(), aval.dtype), aval, self.device), aval)
            for o, aval in zip(outs, self.out_avals)]

  def as_text(self) -> str:
    """What IREE says of the compiled module's entry point (its ABI declaration)."""
    return self._declaration

  def cost_analysis(self) -> dict:
    raise NotImplementedError("the IREE backend reports no cost analysis (XLA's does)")


class IreeBackend(Backend):
  """IREE: modules lowered for the `iree` platform, compiled for an IREE target backend
  (default `llvm-cpu`); results live on the default device."""
  name = "iree"

  def platform(self, target: str | None = None) -> str:
    return "iree"

  def compile(self, module: Any, out_avals: Sequence[core.ShapedArray] | None = None,
              target: str | None = None, in_avals: Sequence[core.ShapedArray] | None = None
              ) -> IreeExecutable:
    target = target or DEFAULT_TARGET
    # printed with its locations (each op's is named after the primitive that built it)
    text = (module if isinstance(module, str) else
            module.operation.get_asm(enable_debug_info=True))
    name = _module_name(text)
    return IreeExecutable(compile_vmfb(text, name, target), target, out_avals, in_avals)

  def result_device(self, target: str | None = None) -> pjrt.Device:
    return pjrt.default_device()


def _module_name(text: str) -> str:
  match = re.search(r"module @([\w.$-]+)", text)
  return match.group(1) if match else "module"


register_backend(IreeBackend())
