"""`scan`: a loop over the leading axis of arrays that threads a carry and stacks per-iteration
outputs; the `scan` primitive with its abstract evaluation, JVP, batching, partial
evaluation and transpose rules (its lowering is in `stablejax.lowering.rules.control_flow.scan`)."""
from __future__ import annotations

import inspect
from typing import Any, Callable, Sequence

from stablejax import core, runtime
from stablejax.core import ShapedArray
from stablejax.interpreters import ad, batching, dce, flops, partial_eval as pe
from stablejax.jaxpr import ClosedJaxpr, JaxprEqn, hide_params
from stablejax.lax.control_flow.common import (
    carry_fixpoint, promote_weak, trace_to_jaxpr_with_consts, tree_args, with_binders)
from stablejax.tree_util import PyTreeDef, tree_flatten, tree_structure, tree_unflatten
from stablejax.util import merge_lists, partition_list, split_list

__all__ = ["scan", "scan_p"]

scan_p = core.Primitive("scan")
scan_p.multiple_results = True


# ----------------------------------------------------------------------------------------------
# The user-facing function

def scan(f: Callable, init: Any, xs: Any = None, length: int | None = None,
         reverse: bool = False, unroll: int | bool = 1, _split_transpose: bool = False
         ) -> tuple[Any, Any]:
  """Loop `carry, y = f(carry, x)` over the leading axis of `xs`; returns `(carry, stacked ys)`.

  `_split_transpose` (JAX's experimental request to transpose as a scan plus a map) is accepted
  and changes no result: stablejax transposes a scan as one scan."""
  if not callable(f):
    raise TypeError(f"lax.scan: f argument should be a callable, got {f!r}")
  xs_flat, xs_tree = tree_flatten(xs)
  length = _scan_length(xs_flat, length)
  unroll = _canonical_unroll(unroll, length)
  init_flat, init_tree = tree_flatten(init)
  x_avals = [batching.mapped_aval(core.get_aval(x), 0) for x in xs_flat]
  body = _BodyTrace(f, init_tree, xs_tree, x_avals)
  jaxpr, consts = body.trace(init_flat)
  promoted = [promote_weak(x, a) for x, a in zip(init_flat, body.carry_out_avals(jaxpr))]
  if any(p is not x for p, x in zip(promoted, init_flat)):
    init_flat = promoted
    jaxpr, consts = body.trace(init_flat)
  body.check_carry(init_flat, jaxpr)
  carry, ys = _bind_forwarding(jaxpr, consts, init_flat, xs_flat, length=length,
                               reverse=bool(reverse), unroll=unroll)
  return tree_unflatten(init_tree, carry), tree_unflatten(body.ys_tree, ys)


def _bind_forwarding(jaxpr: ClosedJaxpr, consts: list, init: list, xs: list, **params: Any
                     ) -> tuple[list, list]:
  """Bind `scan`, as JAX does: a carry the body returns unchanged becomes a const, and a ys
  that is an xs slice unchanged is not copied (the xs is returned). Returns (carry, ys)."""
  invars, outvars = jaxpr.jaxpr.invars, jaxpr.jaxpr.outvars
  position = {v: i for i, v in enumerate(invars)}
  n_consts, n_carry = len(consts), len(init)
  carry_outs, ys_outs = split_list(outvars, [n_carry])
  to_const = [position.get(v) == n_consts + i for i, v in enumerate(carry_outs)]
  xs_fwd = [position.get(v, -1) - n_consts - n_carry for v in ys_outs]
  xs_fwd = [i if i >= 0 else None for i in xs_fwd]
  const_vars, carry_vars, x_vars = split_list(invars, [n_consts, n_carry])
  kept_carry_vars, moved_vars = partition_list(to_const, carry_vars)
  kept_init, moved_init = partition_list(to_const, init)
  jaxpr = with_binders(jaxpr, moved_vars + const_vars + kept_carry_vars + x_vars,
                        partition_list(to_const, carry_outs)[0] +
                        [v for v, i in zip(ys_outs, xs_fwd) if i is None])
  outs = _bind_scan(moved_init + consts, kept_init, xs, jaxpr=jaxpr,
                    linear=[False] * len(invars), **params)
  carry, ys = split_list(outs, [len(kept_init)])
  ys = iter(ys)
  return (merge_lists(to_const, carry, moved_init),
          [next(ys) if i is None else _maybe_put(xs[i]) for i in xs_fwd])


