"""The jaxpr IR: variables, literals, equations, jaxprs, their type checker, interpreter and
printer (JAX's text format, laid out by the document engine of `stablejax.pretty_print`)."""
from __future__ import annotations

import collections
import re
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from stablejax import core, dtypes
from stablejax.errors import JaxprTypeError
from stablejax.pretty_print import (WIDTH, Doc, brk, concat, flat_or, group, join, nest, render,
                                    text)


class Var:
  """A jaxpr variable: identity plus a type. Names are given when printing."""
  __slots__ = ("aval",)

  def __init__(self, aval: core.ShapedArray):
    self.aval = aval

  def __repr__(self) -> str:
    return f"Var<{self.aval.str_short()}>#{id(self) % 10000}"


class Literal:
  """A scalar constant written inline in an equation, printed as `3.0:f32[]`."""
  __slots__ = ("val", "aval")

  def __init__(self, val: Any, aval: core.ShapedArray):
    self.val = val
    self.aval = aval

  def __repr__(self) -> str:
    return f"{self.val}:{self.aval.str_short()}"


Atom = Var | Literal


class JaxprEqn:
  """`outvars = primitive[params] invars`, with the user's source line for debug info."""
  __slots__ = ("invars", "outvars", "primitive", "params", "source_info")

  def __init__(self, invars: list[Atom], outvars: list[Var], primitive: core.Primitive,
               params: dict, source_info=None):
    self.invars = invars
    self.outvars = outvars
    self.primitive = primitive
    self.params = params
    self.source_info = source_info

  def replace(self, **kwargs) -> JaxprEqn:
    new = JaxprEqn(self.invars, self.outvars, self.primitive, self.params, self.source_info)
    for k, v in kwargs.items():
      setattr(new, k, v)
    return new

  def __repr__(self) -> str:
    return pp_eqn(self)


class Jaxpr:
  """A typed, first-order program: constvars and invars in, equations, outvars out."""
  __slots__ = ("constvars", "invars", "outvars", "eqns", "_effects", "__weakref__")

  def __init__(self, constvars: list[Var], invars: list[Var], outvars: list[Atom],
               eqns: list[JaxprEqn]):
    self.constvars = list(constvars)
    self.invars = list(invars)
    self.outvars = list(outvars)
    self.eqns = list(eqns)
    self._effects: frozenset[core.Effect] | None = None

  @property
  def effects(self) -> frozenset[core.Effect]:
    """The effects of its equations (computed once: jaxprs are not changed in place)."""
    if self._effects is None:
      self._effects = frozenset().union(*map(eqn_effects, self.eqns))
    return self._effects

  @property
  def in_avals(self) -> list[core.ShapedArray]:
    return [v.aval for v in self.invars]

  @property
  def out_avals(self) -> list[core.ShapedArray]:
    return [v.aval for v in self.outvars]

  def replace(self, **kwargs) -> Jaxpr:
    fields = dict(constvars=self.constvars, invars=self.invars, outvars=self.outvars,
                  eqns=self.eqns)
    fields.update(kwargs)
    return Jaxpr(**fields)

  def __str__(self) -> str:
    return pp_jaxpr(self)

  __repr__ = __str__


class ClosedJaxpr:
  """A jaxpr with values for its constvars; `make_jaxpr` returns one."""
  __slots__ = ("jaxpr", "consts", "__weakref__")

  def __init__(self, jaxpr: Jaxpr, consts: Sequence[Any]):
    if len(consts) != len(jaxpr.constvars):
      raise ValueError(f"ClosedJaxpr: {len(jaxpr.constvars)} constvars but {len(consts)} consts")
    self.jaxpr = jaxpr
    self.consts = list(consts)

  literals = property(lambda self: self.consts)  # JAX's other name for the consts
  in_avals = property(lambda self: self.jaxpr.in_avals)
  out_avals = property(lambda self: self.jaxpr.out_avals)
  constvars = property(lambda self: self.jaxpr.constvars)
  invars = property(lambda self: self.jaxpr.invars)
  outvars = property(lambda self: self.jaxpr.outvars)
  eqns = property(lambda self: self.jaxpr.eqns)
  effects = property(lambda self: self.jaxpr.effects)

  def __str__(self) -> str:
    return str(self.jaxpr)

  __repr__ = __str__

  def __eq__(self, other) -> bool:
    return (self is other or type(other) is ClosedJaxpr and self.jaxpr is other.jaxpr and
            len(self.consts) == len(other.consts) and
            all(a is b for a, b in zip(self.consts, other.consts)))

  def __hash__(self) -> int:
    return hash((id(self.jaxpr), tuple(id(c) for c in self.consts)))


