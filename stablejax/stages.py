"""The ahead-of-time API: `jit(f).lower(*args)` -> Lowered -> `.compile()` -> Compiled. Both go
through the pipeline: a `Lowered` holds the module `pipeline.lower` built, and compiling it
compiles that module (`pipeline.compile`); `Compiled` only adds the pytree handling around its
executable."""
from __future__ import annotations

import copy
import inspect
import math
from typing import Any, Callable, Collection, Sequence

import numpy as np

from jaxlib import _jax
from jaxlib.mlir import ir

from stablejax import core, dtypes, lowering, pipeline, runtime, sharding as sharding_lib
from stablejax.interpreters.flops import jaxpr_flops
from stablejax.jaxpr import ClosedJaxpr
from stablejax.lowering.module import copy_module, name_arguments, verify_module
from stablejax.passes.dce import dce_closed_jaxpr
from stablejax.tree_util import (PyTreeDef, keystr, tree_flatten, tree_flatten_with_path,
                                 tree_unflatten)


class ShapeDtypeStruct:
  """A stand-in for an array of this type (`jit(f).lower`, `.trace` and `eval_shape` take it
  where they take an array); `sharding` (a Sharding, or a PartitionSpec resolved against the
  mesh of the enclosing `with mesh:` when read) says how it is laid out."""
  __slots__ = ("shape", "dtype", "weak_type", "_sharding")

  def __init__(self, shape: Sequence[int], dtype: Any, *, sharding: Any = None,
               weak_type: bool = False):
    if dtype is None:
      raise ValueError("ShapeDtypeStruct: dtype must be specified.")
    self.shape = tuple(shape)
    self.dtype = dtype if dtypes.is_extended(dtype) else np.dtype(dtype)  # (keys: as JAX)
    self.weak_type = weak_type
    if sharding is not None and not isinstance(sharding, (sharding_lib.Sharding,
                                                          sharding_lib.PartitionSpec)):
      raise ValueError("sharding should be an instance of `stablejax.sharding.Sharding` or "
                       f"`stablejax.sharding.PartitionSpec`. Got {sharding} of type "
                       f"{type(sharding)}.")
    if isinstance(sharding, sharding_lib.NamedSharding):
      sharding._to_xla_hlo_sharding(len(self.shape))  # (a spec longer than the rank: an error)
    self._sharding = sharding

  ndim = property(lambda self: len(self.shape))
  size = property(lambda self: math.prod(self.shape))

  @property
  def sharding(self) -> Any:
    """The sharding; a PartitionSpec given becomes a NamedSharding over the current mesh."""
    if isinstance(self._sharding, sharding_lib.PartitionSpec):
      if sharding_lib.current_mesh() is None:
        raise TypeError("When specifying PartitionSpec to `ShapeDtypeStruct`, the context mesh "
                        "cannot be empty: enter a mesh (`with mesh:`) first.")
      return sharding_lib.check_sharding(self._sharding, "ShapeDtypeStruct")
    return self._sharding

  @classmethod
  def from_aval(cls, aval: core.ShapedArray) -> ShapeDtypeStruct:
    return cls(aval.shape, aval.dtype, sharding=aval.sharding, weak_type=aval.weak_type)

  @classmethod
  def like(cls, x: Any) -> ShapeDtypeStruct:
    """The shape, dtype, weak type and sharding of `x` (an array, a traced value, a numpy
    value or a Python scalar); an Array on one device has no sharding here, as an
    uncommitted array in JAX."""
    aval = core.get_aval(x)
    sharding = aval.sharding
    if type(x) is runtime.Array and not isinstance(x.sharding, sharding_lib.SingleDeviceSharding):
      sharding = x.sharding
    elif isinstance(x, ShapeDtypeStruct):
      sharding = x._sharding
    return cls(aval.shape, aval.dtype, sharding=sharding, weak_type=aval.weak_type)

  def __eq__(self, other: Any) -> bool:
    return (type(other) is ShapeDtypeStruct and
            (self.shape, self.dtype, self.weak_type, self._sharding) ==
            (other.shape, other.dtype, other.weak_type, other._sharding))

  def __hash__(self) -> int:
    return hash((self.shape, self.dtype, self.weak_type, self._sharding))

  def __repr__(self) -> str:
    weak = ", weak_type=True" if self.weak_type else ""
    sharding = "" if self._sharding is None else f", sharding={self._sharding}"
    return f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name}{sharding}{weak})"


