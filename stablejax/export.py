"""`stablejax.export`, mirroring `jax.export`: a jitted function lowered for one or more platforms
to an `Exported` (its StableHLO module as versioned portable bytecode, with its argument and
result types and trees), serialized to bytes, deserialized in another process, and called from
stablejax code (eagerly, under `jit`, `vmap` and `grad`) through the `call_exported` primitive.

A serialized Exported is JAX's own (`export_serialization`): `jax.export.deserialize` reads what
`Exported.serialize` writes, and `deserialize` reads what JAX's `Exported.serialize` writes."""
from __future__ import annotations

import functools
import io
from typing import Any, Callable, Sequence

import numpy as np

from jaxlib import _jax
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from stablejax import (api, core, dtypes, export_serialization, pipeline,
                       platforms as platforms_lib, runtime)
from stablejax.custom_derivatives import custom_vjp
from stablejax.export_custom_calls import check_custom_calls
from stablejax.export_serialization import (register_namedtuple_serialization,
                                            register_pytree_node_serialization)
from stablejax.interpreters import ad
from stablejax.jaxpr import ClosedJaxpr, jaxpr_as_fun
from stablejax.jit import Jitted, jit
from stablejax import lowering
from stablejax.lax.exported_call import argument_names, call_exported_p
from stablejax.lowering import make_ir_context
from stablejax.shape_poly import (SymbolicScope, is_symbolic_dim, symbolic_dim_bounds,
                                  symbolic_shape)
from stablejax.stages import ShapeDtypeStruct
from stablejax.tree_util import PyTreeDef, broadcast_prefix, tree_flatten, tree_unflatten

__all__ = ["DisabledSafetyCheck", "Exported", "SymbolicScope", "default_export_platform",
           "deserialize", "export", "is_symbolic_dim",
           "maximum_supported_calling_convention_version",
           "minimum_supported_calling_convention_version", "register_namedtuple_serialization",
           "register_pytree_node_serialization", "symbolic_args_specs", "symbolic_dim_bounds",
           "symbolic_shape"]

# The module calling convention (JAX's numbering): with several platforms, `main` takes the
# index of the platform it runs on (a tensor<i32>) before the arguments.
minimum_supported_calling_convention_version = 9
maximum_supported_calling_convention_version = 10
_CALLING_CONVENTION_VERSION = 10

# The start of stablejax's own container before it wrote JAX's format (never documented as
# stable): such blobs are recognized, to say why they are not read.
_OLD_CONTAINER_MAGIC = b"stablejax.export\x00"


def symbolic_args_specs(args: Any, shapes_specs: Any, constraints: Sequence[str] = (),
                        scope: SymbolicScope | None = None) -> Any:
  """`args` (arrays or ShapeDtypeStructs) as ShapeDtypeStructs whose shapes `shapes_specs` (a
  spec for all, or a tree of specs matching a prefix of `args`; None: `...`) makes symbolic,
  all in one scope; `_` and `...` in a spec take the argument's own dimensions."""
  if scope is None:
    scope = SymbolicScope(constraints)
  elif constraints:
    raise ValueError("Cannot use both `scope` and `constraints`")
  flat, tree = tree_flatten(args)
  if isinstance(args, tuple) and isinstance(shapes_specs, list):
    shapes_specs = tuple(shapes_specs)
  try:
    specs = broadcast_prefix(shapes_specs, args, is_leaf=lambda x: x is None)
  except ValueError as e:
    raise ValueError(f"export.symbolic_args_specs shapes_specs must be a prefix of the "
                     f"arguments' tree: {e}") from None
  avals = [x if isinstance(x, ShapeDtypeStruct) else api.typeof(x) for x in flat]
  return tree_unflatten(tree, [
      ShapeDtypeStruct(symbolic_shape(spec, like=a.shape, scope=scope), a.dtype)
      for a, spec in zip(avals, specs)])


