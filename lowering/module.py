"""Lowering a jaxpr to a verified StableHLO module, equation by equation through the rules."""
from __future__ import annotations

import re
import warnings
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import func
from jaxlib.mlir.dialects import stablehlo as hlo

from stablejax import core, platforms
from stablejax.interpreters import partial_eval as pe
from stablejax.interpreters.rule_checks import rule_location
from stablejax.jaxpr import (ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var, eqn_effects,
                             has_subjaxprs)
from stablejax.lowering import shapes
from stablejax.lowering.context import (aval_to_ir_type, dim_var_aval, ir_constant,
                                        literal_constant, make_ir_context)
from stablejax.lowering.locations import equation_location, plain_location
from stablejax.lowering.partitioning import ShardingContext, annotate_main, ensure_mesh
from stablejax.lowering.registry import (LoweringError, checks_results, lookup_rule,
                                         physical_lowerings)
from stablejax.shape_poly import all_dim_vars
from stablejax.util import gc_paused

SourceInfo = core.SourceInfo  # what `JaxprEqn.source_info` holds

_name_regex = re.compile(r"[^\w.-]")


def sanitize_name(name: str) -> str:
  """A name usable as an MLIR symbol (as JAX does: other characters become `_`)."""
  return _name_regex.sub("_", name)


def canonical_platforms(platform: str | Sequence[str]) -> tuple[str, ...]:
  """The platforms a module is lowered for, from a name or a sequence of names: canonical
  (`platforms.canonical`), at least one, no duplicates."""
  names = (platform,) if isinstance(platform, str) else tuple(platform)
  result = tuple(map(platforms.canonical, names))
  if not result or len(set(result)) != len(result):
    raise ValueError(f"lowering needs one or more distinct platforms, got {platform!r}")
  return result


def ordered_effects(effects: Iterable[core.Effect]) -> list[core.Effect]:
  """The ordered effects among `effects` in the order their tokens take in signatures and
  results (sorted by repr, so modules are deterministic)."""
  return sorted((e for e in effects if e.ordered), key=lambda e: (repr(e), type(e).__qualname__))


def token_type() -> ir.Type:
  return hlo.TokenType.get()


class ModuleContext:
  """What the rules share while one module is built: the module, its symbol table, the
  platforms, unique names and the functions already lowered for callee jaxprs.

  `platforms` are those the code being lowered runs on: all of the module's
  (`module_platforms`) at the top, fewer inside the `stablehlo.case` branch of a rule that
  differs between them. With several module platforms, `platform_index` is the leading
  `tensor<i32>` argument of the function being lowered: the index in `module_platforms` of the
  platform running it. `replace` gives such a view; names and caches stay shared.

  `axis_context` (JAX's name) is the partitioning of a module for several devices (a
  `partitioning.ShardingContext`: its mesh, `@main`'s argument and result shardings), None for
  one device: rules whose ops need a sharding there read it.

  `dim_vars` are the names of the module's dimension variables (those of `@main`'s symbolic
  argument shapes, sorted): every function takes each as a `tensor<i32>` (i64 under x64)
  argument marked `jax.global_constant`, after the platform index, as in JAX; `dim_var_values`
  are those arguments of the function being lowered, which `lowering.shapes` evaluates
  symbolic dimensions from."""
  __slots__ = ("module", "symbol_table", "platforms", "module_platforms", "platform_index",
               "dim_vars", "dim_var_values", "debug_info", "scope", "axis_context", "callees",
               "overrides", "_counters", "_taken", "_rules")

  def __init__(self, module: ir.Module, platform: str | Sequence[str], debug_info: bool = False,
               scope: str = "", axis_context: ShardingContext | None = None,
               overrides: Mapping[core.Primitive, Callable] | None = None,
               dim_vars: Sequence[str] = ()):
    self.module = module
    # primitive -> the rule lowering it on every platform of this module, before the registry's
    # (`jit(f).lower(lowering_rules=)`: JAX's `LoweringParameters.override_lowering_rules`)
    self.overrides = check_overrides(overrides)
    self.axis_context = axis_context
    self.symbol_table = ir.SymbolTable(module.operation)
    self.platforms = self.module_platforms = canonical_platforms(platform)
    self.platform_index: ir.Value | None = None
    self.dim_vars = tuple(dim_vars)
    self.dim_var_values: tuple[ir.Value, ...] = ()
    self.debug_info = debug_info
    self.scope = scope  # with debug info, the outermost name of every location: `jit(f)`
    self.callees: dict[Any, str] = {}  # (callee ClosedJaxpr, platforms) -> its function's name
    self._counters: dict[str, int] = {}
    self._taken: set[str] = set()
    self._rules: dict[core.Primitive, tuple[tuple[Callable, ...], bool]] = {}

  def replace(self, **fields: Any) -> ModuleContext:
    """A view of this context with `fields` (e.g. `platforms`) replaced."""
    new = object.__new__(ModuleContext)
    if "platforms" in fields:
      fields["_rules"] = {}  # (they are per platform)
    for k in self.__slots__:
      setattr(new, k, fields.pop(k, getattr(self, k)))
    if fields:
      raise TypeError(f"ModuleContext.replace: unknown fields {sorted(fields)}")
    return new

  @property
  def platform(self) -> str:
    """The platform the code runs on; an error where that is one of several (a rule that
    depends on the platform is registered per platform instead)."""
    if len(self.platforms) > 1:
      raise LoweringError(f"a lowering rule asked for the platform of a module lowered for "
                          f"several platforms {self.platforms}; register one rule per "
                          "platform (register_lowering(..., platform=...)) instead")
    return self.platforms[0]

  @property
  def multi_platform(self) -> bool:
    """Whether the code runs on several platforms (its functions take the platform index)."""
    return len(self.platforms) > 1

  def unique_name(self, base: str) -> str:
    """A fresh symbol name in this module: `base`, else `base_0`, `base_1`, ..."""
    base = sanitize_name(base)
    n = self._counters.get(base, 0)
    name = base if n == 0 else f"{base}_{n - 1}"
    while name in self._taken:
      n += 1
      name = f"{base}_{n - 1}"
    self._counters[base] = n + 1
    self._taken.add(name)
    return name

  def rules(self, prim: core.Primitive) -> tuple[Callable, ...]:
    """The rules lowering `prim` on each of `platforms` (looked up once per module)."""
    return self._rule_entry(prim)[0]

  def _rule_entry(self, prim: core.Primitive) -> tuple[tuple[Callable, ...], bool]:
    """(`rules(prim)`, whether the types of their results are checked: `checks_results`); a
    rule of `overrides` (this lowering's `lowering_rules`) in place of the registry's."""
    entry = self._rules.get(prim)
    if entry is None:
      override = self.overrides.get(prim)
      rules = tuple(override or lookup_rule(prim, p) for p in self.platforms)
      entry = self._rules[prim] = (rules, any(map(checks_results, rules)))
    return entry

  def location(self, name: str, source_info: SourceInfo | None) -> ir.Location:
    """A NameLoc `name`; with debug info, `scope/name` around the call-site chain of the
    user's frames that staged the equation (`file:line:col`, innermost first), as JAX has it."""
    if not self.debug_info:
      return plain_location(name)
    return equation_location(self.scope, name,
                             source_info.frames if source_info is not None else ())


