"""`custom_linear_solve` and `custom_root`: solves differentiated implicitly, at the solution,
instead of through the solver (JAX's `jax.lax.custom_linear_solve` and `custom_root`).

`linear_solve_p` (printed `custom_linear_solve`) applies the `solve` jaxpr to its right-hand
side `b`. Its operands are the values the four jaxprs (`matvec`, `vecmat`, `solve`,
`transpose_solve`, a `LinearSolveTuple`) closed over, then `b`. It is linear in `b`: its JVP
solves again for `b' - matvec'(x)`, its transpose solves the transposed system with
`transpose_solve` (whose operator `vecmat` is the transpose of `matvec`). Its lowering inlines
the `solve` jaxpr (`stablejax.lowering.rules.control_flow.solves`).

`custom_root` is a `custom_jvp_call` of the root finder: the JVP solves the linearized system
with `tangent_solve` (the implicit function theorem)."""
from __future__ import annotations

import functools
from typing import Any, Callable, NamedTuple, Sequence

import numpy as np

from stablejax import core, lax
from stablejax.interpreters import ad, batching, flops, partial_eval as pe
from stablejax.jaxpr import ClosedJaxpr, jaxpr_as_fun
from stablejax.lax.control_flow.common import (
    check_types, trace_to_jaxpr_with_consts, tree_args)
from stablejax.lax.custom_derivatives import Rule, custom_jvp_call_p
from stablejax.tree_util import (PyTreeDef, tree_flatten, tree_leaves, tree_structure,
                                 tree_unflatten)
from stablejax.util import split_list

__all__ = ["custom_linear_solve", "custom_root", "linear_solve_p"]


class LinearSolveTuple(NamedTuple):
  """One entry per jaxpr of a linear solve (the jaxprs, or their numbers of operands)."""
  matvec: Any
  vecmat: Any
  solve: Any
  transpose_solve: Any

  def transpose(self) -> LinearSolveTuple:
    """The entries of the transposed system: operators and solvers swap."""
    return LinearSolveTuple(self.vecmat, self.matvec, self.transpose_solve, self.solve)


# ----------------------------------------------------------------------------------------------
# Tracing the user's functions

def _check_tree(name: str, expected_name: str, actual: PyTreeDef, expected: PyTreeDef,
                has_aux: bool = False) -> None:
  """JAX's errors for a function whose output tree is not its argument's."""
  if has_aux:
    children = actual.children()
    if len(children) != 2:
      raise ValueError(f"{name}() produced a pytree with structure {actual}, but a pytree tuple "
                       "with auxiliary output was expected because has_aux was set to True.")
    actual = children[0]
  if actual != expected:
    raise TypeError(f"{name}() output pytree structure must match {expected_name}, got {actual} "
                    f"and {expected}.")


def _check_shapes(name: str, expected_name: str, actual: Sequence, expected: Sequence) -> None:
  actual_shapes, expected_shapes = [np.shape(x) for x in actual], [np.shape(x) for x in expected]
  if actual_shapes != expected_shapes:
    raise ValueError(f"{name}() output shapes must match {expected_name}, got {actual_shapes} "
                     f"and {expected_shapes}")


def _trace(fun: Callable, name: str, tree: PyTreeDef, avals: Sequence[core.ShapedArray],
           has_aux: bool = False, expected_name: str = "b", check_shapes: bool = True
           ) -> tuple[ClosedJaxpr, list, PyTreeDef]:
  """`fun` of one argument (of `tree`, `avals`) traced into a jaxpr taking its closed-over
  values first; its output (the first of a pair with `has_aux`) must have the argument's tree
  (and, with `check_shapes`, its shapes)."""
  def checked(x):
    y = fun(x)
    if has_aux and not (isinstance(y, tuple) and len(y) == 2):
      _check_tree(name, expected_name, tree_structure(y), tree, has_aux)  # raises
    if check_shapes:
      _check_shapes(name, expected_name, tree_leaves(y[0] if has_aux else y), avals)
    return y
  jaxpr, consts, out_tree = trace_to_jaxpr_with_consts(
      checked, tree_args((tree_unflatten(tree, avals),)), avals)
  _check_tree(name, expected_name, out_tree, tree, has_aux)
  return jaxpr, consts, out_tree


