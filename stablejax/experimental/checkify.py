"""jax.experimental.checkify: `check` stages a run-time assertion as the effectful `check`
primitive; `checkify(f, errors=...)` functionalizes it, interpreting `f`'s jaxpr equation by
equation and threading an `Error` value through it (into cond branches, scan and while_loop
carries), so `f` returns `(err, out)` and can be jitted, vmapped and differentiated. With the
automatic categories it also adds checks for NaNs made by floating-point primitives, divisions
by zero and out-of-bounds `dynamic_slice` / `dynamic_update_slice` / `gather` indices."""
from __future__ import annotations

import functools
from typing import Any, Callable, Sequence

import numpy as np

from stablejax import core, lax, pipeline
from stablejax import numpy as jnp
from stablejax.basearray import Array
from stablejax.jaxpr import (ClosedJaxpr, Jaxpr, JaxprEqn, bind_eqn, eval_jaxpr,
                             replace_subjaxprs, subjaxprs)
from stablejax.lax.call import jit_p
from stablejax.lax.checks import (DivisionByZeroError, Error, ErrorEffect, FailedCheckError,
                                  JaxException, JaxRuntimeError, NaNError, OOBError, assert_func,
                                  bind_check, check_p, init_error, update_error)
from stablejax.lax.control_flow.cond import cond_p
from stablejax.lax.control_flow.scan import scan_p
from stablejax.lax.control_flow.while_loop import while_p
from stablejax.lax.custom_derivatives import Rule, custom_jvp_call_p, custom_vjp_call_p, remat_p
from stablejax.tree_util import tree_flatten, tree_leaves, tree_unflatten

__all__ = ["Error", "ErrorCategory", "JaxRuntimeError", "all_checks", "automatic_checks",
           "check", "check_error", "checkify", "debug_check", "div_checks", "float_checks",
           "index_checks", "init_error", "nan_checks", "user_checks"]

ErrorCategory = type  # a JaxException subclass: the kind of error a check records

user_checks = frozenset({FailedCheckError})
nan_checks = frozenset({NaNError})
index_checks = frozenset({OOBError})
div_checks = frozenset({DivisionByZeroError})
float_checks = nan_checks | div_checks
automatic_checks = float_checks | index_checks
all_checks = automatic_checks | user_checks

# primitive -> rule(error, enabled_errors, *operands, **params) -> (error, results)
checkify_rules: dict[core.Primitive, Callable] = {}
# primitive -> the effects its rule may add (the kinds it checks, when enabled)
automatic_effects: dict[core.Primitive, tuple[ErrorEffect, ...]] = {}

_NAN = ErrorEffect(NaNError)
_DIV = ErrorEffect(DivisionByZeroError)
_OOB = ErrorEffect(OOBError, (((3,), "int32"),))


# ----------------------------------------------------------------------------------------------
# The user-facing functions

def _traceback() -> Any:
  return core.current_source_info()


def _check(pred: Any, msg: str, debug: bool, fmt_args: tuple, fmt_kwargs: dict) -> None:
  if not (isinstance(pred, (bool, np.bool_)) or (
      isinstance(pred, (Array, core.Tracer)) and np.shape(pred) == ()
      and core.get_aval(pred).dtype == np.dtype(bool))):
    name = "debug_check" if debug else "check"
    raise TypeError(f"{name} takes a scalar pred as argument, got {pred}")
  for arg in tree_leaves((fmt_args, fmt_kwargs)):
    if not isinstance(arg, (Array, core.Tracer, np.ndarray)):
      raise TypeError("Formatting arguments to checkify.check need to be PyTrees of arrays, but "
                      f"got {arg!r} of type {type(arg)}.")
  exc = FailedCheckError(_traceback(), msg, *fmt_args, **fmt_kwargs)
  bind_check(assert_func(init_error, jnp.logical_not(pred), exc), debug)


def check(pred: Any, msg: str, *fmt_args: Any, debug: bool = False, **fmt_kwargs: Any) -> None:
  """Record a failure with message `msg.format(*fmt_args, **fmt_kwargs)` where `pred` is
  False; run eagerly it raises `JaxRuntimeError`, staged it must be under `checkify`."""
  _check(pred, msg, debug, fmt_args, fmt_kwargs)


