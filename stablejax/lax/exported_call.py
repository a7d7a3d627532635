"""`call_exported`: a call of an exported module (`stablejax.export.Exported`, its only param).
Its lowering, in lowering/rules/exported_call.py, inserts the exported module's functions into
the module being built and calls its `main`. It is differentiated only through an exported VJP
(`Exported.call` wraps it in a `custom_vjp`, as JAX does), and vmapped as a sequential map over
the batch (JAX has no batching rule for it)."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from stablejax import core, runtime
from stablejax.interpreters import ad, batching
from stablejax.lax.control_flow.scan import scan
from stablejax.lax.primitive_kit import def_reference, standard_primitive
from stablejax.shape_poly import evaluate, is_constant_shape, is_symbolic_dim, solve_dim_vars
from stablejax.tree_util import keystr, tree_flatten_with_path

__all__ = ["call_exported_p"]


def argument_names(in_tree: Any) -> list[str]:
  """The names of the flat arguments of a function of (args, kwargs) whose tree is `in_tree`,
  e.g. `args[0]`, `kwargs['y']`."""
  tree = in_tree.unflatten([0] * in_tree.num_leaves)
  paths = [path for path, _ in tree_flatten_with_path(tree)[0]]
  return [("args" if p[0].idx == 0 else "kwargs") + keystr(p[1:]) for p in paths]


def check_arguments(exported: Any, avals: Sequence[core.ShapedArray]) -> dict[str, int]:
  """Each argument has the rank, dtype and constant sizes the function was exported for, and
  its symbolic sizes fit their specification and constraints (a ValueError naming the
  argument, the dimension and the dimension variable, with JAX's text); returns the values of
  the dimension variables."""
  expected = exported.in_avals
  if len(avals) != len(expected):
    raise ValueError(f"the exported function '{exported.fun_name}' takes {len(expected)} "
                     f"arrays, called with {len(avals)}")
  names = argument_names(exported.in_tree)
  for name, got, want in zip(names, avals, expected):
    if len(got.shape) != len(want.shape):
      raise ValueError(f"Rank mismatch for {name}: expected {want.shape} and called with "
                       f"{got.shape}")
    if got.dtype != want.dtype:
      raise ValueError(f"Dtype mismatch for {name}: expected {want.dtype} and called with "
                       f"{got.dtype}")
    for i, (d, size) in enumerate(zip(want.shape, got.shape)):
      if not is_symbolic_dim(d) and d != size:
        raise ValueError(f"Shape mismatch for {name}.shape[{i}] (expected same constant): "
                         f"expected {want.shape} and called with {got.shape}")
  if is_constant_shape([d for a in expected for d in a.shape]):
    return {}
  env, assertions = solve_dim_vars([a.shape for a in expected], names,
                                   [a.shape for a in avals])
  for assertion in assertions:
    if not assertion.holds:
      raise ValueError(assertion.message.format(*assertion.operands))
  return env


def _call_exported_abstract_eval(*avals: core.ShapedArray, exported: Any
                                 ) -> list[core.ShapedArray]:
  env = check_arguments(exported, avals)
  if not env:
    return list(exported.out_avals)
  return [a.update(shape=tuple(evaluate(d, env) for d in a.shape)) for a in exported.out_avals]


call_exported_p = standard_primitive("call_exported", _call_exported_abstract_eval,
                                     multiple_results=True)


def _call_exported_jvp(primals, tangents, *, exported: Any):
  raise ValueError(f"cannot differentiate the exported function '{exported.fun_name}': an "
                   "Exported is differentiated in reverse mode only, through its exported VJP, "
                   "and this one has none (deserialized from a blob serialized with "
                   "vjp_order=0; serialize it with vjp_order=1 or more)")


ad.primitive_jvps[call_exported_p] = _call_exported_jvp


def _call_exported_batch(args, dims, *, exported: Any):
  """A sequential map over the batch: the module runs once per batch element (in a scan)."""
  mapped = [d is not batching.not_mapped for d in dims]
  xs = [batching.moveaxis(x, d, 0) for x, d, m in zip(args, dims, mapped) if m]
  unmapped = [x for x, m in zip(args, mapped) if not m]

  def body(carry, slices):
    it_x, it_u = iter(slices), iter(unmapped)
    full = [next(it_x) if m else next(it_u) for m in mapped]
    return carry, call_exported_p.bind(*full, exported=exported)

  _, ys = scan(body, (), xs)
  return ys, [0] * len(ys)


batching.primitive_batchers[call_exported_p] = _call_exported_batch


def _call_exported_reference(*args: np.ndarray, exported: Any) -> list[np.ndarray]:
  """The exported module compiled on its own (not inlined into a caller) and run on the CPU."""
  if "cpu" not in exported.platforms:
    raise ValueError(f"the exported function '{exported.fun_name}' was exported for "
                     f"{exported.platforms}; its reference runs the module on the CPU")
  index = [np.int32(exported.platforms.index("cpu"))] if len(exported.platforms) > 1 else []
  exe = runtime.compile_module(exported.mlir_module(), runtime.devices("cpu")[0],
                               exported.out_avals)
  return [np.asarray(y) for y in exe(*index, *(args[i] for i in exported.module_kept_var_idx))]


def_reference(call_exported_p, _call_exported_reference)