def _maybe_put(x: Any) -> Any:
  """A concrete xs returned as a ys is put on the device (a copy, like every output)."""
  return x if isinstance(x, core.Tracer) else runtime.device_put(x)


def _scan_length(xs_flat: Sequence, length: Any) -> int:
  """The number of iterations: `length`, or the common leading axis size of the xs."""
  for x in xs_flat:
    if not core.get_aval(x).shape:
      raise ValueError(f"scan got value with no leading axis to scan over: {x!r} of type "
                       f"{core.get_aval(x).str_short()}")
  lengths = sorted({core.get_aval(x).shape[0] for x in xs_flat})
  if length is not None:
    length = int(core.concrete_or_error(length, "the `length` argument of scan (use "
                                                "while_loop or fori_loop for a dynamic length)"))
    if lengths and lengths != [length]:
      raise ValueError(f"scan got `length` argument of {length} which disagrees with leading "
                       f"axis sizes {[core.get_aval(x).shape[0] for x in xs_flat]}")
    return length
  if not lengths:
    raise ValueError("scan got no values to scan over and `length` not provided")
  if len(lengths) > 1:
    raise ValueError("scan got values with different leading axis sizes: "
                     f"{', '.join(str(core.get_aval(x).shape[0]) for x in xs_flat)}")
  return lengths[0]


def _canonical_unroll(unroll: int | bool, length: int) -> int:
  if isinstance(unroll, bool):
    return max(length, 1) if unroll else 1
  if not isinstance(unroll, int) or unroll < 0:
    raise ValueError(f"scan's `unroll` must be a bool or a non-negative int, got {unroll!r}")
  return unroll


class _BodyTrace:
  """Tracing the user's body `f(carry, x) -> (carry, y)` into a jaxpr."""

  def __init__(self, f: Callable, init_tree: PyTreeDef, xs_tree: PyTreeDef,
               x_avals: list[ShapedArray]):
    self.f, self.init_tree, self.xs_tree, self.x_avals = f, init_tree, xs_tree, x_avals
    self.carry_tree = self.ys_tree = None

  def _pair(self, carry: Any, x: Any) -> tuple[Any, Any]:
    out = self.f(carry, x)
    if not (isinstance(out, (tuple, list)) and len(out) == 2):
      raise TypeError(f"scan body output must be a pair (carry, y), got {out!r}")
    self.carry_tree, self.ys_tree = tree_structure(out[0]), tree_structure(out[1])
    return tuple(out)

  def trace(self, init_flat: Sequence) -> tuple[ClosedJaxpr, list]:
    carry_avals = [core.get_aval(x) for x in init_flat]
    in_tree = tree_args((tree_unflatten(self.init_tree, carry_avals),
                         tree_unflatten(self.xs_tree, self.x_avals)))
    jaxpr, consts, _ = trace_to_jaxpr_with_consts(self._pair, in_tree,
                                                  carry_avals + self.x_avals)
    if self.carry_tree != self.init_tree:
      raise TypeError("scan body function carry input and carry output must have the same "
                      f"pytree structure, but they differ: the input carry is "
                      f"{self.init_tree} and the carry output is {self.carry_tree}. Revise the "
                      "function so that the carry output has the structure of the carry input.")
    return jaxpr, consts

  def carry_out_avals(self, jaxpr: ClosedJaxpr) -> list[ShapedArray]:
    return jaxpr.out_avals[:self.init_tree.num_leaves]

  def check_carry(self, init_flat: Sequence, jaxpr: ClosedJaxpr) -> None:
    """A clear error naming both types when the body changes the type of a carry leaf."""
    diffs = [(i, core.get_aval(x), out) for i, (x, out) in
             enumerate(zip(init_flat, self.carry_out_avals(jaxpr)))
             if not core.typematch(core.get_aval(x), out)]
    if diffs:
      name = _first_param_name(self.f)
      lines = [f"  the input carry {name}{_leaf_where(i, len(init_flat))} has type "
               f"{a.str_short()} but the corresponding output carry component has type "
               f"{b.str_short()}" for i, a, b in diffs]
      raise TypeError("scan body function carry input and carry output must have equal "
                      "types, but they differ:\n" + "\n".join(lines) + "\nRevise the function "
                      "so that all output types match the corresponding input types.")


