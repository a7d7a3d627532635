"""The rules every call-like primitive shares: JVP, transpose, batching, partial evaluation and
dead-code elimination (JAX's call rules).

A call-like primitive (`jit`, `remat2`, `shard_map`, the custom-derivative calls) holds a jaxpr
in a param and applies it to its operands. Each transformation transforms that jaxpr
(`ad.jvp_jaxpr`, `ad.transpose_jaxpr`, `batching.batch_jaxpr`, `pe.partial_eval_jaxpr`,
`dce.prune_jaxpr`) and binds the primitive again on it. A `CallRules` subclass says only what
differs between call-likes:

- `jaxpr_param`: the param holding the jaxpr;
- `per_value`: pairs of params with one entry per operand and one per result (`shard_map`'s
  `in_specs`/`out_specs`); the kit rebuilds them for the new call from `Slot`s, which say where
  each of its operands and results comes from;
- `update`: the other params of the new call (`jit`'s `name`, `remat2`'s `differentiated`);
- `open_body`: the param holds an open jaxpr without constvars (`call`'s `call_jaxpr`), so a
  transformed body's consts become leading operands of the new call;
- further hooks (`scope`, `wrap_transposed`, `wrap_split`, `residual_entry`, `batched_entry`)
  for a call whose body runs in a context of its own (`shard_map`'s mesh).

`register_call_rules(rules, *which)` registers the rules in the interpreters' tables.
"""
from __future__ import annotations

import contextlib
from typing import Any, ContextManager, NamedTuple, Sequence

from stablejax import core
from stablejax.interpreters import ad, batching, dce, partial_eval as pe
from stablejax.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn
from stablejax.util import merge_lists


def check_call_types(what: str, avals: Sequence[core.ShapedArray], jaxpr: ClosedJaxpr | Jaxpr
                     ) -> Sequence[core.ShapedArray]:
  """The result types of calling `jaxpr` on operands of types `avals` (the abstract evaluation
  of a call); a TypeError naming `what` when those are not the types `jaxpr` takes."""
  expected = jaxpr.in_avals
  if len(avals) != len(expected) or not all(map(core.typematch, avals, expected)):
    raise TypeError(f"{what}: called with {[a.str_short() for a in avals]} but its jaxpr takes "
                    f"{[a.str_short() for a in expected]}")
  return jaxpr.out_avals


class Slot(NamedTuple):
  """Where an operand or result of a transformed call comes from: operand `index` of the
  original call (`side="in"`), its result `index` (`"out"`), or a residual of partial evaluation
  (`"res"`); `batch_dim` is the batch axis a batched value gained."""
  side: str
  index: int = 0
  batch_dim: int | None = None


RESIDUAL = Slot("res")


def _ins(flags: Sequence[bool]) -> list[Slot]:
  return [Slot("in", i) for i, f in enumerate(flags) if f]


def _outs(flags: Sequence[bool]) -> list[Slot]:
  return [Slot("out", i) for i, f in enumerate(flags) if f]


class Change(NamedTuple):
  """A transformation of a call: its name (`jvp`, `vmap`, `transpose`, `known`, `unknown`,
  `dce`), the new jaxpr, where the new call's operands and results come from, and the batch
  size under `vmap`."""
  transform: str
  jaxpr: ClosedJaxpr
  ins: Sequence[Slot]
  outs: Sequence[Slot]
  axis_size: int | None = None