class DisabledSafetyCheck:
  """A safety check to skip when exporting or deserializing, as JAX's: build one with
  `platform()` (the module may be called on a platform it was not exported for) or
  `custom_call(target_name)` (the module may call a target outside JAX's list of stable ones).
  It is recorded in the Exported."""

  def __init__(self, _impl: str):
    self._impl = _impl

  @classmethod
  def platform(cls) -> DisabledSafetyCheck:
    """Allow the compilation platform to differ from the export platform."""
    return cls("platform")

  @classmethod
  def custom_call(cls, target_name: str) -> DisabledSafetyCheck:
    """Allow exporting a call to the custom-call target `target_name`."""
    return cls(f"custom_call:{target_name}")

  def is_custom_call(self) -> str | None:
    """The custom-call target this check allows, or None."""
    prefix = "custom_call:"
    return self._impl[len(prefix):] if self._impl.startswith(prefix) else None

  def __str__(self) -> str:
    return self._impl

  __repr__ = __str__

  def __eq__(self, other: object) -> bool:
    return isinstance(other, DisabledSafetyCheck) and self._impl == other._impl

  def __hash__(self) -> int:
    return hash(self._impl)


class Exported:
  """A function lowered to StableHLO for some platforms, with the types and trees of its
  arguments and results: serialize it, or call it from stablejax code."""

  def __init__(self, fun_name: str, in_tree: PyTreeDef, in_avals: Sequence[core.ShapedArray],
               out_tree: PyTreeDef, out_avals: Sequence[core.ShapedArray],
               platforms: Sequence[str], mlir_module_serialized: bytes,
               calling_convention_version: int,
               get_vjp: Callable[[Exported], Exported] | None,
               disabled_safety_checks: Sequence[DisabledSafetyCheck] = (), nr_devices: int = 1,
               module_kept_var_idx: Sequence[int] | None = None):
    self.fun_name = fun_name
    # the number of devices the module was lowered for (JAX's `nr_devices`): stablejax exports
    # and calls modules for one device (JAX's for more are read, to be inspected)
    self.nr_devices = nr_devices
    self.in_tree = in_tree
    self.in_avals = tuple(in_avals)
    self.out_tree = out_tree
    self.out_avals = tuple(out_avals)
    self.platforms = tuple(platforms)
    self.mlir_module_serialized = mlir_module_serialized
    self.calling_convention_version = calling_convention_version
    self._get_vjp = get_vjp
    self.disabled_safety_checks = tuple(disabled_safety_checks)
    # the indices of the arguments the module takes (JAX drops unused ones; stablejax keeps all)
    self.module_kept_var_idx = tuple(range(len(self.in_avals)) if module_kept_var_idx is None
                                     else module_kept_var_idx)
    self._vjp: Exported | None = None

  def __repr__(self) -> str:
    return f"Exported(fun_name={self.fun_name}, ...)"

  def mlir_module(self) -> str:
    """The StableHLO module as MLIR text."""
    with make_ir_context():
      return str(hlo.deserialize_portable_artifact(make_ir_context(),
                                                   self.mlir_module_serialized))

  def has_vjp(self) -> bool:
    """Whether this Exported can be differentiated (it has an exported VJP)."""
    return self._get_vjp is not None

  def vjp(self) -> Exported:
    """The exported VJP (exported when first asked): takes the flat primal arguments, then a
    cotangent per flat result, and returns the cotangents of the flat arguments."""
    if self._get_vjp is None:
      raise ValueError(f"No VJP is available for the exported function '{self.fun_name}' (it "
                       "was deserialized from a blob serialized with vjp_order=0)")
    if self._vjp is None:
      self._vjp = self._get_vjp(self)
    return self._vjp

  def serialize(self, vjp_order: int = 0) -> bytes:
    """JAX's serialized Exported, which `deserialize` and `jax.export.deserialize` read back;
    `vjp_order` is how many orders of VJP to include (1 lets the deserialized function be
    differentiated once)."""
    return export_serialization.serialize(self, vjp_order)

  def call(self, *args: Any, **kwargs: Any) -> Any:
    """Call the exported function on arrays of the types it was exported for (eagerly, or
    inside `jit`, `vmap` and `grad`)."""
    if self.nr_devices != 1:
      raise ValueError(f"Function {self.fun_name} was exported for {self.nr_devices} devices "
                       "and is called in a context with 1 devices, which is not allowed "
                       "(stablejax calls exported modules for one device)")
    flat, tree = tree_flatten((args, kwargs))
    if tree != self.in_tree:
      raise ValueError(f"The invocation args and kwargs must have the same pytree structure as "
                       f"when the function '{self.fun_name}' was exported: called with "
                       f"{tree}, exported for {self.in_tree}")
    if self._get_vjp is None:
      outs = call_exported_p.bind(*flat, exported=self)
    else:
      outs = self._differentiable(*flat)
    return tree_unflatten(self.out_tree, outs)

  @functools.cached_property
  def _differentiable(self) -> custom_vjp:
    """`call_exported` with its VJP given by the exported VJP (as JAX does)."""
    return _with_exported_vjp(self)