def check_overrides(overrides: Mapping[core.Primitive, Callable] | None
                    ) -> dict[core.Primitive, Callable]:
  """`lowering_rules` as a dict, or a TypeError naming the entry that is not (primitive, rule)."""
  if overrides is None:
    return {}
  if not isinstance(overrides, Mapping):
    raise TypeError("lowering_rules must be a dict {primitive: rule}, not "
                    f"{type(overrides).__name__}")
  for prim, rule in overrides.items():
    if not isinstance(prim, core.Primitive):
      raise TypeError(f"lowering_rules: the key {prim!r} is not a core.Primitive")
    if not callable(rule):
      raise TypeError(f"lowering_rules: the rule for '{prim.name}' is not callable: {rule!r}")
  return dict(overrides)


Tokens = dict  # ordered effect -> the `!stablehlo.token` of the last operation with it


class LoweringRuleContext:
  """What a rule sees of the equation it lowers.

  Ordered effects: `tokens_in` maps each ordered effect of the equation (its primitive's and
  its sub-jaxprs', `jaxpr.eqn_effects`) to the `!stablehlo.token` of the last operation with
  that effect; it is empty for an equation without ordered effects. A rule that orders its
  work after them (a host callback's custom call takes the token as an operand and returns a
  new one) or threads them through sub-jaxprs (`jaxpr_subcomp(..., tokens=...)`) calls
  `set_tokens_out` with the new tokens; the effects it leaves out, and all of them if it
  never calls it, keep their input tokens."""
  __slots__ = ("module_context", "primitive", "avals_in", "avals_out", "name_stack",
               "source_info", "tokens_in", "tokens_out")

  def __init__(self, module_context: ModuleContext, primitive: core.Primitive | None,
               avals_in: Sequence[core.ShapedArray], avals_out: Sequence[core.ShapedArray],
               name_stack: str = "", source_info: SourceInfo | None = None,
               tokens_in: Mapping[core.Effect, ir.Value] | None = None):
    self.module_context = module_context
    self.primitive = primitive
    self.avals_in = avals_in
    self.avals_out = avals_out
    self.name_stack = name_stack  # the equation's location name, e.g. `integer_pow/mul`
    self.source_info = source_info
    self.tokens_in: Tokens = dict(tokens_in) if tokens_in else {}
    self.tokens_out: Tokens | None = None

  @property
  def platform(self) -> str:
    return self.module_context.platform

  @property
  def platforms(self) -> tuple[str, ...]:
    return self.module_context.platforms

  def set_tokens_out(self, tokens: Mapping[core.Effect, ir.Value]) -> None:
    """The tokens of the equation's ordered effects after it (see the class docstring)."""
    unknown = [e for e in tokens if e not in self.tokens_in]
    if unknown:
      name = self.primitive.name if self.primitive else "a rule"
      raise LoweringError(f"the lowering rule for '{name}' returned tokens for effects "
                          f"{unknown} that the equation does not have")
    self.tokens_out = {**self.tokens_in, **tokens}

  def token(self, effect: core.Effect) -> ir.Value:
    """The token of `effect` before the equation (a fresh one if it has none)."""
    token = self.tokens_in.get(effect)
    return hlo.create_token() if token is None else token

  def replace(self, **fields: Any) -> LoweringRuleContext:
    """A copy with `fields` replaced (and no tokens out yet)."""
    names = ("module_context", "primitive", "avals_in", "avals_out", "name_stack",
             "source_info", "tokens_in")
    return LoweringRuleContext(**{k: fields.pop(k, getattr(self, k)) for k in names}, **fields)


