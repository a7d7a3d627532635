"""Symbolic dimensions (JAX's shape polymorphism): `DimExpr`, an integer polynomial over dimension
variables whose atoms are variables and `floordiv`, `mod`, `max`, `min` of expressions; the
`SymbolicScope` that holds the constraints on them; the decision of comparisons (`>=` and the
others) from bounds; and the parser of shape specifications ("b, 2*b").

A `DimExpr` stands where an `int` stands in a shape. Its arithmetic is exact: an operation whose
result is a constant returns an `int`. Comparisons are decided from the lower and upper bounds
of the difference (every variable is >= 1, plus the scope's constraints) and raise
`InconclusiveDimensionOperation` where the bounds do not decide them; `==` is False unless the
two expressions are the same polynomial (JAX's semantics: it is used for hashing)."""
from __future__ import annotations

import itertools
import math
import operator
import re
from typing import Any, Iterable, Mapping, NamedTuple, Sequence

from stablejax.errors import InconclusiveDimensionOperation

_INF = math.inf
# the atoms that apply an operation to expressions (printed `mod(b, 2)`)
FLOORDIV, MOD, MAX, MIN = "floordiv", "mod", "max", "min"


# ----------------------------------------------------------------------------------------------
# Factors, terms and their syntactic order (the order in which JAX sorts and prints them)

class _Factor:
  """An atom: a dimension variable, or an operation applied to expressions."""
  __slots__ = ("name", "operands", "size", "key", "_hash")

  def __init__(self, name: str, operands: tuple[DimExpr, ...] = ()):
    self.name = name  # the variable, or the operation
    self.operands = operands
    self.size = 1 + sum(o.size for o in operands)
    self.key = (self.size, name, tuple(o.key for o in operands))
    self._hash = hash(self.key)

  def __eq__(self, other: Any) -> bool:
    return isinstance(other, _Factor) and self.key == other.key

  def __hash__(self) -> int:
    return self._hash

  def __str__(self) -> str:
    if not self.operands:
      return self.name
    return f"{self.name}({', '.join(map(str, self.operands))})"


# A term: a product of factors with exponents >= 1, sorted largest first; () is the constant 1.
Term = tuple  # tuple[tuple[_Factor, int], ...]
_ONE: Term = ()


def _term_size(t: Term) -> int:
  return sum(1 + e * f.size for f, e in t)


def _term_key(t: Term) -> tuple:
  return (_term_size(t), tuple((f.key, e) for f, e in t))


def _term_str(t: Term) -> str:
  factors = sorted(t, key=lambda fe: (fe[0].key, fe[1]))
  return "*".join(f"{f}^{e}" if e != 1 else str(f) for f, e in factors)


def _term_mul(t1: Term, t2: Term) -> Term:
  exps = dict(t1)
  for f, e in t2:
    exps[f] = exps.get(f, 0) + e
  return tuple(sorted(exps.items(), key=lambda fe: (fe[0].key, fe[1]), reverse=True))


def _term_div(t1: Term, t2: Term) -> Term | None:
  """t1 / t2 as a term, or None when t2 does not divide t1."""
  exps = dict(t1)
  for f, e in t2:
    left = exps.get(f, 0) - e
    if left < 0:
      return None
    exps[f] = left
  return tuple(sorted(((f, e) for f, e in exps.items() if e),
                      key=lambda fe: (fe[0].key, fe[1]), reverse=True))


def _sorted_terms(coeffs: dict[Term, int]) -> tuple[tuple[Term, int], ...]:
  return tuple(sorted(((t, k) for t, k in coeffs.items() if k),
                      key=lambda tk: (_term_key(tk[0]), tk[1]), reverse=True))


# ----------------------------------------------------------------------------------------------
# Dimension expressions

DimSize = Any  # int | DimExpr


