"""Printing jaxprs in JAX's text format, laid out by a small Wadler-style document engine.

A document is built from text, breaks, concatenation, nesting and groups. A group prints flat
(its breaks as their text) when its flat form fits in the rest of the line, else its breaks become
newlines indented to the enclosing nest level. The jaxpr documents are built as JAX builds them,
so lines break where JAX's do at width 80.
"""
from __future__ import annotations

import collections
import re
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from stablejax import core
from stablejax.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var

WIDTH = 80

# ----------------------------------------------------------------------------------------------
# The document engine


class Doc:
  """A document to lay out with `render`; `a + b` concatenates."""
  __slots__ = ()

  def __add__(self, other: Doc) -> Doc:
    return concat([self, other])


class _Text(Doc):
  __slots__ = ("text",)

  def __init__(self, text: str):
    self.text = text


class _Break(_Text):
  """Prints as its text in a flat group, else as a newline and the indentation."""
  __slots__ = ()


class _Concat(Doc):
  __slots__ = ("children",)

  def __init__(self, children: Sequence[Doc]):
    self.children = tuple(children)


class _Nest(Doc):
  __slots__ = ("indent", "child")

  def __init__(self, indent: int, child: Doc):
    self.indent = indent
    self.child = child


class _Group(Doc):
  __slots__ = ("child",)

  def __init__(self, child: Doc):
    self.child = child


def text(s: str) -> Doc:
  """Literal text (without newlines)."""
  return _Text(s)


def brk(s: str = " ") -> Doc:
  """A break: `s` when its enclosing group is flat, else a newline."""
  return _Break(s)


def concat(docs: Sequence[Doc]) -> Doc:
  """The documents one after the other."""
  return _Concat(docs)


def nest(indent: int, doc: Doc) -> Doc:
  """`doc` with the indentation after its line breaks increased by `indent`."""
  return _Nest(indent, doc)


def group(doc: Doc) -> Doc:
  """`doc` printed flat when it fits on the rest of the line, else with its breaks broken."""
  return _Group(doc)


def join(sep: Doc, docs: Sequence[Doc]) -> Doc:
  """The documents with `sep` between each two."""
  parts: list[Doc] = []
  for i, d in enumerate(docs):
    parts.extend((sep, d) if i else (d,))
  return concat(parts)


def _fits(doc: Doc, room: int) -> bool:
  """Whether `doc` printed flat takes at most `room` characters."""
  stack = [doc]
  while stack and room >= 0:
    d = stack.pop()
    if isinstance(d, _Text):
      room -= len(d.text)
    elif type(d) is _Concat:
      stack.extend(reversed(d.children))
    else:
      stack.append(d.child)
  return room >= 0


def render(doc: Doc, width: int = WIDTH) -> str:
  """Lay out `doc` in lines of `width` characters where its groups allow."""
  out: list[str] = []
  column = 0
  stack: list[tuple[int, bool, Doc]] = [(0, False, doc)]
  while stack:
    indent, flat, d = stack.pop()
    t = type(d)
    if t is _Text or (t is _Break and flat):
      out.append(d.text)
      column += len(d.text)
    elif t is _Break:
      out.append("\n" + " " * indent)
      column = indent
    elif t is _Concat:
      stack.extend((indent, flat, c) for c in reversed(d.children))
    elif t is _Nest:
      stack.append((indent + d.indent, flat, d.child))
    else:
      stack.append((indent, flat or _fits(d.child, width - column), d.child))
  return "".join(out)


# ----------------------------------------------------------------------------------------------
# How primitives print their params

ParamPrinter = Callable[[dict], list[tuple[str, Any]]]

# primitive -> the (name, value) params to print, in order. Unregistered: all, sorted by name.
param_printers: dict[core.Primitive, ParamPrinter] = {}

# call-like primitive -> the param holding its callee; the callee's binders print with the names
# of the call's operands and results, as JAX prints `jit`.
call_primitives: dict[core.Primitive, str] = {}


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
  """Print `primitive` as JAX prints `jit`: `name` first, callee binders named after the call's."""
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
               shared: dict[Jaxpr, str] | None = None):
    self.names = dict(names or {})
    self.shared = shared or {}
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


def _jaxprs_in_params(params: dict) -> Iterator[Jaxpr]:
  for val in params.values():
    for v in val if isinstance(val, tuple) else (val,):
      if isinstance(v, (Jaxpr, ClosedJaxpr)):
        yield _open(v)


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
      subs = list(_jaxprs_in_params(eqn.params))
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
    s = str(_KIND_TO_PYTHON.get(dtype.kind, type(val))(val))
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
  if isinstance(v, type) and issubclass(v, np.generic):
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
  params = param_printers.get(eqn.primitive, sorted_params)(eqn.params)
  _alias_call_binders(ctx, eqn)
  lhs = _pp_atoms(ctx, eqn.outvars, typed=True)
  rhs = [text(eqn.primitive.name), _pp_params(ctx, params), text(" ") + _pp_atoms(ctx, eqn.invars)]
  return concat([lhs, text(" = "), *rhs] if eqn.outvars else rhs)


def _pp_jaxpr(ctx: _Context, jaxpr: Jaxpr) -> Doc:
  if jaxpr in ctx.shared:
    return text(ctx.shared[jaxpr])
  return _pp_jaxpr_body(ctx, jaxpr)


def _pp_jaxpr_body(ctx: _Context, jaxpr: Jaxpr) -> Doc:
  """`{ lambda consts; args. let eqns in (outs,) }`, named in that order."""
  constvars = _pp_atoms(ctx, jaxpr.constvars, typed=True)
  invars = _pp_atoms(ctx, jaxpr.invars, typed=True)
  eqns = join(brk("; "), [_pp_eqn(ctx, e) for e in jaxpr.eqns])
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


def jaxpr_doc(jaxpr: Jaxpr | ClosedJaxpr) -> Doc:
  """The document of a top-level jaxpr: shared sub-jaxprs first, unused outputs as `_`."""
  jaxpr = _open(jaxpr)
  shared = _shared_jaxprs(jaxpr)
  ctx = _Context(_unused_outvars(jaxpr), shared)
  docs = [_pp_shared(ctx, name, j) for j, name in shared.items()]
  return concat(docs + [_pp_jaxpr_body(ctx, jaxpr)])


def pp_jaxpr(jaxpr: Jaxpr | ClosedJaxpr, width: int = WIDTH) -> str:
  """`jaxpr` as JAX prints it."""
  return render(jaxpr_doc(jaxpr), width)


def pp_eqn(eqn: JaxprEqn, width: int = WIDTH) -> str:
  """One equation as JAX prints it on its own (names from `a`, no `_`)."""
  return render(_pp_eqn(_Context(), eqn), width).rstrip()