def eqn_effects(eqn: JaxprEqn) -> frozenset[core.Effect]:
  """The effects of an equation: its primitive's, and those of the jaxprs in its params."""
  if not eqn.params and eqn.primitive.effects_rule is None:
    return core.NO_EFFECTS  # (most equations: checked first, as passes ask it of each one)
  own = eqn.primitive.effects(eqn.params)
  return own.union(*(j.effects for j in subjaxprs(eqn))) if has_subjaxprs(eqn) else own


def has_subjaxprs(eqn: JaxprEqn) -> bool:
  """Whether `eqn`'s params hold a jaxpr (`subjaxprs`); cheaper than asking that generator,
  for the passes that ask it of every equation."""
  for val in eqn.params.values():
    if isinstance(val, (Jaxpr, ClosedJaxpr)) or (
        type(val) is tuple and any(isinstance(v, (Jaxpr, ClosedJaxpr)) for v in val)):
      return True
  return False


def subjaxprs(eqn: JaxprEqn) -> Iterator[ClosedJaxpr | Jaxpr]:
  """Every jaxpr held in `eqn`'s params: a jaxpr param, or each jaxpr of a tuple param (as
  `cond`'s `branches`)."""
  for val in eqn.params.values():
    for v in val if type(val) is tuple else (val,):
      if isinstance(v, (Jaxpr, ClosedJaxpr)):
        yield v


def replace_subjaxprs(eqn: JaxprEqn, f: Callable[[ClosedJaxpr | Jaxpr], ClosedJaxpr | Jaxpr]
                      ) -> JaxprEqn:
  """`eqn` with each jaxpr `j` of `subjaxprs(eqn)` replaced by `f(j)` (`eqn` itself when `f`
  returns every jaxpr unchanged)."""
  def replace(val: Any) -> Any:
    return f(val) if isinstance(val, (Jaxpr, ClosedJaxpr)) else val

  params = {}
  for k, val in eqn.params.items():
    if type(val) is tuple:
      new = tuple(map(replace, val))
      params[k] = val if all(a is b for a, b in zip(new, val)) else new
    else:
      params[k] = replace(val)
  if all(params[k] is v for k, v in eqn.params.items()):
    return eqn
  return eqn.replace(params=params)


def check_jaxpr(jaxpr: Jaxpr) -> None:
  """Type-check `jaxpr` and, recursively, every jaxpr in its equations' params: each variable is
  bound once and defined before use in its own jaxpr (sub-jaxprs are closed), and each equation's
  output types agree with its primitive's abstract evaluation. Raises JaxprTypeError, naming
  variables as the printed `jaxpr` does."""
  _check_jaxpr(_top_doc(jaxpr)[0], set(), jaxpr, "")


def _check_jaxpr(ctx: _Context, checked: set[int], jaxpr: Jaxpr, where: str) -> None:
  """Check `jaxpr` and its sub-jaxprs whose ids are not in `checked`; messages start with
  `where` and name variables by `ctx`."""
  env: set[Var] = set()

  def var(v: Var) -> str:
    return "variable " + _atom_text(ctx, v, typed=True)

  def read(atom: Atom, at: str) -> core.ShapedArray:
    if type(atom) is not Literal and atom not in env:
      raise JaxprTypeError(f"{at}: {var(atom)} is used before it is defined")
    return atom.aval

  def bind(v: Var, at: str) -> None:
    if v in env:
      raise JaxprTypeError(f"{at}: {var(v)} is bound twice")
    env.add(v)

  for v in jaxpr.constvars + jaxpr.invars:
    bind(v, f"{where}jaxpr binders")
  for i, eqn in enumerate(jaxpr.eqns):
    at = f"{where}equation {i} ({eqn.primitive.name})"
    in_avals = [read(x, at) for x in eqn.invars]
    for k, sub in enumerate(map(_open, subjaxprs(eqn))):
      if id(sub) not in checked:
        checked.add(id(sub))
        _check_jaxpr(ctx, checked, sub, f"{at}, sub-jaxpr {k}: ")
    try:
      out_avals = eqn.primitive.out_avals(in_avals, eqn.params)
    except (TypeError, ValueError) as e:
      raise JaxprTypeError(f"{at}: {e}") from e
    if len(out_avals) != len(eqn.outvars):
      raise JaxprTypeError(f"{at}: {len(eqn.outvars)} outputs bound, primitive gives "
                           f"{len(out_avals)}")
    for v, aval in zip(eqn.outvars, out_avals):
      if not core.typematch(v.aval, aval):
        raise JaxprTypeError(f"{at}: output typed {v.aval.str_short()} but the primitive "
                             f"gives {aval.str_short()}")
      bind(v, at)
  for v in jaxpr.outvars:
    read(v, f"{where}jaxpr outputs")


