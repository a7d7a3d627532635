"""`custom_jvp` and `custom_vjp`: functions with user-defined derivative rules, as in JAX.

Called under a transformation, the function is traced to a jaxpr and bound as the
`custom_jvp_call` / `custom_vjp_call` primitive (stablejax/lax/custom_derivatives.py) with the
user's rules over flat values as params; evaluated eagerly, it simply runs.
"""
from __future__ import annotations

import dataclasses
import functools
import inspect
from typing import Any, Callable, Sequence

from stablejax import core, dtypes
from stablejax.interpreters import ad, partial_eval as pe
from stablejax.jaxpr import eval_jaxpr
from stablejax.pipeline import close_over_tracers, trace
from stablejax.lax.custom_derivatives import Rule, custom_jvp_call_p, custom_vjp_call_p
from stablejax.tree_util import (PyTreeDef, flatten_fun, register_pytree_node_class, tree_flatten,
                                 tree_leaves, tree_map, tree_structure, tree_unflatten)


__all__ = ["CustomVJPPrimal", "SymbolicZero", "custom_jvp", "custom_jvp_call_p", "custom_vjp",
           "custom_vjp_call_p", "custom_vjp_primal_tree_values", "zero_from_primal"]


def _name(f: Callable) -> str:
  return getattr(f, "__name__", None) or type(f).__name__


class SymbolicZero:
  """A zero tangent (or cotangent) given to a rule defined with `symbolic_zeros=True`: only its
  type, `aval`, whose attributes (`shape`, `dtype`, ...) it also answers."""

  def __init__(self, aval: core.ShapedArray):
    self.aval = aval

  def __repr__(self) -> str:
    return "SymbolicZero"

  def __getattr__(self, name: str) -> Any:
    if name == "aval":  # not set yet (a copy being built): no aval to read through
      raise AttributeError(name)
    return getattr(self.aval, name)

  @staticmethod
  def from_primal_value(val: Any) -> SymbolicZero:
    """The symbolic zero tangent of `val`."""
    return SymbolicZero(ad.tangent_aval(core.get_aval(val)))


def zero_from_primal(val: Any, symbolic_zeros: bool = False) -> Any:
  """A zero tangent for each leaf of `val`: a SymbolicZero, or a zero array."""
  def zero(x):
    aval = ad.tangent_aval(core.get_aval(x))
    return SymbolicZero(aval) if symbolic_zeros else ad.zeros_like_aval(aval)
  return tree_map(zero, val)


@dataclasses.dataclass
class CustomVJPPrimal:
  """An argument leaf of a `custom_vjp` forward rule defined with `symbolic_zeros=True`: its
  `value`, and whether it is `perturbed` (differentiated: its tangent is not a symbolic zero)."""
  value: Any
  perturbed: bool


def custom_vjp_primal_tree_values(tree: Any) -> Any:
  """`tree` with each CustomVJPPrimal leaf replaced by its value."""
  def value(leaf):
    if type(leaf) is not CustomVJPPrimal:
      raise TypeError(f"unexpected leaf type {type(leaf)}")
    return leaf.value
  return tree_map(value, tree)