def _aval(s: ShapeDtypeStruct) -> core.ShapedArray:
  """Its type: typed by its sharding where that splits over Explicit mesh axes (a
  PartitionSpec, over the current mesh if there is one)."""
  sharding = s._sharding
  if isinstance(sharding, sharding_lib.PartitionSpec):
    sharding = None if sharding_lib.current_mesh() is None else s.sharding
  return core.typed_aval(core.ShapedArray(s.shape, s.dtype, s.weak_type), sharding)


core.aval_handlers[ShapeDtypeStruct] = _aval


class Traced:
  """A function traced for one argument signature: its `jaxpr`, the types of its outputs
  (`out_info`, a pytree of ShapeDtypeStruct), and `lower()` for the next stage."""

  def __init__(self, jaxpr: ClosedJaxpr, name: str, in_tree: PyTreeDef, out_tree: PyTreeDef,
               lower: Callable[..., Lowered]):
    self.jaxpr = jaxpr
    self.name = name
    self.in_tree = in_tree
    self.out_tree = out_tree
    self._lower = lower

  @property
  def out_info(self) -> Any:
    return tree_unflatten(self.out_tree, map(ShapeDtypeStruct.from_aval, self.jaxpr.out_avals))

  def lower(self, platform: str | None = None, platforms: Sequence[str] | None = None,
            passes: Sequence[str] | None = None,
            lowering_rules: dict[core.Primitive, Callable] | None = None) -> Lowered:
    return self._lower(platform=platform, platforms=platforms, passes=passes,
                       lowering_rules=lowering_rules)


