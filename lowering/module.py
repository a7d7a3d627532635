"""Lowering a jaxpr to a verified StableHLO module, equation by equation through the rules."""
from __future__ import annotations

import re
from typing import Any, Callable, Sequence

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import func

from stablejax import core, platforms
from stablejax.interpreters import partial_eval as pe
from stablejax.jaxpr import ClosedJaxpr, Jaxpr, Literal
from stablejax.lowering.context import aval_to_ir_type, ir_constant, make_ir_context
from stablejax.lowering.registry import LoweringError, lookup_rule

SourceInfo = tuple  # (file, line, function), as `JaxprEqn.source_info` holds it

_name_regex = re.compile(r"[^\w.-]")


def sanitize_name(name: str) -> str:
  """A name usable as an MLIR symbol (as JAX does: other characters become `_`)."""
  return _name_regex.sub("_", name)


class ModuleContext:
  """What the rules share while one module is built: the module, its symbol table, the
  platform, unique names and the functions already lowered for callee jaxprs."""
  __slots__ = ("module", "symbol_table", "platform", "debug_info", "callees", "_counters",
               "_taken", "_rules", "_locations")

  def __init__(self, module: ir.Module, platform: str, debug_info: bool = False):
    self.module = module
    self.symbol_table = ir.SymbolTable(module.operation)
    self.platform = platform
    self.debug_info = debug_info
    self.callees: dict[Any, str] = {}  # callee key (a ClosedJaxpr) -> its function's name
    self._counters: dict[str, int] = {}
    self._taken: set[str] = set()
    self._rules: dict[core.Primitive, Callable] = {}
    self._locations: dict[tuple, ir.Location] = {}

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

  def rule(self, prim: core.Primitive) -> Callable:
    """The rule lowering `prim` on this module's platform (looked up once per module)."""
    rule = self._rules.get(prim)
    if rule is None:
      rule = self._rules[prim] = lookup_rule(prim, self.platform)
    return rule

  def location(self, name: str, source_info: SourceInfo | None) -> ir.Location:
    """A NameLoc `name`, around the user's source line when debug info is on."""
    key = (name, source_info) if self.debug_info else (name,)
    loc = self._locations.get(key)
    if loc is None:
      if self.debug_info and source_info is not None:
        file, line = source_info[0], source_info[1]
        loc = ir.Location.name(name, childLoc=ir.Location.file(file, line, 0))
      else:
        loc = ir.Location.name(name)
      self._locations[key] = loc
    return loc


class LoweringRuleContext:
  """What a rule sees of the equation it lowers."""
  __slots__ = ("module_context", "primitive", "avals_in", "avals_out", "name_stack",
               "source_info")

  def __init__(self, module_context: ModuleContext, primitive: core.Primitive | None,
               avals_in: Sequence[core.ShapedArray], avals_out: Sequence[core.ShapedArray],
               name_stack: str = "", source_info: SourceInfo | None = None):
    self.module_context = module_context
    self.primitive = primitive
    self.avals_in = avals_in
    self.avals_out = avals_out
    self.name_stack = name_stack  # the equation's location name, e.g. `integer_pow/mul`
    self.source_info = source_info

  @property
  def platform(self) -> str:
    return self.module_context.platform


def _normalize_results(prim: core.Primitive, out: Any) -> list[ir.Value]:
  if isinstance(out, ir.Value):
    return [out]
  if isinstance(out, ir.OpView):
    return list(out.results)
  if isinstance(out, (list, tuple)):
    return list(out)
  raise LoweringError(f"the lowering rule for '{prim.name}' returned {out!r}; a rule returns "
                      "an ir.Value or a list of them")


def _check_results(prim: core.Primitive, outs: list, avals: Sequence[core.ShapedArray]) -> None:
  """The rule's results have the equation's output types."""
  if len(outs) == len(avals):
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


def jaxpr_subcomp(module_ctx: ModuleContext, jaxpr: Jaxpr, consts_values: Sequence[Any],
                  arg_values: Sequence[ir.Value], name_stack: str = "",
                  source_info: SourceInfo | None = None) -> list[ir.Value]:
  """Emit `jaxpr`'s equations at the current insertion point; returns its outputs' values.
  `consts_values` are ir.Values or concrete values (made constants). A jaxpr traced inside a
  rule passes the rule's `name_stack` and `source_info`, which its equations then carry."""
  env: dict = {}
  for v, x in zip(jaxpr.constvars, consts_values):
    env[v] = _const_value(x, v.aval)
  env.update(zip(jaxpr.invars, arg_values))

  def read(atom):
    if type(atom) is Literal:
      return ir_constant(atom.val, dtype=atom.aval.dtype)
    return env[atom]

  prefix = f"{name_stack}/" if name_stack else ""
  for eqn in jaxpr.eqns:
    prim = eqn.primitive
    name = prefix + prim.name
    info = source_info or eqn.source_info
    rule = module_ctx.rule(prim)
    avals_out = [v.aval for v in eqn.outvars]
    ctx = LoweringRuleContext(module_ctx, prim, [x.aval for x in eqn.invars], avals_out,
                              name, info)
    with module_ctx.location(name, info):
      try:
        outs = _normalize_results(prim, rule(ctx, *map(read, eqn.invars), **eqn.params))
      except ir.MLIRError as e:
        raise LoweringError(f"the lowering rule for '{prim.name}' failed to build an op: "
                            f"{e}") from e
    _check_results(prim, outs, avals_out)
    env.update(zip(eqn.outvars, outs))
  return [read(v) for v in jaxpr.outvars]