def _as_tree_fun(jaxpr: ClosedJaxpr, consts: Sequence, tree: PyTreeDef) -> Callable:
  """The traced function of one pytree argument, again."""
  return lambda x: tree_unflatten(tree, jaxpr_as_fun(jaxpr)(*consts, *tree_leaves(x)))


def _transpose_operator(matvec: ClosedJaxpr, num_consts: int) -> ClosedJaxpr:
  """vecmat: the transpose of the linear `matvec` (taking the same closed-over values)."""
  num_x = len(matvec.in_avals) - num_consts
  return ad.transpose_jaxpr(matvec, [False] * num_consts + [True] * num_x)


# ----------------------------------------------------------------------------------------------
# custom_linear_solve

def custom_linear_solve(matvec: Callable, b: Any, solve: Callable[[Callable, Any], Any],
                        transpose_solve: Callable[[Callable, Any], Any] | None = None,
                        symmetric: bool = False, has_aux: bool = False) -> Any:
  """`solve(matvec, b)`, differentiated as the solution x of the linear system matvec(x) = b
  (implicitly, not through `solve`); reverse mode needs `transpose_solve` (defaulting to `solve`
  when `symmetric`). With `has_aux` the solvers return `(x, aux)`."""
  if transpose_solve is None and symmetric:
    transpose_solve = solve
  b_flat, tree = tree_flatten(b)
  avals = [core.get_aval(x) for x in b_flat]
  matvec_jaxpr, matvec_consts, _ = _trace(matvec, "matvec", tree, avals)
  solve_jaxpr, solve_consts, out_tree = _trace(functools.partial(solve, matvec), "solve", tree,
                                               avals, has_aux)
  vecmat_jaxpr = tr_solve_jaxpr = None
  vecmat_consts: list = []
  tr_solve_consts: list = []
  if transpose_solve is not None:
    if symmetric:
      vecmat_jaxpr, vecmat_consts = matvec_jaxpr, matvec_consts
    else:
      vecmat_jaxpr, vecmat_consts = _transpose_operator(matvec_jaxpr, len(matvec_consts)), \
          matvec_consts
    vecmat = _as_tree_fun(vecmat_jaxpr, vecmat_consts, tree)
    tr_solve_jaxpr, tr_solve_consts, _ = _trace(functools.partial(transpose_solve, vecmat),
                                                "transpose_solve", tree, avals, has_aux)
  all_consts = [matvec_consts, vecmat_consts, solve_consts, tr_solve_consts]
  out = linear_solve_p.bind(
      *[c for cs in all_consts for c in cs], *b_flat,
      const_lengths=LinearSolveTuple(*map(len, all_consts)),
      jaxprs=LinearSolveTuple(matvec_jaxpr, vecmat_jaxpr, solve_jaxpr, tr_solve_jaxpr))
  return tree_unflatten(out_tree, out)


def _split(args: Sequence, const_lengths: LinearSolveTuple) -> tuple[LinearSolveTuple, list]:
  """The operands of a linear solve: each jaxpr's closed-over values, and b."""
  *params, b = split_list(list(args), list(const_lengths))
  return LinearSolveTuple(*params), b


def _linear_solve_abstract_eval(*avals: core.ShapedArray, const_lengths: LinearSolveTuple,
                                jaxprs: LinearSolveTuple) -> list[core.ShapedArray]:
  params, b = _split(avals, const_lengths)
  check_types("custom_linear_solve: solve takes", jaxprs.solve.in_avals,
              "its operands are", [*params.solve, *b])
  return [*b, *jaxprs.solve.out_avals[len(b):]]