class Lowered:
  """A function lowered to StableHLO for one argument signature and one platform (`platform`,
  default: the default device's), or for several (`platforms`): one module whose `@main`
  takes a leading `tensor<i32>` index into `platforms`, as JAX's export does. With an
  `axis_context` (`spmd.plan`: the mesh, argument and result shardings) the module is
  partitioned over the mesh's devices. `lowering_rules` (primitive -> rule) replace the
  registry's rules for this lowering only.

  The module carries each op's location (name stack and the user's frames), which `as_text()`
  shows only with `debug_info` and XLA keeps as the compiled ops' metadata."""

  def __init__(self, jaxpr: ClosedJaxpr, name: str, out_tree: PyTreeDef, in_tree: PyTreeDef,
               platform: str | None = None, platforms: Sequence[str] | None = None,
               arg_names: Sequence[str] | None = None, passes: Sequence[str] | None = None,
               donated: Sequence[bool] = (), axis_context: lowering.ShardingContext | None = None,
               kept: Sequence[bool] | None = None,
               lowering_rules: dict[core.Primitive, Callable] | None = None):
    if platform is not None and platforms is not None:
      raise TypeError(f"lower of {name}: pass platform= or platforms=, not both")
    self.jaxpr = jaxpr
    self.name = name
    self.out_tree = out_tree
    self.in_tree = in_tree
    # each flat argument's name in debug info (`arg_names(fun, in_tree)`; default `args[i]`)
    self.arg_names = list(arg_names) if arg_names is not None else arg_names_of(None, in_tree)
    # Lowering needs only the platforms' names, so a module for 'cuda' can be inspected on a
    # machine without a GPU; a device is needed only to compile.
    self.platforms = lowering.canonical_platforms(
        platforms if platforms is not None else
        platform or runtime.platform_of(runtime.default_device()))
    self.platform = self.platforms[0] if len(self.platforms) == 1 else None
    self.passes = passes  # the names of `stablejax.passes` run (None: `sj.config.passes`)
    self.donated = tuple(donated)  # per flat argument: whether jit donates its buffer
    self.axis_context = axis_context
    # per flat argument: whether the module takes it (None: all; `jit(keep_unused=False)`)
    self.kept = None if kept is None else tuple(kept)
    self._module = pipeline.lower(jaxpr, name, self.platforms, debug_info=True, passes=passes,
                                  donated=self.donated, axis_context=axis_context,
                                  lowering_rules=lowering_rules)
    name_arguments(self._module, self.arg_names)
    self._debug_module = None
    self._compiled: dict[tuple, Compiled] = {}  # (backend, target) -> its compiled module
    self._edited = False  # `with_module`: the module no longer comes from `self.jaxpr`

  def as_text(self, dialect: str | None = None, *, debug_info: bool | str = False,
              function: str | None = None) -> str:
    """The module as text: StableHLO MLIR (`dialect="stablehlo"`), or XLA's HLO before
    optimization (`"hlo"`). `debug_info` adds locations (`file:line:col` with the call-site
    chain and the name stack, arguments and results named from the signature): as `#loc`
    aliases after the module (True), or each in full at the end of its op's line
    (`"inline"`, one line per op for FileCheck); `function` prints only that function of the
    StableHLO module."""
    dialect = dialect or "stablehlo"
    module = self._debug() if debug_info else self._module
    if dialect == "hlo" and function is None:
      return _hlo_text(module, bool(debug_info))
    if dialect != "stablehlo":
      raise ValueError(f"Lowered.as_text: unknown dialect {dialect!r}; expected 'stablehlo' "
                       "or 'hlo'" + (" ('hlo' prints the whole module: function= needs "
                                     "'stablehlo')" if dialect == "hlo" else ""))
    op = module.operation if function is None else _function(module, function)
    return lowering.module_text(op, debug_info)

  def _debug(self) -> ir.Module:
    """The module with its results named too (`jax.result_info`, which prints without debug
    info, so `as_text()` leaves it out); made once."""
    if self._debug_module is None:
      self._debug_module = copy_module(self._module)
      name_arguments(self._debug_module, self.arg_names, self._result_names())
    return self._debug_module

  def cost_analysis(self) -> dict[str, float]:
    """`{"flops": n}`: the floating-point operations of the program from the primitives' flops
    rules (`sj.flops`'s count of its jaxpr after dead-code elimination), without compiling;
    JAX's `lowered.cost_analysis()["flops"]` (which counts transcendental functions apart)."""
    if self._edited:
      raise ValueError("cost_analysis counts the flops of the traced program, which an edited "
                       "module (with_module) no longer is: use compile().cost_analysis(), XLA's")
    return {"flops": jaxpr_flops(dce_closed_jaxpr(self.jaxpr))}

  def _result_names(self) -> list[str]:
    return [f"result{keystr(path)}" for path, _ in tree_flatten_with_path(
        tree_unflatten(self.out_tree, [0] * self.out_tree.num_leaves))[0]]

  def with_module(self, module: str | ir.Module) -> Lowered:
    """A Lowered that compiles `module` (MLIR text, or an `ir.Module` such as an edited
    `compiler_ir()`) in place of this one's, for the same arguments and results (their
    pytrees, names, donation and platforms kept). Its `@main` must keep this module's
    signature: a ValueError names each argument or result whose type changed."""
    new_module = _edited_module(module)
    _check_signature(self._module, new_module, self.arg_names, self._result_names())
    new = copy.copy(self)
    new._module, new._debug_module, new._compiled = new_module, None, {}
    new._edited = True
    return new

  def compiler_ir(self) -> ir.Module:
    """The `jaxlib.mlir.ir.Module`: a fresh copy on each call (JAX returns its own module),
    so running MLIR passes on it changes neither `as_text()` nor `compile()`. Copying costs
    about 2 µs per operation (6 ms for 3,000)."""
    return copy_module(self._module)

  def compile(self, backend: str | None = None, target: str | None = None) -> Compiled:
    """Compile the module (the one `as_text()` shows; it is not lowered again), once per
    backend and target: over its mesh if it has one, else for the first device of its
    platform (an error naming the platforms present if none is here). A module for several
    platforms is compiled for `target` (a platform) if given, else the default device's
    platform if it is one of them, else the first of them present here, with the platform
    index fixed to it. `backend="iree"` (the default for a module lowered for the `iree`
    platform) compiles it with IREE for its `target` (default "llvm-cpu"; results on the
    default device: `runtime.iree`)."""
    backend = backend or ("iree" if self.platform == "iree" else "xla")
    compiled = self._compiled.get((backend, target))
    if compiled is None:
      exe = pipeline.compile(self._module, self._device(backend, target), self.jaxpr.out_avals,
                             self.platforms, self.jaxpr.in_avals, backend, target)
      compiled = self._compiled[backend, target] = Compiled(exe, self.in_tree, self.out_tree,
                                                            self.kept)
    return compiled

  def _device(self, backend: str, target: str | None
              ) -> runtime.Device | lowering.ShardingContext | None:
    """Where XLA runs the module: over its mesh, else on the first device of the platform
    `target` (one of the module's), else of the platform it is compiled for."""
    if backend != "xla":
      return None
    if self.axis_context is not None:
      if target is not None:
        raise ValueError(f"compile of {self.name}: the module is partitioned over its mesh's "
                         f"devices; target={target!r} cannot choose others")
      return self.axis_context
    if target is not None:
      (target,) = lowering.canonical_platforms(target)
      if target not in self.platforms:
        raise ValueError(f"compile of {self.name}: the module was lowered for "
                         f"{', '.join(self.platforms)}, not {target}; lower it for "
                         f"platform={target!r}")
      return runtime.devices(target)[0]
    return runtime.devices(self.platform or self._compile_platform())[0]

  def _compile_platform(self) -> str:
    default = runtime.platform_of(runtime.default_device())
    present = [p for p in self.platforms if p in runtime.available_platforms()]
    if not present:
      raise RuntimeError(f"cannot compile {self.name} lowered for platforms {self.platforms}: "
                         f"none is present here (available: {runtime.available_platforms()})")
    return default if default in present else present[0]