def debug_check(pred: Any, msg: str, *fmt_args: Any, **fmt_kwargs: Any) -> None:
  """`check` under `checkify`; dropped anywhere else."""
  _check(pred, msg, True, fmt_args, fmt_kwargs)


def check_error(error: Error) -> None:
  """Raise `error`'s failure (as `error.throw()`), functionalized again by `checkify`."""
  if not isinstance(error, Error):
    raise TypeError(f"check_error takes an Error, got {error!r} of type {type(error)}")
  if error._pred:
    bind_check(error)


def checkify(f: Callable, errors: frozenset = user_checks) -> Callable[..., tuple[Error, Any]]:
  """`f` returning `(err, out)`: its checks (the kinds in `errors`) functionalized into `err`."""
  @functools.wraps(f)
  def checked_fun(*args: Any, **kwargs: Any) -> tuple[Error, Any]:
    trees = []

    def flat() -> list:
      leaves, tree = tree_flatten(f(*args, **kwargs))
      trees.append(tree)
      return leaves

    closed, closed_over = pipeline.trace(flat, [])
    error, outs = checkify_jaxpr(closed, errors, init_error, *closed_over)
    return error, tree_unflatten(trees[0], outs)
  return checked_fun


# ----------------------------------------------------------------------------------------------
# The interpreter

def checkify_jaxpr(closed: ClosedJaxpr, enabled: frozenset, error: Error, *args: Any
                   ) -> tuple[Error, list]:
  """Evaluate `closed` on `args` under the current trace, its checks folded into `error`."""
  state = [error]

  def eval_eqn(eqn: JaxprEqn, ins: Sequence[Any]) -> Any:
    rule = checkify_rules.get(eqn.primitive)
    if rule is None:
      return bind_eqn(eqn, ins)
    state[0], outs = rule(state[0], enabled, *ins, **eqn.params)
    return outs
  outs = eval_jaxpr(closed.jaxpr, closed.consts, *args, eval_eqn=eval_eqn)
  return state[0], outs


def _closed(j: ClosedJaxpr | Jaxpr) -> ClosedJaxpr:
  return j if isinstance(j, ClosedJaxpr) else ClosedJaxpr(j, ())


def effects_of(jaxpr: Jaxpr, enabled: frozenset) -> set[ErrorEffect]:
  """The error slots checkifying `jaxpr` may fill: its checks' and its automatic ones'."""
  out: set[ErrorEffect] = set()
  for eqn in jaxpr.eqns:
    if eqn.primitive is check_p:
      out |= {e for e in check_p.effects(eqn.params) if e.error_type in enabled}
    out |= {e for e in automatic_effects.get(eqn.primitive, ()) if e.error_type in enabled}
    for sub in subjaxprs(eqn):
      out |= effects_of(_closed(sub).jaxpr, enabled)
  return out


def _check_rule(error: Error, enabled: frozenset, *leaves: Any, err_tree: Any, debug: bool
                ) -> tuple[Error, list]:
  """A staged check's error joins the state (only the enabled kinds, as JAX)."""
  new = tree_unflatten(err_tree, leaves)
  for effect, pred in new._pred.items():
    if effect.error_type in enabled:
      error = update_error(error, pred, new._code[effect], {}, new._payload[effect], effect)
  return Error(error._pred, error._code, {**new._metadata, **error._metadata},
               error._payload), []


checkify_rules[check_p] = _check_rule


def _inline_call(error: Error, enabled: frozenset, *args: Any, jaxpr: ClosedJaxpr,
                 **params: Any) -> tuple[Error, list]:
  """A `jit` call holding checks: its callee inlined."""
  if not effects_of(jaxpr.jaxpr, enabled):
    return error, jit_p.bind(*args, jaxpr=jaxpr, **params)
  return checkify_jaxpr(jaxpr, enabled, error, *args)


checkify_rules[jit_p] = _inline_call