class _Call:
  """One call of a custom-derivative function: its arguments split into the non-differentiable
  ones (`nondiff_argnums`, passed to the rules first) and the flat differentiable ones, and the
  primal function traced on them."""

  def __init__(self, fun: Callable, nondiff_argnums: tuple[int, ...], args: tuple,
               kwargs: dict):
    if kwargs:
      bound = inspect.signature(fun).bind(*args, **kwargs)
      bound.apply_defaults()
      args = bound.args
    self.fun = fun
    self.nondiff_argnums = nondiff_argnums
    self.nondiff = [args[i] for i in nondiff_argnums]
    dyn = tuple(a for i, a in enumerate(args) if i not in nondiff_argnums)
    self.args = args
    self.flat, self.in_tree = tree_flatten((dyn, {}))
    self.in_avals = [core.get_aval(x) for x in self.flat]
    flat_fun, out_tree = flatten_fun(lambda *d: fun(*self.full_args(d)), self.in_tree)
    jaxpr, consts = pe.trace_to_jaxpr(flat_fun, self.in_avals)
    self.call_jaxpr, self.closed_over = close_over_tracers(jaxpr, consts)
    self.out_tree: PyTreeDef = out_tree()

  def full_args(self, dyn: Sequence) -> list:
    """The positional arguments, the non-differentiable ones back in place."""
    full, it = [], iter(dyn)
    for i in range(len(self.args)):
      full.append(self.args[i] if i in self.nondiff_argnums else next(it))
    return full

  def dyn_args(self, flat: Sequence) -> tuple:
    return tree_unflatten(self.in_tree, flat)[0]

  def tangent_avals_out(self) -> list[core.ShapedArray]:
    return [ad.tangent_aval(a) for a in self.call_jaxpr.out_avals]

  def bind(self, prim: Any, symbolic_zeros: bool, **params: Any) -> Any:
    outs = prim.bind(*self.closed_over, *self.flat, call_jaxpr=self.call_jaxpr,
                     num_consts=len(self.closed_over), symbolic_zeros=symbolic_zeros, **params)
    return tree_unflatten(self.out_tree, outs)


def _with_zeros(values: Sequence, zeros: Sequence[bool] | None,
                avals: Sequence[core.ShapedArray], symbolic: bool) -> list:
  """`values` (the nonzero ones) with a zero of the aval in each slot `zeros` marks: a
  SymbolicZero if `symbolic`, else an array (`zeros` None: `values` is every value)."""
  if zeros is None:
    return list(values)
  it = iter(values)
  return [(SymbolicZero(a) if symbolic else ad.zeros_like_aval(a)) if z else next(it)
          for a, z in zip(avals, zeros)]


def _check_tangent(rule: str, primal: Any, tangent: Any) -> None:
  p = core.get_aval(primal)
  t = tangent.aval if type(tangent) is SymbolicZero else core.get_aval(tangent)
  expected = ad.tangent_aval(p)
  if t.shape != p.shape or (not t.weak_type and expected.dtype != dtypes.float0 and
                            t.dtype != expected.dtype):
    raise TypeError(f"Custom JVP rule {rule} must produce primal and tangent outputs with "
                    f"corresponding shapes and dtypes, but got primal {p.str_short()} and "
                    f"tangent {t.str_short()}")


class custom_jvp:  # noqa: N801  (JAX's name)
  """A function with a custom JVP rule: decorate it, then give the rule with `defjvp` (or one
  rule per argument with `defjvps`)."""

  def __init__(self, fun: Callable, nondiff_argnums: Sequence[int] = ()):
    functools.update_wrapper(self, fun)
    self.fun = fun
    self.nondiff_argnums = tuple(nondiff_argnums)
    self.jvp: Callable | None = None
    self.symbolic_zeros = False

  def __get__(self, obj, objtype=None):
    return self if obj is None else functools.partial(self, obj)

  def defjvp(self, jvp: Callable, symbolic_zeros: bool = False) -> Callable:
    """`jvp(*nondiff_args, primals, tangents) -> (primal_out, tangent_out)`; with
    `symbolic_zeros`, a zero tangent (in or out) may be a SymbolicZero."""
    self.jvp, self.symbolic_zeros = jvp, symbolic_zeros
    return jvp

  def defjvps(self, *jvps: Callable | None) -> None:
    """One rule per argument, `jvp_i(tangent_i, primal_out, *primals)`, whose results are
    summed (None: the output does not depend on that argument)."""
    if self.nondiff_argnums:
      raise TypeError("custom_jvp.defjvps is not supported with nondiff_argnums")

    def jvp(primals, tangents):
      ans = self(*primals)
      outs = [rule(t, ans, *primals) for rule, t in zip(jvps, tangents) if rule is not None]
      if not outs:
        return ans, tree_map(lambda x: ad.zeros_like_aval(core.get_aval(x)), ans)
      return ans, functools.reduce(lambda a, b: tree_map(lambda x, y: x + y, a, b), outs)

    jvp.__name__ = "jvp"
    self.defjvp(jvp)

  def __call__(self, *args: Any, **kwargs: Any) -> Any:
    name = _name(self.fun)
    if self.jvp is None:
      raise AttributeError(f"No JVP defined for custom_jvp function {name} using defjvp.")
    if core.is_evaluating():
      return self.fun(*args, **kwargs)
    call = _Call(self.fun, self.nondiff_argnums, args, kwargs)
    rule = Rule(functools.partial(_jvp_flat, self, call), _name(self.jvp), name)
    return call.bind(custom_jvp_call_p, self.symbolic_zeros, jvp_jaxpr_fun=rule)