class DimExpr:
  """A symbolic dimension: a sum of terms with integer coefficients, in a `SymbolicScope`.
  Build one with `symbolic_shape`; arithmetic with ints and expressions of the same scope gives
  an expression, or an int when the result is constant."""
  __array_priority__ = 1000
  __slots__ = ("terms", "scope", "size", "key", "_hash")

  def __init__(self, terms: tuple[tuple[Term, int], ...], scope: SymbolicScope):
    self.terms = terms or ((_ONE, 0),)
    self.scope = scope
    self.size = sum(1 + abs(k) * _term_size(t) for t, k in self.terms)
    self.key = (self.size, tuple((_term_key(t), k) for t, k in self.terms))
    self._hash = hash((self.key, id(scope)))

  @staticmethod
  def _build(coeffs: dict[Term, int], scope: SymbolicScope) -> DimSize:
    """The normal form of the sum `coeffs` in `scope`: its equality constraints applied, and an
    int where it is constant."""
    coeffs = scope._normalize(coeffs)
    terms = _sorted_terms(coeffs)
    if not terms:
      return 0
    if terms[0][0] == _ONE:
      return terms[0][1]
    return DimExpr(terms, scope)

  @staticmethod
  def _of_factor(factor: _Factor, scope: SymbolicScope) -> DimSize:
    return DimExpr._build({((factor, 1),): 1}, scope)

  def _coeffs(self) -> dict[Term, int]:
    return {t: k for t, k in self.terms if k}

  def _poly(self, other: Any, what: str) -> DimExpr:
    """`other` as an expression of this scope (a constant one for an int)."""
    if isinstance(other, DimExpr):
      self.scope._check_same(other, what)
      return other
    try:
      return DimExpr(((_ONE, operator.index(other)),), self.scope)
    except TypeError:
      raise TypeError(f"Symbolic dimension {what} not supported for {other!r}.") from None

  def _combine(self, k1: int, other: Any, k2: int, what: str) -> DimSize:
    coeffs = self._coeffs()
    coeffs = {t: k * k1 for t, k in coeffs.items()}
    for t, k in self._poly(other, what).terms:
      coeffs[t] = coeffs.get(t, 0) + k * k2
    return DimExpr._build(coeffs, self.scope)

  def __add__(self, other: Any) -> DimSize:
    return self._combine(1, other, 1, "add") if _is_dim(other) else _as_value(self) + other

  def __radd__(self, other: Any) -> DimSize:
    return self._combine(1, other, 1, "add") if _is_dim(other) else other + _as_value(self)

  def __sub__(self, other: Any) -> DimSize:
    return self._combine(1, other, -1, "sub") if _is_dim(other) else _as_value(self) - other

  def __rsub__(self, other: Any) -> DimSize:
    return self._combine(-1, other, 1, "sub") if _is_dim(other) else other - _as_value(self)

  def __neg__(self) -> DimSize:
    return self._combine(-1, 0, 0, "neg")

  def __mul__(self, other: Any) -> DimSize:
    if not _is_dim(other):
      return _as_value(self) * other
    coeffs: dict[Term, int] = {}
    for t1, k1 in self.terms:
      for t2, k2 in self._poly(other, "mul").terms:
        t = _term_mul(t1, t2)
        coeffs[t] = coeffs.get(t, 0) + k1 * k2
    return DimExpr._build(coeffs, self.scope)

  def __rmul__(self, other: Any) -> DimSize:
    return self.__mul__(other) if _is_dim(other) else other * _as_value(self)

  def __truediv__(self, other: Any) -> Any:
    return _as_value(self) / other

  def __rtruediv__(self, other: Any) -> Any:
    return other / _as_value(self)

  def __pow__(self, power: Any, modulo: Any = None) -> DimSize:
    if modulo is not None or not isinstance(power, int) or power < 0:
      raise ValueError(f"Symbolic dimension cannot be raised to the power '{power}': '{self}'")
    result: DimSize = 1
    for _ in range(power):
      result = result * self
    return result

  def __floordiv__(self, divisor: Any) -> DimSize:
    return self._divmod(divisor)[0] if _is_dim(divisor) else _as_value(self) // divisor

  def __rfloordiv__(self, dividend: Any) -> DimSize:
    return self._poly(dividend, "floordiv")._divmod(self)[0] if _is_dim(dividend) \
        else dividend // _as_value(self)

  def __mod__(self, divisor: Any) -> DimSize:
    return self._divmod(divisor)[1] if _is_dim(divisor) else _as_value(self) % divisor

  def __rmod__(self, dividend: Any) -> DimSize:
    return self._poly(dividend, "mod")._divmod(self)[1] if _is_dim(dividend) \
        else dividend % _as_value(self)

  def __divmod__(self, divisor: Any) -> tuple[DimSize, DimSize]:
    return self._divmod(divisor) if _is_dim(divisor) else NotImplemented

  def __rdivmod__(self, dividend: Any) -> tuple[DimSize, DimSize]:
    return self._poly(dividend, "divmod")._divmod(self) if _is_dim(dividend) \
        else NotImplemented

  def _divmod(self, divisor: Any) -> tuple[DimSize, DimSize]:
    """Floor division with remainder: exact polynomial division where it divides (for a
    constant divisor, the constant part may leave a remainder), else `floordiv`/`mod` atoms."""
    quotient = _exact_divmod(self, self._poly(divisor, "divmod"))
    if quotient is not None:
      return quotient
    operands = (self, self._poly(divisor, "divmod"))
    return (DimExpr._of_factor(_Factor(FLOORDIV, operands), self.scope),
            DimExpr._of_factor(_Factor(MOD, operands), self.scope))

  def __int__(self) -> int:
    raise InconclusiveDimensionOperation(
        f"Symbolic dimension '{self}' used in a context that requires a constant")

  def __eq__(self, other: Any) -> bool:
    if isinstance(other, DimExpr):
      if other.scope is not self.scope:
        return False
    elif not _is_int(other):
      return False
    diff = self - other
    return not isinstance(diff, DimExpr) and diff == 0

  def __ne__(self, other: Any) -> bool:
    return not self.__eq__(other)

  def __hash__(self) -> int:
    return self._hash

  def __ge__(self, other: Any) -> bool:
    return _geq(self, other, lambda: f"'{self}' >= '{other}'")

  def __le__(self, other: Any) -> bool:
    return _geq(other, self, lambda: f"'{self}' <= '{other}'")

  def __gt__(self, other: Any) -> bool:
    return not _geq(other, self, lambda: f"'{self}' > '{other}'")

  def __lt__(self, other: Any) -> bool:
    return not _geq(self, other, lambda: f"'{self}' < '{other}'")

  def max(self, other: DimSize) -> DimSize:
    return max_dim(self, other)

  def min(self, other: DimSize) -> DimSize:
    return min_dim(self, other)

  def __str__(self) -> str:
    parts = []
    for t, k in self.terms:
      sign = "+" if k > 0 else "-"
      if t == _ONE:
        parts.append(f"{sign} {abs(k)}" if k else "0")
      else:
        parts.append(f"{sign} {_term_str(t)}" if abs(k) == 1
                     else f"{sign} {abs(k)}*{_term_str(t)}")
    text = " ".join(parts)
    return text[2:] if text.startswith("+ ") else text

  __repr__ = __str__

  def __copy__(self) -> DimExpr:
    return self  # (immutable, and tied to its scope)

  def __deepcopy__(self, memo: dict) -> DimExpr:
    return self