def _without_checks(j: ClosedJaxpr | Jaxpr) -> ClosedJaxpr | Jaxpr:
  """`j` with its `check` equations (which have no results) removed, at every depth."""
  inner = j.jaxpr if isinstance(j, ClosedJaxpr) else j
  if not any(isinstance(e, ErrorEffect) for e in inner.effects):
    return j
  eqns = [replace_subjaxprs(e, _without_checks) for e in inner.eqns if e.primitive is not check_p]
  out = inner.replace(eqns=eqns)
  return ClosedJaxpr(out, j.consts) if isinstance(j, ClosedJaxpr) else out


def _rule_without_checks(rule: Rule) -> Rule:
  """A user's derivative rule whose checks are dropped, as JAX's checkify drops them (the
  checks of a derivative are `checkify` of the derivative's)."""
  def fn(*args: Any, **static: Any) -> list:
    closed, closed_over = pipeline.trace(lambda *xs: list(rule(*xs, **static)),
                                         [core.get_aval(x) for x in args])
    return eval_jaxpr(_without_checks(closed.jaxpr), closed.consts, *closed_over, *args)
  return Rule(fn, rule.name, rule.fun_name)


def _checked_call(prim: core.Primitive, param: str, rules: tuple[str, ...]) -> Callable:
  """The rule of a call with derivative or rematerialization rules: the call is kept (its
  checks removed, and its user rules' checks dropped) so those rules still apply, and its
  checks run on the same operands beside it (its results there are unused, so only what the
  checks read is computed)."""
  def rule(error: Error, enabled: frozenset, *args: Any, **params: Any) -> tuple[Error, list]:
    callee = _closed(params[param])
    if not effects_of(callee.jaxpr, enabled):
      return error, prim.bind(*args, **params)
    error, _ = checkify_jaxpr(callee, enabled, error, *args)
    new = {param: _without_checks(params[param]),
           **{r: _rule_without_checks(params[r]) for r in rules}}
    return error, prim.bind(*args, **{**params, **new})
  return rule


checkify_rules[remat_p] = _checked_call(remat_p, "jaxpr", ())
checkify_rules[custom_jvp_call_p] = _checked_call(custom_jvp_call_p, "call_jaxpr",
                                                  ("jvp_jaxpr_fun",))
checkify_rules[custom_vjp_call_p] = _checked_call(custom_vjp_call_p, "call_jaxpr",
                                                  ("fwd_jaxpr_thunk", "bwd"))


# ----------------------------------------------------------------------------------------------
# Control flow: the error state as flat leaves in a fixed slot order, every slot the body may
# fill present (a placeholder where nothing failed yet), so carries and branches agree in type

class _State:
  """An error's slots in a fixed order, and the codes' exceptions gathered while tracing."""

  def __init__(self, error: Error, effects: set[ErrorEffect]):
    pred, code, payload = dict(error._pred), dict(error._code), dict(error._payload)
    for e in effects - set(pred):
      pred[e], code[e] = np.bool_(False), np.int32(-1)
      payload[e] = [np.ones(a.shape, a.dtype) for a in e.payload_avals()]
    self.effects = sorted(pred, key=ErrorEffect.sort_key)
    self.metadata = dict(error._metadata)
    self.initial = Error(pred, code, self.metadata, payload)

  def leaves(self, error: Error) -> list:
    return [[error._pred[e], error._code[e], list(error._payload[e])] for e in self.effects]

  def error(self, leaves: Sequence) -> Error:
    return Error({e: x[0] for e, x in zip(self.effects, leaves)},
                 {e: x[1] for e, x in zip(self.effects, leaves)}, self.metadata,
                 {e: x[2] for e, x in zip(self.effects, leaves)})

  def run(self, closed: ClosedJaxpr, enabled: frozenset, leaves: Sequence, *args: Any
          ) -> tuple[list, list]:
    """`closed` checkified on `args`, the error state in and out as leaves."""
    error, outs = checkify_jaxpr(closed, enabled, self.error(leaves), *args)
    self.metadata.update(error._metadata)
    return self.leaves(error), outs


def _cond_rule(error: Error, enabled: frozenset, index: Any, *ops: Any, branches: tuple,
               **params: Any) -> tuple[Error, list]:
  effects = set().union(*(effects_of(b.jaxpr, enabled) for b in branches))
  if not effects:
    return error, cond_p.bind(index, *ops, branches=branches, **params)
  state = _State(error, effects)
  fns = [functools.partial(state.run, b, enabled) for b in branches]
  leaves, outs = lax.switch(index, [lambda lv, xs, fn=fn: fn(lv, *xs) for fn in fns],
                            state.leaves(state.initial), list(ops))
  return state.error(leaves), outs