def _normalize_results(prim: core.Primitive, out: Any) -> list[ir.Value]:
  if isinstance(out, ir.Value):
    return [out]
  if isinstance(out, ir.OpView):
    return list(out.results)
  if isinstance(out, (list, tuple)):
    return list(out)
  raise LoweringError(f"the lowering rule for '{prim.name}' returned {out!r}; a rule returns "
                      "an ir.Value or a list of them")


def _check_results(prim: core.Primitive, outs: list, avals: Sequence[core.ShapedArray],
                   check_types: bool) -> None:
  """The rule returned one result per output, each of the output's type (if `check_types`)."""
  if len(outs) == len(avals):
    if not check_types:
      return
    try:
      for v, aval in zip(outs, avals):
        if v.type != aval_to_ir_type(aval):
          break
      else:
        return
    except AttributeError:  # not an ir.Value
      pass
  raise _bad_results(prim, outs, avals)


def _bad_results(prim: core.Primitive, outs: list, avals: Sequence[core.ShapedArray]
                 ) -> LoweringError:
  if len(outs) != len(avals):
    return LoweringError(f"the lowering rule for '{prim.name}' returned {len(outs)} values; "
                         f"the primitive has {len(avals)} outputs")
  got = [str(v.type) if isinstance(v, ir.Value) else repr(v) for v in outs]
  want = [f"{aval.str_short()} ({aval_to_ir_type(aval)})" for aval in avals]
  return LoweringError(f"the lowering rule for '{prim.name}' returned [{', '.join(got)}]; the "
                       f"primitive's outputs are [{', '.join(want)}]")


def _const_value(x: Any, aval: core.ShapedArray) -> ir.Value:
  if isinstance(x, ir.Value):
    return x
  if isinstance(x, core.Tracer):
    raise LoweringError(f"a constant of the jaxpr being lowered is a traced value ({x!r}); "
                        "pass it as an argument instead (partial_eval.convert_constvars_jaxpr)")
  return ir_constant(x, dtype=aval.dtype)


def _apply_rule(rule: Callable, ctx: LoweringRuleContext, args: Sequence[ir.Value],
                params: dict, check_types: bool) -> list[ir.Value]:
  prim = ctx.primitive
  try:
    outs = rule(ctx, *args, **params)
    outs = [outs] if isinstance(outs, ir.Value) else _normalize_results(prim, outs)
    if check_types or len(outs) != len(ctx.avals_out):
      _check_results(prim, outs, ctx.avals_out, check_types)
  except ir.MLIRError as e:
    error = LoweringError(f"the lowering rule for '{prim.name}' failed to build an op: {e}")
    _add_context(error, ctx, rule)
    raise error from e
  except Exception as e:
    _add_context(e, ctx, rule)
    raise
  return outs


_CONTEXT = "while lowering primitive"


def _add_context(e: BaseException, ctx: LoweringRuleContext, rule: Callable | None) -> None:
  """Note on `e` (keeping its type) the equation being lowered: its primitive, the platforms,
  the rule's file:line and the user's line that bound it (also as `e.bound_at`, (file, line),
  for tools); once, at the innermost equation (a rule lowering a jaxpr passes on its
  equations' errors)."""
  if any(note.startswith(_CONTEXT) for note in getattr(e, "__notes__", ())):
    return
  platforms = ", ".join(repr(p) for p in ctx.platforms)
  parts = [f"{_CONTEXT} '{ctx.primitive.name}' for platform {platforms}"]
  if rule is not None:
    parts.append(f"with the lowering rule {rule_location(rule)}")
  frames = ctx.source_info.frames if ctx.source_info is not None else ()
  if frames:
    code, lasti = frames[0]
    file, line = core.frame_position(code, lasti)[:2]
    parts.append(f"bound at {file}:{line} (in {code.co_qualname})")
    e.bound_at = (file, line)
  e.add_note(", ".join(parts))