def _first_param_name(f: Callable) -> str:
  try:
    params = list(inspect.signature(f).parameters)
  except (TypeError, ValueError):
    params = []
  return params[0] if params else "(the first argument)"


def _leaf_where(i: int, n: int) -> str:
  return f" (leaf {i} of {n})" if n > 1 else ""


# ----------------------------------------------------------------------------------------------
# Abstract evaluation (evaluated eagerly, a scan is compiled and run on the device)

def _stacked(aval: ShapedArray, length: int) -> ShapedArray:
  return ShapedArray((length,) + aval.shape, aval.dtype, aval.weak_type)


def _unstacked(aval: ShapedArray) -> ShapedArray:
  return ShapedArray(aval.shape[1:], aval.dtype, aval.weak_type)


def _scan_abstract_eval(*avals: ShapedArray, jaxpr: ClosedJaxpr, length: int, reverse: bool,
                        linear: tuple, unroll: int, num_consts: int, num_carry: int
                        ) -> list[ShapedArray]:
  if len(avals) != len(jaxpr.in_avals):
    raise TypeError(f"scan: {len(avals)} operands given but its body takes "
                    f"{len(jaxpr.in_avals)} (num_consts={num_consts}, num_carry={num_carry})")
  consts_carry, xs = split_list(avals, [num_consts + num_carry])
  expected = consts_carry + [_stacked(a, length) for a in jaxpr.in_avals[len(consts_carry):]]
  for i, (a, e) in enumerate(zip(avals, expected)):
    if not core.typematch(a, e):
      raise TypeError(f"scan: operand {i} has type {a.str_short()} but the body (over "
                      f"length={length}) needs {e.str_short()}")
  carry_in = jaxpr.in_avals[num_consts:num_consts + num_carry]
  carry_out, ys = split_list(jaxpr.out_avals, [num_carry])
  for i, (a, b) in enumerate(zip(carry_in, carry_out)):
    if not core.typematch(a, b):
      raise TypeError(f"scan: carry {i} enters the body as {a.str_short()} but leaves it as "
                      f"{b.str_short()}")
  return carry_out + [_stacked(a, length) for a in ys]


scan_p.def_abstract_eval(_scan_abstract_eval)
hide_params(scan_p, "linear")  # JAX 0.10 does not print `linear`


# ----------------------------------------------------------------------------------------------
# Helpers for the rules

def _interleave(a: Sequence, b: Sequence, a_sizes: Sequence[int], b_sizes: Sequence[int]
                ) -> list:
  """The groups of `a` (of `a_sizes`, then the rest) each followed by the same group of `b`:
  `[a0, a1, a2] + [b0, b1, b2]` becomes `[a0, b0, a1, b1, a2, b2]`."""
  groups = zip(split_list(a, a_sizes), split_list(b, b_sizes))
  return [x for ga, gb in groups for x in ga + gb]


def _bind_scan(consts: Sequence, carry: Sequence, xs: Sequence, *, jaxpr: ClosedJaxpr,
               linear: Sequence[bool], **params: Any) -> list:
  return scan_p.bind(*consts, *carry, *xs, jaxpr=jaxpr, linear=tuple(linear),
                     num_consts=len(consts), num_carry=len(carry), **params)


