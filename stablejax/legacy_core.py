"""The names of JAX's public `jax.core` (0.10.2, deprecated ones still exported included) that
live above `stablejax.core`: the jaxpr IR's (`Atom`, `eval_jaxpr`, `DropVar`, ...), the trace-
state helpers of `stablejax.extend.core`, and a few aliases. Under `install_as_jax`, a name
`jax.core` (stablejax.core) lacks is looked up here (`jax_alias.FALLBACKS`), so `jax.core.Tracer`
is stablejax.core's and `jax.core.eval_jaxpr` this module's; stablejax itself never imports it.
(`jax.core.concrete_or_error` is stablejax.core's, `(value, what)`; `jax.extend.core`'s has
JAX's signature.)"""
from __future__ import annotations

from typing import Any, Sequence

from stablejax import core, jaxpr
from stablejax.compile_time_eval import ensure_compile_time_eval
from stablejax.extend.core import (
    DebugInfo, DropVar, Effects, JaxprTypeError, check_jaxpr, find_top_trace, gensym,
    get_opaque_trace_state, jaxprs_in_params, new_jaxpr_eqn, no_effects,
    nonempty_axis_env_DO_NOT_USE, primal_dtype_to_tangent_dtype,
    unsafe_am_i_under_a_jit_DO_NOT_USE, unsafe_am_i_under_a_vmap_DO_NOT_USE,
    unsafe_get_axis_names_DO_NOT_USE, valid_jaxtype)
from stablejax.jaxpr import Atom
from stablejax.shape_poly import is_constant_dim, is_constant_shape, max_dim, min_dim

__all__ = [
    "Atom", "DebugInfo", "DropVar", "Effects", "JaxprTypeError",
    "ParamDict", "Value", "check_jaxpr", "ensure_compile_time_eval",
    "eval_context", "eval_jaxpr", "find_top_trace", "gensym", "get_opaque_trace_state",
    "is_constant_dim", "is_constant_shape", "jaxprs_in_params", "max_dim", "min_dim",
    "new_jaxpr_eqn", "no_effects",
    "nonempty_axis_env_DO_NOT_USE", "primal_dtype_to_tangent_dtype", "pytype_aval_mappings",
    "unsafe_am_i_under_a_jit_DO_NOT_USE", "unsafe_am_i_under_a_vmap_DO_NOT_USE",
    "unsafe_get_axis_names_DO_NOT_USE", "valid_jaxtype",
]

Value = Any  # a value a primitive is applied to
ParamDict = dict[str, Any]  # an equation's params
pytype_aval_mappings = core.aval_handlers  # Python type -> its values' aval


def eval_jaxpr(jaxpr_: jaxpr.Jaxpr, consts: Sequence[Any], *args: Any,
               propagate_source_info: bool = True) -> list[Any]:
  """Interpret `jaxpr_` on `args` by binding its primitives under the current trace (each
  equation's source location is always kept)."""
  del propagate_source_info
  return jaxpr.eval_jaxpr(jaxpr_, consts, *args)


def eval_context() -> core.set_current_trace:
  """Context manager evaluating primitives eagerly inside (no transformation traces them)."""
  return core.set_current_trace(core.eval_trace)