class CallRules:
  """The rules of one call-like primitive; subclasses override the hooks for what differs."""
  jaxpr_param: str = "jaxpr"
  per_value: tuple[tuple[str, str], ...] = ()
  # Batch every operand and result at axis 0 (a call whose user rules are mapped uniformly).
  batch_uniformly: bool = False
  # Keep every operand under DCE (a call whose user rules may read operands its jaxpr does not).
  dce_keeps_inputs: bool = False
  # Transpose without the symbolic zero cotangents, as JAX's pjit (a body that closes over
  # none of the call's context may drop them).
  prune_zero_cotangents: bool = False
  # The param holds an open jaxpr that takes no consts (JAX's `call_p`): a transformed body's
  # consts are passed as the new call's leading operands.
  open_body: bool = False

  def __init__(self, primitive: core.Primitive):
    self.primitive = primitive

  # --------------------------------------------------------------------------------------------
  # Hooks

  def body(self, params: dict) -> ClosedJaxpr:
    """The called jaxpr, closed."""
    jaxpr = params[self.jaxpr_param]
    return ClosedJaxpr(jaxpr, []) if self.open_body else jaxpr

  def update(self, params: dict, change: Change) -> dict:
    """The params of the new call other than its jaxpr and `per_value` ones."""
    return params

  def scope(self, params: dict) -> ContextManager:
    """The context the body is transformed in."""
    return contextlib.nullcontext()

  def residual_entry(self, params: dict, param: str) -> Any:
    """The entry of the `per_value` param `param` for a residual."""
    raise NotImplementedError(f"{self.primitive.name}: no entry of {param} for a residual")

  def batched_entry(self, entry: Any, batch_dim: int) -> Any:
    """The entry of a `per_value` param for its value batched at `batch_dim`."""
    return entry

  def ct_avals(self, params: dict, cts: Sequence) -> Sequence[core.ShapedArray] | None:
    """The types the transposed body takes cotangents of (None: the body's output types)."""
    return [core.get_aval(ct) for ct in cts]

  def wrap_transposed(self, ct_jaxpr: ClosedJaxpr, params: dict, linear: Sequence[bool]
                      ) -> ClosedJaxpr:
    """The body of the transposed call, from the transposed body."""
    return ct_jaxpr

  def wrap_split(self, known: ClosedJaxpr, unknown: ClosedJaxpr, num_res: int, params: dict
                 ) -> tuple[ClosedJaxpr, ClosedJaxpr]:
    """The bodies of the known and unknown calls, from the split body."""
    return known, unknown

  # --------------------------------------------------------------------------------------------
  # The kit

  def bind(self, args: Sequence, params: dict, change: Change) -> Any:
    """Bind the primitive as `change` makes it of a call with `params`."""
    return self.primitive.bind(*self.hoisted(change), *args, **self.new_params(params, change))

  def hoisted(self, change: Change) -> list:
    """The operands the new call takes before those `change` gives: the consts of an open
    body."""
    return list(change.jaxpr.consts) if self.open_body else []

  def new_params(self, params: dict, change: Change) -> dict:
    """The params of the call `change` makes of a call with `params`."""
    body = pe.convert_constvars_jaxpr(change.jaxpr.jaxpr) if self.open_body else change.jaxpr
    new = {**self.update(params, change), self.jaxpr_param: body}
    for pair in self.per_value:
      new[pair[0]] = tuple(self._entry(params, pair, slot) for slot in change.ins)
      new[pair[1]] = tuple(self._entry(params, pair, slot) for slot in change.outs)
    return new

  def _entry(self, params: dict, pair: tuple[str, str], slot: Slot) -> Any:
    """The entry for the value at `slot` of the `per_value` params `pair`."""
    if slot.side == "res":
      return self.residual_entry(params, pair[0])
    entry = params[pair[0] if slot.side == "in" else pair[1]][slot.index]
    return entry if slot.batch_dim is None else self.batched_entry(entry, slot.batch_dim)

  # --------------------------------------------------------------------------------------------
  # The rules

  def jvp(self, primals: Sequence, tangents: Sequence, **params: Any) -> tuple[list, list]:
    """Call the JVP of the body on the primals and the nonzero tangents."""
    jaxpr = self.body(params)
    nonzeros = [type(t) is not ad.Zero for t in tangents]
    with self.scope(params):
      jvp_jaxpr, out_nonzeros = ad.jvp_jaxpr(jaxpr, nonzeros, instantiate=False)
    n_out = len(jaxpr.out_avals)
    change = Change("jvp", jvp_jaxpr, _ins([True] * len(primals)) + _ins(nonzeros),
                    _outs([True] * n_out) + _outs(out_nonzeros))
    outs = self.bind([*primals, *[t for t in tangents if type(t) is not ad.Zero]], params, change)
    primals_out, nz_tangents_out = outs[:n_out], iter(outs[n_out:])
    return primals_out, [next(nz_tangents_out) if nz else ad.Zero.from_primal_value(p)
                         for p, nz in zip(primals_out, out_nonzeros)]

  def transpose(self, cts: Sequence, *args: Any, **params: Any) -> list:
    """Call the transposed body on the non-linear operands and the output cotangents."""
    jaxpr = self.body(params)
    linear = [ad.is_undefined_primal(x) for x in args]
    zero_cts = [self.prune_zero_cotangents and type(ct) is ad.Zero for ct in cts]
    cts = [ad.instantiate_zeros(ct) for ct in cts]
    with self.scope(params):
      ct_jaxpr = ad.transpose_jaxpr(jaxpr, linear, self.ct_avals(params, cts), zero_cts)
    ct_jaxpr = self.wrap_transposed(ct_jaxpr, params, linear)
    cts = [ct for ct, zero in zip(cts, zero_cts) if not zero]
    change = Change("transpose", ct_jaxpr, _ins([not lin for lin in linear]) +
                    _outs([not zero for zero in zero_cts]), _ins(linear))
    outs = iter(self.bind([*[x for x, lin in zip(args, linear) if not lin], *cts], params,
                          change))
    return [next(outs) if lin else None for lin in linear]

  def batch(self, axis_data: batching.AxisData, args: Sequence, dims: Sequence, **params: Any
            ) -> tuple[list, list]:
    """Call the batched body."""
    size = axis_data.size
    if self.batch_uniformly:
      args = [batching.bdim_at_front(x, d, size) for x, d in zip(args, dims)]
      dims = [0] * len(args)
    with self.scope(params):
      batched, out_dims = batching.batch_jaxpr(self.body(params), axis_data, dims,
                                               instantiate=self.batch_uniformly)
    change = Change("vmap", batched, [Slot("in", i, d) for i, d in enumerate(dims)],
                    [Slot("out", i, d) for i, d in enumerate(out_dims)], size)
    return self.bind(args, params, change), out_dims

  def partial_eval(self, trace: pe.PartialEvalTrace, args: Sequence, params: dict) -> list:
    """Call the known part of the body now and stage the call of its unknown part."""
    unknowns = [trace.is_unknown(x) for x in args]
    with self.scope(params):
      known, unknown, out_unknowns, num_res = pe.partial_eval_jaxpr(
          self.body(params), unknowns, False)
    known, unknown = self.wrap_split(known, unknown, num_res, params)
    known_flags = [not u for u in out_unknowns]
    with core.set_current_trace(trace.parent):
      known_outs = self.bind([x for x, u in zip(args, unknowns) if not u], params, Change(
          "known", known, _ins([not u for u in unknowns]),
          _outs(known_flags) + [RESIDUAL] * num_res))
    n_known = len(known_outs) - num_res
    unknown_change = Change("unknown", unknown, [RESIDUAL] * num_res + _ins(unknowns),
                            _outs(out_unknowns))
    unknown_outs = trace.stage(self.primitive, self.hoisted(unknown_change) +
                               known_outs[n_known:] + [x for x, u in zip(args, unknowns) if u],
                               self.new_params(params, unknown_change))
    return merge_lists(out_unknowns, known_outs[:n_known], unknown_outs)

  def stage_whole(self, trace: pe.PartialEvalTrace, args: Sequence, params: dict) -> list:
    """Partial evaluation that stages the whole call once an operand is unknown."""
    return trace.stage(self.primitive, args, params)

  def dce(self, used_outputs: list[bool], eqn: JaxprEqn) -> tuple[list[bool], JaxprEqn]:
    """The body's unused results, and the operands only they need."""
    jaxpr = self.body(eqn.params)
    pruned, used_inputs = dce.prune_jaxpr(jaxpr, used_outputs, self.dce_keeps_inputs)
    if pruned is jaxpr and all(used_inputs) and all(used_outputs):
      return used_inputs, eqn
    params = self.new_params(eqn.params, Change("dce", pruned, _ins(used_inputs),
                                                _outs(used_outputs)))
    return used_inputs, dce.rebuild_eqn(eqn, used_inputs, used_outputs, **params)


def register_call_rules(rules: CallRules, *which: str) -> None:
  """Register `rules` for its primitive: those named in `which` (default: `jvp`, `transpose`,
  `batching`, `partial_eval`, `dce`; `stage_whole` stages the call whole under partial
  evaluation instead of splitting it)."""
  tables = {"jvp": (ad.primitive_jvps, rules.jvp),
            "transpose": (ad.primitive_transposes, rules.transpose),
            "batching": (batching.fancy_primitive_batchers, rules.batch),
            "partial_eval": (pe.partial_eval_rules, rules.partial_eval),
            "stage_whole": (pe.partial_eval_rules, rules.stage_whole),
            "dce": (dce.dce_rules, rules.dce)}
  for name in which or ("jvp", "transpose", "batching", "partial_eval", "dce"):
    if name not in tables:
      raise ValueError(f"register_call_rules: unknown rule {name!r}; expected one of "
                       f"{sorted(tables)}")
    table, rule = tables[name]
    table[rules.primitive] = rule