def lower_jaxpr_to_fun(module_ctx: ModuleContext, name: str, closed_jaxpr: ClosedJaxpr,
                       public: bool = False) -> func.FuncOp:
  """Add `func.func @name` computing `closed_jaxpr` (its consts become constants inside)."""
  jaxpr = closed_jaxpr.jaxpr
  in_types = [aval_to_ir_type(a) for a in jaxpr.in_avals]
  out_types = [aval_to_ir_type(v.aval) for v in jaxpr.outvars]
  with ir.Location.unknown():
    fn = func.FuncOp(name, ir.FunctionType.get(in_types, out_types),
                     ip=ir.InsertionPoint(module_ctx.module.body))
    fn.sym_visibility = ir.StringAttr.get("public" if public else "private")
    module_ctx.symbol_table.insert(fn)
    block = fn.add_entry_block()
    with ir.InsertionPoint(block):
      outs = jaxpr_subcomp(module_ctx, jaxpr, closed_jaxpr.consts, list(block.arguments))
      func.ReturnOp(outs)
  return fn


def call_jaxpr(ctx: LoweringRuleContext, closed_jaxpr: ClosedJaxpr, name: str,
               args: Sequence[ir.Value]) -> list[ir.Value]:
  """A `func.call` of a private function computing `closed_jaxpr`, lowered once per module
  (the function for a nested `jit`)."""
  module_ctx = ctx.module_context
  callee = module_ctx.callees.get(closed_jaxpr)
  if callee is None:
    callee = module_ctx.unique_name(name)
    lower_jaxpr_to_fun(module_ctx, callee, closed_jaxpr)
    module_ctx.callees[closed_jaxpr] = callee
  out_types = [aval_to_ir_type(a) for a in ctx.avals_out]
  return list(func.CallOp(out_types, ir.FlatSymbolRefAttr.get(callee), list(args)).results)


def lower_jaxpr(closed_jaxpr: ClosedJaxpr, name: str, platform: str = "cpu",
                debug_info: bool = False) -> ir.Module:
  """The verified StableHLO module `@jit_<name>` whose public `@main` computes `closed_jaxpr`.
  Closed-over constants are embedded as `stablehlo.constant`s at the start of `@main`."""
  platform = platforms.canonical(platform)
  with make_ir_context(), ir.Location.unknown():
    module = ir.Module.create()
    attrs = module.operation.attributes
    attrs["sym_name"] = ir.StringAttr.get(sanitize_name(f"jit_{name}"))
    i32 = ir.IntegerType.get_signless(32)
    attrs["mhlo.num_partitions"] = ir.IntegerAttr.get(i32, 1)
    attrs["mhlo.num_replicas"] = ir.IntegerAttr.get(i32, 1)
    module_ctx = ModuleContext(module, platform, debug_info)
    lower_jaxpr_to_fun(module_ctx, module_ctx.unique_name("main"), closed_jaxpr, public=True)
    verify_module(module)
  return module


def lower_fun(fn: Callable, multiple_results: bool = False) -> Callable:
  """A lowering rule that traces `fn(*args, **params)` (written with stablejax ops) on the
  equation's input types and lowers the jaxpr in place."""
  def rule(ctx: LoweringRuleContext, *args: ir.Value, **params: Any) -> list[ir.Value]:
    def flat_fn(*xs):
      out = fn(*xs, **params)
      return list(out) if multiple_results else [out]
    jaxpr, consts = pe.trace_to_jaxpr(flat_fn, ctx.avals_in)
    return jaxpr_subcomp(ctx.module_context, jaxpr, consts, args, ctx.name_stack,
                         ctx.source_info)
  return rule


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


def verify_module(module: ir.Module) -> None:
  """Run the MLIR verifier; a failure names the primitive that produced each bad op."""
  try:
    module.operation.verify()
  except ir.MLIRError as e:
    details = "\n".join(_describe(d) for d in e.error_diagnostics) or f"  {e}"
    raise LoweringError(f"the lowered StableHLO module failed verification:\n{details}") from e