def bind_eqn(eqn: JaxprEqn, ins: Sequence[Any]) -> Any:
  """Bind `eqn`'s primitive on `ins` under the current trace (its result, or list of them)."""
  return eqn.primitive.bind(*ins, **eqn.params)


def eval_jaxpr(jaxpr: Jaxpr, consts: Sequence[Any], *args: Any,
               eval_eqn: Callable[[JaxprEqn, Sequence[Any]], Any] = bind_eqn) -> list[Any]:
  """Interpret `jaxpr` by evaluating each equation with `eval_eqn` (by default: binding its
  primitive under the current trace; an interpreter such as checkify's passes its own)."""
  env: dict[Var, Any] = {}
  for v, x in zip(jaxpr.constvars, consts):
    env[v] = x
  for v, x in zip(jaxpr.invars, args):
    env[v] = x
  if len(args) != len(jaxpr.invars):
    raise TypeError(f"jaxpr takes {len(jaxpr.invars)} arguments, got {len(args)}")
  for eqn in jaxpr.eqns:
    ins = [x.val if type(x) is Literal else env[x] for x in eqn.invars]
    with core.transformed_source(eqn.source_info):  # what it stages keeps the eqn's source
      outs = eval_eqn(eqn, ins)
    if eqn.primitive.multiple_results:
      for v, x in zip(eqn.outvars, outs):
        env[v] = x
    else:
      env[eqn.outvars[0]] = outs
  return [x.val if type(x) is Literal else env[x] for x in jaxpr.outvars]


def jaxpr_as_fun(closed: ClosedJaxpr) -> Callable[..., list]:
  return lambda *args: eval_jaxpr(closed.jaxpr, closed.consts, *args)


# ----------------------------------------------------------------------------------------------
# How primitives print their params

ParamPrinter = Callable[[dict], list[tuple[str, Any]]]

# primitive -> the (name, value) params to print, in order. Unregistered: all, sorted by name.
param_printers: dict[core.Primitive, ParamPrinter] = {}

# call-like primitive (`jit`) -> the param holding its callee ClosedJaxpr. Inlining replaces such
# calls by their callee's equations; the printer names the callee's binders after the call's
# operands and results, as JAX prints `jit`.
call_primitives: dict[core.Primitive, str] = {}


# primitive -> rule(eqn, name) -> the equation's text, for primitives JAX prints in a form of
# their own (ref reads and writes: `b:f32[] <- a[1]`); `name(atom, typed)` names an atom.
eqn_printers: dict[core.Primitive, Callable[[JaxprEqn, Callable[[Any, bool], str]], str]] = {}


def sorted_params(params: dict) -> list[tuple[str, Any]]:
  """All params sorted by name (the default)."""
  return sorted(params.items(), key=lambda kv: kv[0])


def hide_params(primitive: core.Primitive, *always: str, if_empty: Sequence[str] = ()) -> None:
  """Print `primitive` without params `always`, and without those in `if_empty` when empty."""
  def printer(params: dict) -> list[tuple[str, Any]]:
    return [(k, v) for k, v in sorted_params(params)
            if k not in always and not (k in if_empty and len(v) == 0)]
  param_printers[primitive] = printer