# ----------------------------------------------------------------------------------------------
# JVP: the body's JVP, tangents of consts, carries and xs next to their primals

def _scan_jvp(primals, tangents, *, jaxpr: ClosedJaxpr, num_consts: int, num_carry: int,
              linear: tuple, **params):
  nonzeros = [type(t) is not ad.Zero for t in tangents]
  const_nz, init_nz, xs_nz = split_list(nonzeros, [num_consts, num_carry])
  num_ys = len(jaxpr.out_avals) - num_carry

  def jvp_body(carry_nz):
    return ad.jvp_jaxpr(jaxpr, const_nz + carry_nz + xs_nz, carry_nz + [False] * num_ys)

  carry_nz = carry_fixpoint(init_nz, lambda nz: jvp_body(nz)[1][:num_carry])
  body, out_nz = jvp_body(carry_nz)
  nz_sizes = [sum(const_nz), sum(carry_nz)]
  n_in, n_out = len(primals), len(jaxpr.out_avals)
  invars, outvars = body.jaxpr.invars, body.jaxpr.outvars
  body = with_binders(
      body, _interleave(invars[:n_in], invars[n_in:], [num_consts, num_carry], nz_sizes),
      _interleave(outvars[:n_out], outvars[n_out:], [num_carry], nz_sizes[1:]))
  consts, init, xs = split_list(primals, [num_consts, num_carry])
  consts_t, init_t, xs_t = split_list(tangents, [num_consts, num_carry])
  init_t = [ad.instantiate_zeros(t) for t, nz in zip(init_t, carry_nz) if nz]
  consts_t, xs_t = [[t for t in ts if type(t) is not ad.Zero] for ts in (consts_t, xs_t)]
  tangents_linear = [True] * (len(consts_t) + len(init_t) + len(xs_t))
  outs = _bind_scan(consts + consts_t, init + init_t, xs + xs_t, jaxpr=body,
                    linear=_interleave(linear, tangents_linear, [num_consts, num_carry],
                                       nz_sizes), **params)
  carry, carry_t, ys, ys_t = split_list(outs, [num_carry, sum(carry_nz), num_ys])
  primals_out = carry + ys
  nz_t = iter(carry_t + ys_t)
  return primals_out, [next(nz_t) if nz else ad.Zero.from_primal_value(p)
                       for p, nz in zip(primals_out, carry_nz + out_nz[num_carry:])]


ad.primitive_jvps[scan_p] = _scan_jvp


# ----------------------------------------------------------------------------------------------
# Batching: batched consts and carries get the batch axis first, batched xs get it second

def _scan_batch(axis_data, args, dims, *, jaxpr: ClosedJaxpr, num_consts: int, num_carry: int,
                **params):
  size = axis_data.size
  batched = [d is not batching.not_mapped for d in dims]
  const_b, init_b, xs_b = split_list(batched, [num_consts, num_carry])
  num_ys = len(jaxpr.out_avals) - num_carry

  def batch_body(carry_b):
    in_dims = [0 if b else batching.not_mapped for b in const_b + carry_b + xs_b]
    return batching.batch_jaxpr(jaxpr, axis_data, in_dims, carry_b + [False] * num_ys)

  carry_b = carry_fixpoint(
      init_b, lambda b: [d is not batching.not_mapped for d in batch_body(b)[1][:num_carry]])
  body, out_dims = batch_body(carry_b)
  consts, init, xs = split_list(args, [num_consts, num_carry])
  const_d, init_d, xs_d = split_list(dims, [num_consts, num_carry])
  consts = [batching.bdim_at_front(x, d, size) if d is not batching.not_mapped else x
            for x, d in zip(consts, const_d)]
  init = [batching.bdim_at_front(x, d, size) if b else x
          for x, d, b in zip(init, init_d, carry_b)]
  xs = [batching.moveaxis(x, d, 1) if d is not batching.not_mapped else x
        for x, d in zip(xs, xs_d)]
  outs = _bind_scan(consts, init, xs, jaxpr=body, **params)
  out_dims = ([0 if b else batching.not_mapped for b in carry_b] +
              [1 if d is not batching.not_mapped else d for d in out_dims[num_carry:]])
  return outs, out_dims