def index_per_platform(module_ctx: ModuleContext, indices: Sequence[int]) -> ir.Value:
  """`indices[i]` when the module runs on its i-th platform (a `tensor<i32>`): the platform
  index itself where they are 0, 1, ..., else a `stablehlo.case` on it."""
  if list(indices) == list(range(len(indices))):
    return module_ctx.platform_index
  select = hlo.CaseOp([_index_type()], module_ctx.platform_index, len(indices))
  for region, i in zip(select.regions, indices):
    with ir.InsertionPoint(region.blocks.append()):
      hlo.return_([ir_constant(np.int32(i))])
  return select.result


def _lower_per_platform(ctx: LoweringRuleContext, rules: Sequence[Callable],
                        args: Sequence[ir.Value], params: dict) -> list[ir.Value]:
  """The equation lowered with `rules[i]` on the i-th of its platforms: the rule itself where
  they are all the same, else a `stablehlo.case` on the platform index with one branch per
  distinct rule (lowered for its platforms only), as JAX's `lower_per_platform`."""
  distinct = list({id(r): r for r in rules}.values())
  if len(distinct) == 1:
    return _apply_rule(distinct[0], ctx, args, params, checks_results(distinct[0]))
  module_ctx = ctx.module_context
  rule_of = {p: next(i for i, r in enumerate(distinct) if r is rule)
             for p, rule in zip(module_ctx.platforms, rules)}
  effects = list(ctx.tokens_in)
  case = hlo.CaseOp([token_type()] * len(effects) + [aval_to_ir_type(a) for a in ctx.avals_out],
                    index_per_platform(module_ctx, [rule_of.get(p, 0) for p in
                                                    module_ctx.module_platforms]),
                    len(distinct))
  for i, (region, rule) in enumerate(zip(case.regions, distinct)):
    narrowed = tuple(p for p in module_ctx.platforms if rule_of[p] == i)
    inner = ctx.replace(module_context=module_ctx.replace(platforms=narrowed))
    with ir.InsertionPoint(region.blocks.append()):
      outs = _apply_rule(rule, inner, args, params, checks_results(rule))
      tokens = inner.tokens_out or inner.tokens_in
      hlo.return_([tokens[e] for e in effects] + outs)
  results = list(case.results)
  if effects:
    ctx.set_tokens_out(dict(zip(effects, results)))
  return results[len(effects):]


def _lower_eqn(module_ctx: ModuleContext, eqn: JaxprEqn, args: Sequence[ir.Value],
               place: tuple[str, ir.Location], info: SourceInfo | None, tokens: Tokens,
               extended: bool = True) -> list[ir.Value]:
  """Lower one equation at `place` (its name and location), its ordered effects' tokens taken
  from and updated in `tokens`. Without `extended`, its jaxpr has no values of extended dtypes."""
  prim = eqn.primitive
  name, location = place
  # an equation's ordered effects are among its jaxpr's, which have tokens
  tokens_in = {e: tokens[e] for e in ordered_effects(eqn_effects(eqn))} if tokens else None
  ctx = LoweringRuleContext(module_ctx, prim, [x.aval for x in eqn.invars],
                            [v.aval for v in eqn.outvars], name, info, tokens_in)
  entry = module_ctx._rules.get(prim)
  if entry is None:
    try:
      entry = module_ctx._rule_entry(prim)
    except NotImplementedError as e:  # a missing rule (MissingLoweringRule, or JAX's type)
      _add_context(e, ctx, None)
      raise
  rules, check_types = entry
  if extended and prim not in physical_lowerings and _on_extended(ctx, eqn):
    rules = tuple(_per_component(rule) for rule in rules)
  with location:
    if len(rules) == 1:
      outs = _apply_rule(rules[0], ctx, args, eqn.params, check_types)
    else:
      outs = _lower_per_platform(ctx, rules, args, eqn.params)
  if ctx.tokens_out:
    tokens.update(ctx.tokens_out)
  return outs


def _on_extended(ctx: LoweringRuleContext, eqn: JaxprEqn) -> bool:
  """Whether the equation takes or makes values of extended dtypes (keys) and is not a call or
  control flow (whose jaxprs are lowered on the keys' physical types)."""
  if _all_plain(ctx.avals_in) and _all_plain(ctx.avals_out):
    return False
  return not has_subjaxprs(eqn)


def _has_extended(jaxpr: Jaxpr) -> bool:
  """Whether a value of `jaxpr` has an extended dtype (a key): each variable an equation reads
  is an input of the jaxpr or an earlier equation's output (literals are numpy scalars)."""
  if not (_all_plain([v.aval for v in jaxpr.constvars]) and
          _all_plain([v.aval for v in jaxpr.invars])):
    return True
  for e in jaxpr.eqns:
    for v in e.outvars:
      if not isinstance(v.aval.dtype, np.dtype):
        return True
  return False


def _all_plain(avals: Sequence[core.ShapedArray]) -> bool:
  """Whether all `avals` have numpy dtypes (a loop, not `all()`: this runs for every equation)."""
  for a in avals:
    if not isinstance(a.dtype, np.dtype):
      return False
  return True


