"""A small Wadler-style document engine, used to print jaxprs as JAX lays them out.

A document is built from text, breaks, concatenation, nesting and groups. A group prints flat
(its breaks as their text) when its flat form fits in the rest of the line, else its breaks become
newlines indented to the enclosing nest level. `stablejax.jaxpr` builds the jaxpr documents as
JAX builds them, so lines break where JAX's do at width 80.
"""
from __future__ import annotations

from typing import Callable, Sequence

WIDTH = 80


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


class _FlatOr(Doc):
  """`text` where it fits on the rest of the line, else the document `make()` builds."""
  __slots__ = ("text", "make")

  def __init__(self, text: str, make: Callable[[], Doc]):
    self.text = text
    self.make = make


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


def flat_or(flat: str, make: Callable[[], Doc]) -> Doc:
  """The document `make()` builds, given its flat form `flat` (every break as its text): where
  that fits on the rest of the line it prints as it would, and the document is never built."""
  return _FlatOr(flat, make)


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
    if isinstance(d, (_Text, _FlatOr)):
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
    elif t is _FlatOr:
      if flat or len(d.text) <= width - column:
        out.append(d.text)
        column += len(d.text)
      else:
        stack.append((indent, flat, d.make()))
    else:
      stack.append((indent, flat or _fits(d.child, width - column), d.child))
  return "".join(out)