def _jvp_flat(fun: custom_jvp, call: _Call, *primals_and_tangents: Any,
              zeros: Sequence[bool] | None = None) -> list:
  """`fun`'s JVP rule over the flat primals and (nonzero, when `zeros` is given) tangents."""
  name, rule_name, n = _name(fun.fun), _name(fun.jvp), len(call.flat)
  tangent_avals = [ad.tangent_aval(a) for a in call.in_avals]
  primals = call.dyn_args(primals_and_tangents[:n])
  tangents = call.dyn_args(_with_zeros(primals_and_tangents[n:], zeros, tangent_avals, True))
  out = fun.jvp(*call.nondiff, primals, tangents)
  if not (isinstance(out, (tuple, list)) and len(out) == 2):
    raise TypeError(f"Custom JVP rule {rule_name} for function {name} must produce a pair "
                    f"(list or tuple of length two) representing primal and tangent "
                    f"outputs, but got {out!r}")
  p_flat, p_tree = tree_flatten(out[0])
  t_flat, t_tree = tree_flatten(out[1])
  if p_tree != call.out_tree:
    raise TypeError(f"Custom JVP rule {rule_name} must produce primal outputs with the "
                    f"same container (pytree) structure as the function {name}: "
                    f"{call.out_tree} (function) vs {p_tree} (rule)")
  if t_tree != p_tree:
    raise TypeError(f"Custom JVP rule {rule_name} must produce primal and tangent outputs "
                    f"with equal container (pytree) structures, but got {p_tree} and "
                    f"{t_tree} respectively.")
  for p, t in zip(p_flat, t_flat):
    _check_tangent(rule_name, p, t)
  # a symbolic zero out is instantiated: the rule's results may be mapped (under `vmap`)
  return p_flat + [ad.zeros_like_aval(t.aval) if type(t) is SymbolicZero else t
                   for t in t_flat]


class custom_vjp:  # noqa: N801  (JAX's name)
  """A function with a custom VJP rule: decorate it, then give `defvjp(fwd, bwd)`."""

  def __init__(self, fun: Callable, nondiff_argnums: Sequence[int] = ()):
    functools.update_wrapper(self, fun)
    self.fun = fun
    self.nondiff_argnums = tuple(nondiff_argnums)
    self.fwd: Callable | None = None
    self.bwd: Callable | None = None
    self.symbolic_zeros = False

  def __get__(self, obj, objtype=None):
    return self if obj is None else functools.partial(self, obj)

  def defvjp(self, fwd: Callable, bwd: Callable, symbolic_zeros: bool = False,
             optimize_remat: bool = False) -> None:
    """`fwd(*args) -> (out, residuals)`; `bwd(*nondiff_args, residuals, out_cotangent)` -> a
    tuple with one cotangent (or None, for zero) per differentiable argument. With
    `symbolic_zeros`, each argument leaf `fwd` takes is a CustomVJPPrimal, and a zero cotangent
    `bwd` takes is a SymbolicZero. (`optimize_remat` changes no values here.)"""
    if symbolic_zeros and optimize_remat:
      raise NotImplementedError("remat optimization for custom_vjp does not support symbolic "
                                "zeros")
    self.fwd, self.bwd, self.symbolic_zeros = fwd, bwd, symbolic_zeros

  def __call__(self, *args: Any, **kwargs: Any) -> Any:
    name = _name(self.fun)
    if self.fwd is None:
      raise AttributeError(f"No VJP defined for custom_vjp function {name} using defvjp.")
    if core.is_evaluating():
      return self.fun(*args, **kwargs)
    call = _Call(self.fun, self.nondiff_argnums, args, kwargs)
    res_trees: list[PyTreeDef] = []
    fwd_name, bwd_name = _name(self.fwd), _name(self.bwd)

    def fwd_flat(*primals, perturbed):
      if self.symbolic_zeros:
        primals = list(map(CustomVJPPrimal, primals, perturbed))
      out = self.fwd(*call.full_args(call.dyn_args(primals)))
      if not (isinstance(out, (tuple, list)) and len(out) == 2):
        raise TypeError(f"Custom VJP fwd rule {fwd_name} for function {name} must produce a "
                        f"pair (list or tuple of length two) where the first element "
                        f"represents the primal output and the second the residuals, but got "
                        f"{out!r}")
      o_flat, o_tree = tree_flatten(out[0])
      if o_tree != call.out_tree:
        raise TypeError(f"Custom VJP fwd rule {fwd_name} must produce a primal output with "
                        f"the same container (pytree) structure as the function {name}: "
                        f"{call.out_tree} (function) vs {o_tree} (fwd rule)")
      res_flat, res_tree = tree_flatten(out[1])
      res_trees[:] = [res_tree]
      return o_flat + res_flat

    def bwd_flat(*res_and_cts, zeros):
      (res_tree,) = res_trees
      res = tree_unflatten(res_tree, res_and_cts[:res_tree.num_leaves])
      cts = _with_zeros(res_and_cts[res_tree.num_leaves:], zeros, call.tangent_avals_out(),
                        self.symbolic_zeros)
      cts_in = self.bwd(*call.nondiff, res, tree_unflatten(call.out_tree, cts))
      return _flat_cotangents(bwd_name, cts_in, call.dyn_args(call.in_avals))

    return call.bind(custom_vjp_call_p, self.symbolic_zeros,
                     fwd_jaxpr_thunk=Rule(fwd_flat, fwd_name, name),
                     bwd=Rule(bwd_flat, bwd_name, name))