def linear_solve_impl(*args: Any, const_lengths: LinearSolveTuple, jaxprs: LinearSolveTuple
                      ) -> list:
  """The solve jaxpr applied to b (the lowering inlines it)."""
  params, b = _split(args, const_lengths)
  return jaxpr_as_fun(jaxprs.solve)(*params.solve, *b)


def _operator_tangent(matvec: ClosedJaxpr, params: Sequence, params_dot: Sequence,
                      x: Sequence) -> list:
  """matvec'(x): the derivative of the operator, with respect to its closed-over values, at x."""
  nonzeros = [type(t) is not ad.Zero for t in params_dot] + [False] * len(x)
  jvp, _ = ad.jvp_jaxpr(matvec, nonzeros, True)
  outs = jaxpr_as_fun(jvp)(*params, *x, *[t for t in params_dot if type(t) is not ad.Zero])
  return outs[len(matvec.out_avals):]


def _linear_solve_jvp(primals, tangents, *, const_lengths, jaxprs):
  """x' = solve(b' - matvec'(x)), matvec' the operator's derivative (its aux has none)."""
  x = linear_solve_p.bind(*primals, const_lengths=const_lengths, jaxprs=jaxprs)
  params, _ = _split(primals, const_lengths)
  params_dot, b_dot = _split(tangents, const_lengths)
  x_leaves, aux = x[:len(b_dot)], x[len(b_dot):]
  rhs = b_dot
  if any(type(t) is not ad.Zero for t in params_dot.matvec):
    matvec_dot = _operator_tangent(jaxprs.matvec, params.matvec, params_dot.matvec, x_leaves)
    rhs = [ad.add_tangents(b, lax.neg(m)) for b, m in zip(b_dot, matvec_dot)]
  if all(type(t) is ad.Zero for t in rhs):
    return x, [ad.Zero.from_primal_value(v) for v in x]
  x_dot = linear_solve_p.bind(*[p for ps in params for p in ps],
                              *map(ad.instantiate_zeros, rhs), const_lengths=const_lengths,
                              jaxprs=jaxprs)
  return x, x_dot[:len(b_dot)] + [ad.Zero.from_primal_value(a) for a in aux]


def _linear_solve_transpose(cts, *args, const_lengths, jaxprs):
  """The cotangent of b: the transposed system solved for the cotangent of x."""
  if jaxprs.transpose_solve is None:
    raise TypeError("transpose_solve required for backwards mode automatic differentiation of "
                    "custom_linear_solve")
  params, b = _split(args, const_lengths)
  if any(ad.is_undefined_primal(x) for xs in params for x in xs):
    raise NotImplementedError("custom_linear_solve is linear only in b, not in the values its "
                              "functions close over")
  x_cts, aux_cts = cts[:len(b)], cts[len(b):]
  if any(type(ct) is not ad.Zero for ct in aux_cts):
    raise NotImplementedError("custom_linear_solve: a cotangent of the solver's aux output")
  transposed = params.transpose()
  b_cts = linear_solve_p.bind(*[p for ps in transposed for p in ps],
                              *map(ad.instantiate_zeros, x_cts),
                              const_lengths=const_lengths.transpose(), jaxprs=jaxprs.transpose())
  return [None] * sum(const_lengths) + b_cts[:len(b)]