def _function(module: ir.Module, name: str) -> ir.Operation:
  """The function `name` of `module`; an error listing its functions if it has none such."""
  names = [ir.StringAttr(op.attributes["sym_name"]).value for op in module.body.operations
           if op.operation.name == "func.func"]
  if name not in names:
    raise ValueError(f"Lowered.as_text: the module has no function {name!r}; its functions "
                     f"are {names}")
  return ir.SymbolTable(module.operation)[name].operation


def _edited_module(module: str | ir.Module) -> ir.Module:
  """`module` (text parsed, a module copied), verified."""
  if isinstance(module, ir.Module):
    new = copy_module(module)
  elif isinstance(module, str):
    with lowering.make_ir_context():
      try:
        new = ir.Module.parse(module)
      except ir.MLIRError as e:
        raise ValueError(f"Lowered.with_module: the module does not parse: {e}") from None
  else:
    raise TypeError("Lowered.with_module expects MLIR text or a jaxlib.mlir.ir.Module, not "
                    f"{type(module).__name__}")
  verify_module(new)
  return new


def _main_type(module: ir.Module, which: str) -> ir.FunctionType:
  main = next((op for op in module.body.operations if op.operation.name == "func.func" and
               ir.StringAttr(op.attributes["sym_name"]).value == "main"), None)
  if main is None:
    raise ValueError(f"Lowered.with_module: the {which} module has no function @main")
  return ir.FunctionType(ir.TypeAttr(main.attributes["function_type"]).value)