def _with_exported_vjp(exported: Exported) -> custom_vjp:
  def call_flat(*args):
    return call_exported_p.bind(*args, exported=exported)

  def fwd(*args):  # (differentiable, for higher orders: through the VJP's own VJP)
    return fun(*args), args

  def bwd(args, cts):
    cts = [_bool_zeros(a) if _is_float0(a) else ct for ct, a in zip(cts, tangent_avals_out)]
    in_cts = exported.vjp().call(*args, *cts)
    return tuple(np.zeros(a.shape, dtypes.float0) if _is_float0(a) else ct
                 for ct, a in zip(in_cts, tangent_avals_in))

  tangent_avals_in = list(map(ad.tangent_aval, exported.in_avals))
  tangent_avals_out = list(map(ad.tangent_aval, exported.out_avals))

  fun = custom_vjp(call_flat)
  fun.defvjp(fwd, bwd)
  return fun


# ----------------------------------------------------------------------------------------------
# Exporting

def default_export_platform() -> str:
  """The platform `export` lowers for by default: that of the default device."""
  return runtime.platform_of(runtime.default_device())


def export(fun_jit: Jitted, *, platforms: Sequence[str] | None = None,
           disabled_checks: Sequence[DisabledSafetyCheck] = ()) -> Callable[..., Exported]:
  """`export(jit(f), platforms=...)(*args, **kwargs)`: `f` traced for arguments of the types
  of `args` (arrays or ShapeDtypeStructs) and lowered for `platforms` (default: the default
  platform); lowering needs no device, so any platform can be exported for anywhere."""
  fun_jit = _as_jitted(fun_jit)
  targets = _canonical_platforms(platforms)
  for check in disabled_checks:
    if not isinstance(check, DisabledSafetyCheck):
      raise ValueError(f"export: disabled_checks must be DisabledSafetyChecks, got {check!r}")

  def do_export(*args: Any, **kwargs: Any) -> Exported:
    traced = fun_jit.trace(*args, **kwargs)
    closed, name = traced.jaxpr, traced.name
    if len(closed.in_avals) != traced.in_tree.num_leaves:
      raise ValueError(f"cannot export '{name}': it closes over traced values; pass them as "
                       "arguments")
    if closed.effects:
      raise ValueError(f"cannot export '{name}': it has effects {sorted(map(str, closed.effects))}"
                       "; an exported module cannot carry host callbacks or effect tokens")
    module = pipeline.lower(closed, name, targets if len(targets) > 1 else targets[0])
    check_custom_calls(module, [c.is_custom_call() for c in disabled_checks
                                if c.is_custom_call() is not None], name)
    lowering.export_main(module, closed.in_avals, argument_names(traced.in_tree),
                         len(targets) > 1)
    return Exported(name, traced.in_tree, closed.in_avals, traced.out_tree, closed.out_avals,
                    targets, _module_to_bytecode(module), _CALLING_CONVENTION_VERSION,
                    _vjp_exporter(closed), disabled_checks)
  return do_export


def _as_jitted(fun: Any) -> Jitted:
  """`fun` as a jitted function: JAX's library functions (`jnp.cos`) are jitted, so stablejax's
  own public functions are exported as they are; any other function must be a `jit`'s."""
  if isinstance(fun, Jitted):
    return fun
  if callable(fun) and getattr(fun, "__module__", "").startswith("stablejax."):
    return jit(fun)
  raise ValueError(f"Function to be exported must be the result of `jit` but is: {fun}")


def _canonical_platforms(platforms: Sequence[str] | None) -> tuple[str, ...]:
  if platforms is None:
    return (default_export_platform(),)
  if isinstance(platforms, str):
    raise TypeError(f"export: platforms must be a sequence of platform names, got {platforms!r}")
  targets = tuple(platforms_lib.canonical(p) for p in platforms)
  if not targets or len(set(targets)) != len(targets):
    raise ValueError(f"export: platforms must be distinct and at least one, got {platforms!r}")
  return targets