def _component(ctx: LoweringRuleContext, value: ir.Value, aval: core.ShapedArray, j: int
               ) -> ir.Value:
  """Component `j` of the physical value of `aval` (of an extended dtype): its last axis."""
  physical = core.physical_aval(aval)
  start = [0] * physical.ndim
  start[-1] = j
  piece = shapes.slice_op(ctx, value, core.ShapedArray((*aval.shape, 1), physical.dtype), start,
                          [*physical.shape[:-1], j + 1], [1] * physical.ndim)
  return shapes.reshape(ctx, piece, core.ShapedArray(aval.shape, physical.dtype))


def _per_component(rule: Callable) -> Callable:
  """`rule`, applied to each component of the physical values of extended dtypes (a key's data
  words), the results stacked back: a structural op (slice, reshape, gather, select, ...) moves
  every word of a key alike."""
  def per_component(ctx: LoweringRuleContext, *args: ir.Value, **params: Any) -> list:
    def plain(aval):
      return (core.ShapedArray(aval.shape, aval.dtype.physical_dtype)
              if not isinstance(aval.dtype, np.dtype) else aval)
    ext = [a for a in (*ctx.avals_in, *ctx.avals_out) if not isinstance(a.dtype, np.dtype)][0]
    inner = ctx.replace(avals_in=list(map(plain, ctx.avals_in)),
                        avals_out=list(map(plain, ctx.avals_out)))
    parts = []
    for j in range(ext.dtype.physical_shape[0]):
      xs = [_component(ctx, x, a, j) if not isinstance(a.dtype, np.dtype) else x
            for x, a in zip(args, ctx.avals_in)]
      parts.append(_normalize_results(ctx.primitive, rule(inner, *xs, **params)))
    return [_stack_components(ctx, ps, a) if not isinstance(a.dtype, np.dtype) else ps[0]
            for a, ps in zip(ctx.avals_out, zip(*parts))]
  return per_component


def _stack_components(ctx: LoweringRuleContext, parts: Sequence[ir.Value],
                      aval: core.ShapedArray) -> ir.Value:
  physical = core.physical_aval(aval)
  one = core.ShapedArray((*aval.shape, 1), physical.dtype)
  return hlo.concatenate([shapes.reshape(ctx, p, one) for p in parts], physical.ndim - 1)


def jaxpr_subcomp(module_ctx: ModuleContext, jaxpr: Jaxpr, consts_values: Sequence[Any],
                  arg_values: Sequence[ir.Value], name_stack: str = "",
                  source_info: SourceInfo | None = None, tokens: Tokens | None = None
                  ) -> list[ir.Value]:
  """Emit `jaxpr`'s equations at the current insertion point; returns its outputs' values.
  `consts_values` are ir.Values or concrete values (made constants). A jaxpr traced inside a
  rule passes the rule's `name_stack` and `source_info`, which its equations then carry.
  `tokens` (ordered effect -> token) threads the jaxpr's ordered effects through its
  equations in program order and is updated in place; an ordered effect it lacks (all of them
  without `tokens`) starts from a fresh token."""
  tokens = {} if tokens is None else tokens
  for e in ordered_effects(jaxpr.effects):
    if e not in tokens:
      tokens[e] = hlo.create_token()
  env: dict = {}
  for v, x in zip(jaxpr.constvars, consts_values):
    env[v] = _const_value(x, v.aval)
  env.update(zip(jaxpr.invars, arg_values))

  def read(atom):
    if type(atom) is Literal:
      return literal_constant(atom.val, atom.aval.dtype)
    return env[atom]

  own_stack = source_info is None
  extended = _has_extended(jaxpr)
  places: dict = {}  # (primitive, source info) -> its equations' name and location
  for eqn in jaxpr.eqns:
    args = [env[x] if type(x) is Var else read(x) for x in eqn.invars]
    info = source_info or eqn.source_info
    place = places.get((eqn.primitive, eqn.source_info))
    if place is None:
      name = _eqn_name(name_stack, eqn, own_stack)
      place = places[eqn.primitive, eqn.source_info] = (name, module_ctx.location(name, info))
    outs = _lower_eqn(module_ctx, eqn, args, place, info, tokens, extended)
    if len(outs) == 1:
      env[eqn.outvars[0]] = outs[0]
    else:
      env.update(zip(eqn.outvars, outs))
  return [read(v) for v in jaxpr.outvars]


def _eqn_name(name_stack: str, eqn: JaxprEqn, own_stack: bool) -> str:
  """`name_stack/[the equation's own name stack/]primitive`: the name of its location."""
  info = eqn.source_info
  if own_stack and info is not None and info.name_stack:
    name = f"{core.name_stack_str(info.name_stack)}/{eqn.primitive.name}"
  else:
    name = eqn.primitive.name
  return f"{name_stack}/{name}" if name_stack else name


def _index_type() -> ir.Type:
  return aval_to_ir_type(core.ShapedArray((), np.dtype(np.int32)))