def register_call_primitive(primitive: core.Primitive, jaxpr_param: str = "jaxpr") -> None:
  """Register `primitive` as a call of its param `jaxpr_param`, printed as JAX prints `jit`:
  `name` first, callee binders named after the call's."""
  def printer(params: dict) -> list[tuple[str, Any]]:
    items = sorted_params(params)
    return [kv for kv in items if kv[0] == "name"] + [kv for kv in items if kv[0] != "name"]
  param_printers[primitive] = printer
  call_primitives[primitive] = jaxpr_param


# ----------------------------------------------------------------------------------------------
# Names


def _alphabetic(n: int) -> str:
  """0 -> a, 25 -> z, 26 -> ba, 27 -> bb, ...: base 26 with digits a-z, as JAX names vars."""
  s = chr(97 + n % 26)
  while n >= 26:
    n //= 26
    s = chr(97 + n % 26) + s
  return s


class _Context:
  """Variable names, given in printing order and shared by nested jaxprs; shared jaxprs."""

  def __init__(self, names: dict[Var, str] | None = None,
               shared: dict[Jaxpr, str] | None = None, marked: list | None = None):
    self.names = dict(names or {})
    self.shared = shared or {}
    self.marked = marked  # (`pp_jaxpr_lines`) the equations printed so far, each marked
    self._reserved = set(self.shared.values())
    self._count = 0

  def name(self, v: Var) -> str:
    name = self.names.get(v)
    if name is None:
      name = self.names[v] = self._fresh()
    return name

  def _fresh(self) -> str:
    while True:
      name = _alphabetic(self._count)
      self._count += 1
      if name not in self._reserved:
        return name

  def alias(self, binders: Sequence[Any], like: Sequence[Any]) -> None:
    """Name unnamed `binders` after the distinct vars of `like` in the same positions."""
    if len(binders) != len(like):
      return
    used: set[Var] = set()
    for b, v in zip(binders, like):
      if isinstance(v, Var) and v not in used and isinstance(b, Var) and b not in self.names:
        used.add(v)
        self.names[b] = self.name(v)


def _unused_outvars(jaxpr: Jaxpr) -> dict[Var, str]:
  """Equation outputs that nothing reads, named `_` (JAX does this for the top jaxpr only)."""
  used = {v for v in jaxpr.outvars if isinstance(v, Var)}
  unused: dict[Var, str] = {}
  for eqn in reversed(jaxpr.eqns):
    unused.update((v, "_") for v in eqn.outvars if v not in used)
    used.update(x for x in eqn.invars if isinstance(x, Var))
  return unused


def _open(j: Jaxpr | ClosedJaxpr) -> Jaxpr:
  return j.jaxpr if isinstance(j, ClosedJaxpr) else j


def _shared_jaxprs(top: Jaxpr) -> dict[Jaxpr, str]:
  """Sub-jaxprs JAX prints up front as `let name = ...`: met twice, or of over 10 equations."""
  counts: collections.Counter[Jaxpr] = collections.Counter()
  names: dict[Jaxpr, str] = {}
  queue = collections.deque([top])
  while queue:
    jaxpr = queue.popleft()
    counts[jaxpr] += 1 + (jaxpr is not top and len(jaxpr.eqns) > 10)
    for eqn in jaxpr.eqns:
      subs = [_open(j) for j in subjaxprs(eqn)]
      queue.extend(subs)
      if "name" in eqn.params:
        for sub in subs:
          names.setdefault(sub, str(eqn.params["name"]).strip("<>"))
  return _unique_names([(names.get(j, "jaxpr"), j) for j, c in counts.items() if c > 1])


def _unique_names(named: list[tuple[str, Jaxpr]]) -> dict[Jaxpr, str]:
  """Suffix repeated names with 1, 2, ... as JAX does."""
  seen: collections.Counter[str] = collections.Counter()
  out: dict[Jaxpr, str] = {}
  for name, jaxpr in named:
    n = seen[name]
    seen[name] += 1
    if n:
      name += str(n)
      seen[name] += 1
    out[jaxpr] = name
  return out


# ----------------------------------------------------------------------------------------------
# Atoms and params

_PYTHON_SCALARS = {bool, int, float, complex}
_KIND_TO_PYTHON = {"b": bool, "i": int, "u": int, "f": float, "c": complex}