batching.fancy_primitive_batchers[scan_p] = _scan_batch


# ----------------------------------------------------------------------------------------------
# Partial evaluation: the known scan runs now and stacks its per-iteration residuals as extra
# outputs; the unknown scan takes them as extra xs. Residuals that are known consts or known xs
# forwarded unchanged are passed as they are (a const stays loop-invariant, not stacked).

class _Residuals:
  """Where each residual of the known body comes from: a loop-invariant value (a known const,
  or a const of the known jaxpr), a known xs forwarded unchanged, or computed per iteration
  (and so stacked as an extra output of the known scan)."""

  def __init__(self, known: ClosedJaxpr, num_res: int, known_args: Sequence,
               num_consts: int, num_carry: int):
    n_out = len(known.jaxpr.outvars) - num_res
    self.known_outvars, self.res_vars = split_list(known.jaxpr.outvars, [n_out])
    sources = {v: ("invariant", x) for v, x in zip(known.jaxpr.constvars, known.consts)}
    for i, (v, x) in enumerate(zip(known.jaxpr.invars, known_args)):
      if i < num_consts:
        sources[v] = ("invariant", x)
      elif i >= num_consts + num_carry:
        sources[v] = ("xs", x)
    self.sources = [sources.get(v, ("stacked", None)) for v in self.res_vars]

  def stacked_outvars(self) -> list:
    return [v for v, (kind, _) in zip(self.res_vars, self.sources) if kind == "stacked"]

  def split(self, binders: Sequence, stacked_values: Sequence) -> tuple[list, list, list, list]:
    """The unknown body's residual `binders` and their values: (invariant binders, values,
    per-iteration binders, values), the stacked values being the known scan's extra outputs."""
    stacked = iter(stacked_values)
    inv, ext = [], []
    for b, (kind, x) in zip(binders, self.sources):
      if kind == "invariant":
        inv.append((b, x))
      else:
        ext.append((b, next(stacked) if kind == "stacked" else x))
    return [b for b, _ in inv], [x for _, x in inv], [b for b, _ in ext], [x for _, x in ext]


def _scan_partial_eval(trace: pe.PartialEvalTrace, args: Sequence, params: dict) -> list:
  jaxpr, num_consts, num_carry = params["jaxpr"], params["num_consts"], params["num_carry"]
  static = {k: params[k] for k in ("length", "reverse", "unroll")}
  unknowns = [trace.is_unknown(x) for x in args]
  const_uk, init_uk, xs_uk = split_list(unknowns, [num_consts, num_carry])
  num_ys = len(jaxpr.out_avals) - num_carry

  def split_body(carry_uk):
    return pe.partial_eval_jaxpr(jaxpr, const_uk + carry_uk + xs_uk, carry_uk + [False] * num_ys)

  carry_uk = carry_fixpoint(init_uk, lambda uk: split_body(uk)[2][:num_carry])
  known, unknown, out_uk, num_res = split_body(carry_uk)
  groups_uk = [const_uk, carry_uk, xs_uk]

  def known_and_unknown(values):
    groups = split_list(values, [num_consts, num_carry])
    return [partition_list(uk, g) for uk, g in zip(groups_uk, groups)]

  (k_consts, u_consts), (k_init, u_init), (k_xs, u_xs) = known_and_unknown(args)
  (k_lin_c, u_lin_c), (k_lin_i, u_lin_i), (k_lin_x, u_lin_x) = known_and_unknown(
      params["linear"])
  res = _Residuals(known, num_res, k_consts + k_init + k_xs, len(k_consts), len(k_init))
  known = with_binders(known, known.jaxpr.invars, res.known_outvars + res.stacked_outvars())
  known_outs = []
  if known.jaxpr.outvars:  # else there is nothing to run now
    with core.set_current_trace(trace.parent):
      known_outs = _bind_scan(k_consts, k_init, k_xs, jaxpr=known,
                              linear=k_lin_c + k_lin_i + k_lin_x, **static)
  n_known = len(res.known_outvars)
  res_vars, uk_vars = split_list(unknown.jaxpr.invars, [num_res])
  inv_vars, inv_vals, ext_vars, ext_vals = res.split(res_vars, known_outs[n_known:])
  uc_vars, ui_vars, ux_vars = split_list(uk_vars, [len(u_consts), len(u_init)])
  unknown = with_binders(unknown, inv_vars + uc_vars + ui_vars + ux_vars + ext_vars,
                          unknown.jaxpr.outvars)
  unknown_outs = trace.stage(scan_p, inv_vals + u_consts + u_init + u_xs + ext_vals, dict(
      jaxpr=unknown, num_consts=len(inv_vals) + len(u_consts), num_carry=len(u_init),
      linear=tuple([False] * len(inv_vals) + u_lin_c + u_lin_i + u_lin_x +
                   [False] * len(ext_vals)), **static))
  return merge_lists(out_uk, known_outs[:n_known], unknown_outs)