def _leading_arguments(module_ctx: ModuleContext) -> tuple[list[ir.Type], list[dict]]:
  """The types and attributes of the arguments every function of the module takes first: the
  platform index (with several platforms) and the dimension variables, each named by its
  `jax.global_constant` attribute as JAX's export names them."""
  names = ["_platform_index"] * module_ctx.multi_platform + list(module_ctx.dim_vars)
  types = [_index_type()] * module_ctx.multi_platform + \
      [aval_to_ir_type(dim_var_aval())] * len(module_ctx.dim_vars)
  return types, [{"jax.global_constant": ir.StringAttr.get(n)} for n in names]


def leading_operands(module_ctx: ModuleContext) -> list[ir.Value]:
  """The values a call of one of the module's functions passes first (`_leading_arguments`)."""
  index = [module_ctx.platform_index] if module_ctx.multi_platform else []
  return index + list(module_ctx.dim_var_values)


def lower_jaxpr_to_fun(module_ctx: ModuleContext, name: str, closed_jaxpr: ClosedJaxpr,
                       public: bool = False) -> func.FuncOp:
  """Add `func.func @name` computing `closed_jaxpr` (its consts become constants inside).
  Where `module_ctx` has several platforms, it takes the platform index (`tensor<i32>`) first.
  A private function (a callee) then takes and returns a token per ordered effect of the jaxpr
  (in `ordered_effects` order) before its arguments and results; a public one (`@main`)
  creates its tokens, so its signature is the jaxpr's and the calling convention unchanged."""
  jaxpr = closed_jaxpr.jaxpr
  effects = [] if public else ordered_effects(jaxpr.effects)
  lead_types, lead_attrs = _leading_arguments(module_ctx)
  n_lead = len(lead_types)
  tokens = [token_type()] * len(effects)
  in_types = lead_types + tokens + [aval_to_ir_type(a) for a in jaxpr.in_avals]
  out_types = tokens + [aval_to_ir_type(v.aval) for v in jaxpr.outvars]
  with ir.Location.unknown():
    fn = func.FuncOp(name, ir.FunctionType.get(in_types, out_types),
                     ip=ir.InsertionPoint(module_ctx.module.body))
    fn.sym_visibility = ir.StringAttr.get("public" if public else "private")
    if n_lead:
      fn.arg_attrs = ir.ArrayAttr.get([ir.DictAttr.get(a) for a in lead_attrs] +
                                      [ir.DictAttr.get({})] * (len(in_types) - n_lead))
    module_ctx.symbol_table.insert(fn)
    block = fn.add_entry_block()
    with ir.InsertionPoint(block):
      block_args = list(block.arguments)
      body_ctx = module_ctx
      if n_lead:
        n_index = int(module_ctx.multi_platform)
        body_ctx = module_ctx.replace(platform_index=block_args[0] if n_index else None,
                                      dim_var_values=tuple(block_args[n_index:n_lead]))
      token_values = dict(zip(effects, block_args[n_lead:n_lead + len(effects)]))
      outs = jaxpr_subcomp(body_ctx, jaxpr, closed_jaxpr.consts,
                           block_args[n_lead + len(effects):], tokens=token_values)
      func.ReturnOp([token_values[e] for e in effects] + outs)
  return fn


def call_jaxpr(ctx: LoweringRuleContext, closed_jaxpr: ClosedJaxpr, name: str,
               args: Sequence[ir.Value]) -> list[ir.Value]:
  """A `func.call` of a private function computing `closed_jaxpr`, lowered once per module
  and set of platforms (the function for a nested `jit`). The tokens of its ordered effects
  go in and come back (`ctx.tokens_in`, `ctx.set_tokens_out`)."""
  module_ctx = ctx.module_context
  key = (closed_jaxpr, module_ctx.platforms)
  callee = module_ctx.callees.get(key)
  if callee is None:
    callee = module_ctx.unique_name(name)
    lower_jaxpr_to_fun(module_ctx, callee, closed_jaxpr)
    module_ctx.callees[key] = callee
  effects = ordered_effects(closed_jaxpr.effects)
  out_types = [token_type()] * len(effects) + [aval_to_ir_type(a) for a in ctx.avals_out]
  operands = leading_operands(module_ctx) + [ctx.token(e) for e in effects] + list(args)
  results = list(func.CallOp(out_types, ir.FlatSymbolRefAttr.get(callee), operands).results)
  if effects:
    ctx.set_tokens_out({e: t for e, t in zip(effects, results) if e in ctx.tokens_in})
  return results[len(effects):]