def _exact_divmod(dividend: DimExpr, divisor: DimExpr) -> tuple[DimSize, DimSize] | None:
  """(quotient, remainder) where polynomial division by leading terms works out: any divisor
  with a zero remainder, or a constant divisor with only the constant part left over."""
  scope = dividend.scope
  constant = divisor.terms[0][0] == _ONE
  if constant and divisor.terms[0][1] == 0:
    raise ZeroDivisionError(f"Symbolic dimension '{dividend}' divided by 0")
  rest: DimSize = dividend
  quotient: DimSize = 0
  for _ in range(len(dividend.terms) * 4):  # (each step removes the leading term; bounded)
    if not isinstance(rest, DimExpr):
      break
    term, count = rest.terms[0]
    d_term, d_count = divisor.terms[0]
    q_term = _term_div(term, d_term)
    if q_term is None or count % d_count:
      return None
    q = DimExpr._build({q_term: count // d_count}, scope)
    quotient = quotient + q
    rest = rest - divisor * q
  if isinstance(rest, DimExpr) and constant:
    return None
  if constant:
    q, r = divmod(rest, divisor.terms[0][1])
    return quotient + q, r
  return (quotient, 0) if rest == 0 else None


# How a symbolic dimension computes with a value that is no dimension (`b * 1.5`, `x + b`): as
# a traced scalar. stablejax.lax.dimensions sets it (its primitive lies above this module).
as_value_rule: list = []


def _as_value(d: DimExpr) -> Any:
  if not as_value_rule:
    raise TypeError(f"Symbolic dimension '{d}' cannot be used as a value here")
  return as_value_rule[0](d)


def _is_int(x: Any) -> bool:
  try:
    operator.index(x)
    return True
  except TypeError:
    return False


def _is_dim(x: Any) -> bool:
  return isinstance(x, DimExpr) or _is_int(x)


def is_symbolic_dim(d: Any) -> bool:
  """Whether `d` is a symbolic dimension (a `DimExpr`)."""
  return isinstance(d, DimExpr)


def is_constant_dim(d: Any) -> bool:
  """Whether `d` is a known integer dimension."""
  return not isinstance(d, DimExpr) and _is_int(d)


def is_constant_shape(shape: Sequence[Any]) -> bool:
  """Whether every dimension of `shape` is a known integer (a loop: lowering asks this of
  most operations, and a generator costs twice as much)."""
  for d in shape:
    if isinstance(d, DimExpr):
      return False
  return True


def _scope_of(*dims: DimSize) -> SymbolicScope | None:
  for d in dims:
    if isinstance(d, DimExpr):
      return d.scope
  return None


def max_dim(d1: DimSize, d2: DimSize) -> DimSize:
  """The larger of two dimensions: decided from bounds where possible, else a `max` atom."""
  return _extremum(MAX, d1, d2)


def min_dim(d1: DimSize, d2: DimSize) -> DimSize:
  """The smaller of two dimensions: decided from bounds where possible, else a `min` atom."""
  return _extremum(MIN, d1, d2)


def _extremum(kind: str, d1: DimSize, d2: DimSize) -> DimSize:
  scope = _scope_of(d1, d2)
  if_ge, if_le = (d1, d2) if kind == MAX else (d2, d1)  # the answer if d1 >= d2, if d1 <= d2
  if scope is None:
    return max(d1, d2) if kind == MAX else min(d1, d2)
  lb, ub = bounds(d1 - d2)
  if lb >= 0:
    return if_ge
  if ub <= 0:
    return if_le
  return DimExpr._of_factor(_Factor(kind, _operands(scope, d1, d2)), scope)


def _operands(scope: SymbolicScope, *dims: DimSize) -> tuple[DimExpr, ...]:
  return tuple(DimExpr(((_ONE, 0),), scope)._poly(d, "operation") for d in dims)


# ----------------------------------------------------------------------------------------------
# Scopes and their constraints

class SymbolicScope:
  """The scope of symbolic expressions that may be combined, with the constraints on them:
  `e1 >= e2`, `e1 <= e2` and `e1 == e2` (whose left side must be one term times a constant:
  expressions are rewritten with it). Expressions of different scopes do not mix."""

  def __init__(self, constraints_str: Sequence[str] = ()):
    if isinstance(constraints_str, str):
      raise ValueError("The symbolic constraints should be a sequence of strings. "
                       f"Got {constraints_str!r}")
    self._rules: dict[Term, tuple[dict[Term, int], int]] = {}  # t*k == expr
    self._facts: list[tuple[bool, dict[Term, int]]] = []  # (is_equality, e): e >= 0 or e == 0
    self._constraint_strs: list[str] = []
    self._bounds_cache: dict[DimExpr, tuple[float, float]] = {}
    for c in constraints_str:
      self._add_constraint(c)

  def __str__(self) -> str:
    lines = [f"SymbolicScope({id(self)})"]
    if self._constraint_strs:
      lines.append(" with constraints:")
      lines.extend(f"  {c}" for c in self._constraint_strs)
    return "\n".join(lines)

  __repr__ = __str__

  def _add_constraint(self, text: str) -> None:
    if not isinstance(text, str):
      raise ValueError(f"SymbolicScope constraint must be a string: got {text!r}")
    match = re.search("==|>=|<=", text)
    if match is None:
      raise ValueError("Constraint parsing error: must contain one of '==' or '>=' or '<='")
    e1, = _Parser(text[:match.start()], None, repr(text[:match.start()]), self).parse()
    e2, = _Parser(text[match.end():], None, repr(text[match.end():]), self).parse()
    if match.group() == "<=":
      e1, e2 = e2, e1
    diff = e1 - e2
    if not isinstance(diff, DimExpr):
      if (diff != 0 if match.group() == "==" else diff < 0):
        raise ValueError(f"Unsatisfiable explicit constraint: {text}")
      return
    self._constraint_strs.append(text)
    self._facts.append((match.group() == "==", diff._coeffs()))
    if match.group() == "==":
      self._add_rule(e1, e2, text)
    self._bounds_cache.clear()

  def _add_rule(self, e1: DimSize, e2: DimSize, text: str) -> None:
    """Rewrite `e1` (one term times a constant) as `e2` in every expression built later."""
    if not isinstance(e1, DimExpr) or len(e1.terms) != 1:
      raise ValueError(f"Invalid equality constraint: {text}. "
                       "The left-hand-side must be of the form `term * coefficient`.")
    (term, k), = e1.terms
    if term in self._rules:
      raise NotImplementedError(
          f"Found multiple equality constraints with the same left-hand-side: {_term_str(term)}")
    self._rules[term] = (e1._poly(e2, "constraint")._coeffs(), k)
    (factor, _), = term if len(term) == 1 else ((None, 0),)
    if k == 1 and e2 == 0 and factor is not None and factor.name == MOD and \
        is_constant_dim(divisor := _constant_of(factor.operands[1])):
      # mod(e, c) == 0: c*floordiv(e, c) is e
      floordiv = ((_Factor(FLOORDIV, factor.operands), 1),)
      self._rules[floordiv] = (factor.operands[0]._coeffs(), divisor)

  def _normalize(self, coeffs: dict[Term, int]) -> dict[Term, int]:
    """`coeffs` with the first term an equality constraint rewrites, rewritten."""
    if not self._rules:
      return coeffs
    for t, k in coeffs.items():
      for part in ((t,) + tuple(((fe,),) for fe in t) if len(t) > 1 else (t,)):
        after, after_k = self._rules.get(part, (None, 0))
        if after is None or k % after_k:
          continue
        rest = _term_div(t, part)
        out = dict(coeffs)
        out[t] -= k
        for t2, k2 in after.items():
          t3 = _term_mul(t2, rest)
          out[t3] = out.get(t3, 0) + k2 * (k // after_k)
        return {t: k for t, k in out.items() if k}
    return coeffs

  def _check_same(self, other: DimExpr, what: str) -> None:
    if other.scope is not self:
      raise ValueError(f"Invalid mixing of symbolic scopes for operation {what}.\n"
                       f"Expected scope {self}\nand found for '{other}' scope {other.scope}")


def _constant_of(e: DimExpr) -> DimSize:
  """The int a constant operand expression stands for, else the expression."""
  (t, k), = e.terms if len(e.terms) == 1 else ((None, 0),)
  return k if t == _ONE else e


# ----------------------------------------------------------------------------------------------
# Bounds and the decision of comparisons

def bounds(e: DimSize) -> tuple[float, float]:
  """The lower and upper bounds of `e` (ints, or -inf/inf) that its scope proves: every
  variable is >= 1; the scope's constraints; and what the atoms imply (0 <= mod(x, k) < k,
  x == k*floordiv(x, k) + mod(x, k), max(x, y) >= x, ...)."""
  if not isinstance(e, DimExpr):
    return (operator.index(e), operator.index(e))
  scope = e.scope
  cached = scope._bounds_cache.get(e)
  if cached is None:
    facts = list(scope._facts) + _implicit_facts(e, scope)
    cached = _search(e._coeffs(), facts, scope, depth=3)
    scope._bounds_cache[e] = cached
  return cached


def _search(coeffs: dict[Term, int], facts: list[tuple[bool, dict[Term, int]]],
            scope: SymbolicScope, depth: int) -> tuple[float, float]:
  """Bounds of the sum `coeffs`: from the bounds of its terms, improved by eliminating a term
  with a fact f >= 0 (or f == 0): with f = c*t + ..., |c|*e = e0 + s*f where e0 lacks t."""
  lb, ub = _interval(coeffs, scope)
  if depth == 0:
    return lb, ub
  for i, (is_eq, fact) in enumerate(facts):
    for t, tk in coeffs.items():
      fk = fact.get(t) if t != _ONE else None
      if not fk:
        continue
      s = tk if fk > 0 else -tk
      e0 = {u: abs(fk) * coeffs.get(u, 0) - s * fact.get(u, 0) for u in {*coeffs, *fact}}
      l0, u0 = _search({u: k for u, k in e0.items() if k}, facts[:i] + facts[i + 1:], scope,
                       depth - 1)
      if (s > 0 or is_eq) and l0 > -_INF:
        lb = max(lb, _ceil_div(l0, abs(fk)))
      if (s < 0 or is_eq) and u0 < _INF:
        ub = min(ub, u0 // abs(fk))
  return lb, ub


def _interval(coeffs: dict[Term, int], scope: SymbolicScope) -> tuple[float, float]:
  """Bounds of a sum from the bounds of each term alone."""
  lb = ub = 0
  for t, k in coeffs.items():
    t_lb, t_ub = _term_bounds(t, scope)
    lo, hi = (k * t_lb, k * t_ub) if k > 0 else (k * t_ub, k * t_lb)
    lb, ub = lb + lo, ub + hi
  return lb, ub


def _term_bounds(t: Term, scope: SymbolicScope) -> tuple[float, float]:
  """Bounds of one term: the product of its factors' bounds, narrowed by the facts that
  bound that term alone (`b >= 2`)."""
  if t == _ONE:
    return (1, 1)
  lb, ub = 1, 1
  for f, e in t:
    f_lb, f_ub = _factor_bounds(f)
    ends = (f_lb ** e, f_ub ** e)
    p_lb = 0 if e % 2 == 0 and f_lb < 0 < f_ub else min(ends)
    products = [_mul(a, b) for a in (lb, ub) for b in (p_lb, max(ends))]
    lb, ub = min(products), max(products)
  for is_eq, fact in scope._facts:
    if t in fact and set(fact) <= {t, _ONE}:
      k, n = fact[t], fact.get(_ONE, 0)  # k*t + n >= 0 (or == 0)
      if k > 0 or is_eq:
        lb = max(lb, _ceil_div(-n, k))
      if k < 0 or is_eq:
        ub = min(ub, -n // k)
  return lb, ub


def _mul(a: float, b: float) -> float:
  return 0 if a == 0 or b == 0 else a * b


def _ceil_div(a: float, b: int) -> float:
  return -(-a // b)


def _factor_bounds(f: _Factor) -> tuple[float, float]:
  if not f.operands:
    return (1, _INF)
  (x_lb, x_ub), (y_lb, y_ub) = bounds(_constant_of(f.operands[0])), \
      bounds(_constant_of(f.operands[1]))
  if f.name == MAX:
    return (max(x_lb, y_lb), max(x_ub, y_ub))
  if f.name == MIN:
    return (min(x_lb, y_lb), min(x_ub, y_ub))
  if y_lb <= 0 <= y_ub:
    raise InconclusiveDimensionOperation(
        f"Possible division by 0 in division by {f.operands[1]}")
  if f.name == MOD:
    return (0, y_ub - 1) if y_lb > 0 else (y_lb + 1, 0)
  ends = [_floordiv_inf(a, b) for a in (x_lb, x_ub) for b in (y_lb, y_ub)]
  return (min(ends), max(ends))


def _floordiv_inf(a: float, b: float) -> float:
  if abs(b) == _INF:
    return (0 if (a >= 0) == (b >= 0) else -1) if abs(a) < _INF else \
        (_INF if (a >= 0) == (b >= 0) else -_INF)
  if abs(a) == _INF:
    return _INF if (a >= 0) == (b >= 0) else -_INF
  return a // b


def _implicit_facts(e: DimExpr, scope: SymbolicScope) -> list[tuple[bool, dict[Term, int]]]:
  """The facts the atoms of `e` imply about each other and their operands."""
  facts, seen = [], set()
  todo = [f for t, _ in e.terms for f, _ in t]
  while todo:
    f = todo.pop()
    if f in seen or not f.operands:
      continue
    seen.add(f)
    x, y = f.operands
    atom = DimExpr._of_factor(f, scope)
    if f.name == MAX:
      new = [(False, atom - x), (False, atom - y)]
    elif f.name == MIN:
      new = [(False, x - atom), (False, y - atom)]
    elif f.name == MOD:
      new = [(False, y - 1 - atom)] if bounds(_constant_of(y))[0] > 0 else []
    else:
      mod = DimExpr._of_factor(_Factor(MOD, f.operands), scope)
      new = [(True, x - y * atom - mod)] if bounds(_constant_of(y))[0] > 0 else []
    for is_eq, d in new:
      if isinstance(d, DimExpr):
        facts.append((is_eq, d._coeffs()))
        todo.extend(g for t, _ in d.terms for g, _ in t)
    todo.extend(g for o in f.operands for t, _ in o.terms for g, _ in t)
  return facts


def _geq(e1: DimSize, e2: DimSize, describe) -> bool:
  """`e1 >= e2`, decided from the bounds of `e1 - e2`."""
  scope = _scope_of(e1, e2)
  if scope is None:
    return operator.index(e1) >= operator.index(e2)
  if isinstance(e1, DimExpr) and isinstance(e2, DimExpr):
    e1.scope._check_same(e2, f"comparison {describe()}")
  lb, ub = bounds(e1 - e2)
  if lb >= 0:
    return True
  if ub < 0:
    return False
  where = f"\nUsing symbolic scope {scope}" if scope._constraint_strs else ""
  raise InconclusiveDimensionOperation(
      f"Symbolic dimension comparison {describe()} is inconclusive.{where}")


# ----------------------------------------------------------------------------------------------
# Parsing shape specifications

_TOKEN = re.compile(r"\s*(?:(?P<name>[A-Za-z_][A-Za-z0-9_]*)|(?P<number>[0-9]+)|"
                    r"(?P<op>\.\.\.|[-+*^(),]))")


class _Parser:
  """A recursive-descent parser of JAX's shape specifications:
  shape ::= '(' shape ')' | dim (',' dim)* [','];  dim ::= expr | '_' | '...'
  expr ::= ['-'|'+'] term (('+'|'-') term)*;  term ::= factor ['^' int] ('*' factor ['^' int])*
  factor ::= name | int | '-' int | op '(' expr ',' expr ')'."""

  def __init__(self, spec: str, like: Sequence[int | None] | None, spec_repr: str,
               scope: SymbolicScope):
    self.spec, self.like, self.spec_repr, self.scope = spec, like, spec_repr, scope
    self.dims: list[DimSize] = []
    self.tokens = self._tokenize()
    self.pos = 0

  def _tokenize(self) -> list[tuple[int, str]]:
    tokens, at = [], 0
    while self.spec[at:].strip():
      match = _TOKEN.match(self.spec, at)
      if match is None:
        raise self.error(f"unexpected character {self.spec[at:].lstrip()[0]!r}", at)
      tokens.append((match.start(match.lastgroup), match.group(match.lastgroup)))
      at = match.end()
    return tokens + [(len(self.spec), "")]

  def error(self, detail: str, at: int | None = None) -> ValueError:
    at = self.tokens[self.pos][0] if at is None else at
    return ValueError(f"syntax error in symbolic shape {self.spec_repr} in dimension "
                      f"{len(self.dims)}: {detail}. Parsed '{self.spec[:at]}', "
                      f"remaining '{self.spec[at:]}'.")

  def peek(self) -> str:
    return self.tokens[self.pos][1]

  def take(self, expected: str | None = None) -> str:
    tok = self.peek()
    if expected is not None and tok != expected:
      raise self.error(f"expecting '{expected}' but found '{tok or 'end of string'}'")
    self.pos += 1
    return tok

  def parse(self) -> tuple[DimSize, ...]:
    self.shape()
    if self.peek():
      raise self.error(f"unexpected '{self.peek()}'")
    return tuple(self.dims)

  def shape(self) -> None:
    if self.peek() == "(":
      self.take()
      self.shape()
      self.take(")")
      return
    while self.peek() not in ("", ")"):
      if self.peek() in ("_", "..."):
        if self.placeholder(self.take()):
          return
      else:
        self.add_dim(self.expr())
      if self.peek() in ("", ")"):
        return
      self.take(",")

  def placeholder(self, tok: str) -> bool:
    """Fill in `_` (one dimension) or `...` (the rest) from `like`; True after `...`."""
    if self.like is None:
      raise self.error("spec contains ... but no 'like' shape was given")
    wanted = len(self.dims) + (tok == "_")
    if len(self.like) < wanted:
      raise self.error(f"cannot resolve placeholder '{tok}' because we parsed {len(self.dims)} "
                       f"already and 'like' shape has only {len(self.like)} dimensions")
    for d in (self.like[len(self.dims):] if tok == "..." else [self.like[len(self.dims)]]):
      self.add_dim(d)
    return tok == "..."

  def add_dim(self, d: DimSize | None) -> None:
    if d is None:
      raise self.error(f"unexpected placeholder for unknown dimension; like={self.like}")
    if self.like is not None and is_constant_dim(d) and len(self.like) > len(self.dims) and \
        self.like[len(self.dims)] != d:
      raise self.error(f"different size {d} for known dimension; like={self.like}")
    self.dims.append(d)

  def expr(self) -> DimSize:
    negate = self.peek() == "-"
    if self.peek() in ("-", "+"):
      self.take()
    acc: DimSize = 0
    while True:
      t = self.term()
      acc = acc - t if negate else acc + t
      if self.peek() not in ("+", "-"):
        return acc
      negate = self.take() == "-"

  def term(self) -> DimSize:
    acc: DimSize = 1
    while True:
      f = self.factor()
      if self.peek() == "^":
        self.take()
        f = f ** self.integer()
      acc = acc * f
      if self.peek() != "*":
        return acc
      self.take()

  def integer(self) -> int:
    if not self.peek().isdigit():
      raise self.error(f"expecting integer, found '{self.peek() or 'end of string'}'")
    return int(self.take())

  def factor(self) -> DimSize:
    tok = self.peek()
    if tok == "-":
      self.take()
      return -self.integer()
    if tok.isdigit():
      return self.integer()
    if not tok or not (tok[0].isalpha() or tok[0] == "_") or tok == "_":
      raise self.error(f"expecting a dimension variable, an integer or an operation, "
                       f"found '{tok or 'end of string'}'")
    self.take()
    if tok not in (FLOORDIV, MOD, MAX, MIN):
      return DimExpr._of_factor(_Factor(tok), self.scope)
    self.take("(")
    e1 = self.expr()
    self.take(",")
    e2 = self.expr()
    self.take(")")
    if tok in (MAX, MIN):
      return (max_dim if tok == MAX else min_dim)(e1, e2)
    return DimExpr._of_factor(_Factor(tok, _operands(self.scope, e1, e2)), self.scope)


def symbolic_shape(shape_spec: str | None, *, constraints: Sequence[str] = (),
                   scope: SymbolicScope | None = None,
                   like: Sequence[int | None] | None = None) -> tuple[DimSize, ...]:
  """The shape a specification such as "b, 2*b" or "(b, 4)" describes: ints and symbolic
  dimensions of `scope` (by default a new scope with `constraints`); `_` and `...` stand for
  the dimensions of `like`."""
  spec_repr = repr(shape_spec)
  if shape_spec is None:
    shape_spec = "..."
  elif not isinstance(shape_spec, str):
    raise ValueError(f"polymorphic shape spec should be None or a string. Found {spec_repr}.")
  if scope is None:
    scope = SymbolicScope(constraints)
  elif constraints:
    raise ValueError("Cannot specify both a `scope` and `constraints`.")
  return _Parser(shape_spec, like, spec_repr, scope).parse()


def symbolic_dim_bounds(d: DimSize) -> tuple[float, float]:
  """The lower and upper bounds its scope proves for a dimension (ints, or -inf/inf)."""
  return bounds(d)


def all_dim_vars(shapes: Iterable[Sequence[DimSize]]) -> list[str]:
  """The names of the dimension variables in `shapes`, sorted."""
  names: set[str] = set()
  todo = [f for shape in shapes for d in shape if isinstance(d, DimExpr)
          for t, _ in d.terms for f, _ in t]
  while todo:
    f = todo.pop()
    if f.operands:
      todo.extend(g for o in f.operands for t, _ in o.terms for g, _ in t)
    else:
      names.add(f.name)
  return sorted(names)


class DimArithmetic:
  """The arithmetic `evaluate` computes a dimension with: Python's on ints; the lowering
  subclasses it to emit ops on the values of the dimension variables."""

  def constant(self, k: int) -> Any:
    return k

  def add(self, x: Any, y: Any) -> Any:
    return x + y

  def mul(self, x: Any, y: Any) -> Any:
    return x * y

  def floordiv(self, x: Any, y: Any) -> Any:
    return x // y

  def mod(self, x: Any, y: Any) -> Any:
    return x % y

  def max(self, x: Any, y: Any) -> Any:
    return max(x, y)

  def min(self, x: Any, y: Any) -> Any:
    return min(x, y)

  def ge(self, x: Any, y: Any) -> Any:
    return x >= y

  def eq(self, x: Any, y: Any) -> Any:
    return x == y


def evaluate(d: DimSize, env: Mapping[str, Any],
             arithmetic: DimArithmetic = DimArithmetic()) -> Any:
  """The value of dimension `d` given the values `env` of its variables (by name), computed
  with `arithmetic` (by default ints with Python's arithmetic, floor division included)."""
  if not isinstance(d, DimExpr):
    return arithmetic.constant(operator.index(d))
  total = None
  for term, k in d.terms:
    value = arithmetic.constant(k) if term == _ONE or k != 1 else None
    for factor, e in term:
      f = _evaluate_factor(factor, env, arithmetic)
      for _ in range(e):
        value = f if value is None else arithmetic.mul(value, f)
    total = value if total is None else arithmetic.add(total, value)
  return total


def _evaluate_factor(f: _Factor, env: Mapping[str, Any], arithmetic: DimArithmetic) -> Any:
  if not f.operands:
    if f.name not in env:
      raise KeyError(f"the dimension variable '{f.name}' has no value")
    return env[f.name]
  x, y = (evaluate(_constant_of(o), env, arithmetic) for o in f.operands)
  return getattr(arithmetic, f.name)(x, y)


# ----------------------------------------------------------------------------------------------
# Shape helpers for the rules: a symbolic dimension passes where an int does

def canonicalize_dim(d: Any, what: str = "dimension") -> DimSize:
  """`d` as a dimension: a symbolic one as it is, anything else as a Python int."""
  if isinstance(d, DimExpr):
    return d
  try:
    return operator.index(d)
  except TypeError:
    raise TypeError(f"{what} must be an integer or a symbolic dimension, got {d!r} of type "
                    f"{type(d).__name__}") from None


def slice_indices(s: slice, size: DimSize) -> tuple[DimSize, DimSize, int]:
  """(start, stop, step) of the static slice `s` on an axis of `size`, as `slice.indices`,
  where the size (or a bound) may be symbolic."""
  if not any(isinstance(v, DimExpr) for v in (size, s.start, s.stop)):
    return s.indices(size)
  step = 1 if s.step is None else operator.index(s.step)
  if step == 0:
    raise ValueError("slice step cannot be zero")

  def clamp(v: DimSize | None, default: DimSize, low: DimSize, high: DimSize) -> DimSize:
    if v is None:
      return default
    if not isinstance(v, DimExpr) and v < 0:
      v = v + size
    return min_dim(max_dim(v, low), high)

  if step > 0:
    return clamp(s.start, 0, 0, size), clamp(s.stop, size, 0, size), step
  return clamp(s.start, size - 1, -1, size - 1), clamp(s.stop, -1, -1, size - 1), step


def slice_count(start: DimSize, stop: DimSize, step: int) -> DimSize:
  """How many elements `range(start, stop, step)` has (0 where it is empty)."""
  if step > 0:
    return max_dim(0, (stop - start + step - 1) // step)
  return max_dim(0, (start - stop - step - 1) // -step)


# ----------------------------------------------------------------------------------------------
# Solving the dimension variables from the arguments' sizes, and the checks that they fit

class ShapeAssertion(NamedTuple):
  """A check that the arguments' sizes fit their symbolic shapes: `holds` (a bool, or a value of
  the arithmetic that computed it) and JAX's message, `{i}` standing for `operands[i]`."""
  holds: Any
  message: str
  operands: tuple


_MISMATCH = "Input shapes do not match the polymorphic shapes specification. "
_SEE_DOCS = (". Please see https://docs.jax.dev/en/latest/export/shape_poly.html"
             "#shape-assertion-errors for more details.")


def _solvable(d: DimSize, known: Mapping[str, Any]) -> tuple[str, int, DimSize] | None:
  """(var, k, rest) where `d` is k*var + rest, var its one unknown variable, rest free of it."""
  if not isinstance(d, DimExpr):
    return None
  unknown = [v for v in all_dim_vars([(d,)]) if v not in known]
  if len(unknown) != 1:
    return None
  var = DimExpr._of_factor(_Factor(unknown[0]), d.scope)
  k = d._coeffs().get(var.terms[0][0])
  rest = d - k * var if k else None
  if not k or unknown[0] in all_dim_vars([(rest,)]):
    return None
  return unknown[0], k, rest


class _Solver:
  """Solves the dimension variables one linear equation `size == k*var + rest` at a time (in
  the order of the arguments' axes) and collects the assertions, as JAX's `solve_dim_vars`."""

  def __init__(self, shapes: Sequence[Sequence[DimSize]], arg_names: Sequence[str],
               arithmetic: DimArithmetic):
    self.shapes, self.arg_names, self.ar = shapes, arg_names, arithmetic
    self.env: dict[str, Any] = {}
    self.obtained: list[tuple[str, DimSize, str, Any, Any]] = []
    self.assertions: list[ShapeAssertion] = []
    self.specs = " Using the following polymorphic shapes specifications: " + ",".join(
        f"{n}.shape = {tuple(s)}" for n, s in zip(arg_names, shapes)) + "."

  def check(self, holds: Any, detail: str, extra: Sequence[Any] = (),
            prefix: str = _MISMATCH) -> None:
    operands, pieces = list(extra), []
    for var, spec, where, value, size in self.obtained:
      i = len(operands)
      operands.append(value)
      j = i if size is value else len(operands)
      operands.extend([] if size is value else [size])
      pieces.append(f"'{var}' = {{{i}}} from specification '{spec}' for dimension {where} "
                    f"(= {{{j}}}), ")
    self.assertions.append(ShapeAssertion(
        holds, f"{prefix}{detail}{self.specs} Obtained dimension variables: {''.join(pieces)}"
        f"{_SEE_DOCS}", tuple(operands)))

  def solve(self, d: DimSize, size: Any, where: str) -> bool:
    found = _solvable(d, self.env)
    if found is None:
      return False
    var, k, rest = found
    ar = self.ar
    scaled = ar.add(size, ar.mul(ar.constant(-1), evaluate(rest, self.env, ar))) \
        if rest != 0 else size
    value = scaled
    if k != 1:
      value = ar.floordiv(scaled, ar.constant(k))
      remainder = ar.mod(scaled, ar.constant(k))
      self.check(ar.eq(remainder, ar.constant(0)), f"Division had remainder {{0}} when "
                 f"computing the value of '{var}'.", [remainder])
    self.env[var] = value
    self.obtained.append((var, d, where, value, size))
    self.check(ar.ge(value, ar.constant(1)), f"Expected value >= 1 for dimension variable "
               f"'{var}'.")
    return True


def solve_dim_vars(shapes: Sequence[Sequence[DimSize]], arg_names: Sequence[str],
                   sizes: Sequence[Sequence[Any]], arithmetic: DimArithmetic = DimArithmetic()
                   ) -> tuple[dict[str, Any], list[ShapeAssertion]]:
  """The values of the dimension variables of the arguments' symbolic `shapes` (named
  `arg_names`) given their `sizes` (values of `arithmetic`), and the assertions that the sizes
  fit the shapes and the scope's constraints, with JAX's messages. A ValueError, as JAX's, when
  a variable cannot be solved from a linear equation in it alone."""
  solver = _Solver(shapes, arg_names, arithmetic)
  todo = [(d, sizes[i][j], f"{arg_names[i]}.shape[{j}]")
          for i, shape in enumerate(shapes) for j, d in enumerate(shape) if is_symbolic_dim(d)]
  while todo:
    left = [t for t in todo if not solver.solve(*t)]
    if len(left) == len(todo):
      break
    todo = left
  unsolved = sorted(set(all_dim_vars(shapes)) - set(solver.env))
  if unsolved:
    raise ValueError(
        f"Cannot solve for values of dimension variables {set(unsolved)}. We can only solve "
        f"linear uni-variate constraints.{solver.specs} Unprocessed specifications: " +
        ", ".join(f"'{d}' for dimension size {where}" for d, _, where in todo) + ".")
  ar = arithmetic
  for d, size, where in todo:
    expected = evaluate(d, solver.env, ar)
    solver.check(ar.eq(size, expected), f"Found inconsistency between dimension size {where} "
                 f"(= {{0}}) and the specification '{d}' (= {{1}}).", [size, expected])
  _check_constraints(solver)
  return solver.env, solver.assertions


def _check_constraints(solver: _Solver) -> None:
  """The scope's explicit constraints over solved variables (the others were rewritten away)."""
  scope = _scope_of(*(d for s in solver.shapes for d in s))
  if scope is None:
    return
  ar = solver.ar
  for text, (is_eq, coeffs) in zip(scope._constraint_strs, scope._facts):
    diff = DimExpr(_sorted_terms(coeffs), scope)
    if not set(all_dim_vars([(diff,)])) <= set(solver.env):
      continue
    value = evaluate(diff, solver.env, ar)
    holds = ar.eq(value, ar.constant(0)) if is_eq else ar.ge(value, ar.constant(0))
    solver.check(holds, f"Expected '{diff}' to be {'equal' if is_eq else 'greater or equal'} "
                 "to 0, but found {0}. ", [value],
                 prefix=f"Input shapes do not match the symbolic shape constraint {text}. ")