pe.partial_eval_rules[scan_p] = _scan_partial_eval


# ----------------------------------------------------------------------------------------------
# Transposition: a scan in the opposite direction. Its consts are the defined (residual) consts;
# it carries the cotangents of the linear consts (accumulated) and of the carries; it scans over
# the output cotangents of the ys and the defined (residual) xs.

def _scan_transpose(cts, *args, jaxpr: ClosedJaxpr, num_consts: int, num_carry: int,
                    reverse: bool, linear: tuple, **params):
  consts, init, xs = split_list(args, [num_consts, num_carry])
  const_lin = [ad.is_undefined_primal(x) for x in consts]
  xs_lin = [ad.is_undefined_primal(x) for x in xs]
  res_consts = [x for x, lin in zip(consts, const_lin) if not lin]
  res_xs = [x for x, lin in zip(xs, xs_lin) if not lin]
  ct_carry, ct_ys = split_list(cts, [num_carry])
  ct_ys_zero = [type(ct) is ad.Zero for ct in ct_ys]
  ct_carry = [ad.instantiate_zeros(ct) for ct in ct_carry]
  body = _transpose_body(jaxpr, tuple(const_lin), tuple(xs_lin), tuple(ct_ys_zero),
                         tuple(core.get_aval(ct) for ct in ct_carry),
                         tuple(_unstacked(core.get_aval(ct))
                               for ct, z in zip(ct_ys, ct_ys_zero) if not z))
  ct_consts = [ad.zeros_like_aval(x.aval) for x in consts if ad.is_undefined_primal(x)]
  outs = _bind_scan(res_consts, ct_consts + ct_carry,
                    [ct for ct, z in zip(ct_ys, ct_ys_zero) if not z] + res_xs, jaxpr=body,
                    linear=[False] * len(res_consts) + [True] * (len(ct_consts) + num_carry) +
                    [True] * ct_ys_zero.count(False) + [False] * len(res_xs),
                    reverse=not reverse, **params)
  ct_consts, ct_init, ct_xs = split_list(outs, [len(ct_consts), num_carry])
  ct_consts, ct_xs = iter(ct_consts), iter(ct_xs)
  return ([next(ct_consts) if lin else None for lin in const_lin] +
          [ct if ad.is_undefined_primal(x) else None for x, ct in zip(init, ct_init)] +
          [next(ct_xs) if lin else None for lin in xs_lin])