def lower_jaxpr(closed_jaxpr: ClosedJaxpr, name: str, platform: str | Sequence[str] = "cpu",
                debug_info: bool = False, donated: Sequence[bool] = (),
                axis_context: ShardingContext | None = None,
                lowering_rules: Mapping[core.Primitive, Callable] | None = None) -> ir.Module:
  """The verified StableHLO module `@jit_<name>` whose public `@main` computes `closed_jaxpr`.
  Closed-over constants are embedded as `stablehlo.constant`s at the start of `@main`.
  `platform` is one platform, or a sequence of them: with two or more, `@main` takes first a
  `tensor<i32>` platform index (into `platform`: the calling convention of JAX's export), and
  each equation whose rule differs between them becomes a `stablehlo.case` on it. The
  arguments flagged in `donated` are aliased to results of their type (`alias_donated`).
  With an `axis_context`, the module is partitioned over its mesh: it has the mesh's
  `sdy.mesh`, and `@main`'s arguments and results their `sdy.sharding`s. `lowering_rules` (primitive -> rule) replace the registry's
  rules for this module only. Symbolic dimensions in the arguments' shapes make `@main` take the
  dimension variables first (`ModuleContext.dim_vars`)."""
  with make_ir_context(), ir.Location.unknown(), gc_paused():
    module = ir.Module.create()
    attrs = module.operation.attributes
    attrs["sym_name"] = ir.StringAttr.get(sanitize_name(f"jit_{name}").rstrip("_"))  # as JAX
    i32 = ir.IntegerType.get_signless(32)
    attrs["mhlo.num_partitions"] = ir.IntegerAttr.get(i32, 1)
    attrs["mhlo.num_replicas"] = ir.IntegerAttr.get(i32, 1)
    if axis_context is not None:
      ensure_mesh(module, axis_context.mesh)
    module_ctx = ModuleContext(module, platform, debug_info, f"jit({name})", axis_context,
                               lowering_rules,
                               all_dim_vars(a.shape for a in closed_jaxpr.in_avals))
    main = lower_jaxpr_to_fun(module_ctx, module_ctx.unique_name("main"), closed_jaxpr,
                              public=True)
    if axis_context is not None:
      annotate_main(main, axis_context)
    if any(donated):
      alias_donated(main, closed_jaxpr.in_avals, closed_jaxpr.out_avals, donated)
    verify_module(module)
  return module


def alias_donated(main: func.FuncOp, in_avals: Sequence[core.ShapedArray],
                  out_avals: Sequence[core.ShapedArray], donated: Sequence[bool]) -> None:
  """Mark each donated argument of `main` with `tf.aliasing_output`, the first result of its
  shape and dtype not yet taken, as JAX does: XLA then writes that result into the argument's
  buffer, and the argument is deleted by the call. A donated argument no result can reuse is
  not donated, with a warning naming its type (as JAX warns)."""
  free = list(range(len(out_avals)))
  attrs = ([_as_dict(ir.DictAttr(a)) for a in main.arg_attrs] if main.arg_attrs else
           [{} for _ in main.type.inputs])
  first = len(attrs) - len(in_avals)  # after the platform index, if any
  unusable = []
  for i, (aval, donate) in enumerate(zip(in_avals, donated)):
    if not donate:
      continue
    out = next((o for o in free if (out_avals[o].shape, out_avals[o].dtype) ==
                (aval.shape, aval.dtype)), None)
    if out is None:
      unusable.append(aval.str_short())
      continue
    free.remove(out)
    attrs[first + i]["tf.aliasing_output"] = ir.IntegerAttr.get(
        ir.IntegerType.get_signless(32), out)
  main.arg_attrs = ir.ArrayAttr.get([ir.DictAttr.get(a) for a in attrs])
  if unusable:
    warnings.warn(f"Some donated buffers were not usable: {', '.join(unusable)} (no result "
                  "of the same type to write into)", stacklevel=2)


def _as_dict(attr: ir.DictAttr) -> dict[str, ir.Attribute]:
  return {named.name: named.attr for named in (attr[i] for i in range(len(attr)))}


def copy_module(module: ir.Module) -> ir.Module:
  """A deep copy of `module` (its operations cloned, its attributes kept), in its context."""
  with module.context:
    new = ir.Module.create(loc=module.operation.location)
    attrs = module.operation.attributes
    for named in (attrs[i] for i in range(len(attrs))):
      new.operation.attributes[named.name] = named.attr
    ip = ir.InsertionPoint(new.body)
    for op in module.body.operations:
      op.clone(ip=ip)
  return new


def name_arguments(module: ir.Module, arg_names: Sequence[str],
                   result_names: Sequence[str] | None = None) -> None:
  """Name `@main`'s arguments (`loc("x")`) and, if given, results (`jax.result_info`) in
  place, as JAX's debug info does; the platform index, where there is one, keeps its own
  name."""
  with module.context:
    main = ir.SymbolTable(module.operation)["main"]
    args = list(main.regions[0].blocks[0].arguments)
    for arg, name in zip(args[len(args) - len(arg_names):], arg_names):
      arg.set_location(ir.Location.name(name))
    if result_names is not None and len(main.type.results) == len(result_names):
      main.result_attrs = ir.ArrayAttr.get([
          ir.DictAttr.get({"jax.result_info": ir.StringAttr.get(n)}) for n in result_names])