def _check_signature(old: ir.Module, new: ir.Module, arg_names: Sequence[str],
                     result_names: Sequence[str]) -> None:
  """A ValueError listing what changed between `old`'s and `new`'s `@main` signatures."""
  old_type, new_type = _main_type(old, "original"), _main_type(new, "edited")
  changes = []
  for kind, names, before, after in (("argument", arg_names, old_type.inputs, new_type.inputs),
                                     ("result", result_names, old_type.results,
                                      new_type.results)):
    before, after = list(before), list(after)
    names = ["the platform index"] * (len(before) - len(names)) + [
        f"{kind} {n!r}" for n in names]  # (a multi-platform module's leading argument)
    if len(before) != len(after):
      changes.append(f"{len(before)} {kind}s became {len(after)}")
    changes += [f"{name}: {b} became {a}" for name, b, a in zip(names, before, after) if b != a]
  if changes:
    raise ValueError("Lowered.with_module: the edited module's @main no longer matches the "
                     "function's signature: " + "; ".join(changes))


def _hlo_text(module: ir.Module, debug_info: bool) -> str:
  """XLA's HLO text of StableHLO `module` (unoptimized), with source metadata if asked."""
  computation = _jax.mlir.mlir_module_to_xla_computation(
      module.operation.get_asm(binary=True, enable_debug_info=debug_info),
      use_tuple_args=False)
  return computation.as_hlo_text()


def arg_names_of(fun: Callable | None, in_tree: PyTreeDef,
                 static_argnums: Collection[int] = ()) -> list[str]:
  """The name of each flat argument when `fun` is called with arguments of structure `in_tree`
  (`(args, kwargs)`, static arguments left out), as JAX's debug info has it: the parameter
  from `fun`'s signature and the path into it (`x`, `d['a']`, `args[1]`; `args[i]` where the
  signature says nothing)."""
  try:
    params = list(inspect.signature(fun).parameters.values()) if fun is not None else []
  except (TypeError, ValueError):
    params = []
  kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
  positional = [p.name for i, p in enumerate(params)
                if p.kind in kinds and i not in static_argnums]
  star = next((p.name for p in params if p.kind is inspect.Parameter.VAR_POSITIONAL), "args")
  paths = tree_flatten_with_path(tree_unflatten(in_tree, [0] * in_tree.num_leaves))[0]
  names = []
  for (group, key, *rest), _ in paths:
    if group.idx == 1:  # a keyword argument
      head = key.key
    elif key.idx < len(positional):
      head = positional[key.idx]
    else:
      head = f"{star}[{key.idx - len(positional)}]"
    names.append(head + keystr(tuple(rest)))
  return names


class Compiled:
  """A compiled function for one argument signature: call it, or read XLA's optimized HLO."""

  def __init__(self, executable: runtime.Executable, in_tree: PyTreeDef, out_tree: PyTreeDef,
               kept: Sequence[bool] | None = None,
               lowering_rules: dict[core.Primitive, Callable] | None = None):
    self.executable = executable
    self.in_tree = in_tree
    self.out_tree = out_tree
    self.kept = kept  # per flat argument: whether the executable takes it (None: all)

  def __call__(self, *args: Any, **kwargs: Any) -> Any:
    flat, tree = tree_flatten((args, kwargs))
    if tree != self.in_tree:
      raise TypeError(f"compiled function called with arguments of structure {tree}, but it "
                      f"was compiled for {self.in_tree}")
    if self.kept is not None:
      flat = [x for x, k in zip(flat, self.kept) if k]
    for i, (x, aval) in enumerate(zip(flat, self.executable.in_avals)):
      got = core.get_aval(x)
      if (got.shape, got.dtype) != (aval.shape, aval.dtype):
        raise TypeError(f"compiled function argument {i} has type {got.str_short()}, but it "
                        f"was compiled for {aval.str_short()}")
    return tree_unflatten(self.out_tree, self.executable(*flat))

  def as_text(self) -> str:
    """XLA's optimized HLO."""
    return self.executable.as_text()

  def cost_analysis(self) -> dict:
    """What XLA reports for the program (flops, bytes accessed, ...)."""
    return self.executable.cost_analysis()

  def memory_analysis(self) -> Any:
    """XLA's sizes in bytes of the program's arguments, outputs, aliased and temporary buffers
    and generated code (`argument_size_in_bytes`, ..., jaxlib's `CompiledMemoryStats` as JAX's
    `memory_analysis` returns)."""
    return self.executable.memory_analysis()