def _transpose_body(jaxpr: ClosedJaxpr, const_lin: tuple, xs_lin: tuple, ct_ys_zero: tuple,
                    ct_carry_avals: tuple, ct_y_avals: tuple) -> ClosedJaxpr:
  """The body of the transposed scan:
  `(res_consts; ct_consts, ct_carry; ct_ys, res_xs) -> (ct_consts + ct, ct_carry_in; ct_xs)`,
  the carried and scanned cotangents typed as they arrive (weak types included, as JAX's)."""
  num_carry = len(ct_carry_avals)
  const_avals, carry_avals, x_avals = split_list(jaxpr.in_avals, [len(const_lin), num_carry])
  y_avals = jaxpr.out_avals[num_carry:]
  res_c_avals, lin_c_avals = partition_list(const_lin, const_avals)
  res_x_avals, lin_x_avals = partition_list(xs_lin, x_avals)

  def body(*args):
    res_c, ct_consts, ct_carry, ct_ys, res_x = split_list(
        args, [len(res_c_avals), len(lin_c_avals), num_carry, len(ct_y_avals)])
    primals = (merge_lists(const_lin, res_c, map(ad.UndefinedPrimal, lin_c_avals)) +
               [ad.UndefinedPrimal(a) for a in carry_avals] +
               merge_lists(xs_lin, res_x, map(ad.UndefinedPrimal, lin_x_avals)))
    ct_ys = iter(ct_ys)
    cts_out = ct_carry + [ad.Zero(a) if z else next(ct_ys) for a, z in zip(y_avals, ct_ys_zero)]
    cts_in = ad.backward_pass(jaxpr.jaxpr, jaxpr.consts, primals, cts_out)
    ct_c, ct_init, ct_x = split_list(cts_in, [len(const_lin), num_carry])
    ct_c = [ad.add_tangents(acc, ct) for acc, ct in
            zip(ct_consts, [ct for ct, lin in zip(ct_c, const_lin) if lin])]
    ct_x = [ct for ct, lin in zip(ct_x, xs_lin) if lin]
    return [ad.instantiate_zeros(ct) for ct in ct_c + ct_init + ct_x]

  return pe.trace_to_closed_jaxpr(body, res_c_avals + lin_c_avals + list(ct_carry_avals) +
                                  list(ct_y_avals) + res_x_avals)


ad.primitive_transposes[scan_p] = _scan_transpose


# ----------------------------------------------------------------------------------------------
# Dead-code elimination: unused stacked outputs, and the carries only they need (to a fixpoint,
# as JAX does)

def _scan_dce(used_outputs: list[bool], eqn: JaxprEqn) -> tuple[list[bool], JaxprEqn]:
  params = eqn.params
  body, n_consts, n_carry = params["jaxpr"], params["num_consts"], params["num_carry"]
  used_ys = used_outputs[n_carry:]
  n_xs = len(eqn.invars) - n_consts - n_carry

  def needs(carry: list[bool]) -> list[bool]:
    return dce.prune_jaxpr(body, carry + used_ys, False)[1][n_consts:n_consts + n_carry]

  used_carry = dce.used_fixpoint(used_outputs[:n_carry], needs)
  new_body, used_inputs = dce.prune_jaxpr(body, used_carry + used_ys,
                                          [False] * n_consts + used_carry + [False] * n_xs)
  if all(used_inputs) and all(used_ys):
    return used_inputs, dce.rebuild_eqn(eqn, used_inputs, used_carry + used_ys, jaxpr=new_body)
  return used_inputs, dce.rebuild_eqn(
      eqn, used_inputs, used_carry + used_ys, jaxpr=new_body,
      num_consts=sum(used_inputs[:n_consts]), num_carry=sum(used_carry),
      linear=tuple(dce.keep(params["linear"], used_inputs)))


dce.dce_rules[scan_p] = _scan_dce


# ----------------------------------------------------------------------------------------------
# FLOPS (conventions: stablejax.flops)

def _scan_flops(avals_in, avals_out, *, jaxpr, length, **_) -> float:
  return length * flops.jaxpr_flops(jaxpr)


flops.flops_rules[scan_p] = _scan_flops