def fix_platform_index(module: ir.Module, index: int) -> ir.Module:
  """A copy of multi-platform `module` whose `@main` no longer takes the platform index: it
  calls the original (renamed, private) with the constant `index` (what compiling for one
  platform of the module needs; XLA folds the `case`s away)."""
  with make_ir_context(), ir.Location.unknown():
    new = ir.Module.parse(module_text(module, debug_info=True))
    symbols = ir.SymbolTable(new.operation)
    main = symbols["main"]
    inner_name = ModuleContext(new, "cpu").unique_name("main_multi_platform")
    symbols.set_symbol_name(main.operation, inner_name)
    main.sym_visibility = ir.StringAttr.get("private")
    fn_type = main.type
    inputs, results = list(fn_type.inputs), list(fn_type.results)
    if not inputs or inputs[0] != _index_type():
      raise LoweringError("fix_platform_index: the module's @main takes no platform index")
    wrapper = func.FuncOp("main", ir.FunctionType.get(inputs[1:], results),
                          ip=ir.InsertionPoint.at_block_begin(new.body))
    wrapper.sym_visibility = ir.StringAttr.get("public")
    block = wrapper.add_entry_block()
    with ir.InsertionPoint(block):
      operands = [ir_constant(np.int32(index))] + list(block.arguments)
      func.ReturnOp(func.CallOp(results, ir.FlatSymbolRefAttr.get(inner_name), operands).results)
    verify_module(new)
  return new


def lower_fun(fn: Callable, multiple_results: bool = False) -> Callable:
  """A lowering rule that traces `fn(*args, **params)` (written with stablejax ops) on the
  equation's input types and lowers the jaxpr in place, on the platforms of the code being
  lowered (platform-specific primitives inside get their rules) and in the order of the
  equation's ordered effects."""
  def rule(ctx: LoweringRuleContext, *args: ir.Value, **params: Any) -> list[ir.Value]:
    def flat_fn(*xs):
      out = fn(*xs, **params)
      return list(out) if multiple_results else [out]
    jaxpr, consts = pe.trace_to_jaxpr(flat_fn, [core.physical_aval(a) for a in ctx.avals_in])
    return inline_jaxpr(ctx, jaxpr, consts, args, ctx.name_stack, ctx.source_info)
  return rule


def inline_jaxpr(ctx: LoweringRuleContext, jaxpr: Jaxpr, consts: Sequence[Any],
                 args: Sequence[ir.Value], name_stack: str = "",
                 source_info: SourceInfo | None = None) -> list[ir.Value]:
  """Emit `jaxpr` in place of the equation `ctx` lowers, its ordered effects threaded from the
  equation's tokens (`ctx.tokens_in`) and back out (`ctx.set_tokens_out`)."""
  tokens = dict(ctx.tokens_in)
  outs = jaxpr_subcomp(ctx.module_context, jaxpr, consts, args, name_stack, source_info, tokens)
  if ctx.tokens_in:
    ctx.set_tokens_out({e: tokens[e] for e in ctx.tokens_in})
  return outs


# ----------------------------------------------------------------------------------------------
# Verification, with errors naming the primitive whose rule built the bad op

_loc_name_regex = re.compile(r'^loc\("((?:[^"\\]|\\.)*)"')


def _describe(diag: ir.DiagnosticInfo) -> str:
  match = _loc_name_regex.match(str(diag.location))
  where = "outside any equation"
  if match:
    stack = match.group(1)
    where = f"built by the lowering rule of primitive '{stack.rsplit('/', 1)[-1]}'"
    if "/" in stack:
      where += f" (at {stack})"
  notes = "".join(f"\n    note: {n.message}" for n in diag.notes)
  return f"  {where}: {diag.message}{notes}"


def module_text(op: ir.Module | ir.Operation, debug_info: bool | str = False) -> str:
  """The MLIR text of a lowered (so verified) module or one of its operations, printed without
  verifying it again (the printer's own check costs a fifth of the printing). `debug_info`
  prints locations: as `#loc` aliases at the end (True), or each in full on its op's line
  (`"inline"`, MLIR's local scope). Printed as bytes and decoded once: the printer writes a
  hundred thousand pieces for a big module, each one decoded apart when printing to a `str`."""
  if debug_info not in (False, True, "inline"):
    raise ValueError(f"debug_info must be True, False or 'inline', not {debug_info!r}")
  op = op.operation if isinstance(op, ir.Module) else op
  if not debug_info:
    # No aliases print without locations, so the printer's walk of the whole module that
    # gathers them (a tenth of the printing) is skipped by printing in local scope; the text
    # is the same but for the newline that ends a whole module.
    text = op.get_asm(assume_verified=True, use_local_scope=True, binary=True).decode()
    return text + "\n" if op.name == "builtin.module" else text
  return op.get_asm(enable_debug_info=True, assume_verified=True,
                    use_local_scope=debug_info == "inline", binary=True).decode()


def verify_module(module: ir.Module) -> None:
  """Run the MLIR verifier; a failure names the primitive that produced each bad op."""
  try:
    module.operation.verify()
  except ir.MLIRError as e:
    details = "\n".join(_describe(d) for d in e.error_diagnostics) or f"  {e}"
    raise LoweringError(f"the lowered StableHLO module failed verification:\n{details}") from e