def _cotangent_leaves(rule: str, i: int, ct: Any, avals: Any) -> list:
  """One cotangent per leaf of argument `i` (typed `avals`): a None in `ct` stands for zeros of
  the whole subtree there, a None of the argument itself included (as JAX)."""
  leaves: list = []

  def append(c: Any, sub: Any) -> None:
    n = len(tree_leaves(sub))
    leaves.extend([None] * n if c is None else [c] if n else [])
  try:
    tree_map(append, ct, avals, is_leaf=lambda x: x is None)
  except (ValueError, TypeError):
    raise TypeError(f"Custom VJP bwd rule {rule} must produce an output with the same "
                    f"container (pytree) structure as the args tuple of the primal function; "
                    f"for argument {i} got {tree_structure(ct, is_leaf=lambda x: x is None)}, "
                    f"expected {tree_structure(avals)}") from None
  return leaves


def _flat_cotangents(rule: str, cts: Any, in_avals: tuple) -> list:
  """The flat input cotangents a backward rule gives, one per argument leaf (None: zeros)."""
  if not isinstance(cts, (tuple, list)) or len(cts) != len(in_avals):
    raise TypeError(f"Custom VJP bwd rule {rule} must produce a tuple of length equal to the "
                    f"number of arguments to the primal function ({len(in_avals)}), but got "
                    f"{cts!r}")
  flat = []
  for i, (ct, avals) in enumerate(zip(cts, in_avals)):
    aval_leaves = tree_leaves(avals)
    if ct is None:
      flat.extend(ad.zeros_like_aval(a) for a in aval_leaves)
      continue
    ct_leaves = _cotangent_leaves(rule, i, ct, avals)
    for a, c in zip(aval_leaves, ct_leaves):
      if type(c) is SymbolicZero:
        if c.aval.shape != a.shape:
          raise ValueError(f"Custom VJP bwd rule {rule} produced a SymbolicZero of type "
                           f"{c.aval.str_short()} for argument {i}, whose leaf has type "
                           f"{a.str_short()}. Consider returning None there instead.")
        c = None
      elif c is not None and core.get_aval(c).shape != a.shape:
        raise ValueError(f"Custom VJP bwd rule {rule} must produce cotangents of the shapes of "
                         f"the primal arguments: argument {i} has a leaf of type "
                         f"{a.str_short()} but its cotangent has shape {core.get_aval(c).shape}")
      flat.append(ad.zeros_like_aval(a) if c is None else c)
  return flat


