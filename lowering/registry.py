"""The table of lowering rules: a default rule per primitive and per-platform overrides."""
from __future__ import annotations

import warnings
from typing import Callable

from stablejax import core, platforms
from stablejax.config import config

# primitive -> {platform or None (the default rule): rule}
_rules: dict[core.Primitive, dict[str | None, Callable]] = {}
# The rules of stablejax's own rule modules (`seal_builtin_rules`), whose result types the test
# suite checks (`config.check_lowering_rules`); any rule registered after them, a user's, has
# its results checked on every equation, so a wrong one is named at once.
_builtin: set[Callable] = set()
# The primitives whose rules lower values of extended dtypes (PRNG keys) as their physical
# arrays themselves; any other primitive on them is lowered once per physical component.
physical_lowerings: set[core.Primitive] = set()
_builtin_primitives: set[core.Primitive] = set()


class LoweringError(Exception):
  """A jaxpr cannot be lowered: a missing rule, a bad rule result or an invalid module."""


class MissingLoweringRule(LoweringError, NotImplementedError):
  """A primitive with lowering rules has none for the platform (a NotImplementedError, as in
  JAX). A primitive with no lowering rule at all raises JAX's own type, NotImplementedError."""


def register_lowering(prim: core.Primitive, rule: Callable, platform: str | None = None
                      ) -> Callable:
  """Register `rule(ctx, *values, **params) -> [ir.Value]` for `prim`: the default rule, or an
  override used only when lowering for `platform` (`gpu`: cuda and rocm). Replacing a rule
  already registered for the same platform (or the default rule) is allowed, as in JAX, where
  it is silent; here it warns (a UserWarning naming the primitive and platform), since it is
  usually an accident of registering twice or of a `gpu` rule after a `cuda` one."""
  if not isinstance(prim, core.Primitive):
    raise TypeError(f"register_lowering: expected a core.Primitive, got {prim!r}")
  if not callable(rule):
    raise TypeError(f"register_lowering: the rule for '{prim.name}' is not callable: {rule!r}")
  try:
    targets = (None,) if platform is None else platforms.covered(platform)
  except ValueError as e:
    raise ValueError(f"register_lowering of primitive '{prim.name}': {e}") from None
  table = _rules.setdefault(prim, {})
  for p in targets:
    old = table.get(p)
    if old is not None and old is not rule:
      where = "its default lowering rule" if p is None else f"its lowering rule for '{p}'"
      warnings.warn(f"register_lowering: replacing {where} of primitive '{prim.name}' "
                    f"(registered with platform={platform!r})", UserWarning, stacklevel=2)
    table[p] = rule
  return rule


def lookup_rule(prim: core.Primitive, platform: str) -> Callable:
  """The rule lowering `prim` on `platform`: its override there, else its default rule."""
  table = _rules.get(prim)
  rule = None if table is None else table.get(platform) or table.get(None)
  if table is None:
    raise NotImplementedError(f"MLIR translation rule for primitive '{prim.name}' not found for "
                              f"platform {platform}: register one with "
                              "stablejax.lowering.register_lowering")
  if rule is None:
    raise MissingLoweringRule(f"no lowering rule for primitive '{prim.name}' on platform "
                              f"'{platform}': register one with "
                              "stablejax.lowering.register_lowering")
  return rule


def seal_builtin_rules() -> None:
  """Mark every rule registered so far as stablejax's own (once its rule modules are imported)."""
  _builtin.update(rule for table in _rules.values() for rule in table.values())
  _builtin_primitives.update(_rules)


def is_builtin(prim: core.Primitive) -> bool:
  """Whether `prim` is one of stablejax's own primitives (lowered by its rule modules)."""
  return prim in _builtin_primitives


def checks_results(rule: Callable) -> bool:
  """Whether the types of `rule`'s results are checked against the equation's outputs."""
  return rule not in _builtin or config.check_lowering_rules or config.enable_checks