def _scan_rule(error: Error, enabled: frozenset, *args: Any, jaxpr: ClosedJaxpr,
               num_consts: int, num_carry: int, length: int, reverse: bool, **params: Any
               ) -> tuple[Error, list]:
  effects = effects_of(jaxpr.jaxpr, enabled)
  if not effects:
    return error, scan_p.bind(*args, jaxpr=jaxpr, num_consts=num_consts, num_carry=num_carry,
                              length=length, reverse=reverse, **params)
  consts, carry, xs = (args[:num_consts], args[num_consts:num_consts + num_carry],
                       args[num_consts + num_carry:])
  state = _State(error, effects)

  def body(c, x):
    leaves, outs = state.run(jaxpr, enabled, c[0], *consts, *c[1], *x)
    return (leaves, outs[:num_carry]), outs[num_carry:]
  (leaves, carry), ys = lax.scan(body, (state.leaves(state.initial), list(carry)), list(xs),
                                 length=length, reverse=reverse,
                                 unroll=params.get("unroll", 1))
  return state.error(leaves), [*carry, *ys]


def _while_rule(error: Error, enabled: frozenset, *args: Any, cond_jaxpr: ClosedJaxpr,
                body_jaxpr: ClosedJaxpr, cond_nconsts: int, body_nconsts: int, **params: Any
                ) -> tuple[Error, list]:
  """The predicate's checks run before the loop and after each step, as JAX's."""
  effects = effects_of(cond_jaxpr.jaxpr, enabled) | effects_of(body_jaxpr.jaxpr, enabled)
  if not effects:
    return error, while_p.bind(*args, cond_jaxpr=cond_jaxpr, body_jaxpr=body_jaxpr,
                               cond_nconsts=cond_nconsts, body_nconsts=body_nconsts, **params)
  cconsts, bconsts = args[:cond_nconsts], args[cond_nconsts:cond_nconsts + body_nconsts]
  carry = list(args[cond_nconsts + body_nconsts:])
  state = _State(error, effects)
  leaves, _ = state.run(cond_jaxpr, enabled, state.leaves(state.initial), *cconsts, *carry)

  def cond_fun(c):
    return state.run(cond_jaxpr, enabled, c[0], *cconsts, *c[1])[1][0]

  def body_fun(c):
    leaves, vals = state.run(body_jaxpr, enabled, c[0], *bconsts, *c[1])
    return state.run(cond_jaxpr, enabled, leaves, *cconsts, *vals)[0], vals
  leaves, carry = lax.while_loop(cond_fun, body_fun, (leaves, carry))
  return state.error(leaves), carry


checkify_rules[cond_p] = _cond_rule
checkify_rules[scan_p] = _scan_rule
checkify_rules[while_p] = _while_rule


# ----------------------------------------------------------------------------------------------
# Automatic checks

_NAN_PRIMITIVES = (
    "acos acosh add asin asinh atan2 atan atanh bessel_i0e bessel_i1e cbrt conv_general_dilated "
    "cos cosh cumlogsumexp cummax cummin cumprod cumsum digamma dot_general erf_inv erf erfc exp "
    "expm1 fft igamma_grad_a igamma igammac integer_pow lgamma log1p log logistic mul pad pow "
    "psum reduce_prod reduce_sum reduce_window_sum regularized_incomplete_beta rem rng_uniform "
    "rsqrt sin sinh sqrt sub tan tanh").split()


def _nan_error(prim: core.Primitive, error: Error, enabled: frozenset, out: Any) -> Error:
  """A NaN anywhere in the floating-point results of `prim` is a failure."""
  if NaNError not in enabled:
    return error
  floats = [x for x in (out if prim.multiple_results else [out])
            if jnp.issubdtype(core.get_aval(x).dtype, np.inexact)]
  if not floats:
    return error
  any_nan = functools.reduce(jnp.logical_or, [jnp.any(jnp.isnan(x)) for x in floats])
  return assert_func(error, any_nan, NaNError(_traceback(), prim.name))