def _batch_fixpoint(axis_data, jaxprs: LinearSolveTuple, params_bat: LinearSolveTuple,
                    b_bat: list[bool]) -> tuple[LinearSolveTuple, list[bool], list[bool]]:
  """Which of x and b must be batched so that every jaxpr agrees (JAX's fixed point): x is
  batched where solve or vecmat make it so, b where b, matvec or transpose_solve do."""
  matvec, vecmat, solve, solve_t = jaxprs
  num_x = len(matvec.out_avals)
  num_aux = len(solve.out_avals) - num_x
  x_bat = [False] * len(solve.out_avals)
  orig_b_bat = list(b_bat)
  for _ in range(2 + len(b_bat) + len(x_bat)):
    dims = lambda flags: [0 if f else None for f in flags]
    solve_b, solve_x_dims = batching.batch_jaxpr(solve, axis_data,
                                                 dims(params_bat.solve + b_bat), x_bat)
    x_out = [d is not None for d in solve_x_dims]
    vecmat_b = None
    if vecmat is not None:
      vecmat_b, vecmat_dims = batching.batch_jaxpr(vecmat, axis_data,
                                                   dims(params_bat.vecmat + b_bat), b_bat)
      x_out = [v or s for v, s in zip([d is not None for d in vecmat_dims] + [True] * num_aux,
                                      x_out)]
    matvec_b, matvec_dims = batching.batch_jaxpr(matvec, axis_data,
                                                 dims(params_bat.matvec + x_out[:num_x]), b_bat)
    b_out = [m is not None or o for m, o in zip(matvec_dims, orig_b_bat)]
    solve_t_b = None
    if solve_t is not None:
      solve_t_b, solve_t_dims = batching.batch_jaxpr(
          solve_t, axis_data, dims(params_bat.transpose_solve + x_out[:num_x]), x_out)
      b_out = [o or d is not None for o, d in zip(b_out, solve_t_dims[:len(b_bat)])]
    if x_out == x_bat and b_out == b_bat:
      return LinearSolveTuple(matvec_b, vecmat_b, solve_b, solve_t_b), x_bat, b_bat
    x_bat, b_bat = x_out, b_out
  raise RuntimeError("custom_linear_solve batching: no fixed point reached")


def _linear_solve_batch(axis_data, args, dims, *, const_lengths, jaxprs):
  params, b = _split(args, const_lengths)
  params_dims, b_dims = _split(dims, const_lengths)
  params_bat = LinearSolveTuple(*[[d is not None for d in ds] for ds in params_dims])
  batched, x_bat, b_bat = _batch_fixpoint(axis_data, jaxprs, params_bat,
                                          [d is not None for d in b_dims])
  new_params = [batching.bdim_at_front(x, d, axis_data.size) if d is not None else x
                for x, d in zip(sum(params, []), sum(params_dims, []))]
  new_b = [batching.bdim_at_front(x, d, axis_data.size) if now else x
           for x, d, now in zip(b, b_dims, b_bat)]
  outs = linear_solve_p.bind(*new_params, *new_b, const_lengths=const_lengths, jaxprs=batched)
  return outs, [0 if f else None for f in x_bat]


def _linear_solve_partial_eval(trace: pe.PartialEvalTrace, args: Sequence, params: dict) -> list:
  """Staged whole once an operand is unknown (as JAX): under `grad` the solve of the tangents
  is the linear part, transposed as one."""
  return trace.stage(linear_solve_p, args, params)


def _linear_solve_flops(avals_in, avals_out, *, jaxprs, **_) -> float:
  return flops.jaxpr_flops(jaxprs.solve)


linear_solve_p = core.Primitive("custom_linear_solve")
linear_solve_p.multiple_results = True
linear_solve_p.def_abstract_eval(_linear_solve_abstract_eval)
ad.primitive_jvps[linear_solve_p] = _linear_solve_jvp
ad.primitive_transposes[linear_solve_p] = _linear_solve_transpose
batching.fancy_primitive_batchers[linear_solve_p] = _linear_solve_batch
pe.partial_eval_rules[linear_solve_p] = _linear_solve_partial_eval
flops.flops_rules[linear_solve_p] = _linear_solve_flops


# ----------------------------------------------------------------------------------------------
# custom_root