def literal_text(lit: Literal) -> str:
  """`3.0:f32[]`, the value printed by Python as JAX does (np.float32(0.1) as 0.100000001...)."""
  val, dtype = lit.val, lit.aval.dtype
  if np.shape(val):
    s = "[...]"
  elif type(val) in _PYTHON_SCALARS:
    s = str(_KIND_TO_PYTHON.get(dtypes.kind(dtype), type(val))(val))
  else:
    s = str(np.asarray(val).astype(dtype).item())
  return f"{s}:{lit.aval.str_short()}"


def _atom_text(ctx: _Context, x: Any, typed: bool) -> str:
  if isinstance(x, Literal):
    return literal_text(x)
  if not isinstance(x, Var):
    raise TypeError(f"cannot print {x!r} of type {type(x).__name__} as a jaxpr variable")
  return ctx.name(x) + (":" + x.aval.str_short() if typed else "")


def _pp_atoms(ctx: _Context, atoms: Sequence[Any], sep: str = "", typed: bool = False) -> Doc:
  """Atoms separated by `sep` and breaks that fill lines, as JAX prints var lists."""
  docs = [text(_atom_text(ctx, x, typed)) for x in atoms]
  return nest(2, group(join(text(sep) + group(brk()), docs)))


def _param_text(v: Any) -> str:
  if dtypes.is_scalar_type(v):
    return np.dtype(v).name
  if isinstance(v, frozenset):
    return f"frozenset({{{', '.join(repr(e) for e in sorted(v))}}})"
  return re.sub(r" at 0x([0-9a-fA-F]+)", lambda m: " at 0x" + "X" * len(m.group(1)), str(v))


def _pp_param(ctx: _Context, key: str, v: Any) -> Doc:
  if type(v) is tuple and all(isinstance(j, (Jaxpr, ClosedJaxpr)) for j in v):
    value = _pp_jaxpr_tuple(ctx, v)
  elif isinstance(v, (Jaxpr, ClosedJaxpr)):
    value = _pp_jaxpr(ctx, _open(v))
  else:
    value = text(_param_text(v))
  return text(f"{key}=") + value


def _pp_params(ctx: _Context, params: list[tuple[str, Any]]) -> Doc:
  if not params:
    return concat([])
  items = join(brk(), [_pp_param(ctx, k, v) for k, v in params])
  return group(nest(2, text("[") + brk("") + items) + brk("") + text("]"))


# ----------------------------------------------------------------------------------------------
# Equations and jaxprs


def _alias_call_binders(ctx: _Context, eqn: JaxprEqn) -> None:
  callee = eqn.params.get(call_primitives.get(eqn.primitive, ""))
  if isinstance(callee, (Jaxpr, ClosedJaxpr)) and _open(callee) not in ctx.shared:
    ctx.alias(_open(callee).invars, eqn.invars)
    ctx.alias(_open(callee).outvars, eqn.outvars)


def _pp_eqn(ctx: _Context, eqn: JaxprEqn) -> Doc:
  printer = eqn_printers.get(eqn.primitive)
  if printer is not None:
    return text(printer(eqn, lambda x, typed: _atom_text(ctx, x, typed)))
  params = param_printers.get(eqn.primitive, sorted_params)(eqn.params)
  _alias_call_binders(ctx, eqn)
  if not any(isinstance(v, (Jaxpr, ClosedJaxpr)) or type(v) is tuple and
             any(isinstance(j, (Jaxpr, ClosedJaxpr)) for j in v) for _, v in params):
    # (most equations print on one line: their document is built only where they do not)
    return flat_or(_eqn_flat(ctx, eqn, params), lambda: _eqn_doc(ctx, eqn, params))
  return _eqn_doc(ctx, eqn, params)


def _eqn_doc(ctx: _Context, eqn: JaxprEqn, params: list[tuple[str, Any]]) -> Doc:
  lhs = _pp_atoms(ctx, eqn.outvars, typed=True)
  rhs = [text(eqn.primitive.name), _pp_params(ctx, params), text(" ") + _pp_atoms(ctx, eqn.invars)]
  return concat([lhs, text(" = "), *rhs] if eqn.outvars else rhs)


