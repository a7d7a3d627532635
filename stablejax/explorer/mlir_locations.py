"""MLIR locations read back from a module's text: each op's name stack and the user's frames.

jaxlib's Python bindings (0.10) cannot take a location apart (no NameLoc or CallSiteLoc
accessors), so the printed form is parsed: `loc("jit(f)/jvp()/tanh"(callsite(#loc10 at
#loc18)))`, with the `#locN = loc(...)` aliases MLIR prints after the module. The grammar is
MLIR's: `unknown`, `"name"` with an optional child location, `"file":line:col` with an
optional `to [line]:col`, `callsite(callee at caller)`, `fused<...>[a, b]` and `#alias`.
"""
from __future__ import annotations

import re
from typing import NamedTuple

_TOKEN = re.compile(r'\s*("(?:[^"\\]|\\.)*"|#loc\d*|[A-Za-z_]+|\d+|.)')


class Location(NamedTuple):
  name_stack: str  # the op's NameLoc: `jit(f)/transpose(jvp())/mul` ("" if none)
  frames: tuple[tuple[str, int], ...]  # (file, line) of the call-site chain, innermost first


UNKNOWN = Location("", ())


class _Parsed(NamedTuple):
  names: tuple[str, ...]
  frames: tuple[tuple[str, int], ...]
  is_file: bool  # a bare `"file":line:col`


class LocationParser:
  """Parses the locations of one module's text, its aliases read once and each parsed once."""

  def __init__(self, alias_lines: dict[str, str]):
    self._alias_text = alias_lines  # `#loc3` -> `loc(...)` text
    self._aliases: dict[str, _Parsed] = {}

  def parse(self, text: str) -> tuple[Location, int]:
    """The location `loc(...)` at the start of `text`, and where it ends."""
    tokens = _Tokens(text)
    tokens.expect("loc")
    tokens.expect("(")
    parsed = self._loc(tokens)
    tokens.expect(")")
    stack = parsed.names[0] if parsed.names else ""
    return Location(stack, parsed.frames), tokens.pos

  def _alias(self, name: str) -> _Parsed:
    parsed = self._aliases.get(name)
    if parsed is None:
      text = self._alias_text.get(name)
      if text is None:
        return _Parsed((), (), False)
      tokens = _Tokens(text)
      tokens.expect("loc")
      tokens.expect("(")
      parsed = self._aliases[name] = self._loc(tokens)
    return parsed

  def _loc(self, t: _Tokens) -> _Parsed:
    tok = t.next()
    if tok.startswith("#loc"):
      return self._alias(tok)
    if tok == "unknown":
      return _Parsed((), (), False)
    if tok == "callsite":
      t.expect("(")
      callee = self._loc(t)
      t.expect("at")
      caller = self._loc(t)
      t.expect(")")
      return _Parsed(callee.names, callee.frames + caller.frames, False)
    if tok == "fused":
      return self._fused(t)
    if tok.startswith('"'):
      return self._named(t, _unquote(tok))
    raise ValueError(f"unexpected {tok!r} in a location")

  def _named(self, t: _Tokens, name: str) -> _Parsed:
    if t.peek() == ":":  # "file":line:col [to [line]:col]
      t.next()
      line = int(t.next())
      t.expect(":")
      t.next()
      if t.peek() == "to":
        t.next()
        if t.peek() != ":":
          t.next()
        t.expect(":")
        t.next()
      return _Parsed((), ((name, line),), True)
    if t.peek() != "(":
      return _Parsed((name,), (), False)
    t.next()
    child = self._loc(t)
    t.expect(")")
    if child.is_file:  # a frame: `"function"("file":line:col)`
      return _Parsed((), child.frames, False)
    return _Parsed((name,) + child.names, child.frames, False)

  def _fused(self, t: _Tokens) -> _Parsed:
    if t.peek() == "<":
      depth = 0
      while True:
        tok = t.next()
        depth += (tok == "<") - (tok == ">")
        if depth == 0:
          break
    t.expect("[")
    names: tuple[str, ...] = ()
    frames: tuple[tuple[str, int], ...] = ()
    while True:
      part = self._loc(t)
      names, frames = names + part.names, frames + part.frames
      if t.next() == "]":
        return _Parsed(names, frames, False)


def _unquote(token: str) -> str:
  return re.sub(r"\\(.)", r"\1", token[1:-1])


class _Tokens:
  __slots__ = ("text", "pos")

  def __init__(self, text: str):
    self.text = text
    self.pos = 0

  def next(self) -> str:
    m = _TOKEN.match(self.text, self.pos)
    if m is None:
      raise ValueError("unexpected end of a location")
    self.pos = m.end()
    return m.group(1)

  def peek(self) -> str | None:
    m = _TOKEN.match(self.text, self.pos)
    return m.group(1) if m else None

  def expect(self, want: str) -> None:
    got = self.next()
    if got != want:
      raise ValueError(f"expected {want!r} in a location, got {got!r}")
