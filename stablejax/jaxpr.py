"""The jaxpr IR: variables, literals, equations, jaxprs, their type checker and interpreter."""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from stablejax import core


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
    from stablejax.pretty_print import pp_eqn
    return pp_eqn(self)


class Jaxpr:
  """A typed, first-order program: constvars and invars in, equations, outvars out."""
  __slots__ = ("constvars", "invars", "outvars", "eqns")

  def __init__(self, constvars: list[Var], invars: list[Var], outvars: list[Atom],
               eqns: list[JaxprEqn]):
    self.constvars = list(constvars)
    self.invars = list(invars)
    self.outvars = list(outvars)
    self.eqns = list(eqns)

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
    from stablejax.pretty_print import pp_jaxpr
    return pp_jaxpr(self)

  __repr__ = __str__


class ClosedJaxpr:
  """A jaxpr with values for its constvars; `make_jaxpr` returns one."""
  __slots__ = ("jaxpr", "consts")

  def __init__(self, jaxpr: Jaxpr, consts: Sequence[Any]):
    if len(consts) != len(jaxpr.constvars):
      raise ValueError(f"ClosedJaxpr: {len(jaxpr.constvars)} constvars but {len(consts)} consts")
    self.jaxpr = jaxpr
    self.consts = list(consts)

  in_avals = property(lambda self: self.jaxpr.in_avals)
  out_avals = property(lambda self: self.jaxpr.out_avals)
  eqns = property(lambda self: self.jaxpr.eqns)

  def __str__(self) -> str:
    return str(self.jaxpr)

  __repr__ = __str__

  def __eq__(self, other) -> bool:
    return (self is other or type(other) is ClosedJaxpr and self.jaxpr is other.jaxpr and
            len(self.consts) == len(other.consts) and
            all(a is b for a, b in zip(self.consts, other.consts)))

  def __hash__(self) -> int:
    return hash((id(self.jaxpr), tuple(id(c) for c in self.consts)))


class JaxprTypeError(TypeError):
  """A jaxpr is not well typed."""


def _check_atom(env: set, atom: Atom, where: str) -> core.ShapedArray:
  if type(atom) is Literal:
    return atom.aval
  if atom not in env:
    raise JaxprTypeError(f"{where}: variable {atom!r} is used before it is defined")
  return atom.aval


def check_jaxpr(jaxpr: Jaxpr) -> None:
  """Type-check `jaxpr`: every variable is defined once before use and every equation's output
  types agree with its primitive's abstract evaluation. Raises JaxprTypeError."""
  env: set = set()
  for v in jaxpr.constvars + jaxpr.invars:
    if v in env:
      raise JaxprTypeError(f"variable {v!r} is bound twice")
    env.add(v)
  for i, eqn in enumerate(jaxpr.eqns):
    where = f"equation {i} ({eqn.primitive.name})"
    in_avals = [_check_atom(env, x, where) for x in eqn.invars]
    try:
      out_avals = eqn.primitive.out_avals(in_avals, eqn.params)
    except (TypeError, ValueError) as e:
      raise JaxprTypeError(f"{where}: {e}") from e
    if len(out_avals) != len(eqn.outvars):
      raise JaxprTypeError(f"{where}: {len(eqn.outvars)} outputs bound, primitive gives "
                           f"{len(out_avals)}")
    for v, aval in zip(eqn.outvars, out_avals):
      if not core.typematch(v.aval, aval):
        raise JaxprTypeError(f"{where}: output typed {v.aval.str_short()} but the primitive "
                             f"gives {aval.str_short()}")
      if v in env:
        raise JaxprTypeError(f"{where}: variable {v!r} is bound twice")
      env.add(v)
  for v in jaxpr.outvars:
    _check_atom(env, v, "jaxpr outputs")


def eval_jaxpr(jaxpr: Jaxpr, consts: Sequence[Any], *args: Any) -> list[Any]:
  """Interpret `jaxpr` by binding each equation's primitive under the current trace."""
  env: dict[Var, Any] = {}
  for v, x in zip(jaxpr.constvars, consts):
    env[v] = x
  for v, x in zip(jaxpr.invars, args):
    env[v] = x
  if len(args) != len(jaxpr.invars):
    raise TypeError(f"jaxpr takes {len(jaxpr.invars)} arguments, got {len(args)}")
  for eqn in jaxpr.eqns:
    ins = [x.val if type(x) is Literal else env[x] for x in eqn.invars]
    outs = eqn.primitive.bind(*ins, **eqn.params)
    if eqn.primitive.multiple_results:
      for v, x in zip(eqn.outvars, outs):
        env[v] = x
    else:
      env[eqn.outvars[0]] = outs
  return [x.val if type(x) is Literal else env[x] for x in jaxpr.outvars]


def jaxpr_as_fun(closed: ClosedJaxpr) -> Callable[..., list]:
  return lambda *args: eval_jaxpr(closed.jaxpr, closed.consts, *args)


def literal_value(val: Any, dtype: np.dtype) -> np.generic:
  """The canonical scalar of a literal: a numpy scalar of the literal's dtype."""
  return np.asarray(val, dtype)[()]