def _module_to_bytecode(module: ir.Module) -> bytes:
  """Portable StableHLO bytecode, for a StableHLO at least 4 weeks old (as JAX targets), by
  jaxlib's serializer as JAX's export does: it legalizes CHLO first, which the bindings'
  `serialize_portable_artifact` cannot do for ops on dynamic shapes."""
  target = hlo.get_version_from_compatibility_requirement(
      hlo.StablehloCompatibilityRequirement.WEEK_4)
  data = io.BytesIO()
  module.operation.write_bytecode(file=data)
  return _jax.mlir.serialize_portable_artifact(data.getvalue(), target)


def _vjp_exporter(closed: ClosedJaxpr) -> Callable[[Exported], Exported]:
  """Exports, when first asked, the VJP of the function `closed` computes (as `jit` of a
  function of the flat primals and the cotangents of the flat results)."""
  primal_fun = jaxpr_as_fun(closed)

  def get_vjp(primal: Exported) -> Exported:
    n = len(primal.in_avals)

    def vjp_fun(*primals_and_cts):
      _, pullback = api.vjp(primal_fun, *primals_and_cts[:n])
      cts = [np.zeros(a.shape, dtypes.float0) if _is_float0(a) else ct
             for ct, a in zip(primals_and_cts[n:], tangents_out)]
      return [_bool_zeros(a) if _is_float0(a) else ct
              for ct, a in zip(pullback(cts), tangents_in)]

    vjp_fun.__name__ = f"vjp_{primal.fun_name}"
    tangents_in = list(map(ad.tangent_aval, primal.in_avals))
    tangents_out = list(map(ad.tangent_aval, primal.out_avals))
    specs = [ShapeDtypeStruct(a.shape, np.bool_ if _is_float0(a) else a.dtype,
                              weak_type=a.weak_type)
             for a in tangents_out]
    return export(jit(vjp_fun), platforms=primal.platforms)(
        *map(ShapeDtypeStruct.from_aval, primal.in_avals), *specs)
  return get_vjp


# An exported VJP's cotangents of integer (and boolean) values, float0 in stablejax, are
# booleans (the type float0 has in HLO); the VJP's caller passes and receives zeros.

def _is_float0(aval: core.ShapedArray) -> bool:
  return aval.dtype == dtypes.float0


def _bool_zeros(aval: core.ShapedArray) -> np.ndarray:
  return np.zeros(aval.shape, np.bool_)


# ----------------------------------------------------------------------------------------------
# Deserializing

def deserialize(blob: bytes | bytearray) -> Exported:
  """The Exported that `Exported.serialize`, or JAX's, wrote into `blob`."""
  blob = bytes(blob)
  if blob.startswith(_OLD_CONTAINER_MAGIC):
    raise ValueError("deserialize: the blob is in the container of stablejax before it wrote "
                     "JAX's format; export the function again")
  return _from_serialized(export_serialization.deserialize(blob))


def _from_serialized(s: export_serialization.SerializedExported) -> Exported:
  version = s.calling_convention_version
  if not (minimum_supported_calling_convention_version <= version
          <= maximum_supported_calling_convention_version):
    raise ValueError(f"deserialize: the exported function '{s.fun_name}' has calling "
                     f"convention version {version}; stablejax calls versions "
                     f"{minimum_supported_calling_convention_version} to "
                     f"{maximum_supported_calling_convention_version}")
  _check_module(s.mlir_module_serialized, s.fun_name)
  vjp = s.vjp
  return Exported(s.fun_name, s.in_tree, s.in_avals, s.out_tree, s.out_avals, s.platforms,
                  s.mlir_module_serialized, version,
                  vjp and (lambda _: _from_serialized(vjp)),
                  [DisabledSafetyCheck(c) for c in s.disabled_checks], s.nr_devices,
                  s.module_kept_var_idx)


def _check_module(module: bytes, name: str) -> None:
  """The portable artifact can be read by this StableHLO."""
  try:
    hlo.deserialize_portable_artifact(make_ir_context(), module)
  except Exception as e:  # noqa: BLE001  (the bindings raise several types)
    raise ValueError(f"deserialize: the StableHLO module of '{name}' cannot be read "
                     f"(StableHLO {hlo.get_current_version()} reads versions from "
                     f"{hlo.get_minimum_version()}): {e}") from None