# ----------------------------------------------------------------------------------------------
# closure_convert and custom_gradient

def _trace_closed(fun: Callable, args: Sequence, tangents: bool = False) -> tuple:
  """`fun` traced on the types of `args` (their tangent types with `tangents`): (its
  ClosedJaxpr, the traced values it closes over (the jaxpr's leading arguments), its output
  tree)."""
  flat, in_tree = tree_flatten((tuple(args), {}))
  flat_fun, out_tree = flatten_fun(fun, in_tree)
  avals = [core.get_aval(x) for x in flat]
  closed, closed_over = trace(flat_fun, [ad.tangent_aval(a) for a in avals] if tangents
                              else avals)
  return closed, closed_over, out_tree()


def closure_convert(fun: Callable, *example_args: Any) -> tuple[Callable, list]:
  """`fun` as a function of its arguments and of the values it closes over: returns
  `(converted, consts)` with `converted(*args, *consts) == fun(*args)`. The consts are the
  traced and floating-point values `fun` closes over (which a `custom_vjp` must not close over:
  it gives them cotangents once passed as arguments)."""
  closed, closed_over, out_tree = _trace_closed(fun, example_args)
  n_args = len(tree_flatten(example_args)[0])
  hoist = [dtypes.is_inexact(core.get_aval(c).dtype) for c in closed.consts]
  hoisted = [*closed_over, *(c for c, h in zip(closed.consts, hoist) if h)]
  in_tree = tree_flatten((tuple(example_args), {}))[1]

  def converted(*args_and_consts: Any) -> Any:
    args, consts = args_and_consts[:len(example_args)], args_and_consts[len(example_args):]
    flat, tree = tree_flatten((tuple(args), {}))
    if tree != in_tree or len(consts) != len(hoisted):
      raise TypeError(f"closure-converted function takes arguments of structure {in_tree} "
                      f"and {len(hoisted)} consts, got {tree} and {len(consts)}")
    outer, inner = list(consts[:len(closed_over)]), iter(consts[len(closed_over):])
    all_consts = [next(inner) if h else c for c, h in zip(closed.consts, hoist)]
    return tree_unflatten(out_tree, eval_jaxpr(closed.jaxpr, all_consts, *outer, *flat[:n_args]))

  return converted, hoisted


@register_pytree_node_class
class _RuleResiduals:
  """The residuals of `custom_gradient`: the user's VJP rule as a jaxpr (static) and the
  values it closes over (the leaves)."""

  def __init__(self, closed: Any, out_tree: PyTreeDef, values: Sequence):
    self.closed, self.out_tree, self.values = closed, out_tree, list(values)

  def tree_flatten(self) -> tuple:
    return self.values, (self.closed, self.out_tree)

  @classmethod
  def tree_unflatten(cls, aux: tuple, values: Sequence) -> _RuleResiduals:
    return cls(*aux, values)


def custom_gradient(fun: Callable) -> Callable:
  """A function with a custom gradient: `fun(*args)` returns `(output, vjp_rule)`, where
  `vjp_rule(output_cotangent)` gives the argument cotangents (a tuple for several
  arguments), as JAX's `custom_gradient`."""

  @custom_vjp
  def wrapped(*args: Any, **kwargs: Any) -> Any:
    return fun(*args, **kwargs)[0]

  def fwd(*args: Any, **kwargs: Any) -> tuple:
    ans, rule = fun(*args, **kwargs)
    closed, closed_over, out_tree = _trace_closed(rule, (ans,), tangents=True)
    return ans, _RuleResiduals(closed, out_tree, closed_over)

  def bwd(res: _RuleResiduals, cts: Any) -> tuple:
    cts_out = eval_jaxpr(res.closed.jaxpr, res.closed.consts, *res.values,
                         *tree_flatten(cts)[0])
    out = tree_unflatten(res.out_tree, cts_out)
    return out if isinstance(out, tuple) else (out,)

  wrapped.defvjp(fwd, bwd)
  return functools.wraps(fun)(wrapped)