def _eqn_flat(ctx: _Context, eqn: JaxprEqn, params: list[tuple[str, Any]]) -> str:
  """The text of `_eqn_doc` printed flat, for an equation whose params hold no jaxpr."""
  lhs = " ".join(_atom_text(ctx, x, True) for x in eqn.outvars)
  items = " ".join(f"{k}={_param_text(v)}" for k, v in params)
  rhs = (f"{eqn.primitive.name}{f'[{items}]' if params else ''} "
         f"{' '.join(_atom_text(ctx, x, False) for x in eqn.invars)}")
  return f"{lhs} = {rhs}" if eqn.outvars else rhs


def _pp_jaxpr(ctx: _Context, jaxpr: Jaxpr) -> Doc:
  if jaxpr in ctx.shared:
    return text(ctx.shared[jaxpr])
  return _pp_jaxpr_body(ctx, jaxpr)


def _pp_jaxpr_body(ctx: _Context, jaxpr: Jaxpr) -> Doc:
  """`{ lambda consts; args. let eqns in (outs,) }`, named in that order."""
  constvars = _pp_atoms(ctx, jaxpr.constvars, typed=True)
  invars = _pp_atoms(ctx, jaxpr.invars, typed=True)
  eqns = join(brk("; "), [_pp_marked_eqn(ctx, e) for e in jaxpr.eqns])
  close = ",)" if len(jaxpr.outvars) == 1 else ")"
  outvars = text("(") + _pp_atoms(ctx, jaxpr.outvars, sep=",") + text(close)
  body = concat([text("{ lambda "), constvars, text("; "), invars, text(". let"),
                 nest(2, brk() + eqns), brk(), text("in "), outvars])
  return group(nest(2, body) + text(" }"))


def _pp_jaxpr_tuple(ctx: _Context, jaxprs: Sequence[Jaxpr | ClosedJaxpr]) -> Doc:
  items = join(brk(), [_pp_jaxpr(ctx, _open(j)) for j in jaxprs])
  return group(nest(2, text("(") + brk("") + items) + brk("") + text(")"))


def _pp_shared(ctx: _Context, name: str, jaxpr: Jaxpr) -> Doc:
  return concat([text(f"let {name} = "), _pp_jaxpr_body(ctx, jaxpr), text(" in"), brk()])


_EQN_MARK = "\x00"  # where an equation's text starts, in `pp_jaxpr_lines`


def _pp_marked_eqn(ctx: _Context, eqn: JaxprEqn) -> Doc:
  if ctx.marked is None:
    return _pp_eqn(ctx, eqn)
  ctx.marked.append(eqn)  # (before its sub-jaxprs' equations: in printing order)
  return text(_EQN_MARK) + _pp_eqn(ctx, eqn)


def _top_doc(jaxpr: Jaxpr, marked: list | None = None) -> tuple[_Context, Doc]:
  """The document of a top-level jaxpr and the names it gives its variables."""
  shared = _shared_jaxprs(jaxpr)
  ctx = _Context(_unused_outvars(jaxpr), shared, marked)
  docs = [_pp_shared(ctx, name, j) for j, name in shared.items()]
  return ctx, concat(docs + [_pp_jaxpr_body(ctx, jaxpr)])


def jaxpr_doc(jaxpr: Jaxpr | ClosedJaxpr) -> Doc:
  """The document of a top-level jaxpr: shared sub-jaxprs first, unused outputs as `_`."""
  return _top_doc(_open(jaxpr))[1]


def pp_jaxpr(jaxpr: Jaxpr | ClosedJaxpr, width: int = WIDTH) -> str:
  """`jaxpr` as JAX prints it."""
  return render(jaxpr_doc(jaxpr), width)


def pp_jaxpr_lines(jaxpr: Jaxpr | ClosedJaxpr, width: int = WIDTH
                   ) -> list[tuple[str, list[JaxprEqn]]]:
  """`pp_jaxpr`'s text line by line, each with the equations whose text starts on it (those of
  sub-jaxprs too, each printed once): for tools that map the text back to equations."""
  marked: list[JaxprEqn] = []
  lines = render(_top_doc(_open(jaxpr), marked)[1], width).split("\n")
  eqns = iter(marked)
  return [(line.replace(_EQN_MARK, ""), [next(eqns) for _ in range(line.count(_EQN_MARK))])
          for line in lines]


def pp_eqn(eqn: JaxprEqn, width: int = WIDTH) -> str:
  """One equation as JAX prints it on its own (names from `a`, no `_`)."""
  return render(_pp_eqn(_Context(), eqn), width).rstrip()