def custom_root(f: Callable, initial_guess: Any, solve: Callable[[Callable, Any], Any],
                tangent_solve: Callable[[Callable, Any], Any], has_aux: bool = False) -> Any:
  """`solve(f, initial_guess)`, a root of `f`, differentiated with respect to the values `f`
  closes over by the implicit function theorem: the tangent solves the system linearized at the
  root with `tangent_solve(g, y)` (returning x with g(x) = y)."""
  guess, tree = tree_flatten(initial_guess)
  avals = [core.get_aval(x) for x in guess]
  f_jaxpr, f_consts, _ = _trace(f, "f", tree, avals, expected_name="initial_guess",
                                check_shapes=False)
  solve_jaxpr, solve_consts, out_tree = _trace(functools.partial(solve, f), "solve", tree, avals,
                                               has_aux, "initial_guess", check_shapes=False)

  def linearize_and_solve(x, b):
    return tangent_solve(_linearized(f_jaxpr, f_consts, tree, tree_leaves(x)), b)

  l_and_s, l_and_s_consts, l_and_s_tree = trace_to_jaxpr_with_consts(
      linearize_and_solve, tree_args((initial_guess, initial_guess)), avals + avals)
  _check_tree("tangent_solve", "x", l_and_s_tree, tree)
  lengths = (len(f_consts), len(solve_consts), len(l_and_s_consts))
  operands = [*f_consts, *solve_consts, *l_and_s_consts, *guess]
  call = pe.trace_to_closed_jaxpr(
      lambda *args: _root_solve(solve_jaxpr, lengths, args), [core.get_aval(x) for x in operands])
  rule = Rule(functools.partial(_root_jvp, f_jaxpr, solve_jaxpr, l_and_s, lengths),
              "_root_jvp", "_custom_root")
  out = custom_jvp_call_p.bind(*operands, call_jaxpr=call, jvp_jaxpr_fun=rule, num_consts=0,
                               symbolic_zeros=False)
  return tree_unflatten(out_tree, out)


def _linearized(f_jaxpr: ClosedJaxpr, f_consts: Sequence, tree: PyTreeDef, x: Sequence
                ) -> Callable:
  """The derivative of `f` at x, a function of one pytree tangent."""
  jvp, _ = ad.jvp_jaxpr(f_jaxpr, [False] * len(f_consts) + [True] * len(x), True)

  def f_jvp(t):
    outs = jaxpr_as_fun(jvp)(*f_consts, *x, *tree_leaves(t))
    return tree_unflatten(tree, outs[len(f_jaxpr.out_avals):])
  return f_jvp


def _root_solve(solve_jaxpr: ClosedJaxpr, lengths: tuple[int, int, int], args: Sequence) -> list:
  f_consts, solve_consts, _, guess = split_list(list(args), list(lengths))
  return jaxpr_as_fun(solve_jaxpr)(*solve_consts, *guess)


def _root_jvp(f_jaxpr: ClosedJaxpr, solve_jaxpr: ClosedJaxpr, l_and_s: ClosedJaxpr,
              lengths: tuple[int, int, int], *args: Any) -> list:
  """x' = -(df/dx)^-1 (df/dparams) params' at the root x (aux outputs get zero tangents)."""
  primals, tangents = args[:len(args) // 2], args[len(args) // 2:]
  f_consts, _, l_and_s_consts, _ = split_list(list(primals), list(lengths))
  f_consts_dot = tangents[:lengths[0]]
  sol = _root_solve(solve_jaxpr, lengths, primals)
  num_x = len(f_jaxpr.out_avals)
  solution, aux = sol[:num_x], sol[num_x:]
  jvp, _ = ad.jvp_jaxpr(f_jaxpr, [True] * len(f_consts) + [False] * num_x, True)
  rhs = jaxpr_as_fun(jvp)(*f_consts, *solution, *f_consts_dot)[num_x:]
  solution_dot = [lax.neg(t) for t in jaxpr_as_fun(l_and_s)(*l_and_s_consts, *solution, *rhs)]
  return [*solution, *aux, *solution_dot, *[ad.instantiate_zeros(ad.Zero.from_primal_value(a)) for a in aux]]