def _nan_rule(prim: core.Primitive) -> Callable:
  def rule(error: Error, enabled: frozenset, *args: Any, **params: Any) -> tuple[Error, Any]:
    out = prim.bind(*args, **params)
    return _nan_error(prim, error, enabled, out), out
  return rule


for _name in _NAN_PRIMITIVES:
  _prim = getattr(lax, _name + "_p")
  checkify_rules[_prim] = _nan_rule(_prim)
  automatic_effects[_prim] = (_NAN,)


def _div_rule(error: Error, enabled: frozenset, x: Any, y: Any) -> tuple[Error, Any]:
  """A zero divisor is a failure (of any dtype, as JAX), then the NaN check."""
  if DivisionByZeroError in enabled:
    error = assert_func(error, jnp.any(jnp.equal(y, 0)), DivisionByZeroError(_traceback()))
  out = lax.div_p.bind(x, y)
  return _nan_error(lax.div_p, error, enabled, out), out


checkify_rules[lax.div_p] = _div_rule
automatic_effects[lax.div_p] = (_DIV, _NAN)


def _oob_error(error: Error, enabled: frozenset, name: str, shape: tuple, oob: Any,
               indices: Any, dims: Sequence[int]) -> Error:
  """Where `oob` (shaped as `indices`, whose last axis runs over operand axes `dims`) holds,
  the first such index, its axis and the axis' size are the failure's payload."""
  if OOBError not in enabled:
    return error
  first = jnp.argmin(jnp.logical_not(oob))
  axis = jnp.asarray(np.asarray(dims, np.int32))[first % indices.shape[-1]]
  payload = jnp.stack([jnp.ravel(indices)[first].astype(np.int32), axis,
                       jnp.asarray(np.asarray(shape, np.int32))[axis]])
  return assert_func(error, jnp.any(oob), OOBError(_traceback(), name, shape, payload))


def _window_oob(operand: Any, starts: Sequence, sizes: Sequence[int]) -> tuple[Any, Any]:
  starts = jnp.stack([jnp.asarray(s) for s in starts])
  limit = np.asarray(operand.shape) - np.asarray(sizes)
  return (starts < 0) | (starts > limit.astype(starts.dtype)), starts


def _dynamic_slice_rule(error: Error, enabled: frozenset, operand: Any, *starts: Any,
                        slice_sizes: tuple) -> tuple[Error, Any]:
  out = lax.dynamic_slice_p.bind(operand, *starts, slice_sizes=slice_sizes)
  if not starts:
    return error, out
  oob, idx = _window_oob(operand, starts, slice_sizes)
  return _oob_error(error, enabled, "dynamic_slice", operand.shape, oob, idx,
                    range(operand.ndim)), out


def _dynamic_update_slice_rule(error: Error, enabled: frozenset, operand: Any, update: Any,
                               *starts: Any) -> tuple[Error, Any]:
  out = lax.dynamic_update_slice_p.bind(operand, update, *starts)
  if not starts:
    return error, out
  oob, idx = _window_oob(operand, starts, update.shape)
  return _oob_error(error, enabled, "dynamic_update_slice", operand.shape, oob, idx,
                    range(operand.ndim)), out


def _gather_rule(error: Error, enabled: frozenset, operand: Any, indices: Any,
                 **params: Any) -> tuple[Error, Any]:
  out = lax.gather_p.bind(operand, indices, **params)
  dims = params["dimension_numbers"].start_index_map
  if not dims:
    return error, out
  limit = (np.asarray(operand.shape)[list(dims)]
           - np.asarray(params["slice_sizes"])[list(dims)])
  oob = (indices < 0) | (indices > limit.astype(core.get_aval(indices).dtype))
  return _oob_error(error, enabled, "gather", operand.shape, oob, indices, dims), out


for _prim, _rule in [(lax.dynamic_slice_p, _dynamic_slice_rule),
                     (lax.dynamic_update_slice_p, _dynamic_update_slice_rule),
                     (lax.gather_p, _gather_rule)]:
  checkify_rules[_prim] = _rule
  automatic_effects[_prim] = (_OOB,)
