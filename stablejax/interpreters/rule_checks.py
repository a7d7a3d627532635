"""Which transformation rules have their results checked, and how a rule is named in errors.

A JVP, transpose or batching rule whose result has the wrong shape or dtype is named at the rule
(the checks are in `ad` and `batching`), not far downstream. stablejax's own rules, those in the
rule tables when `stablejax` is imported (`seal_builtin_rules`), are trusted and skip the checks
unless `config.check_transform_rules` is on (the test suite turns it on); a user's rule, or any
rule registered later, is always checked."""
from __future__ import annotations

import functools
import inspect
from typing import Any, Callable

from stablejax.config import config

# The tables of transformation rules (`ad.primitive_jvps`, `batching.primitive_batchers`, ...),
# each registered by its module; `seal_builtin_rules` reads them.
rule_tables: list[dict] = []
_builtin: set[Callable] = set()


def register_rule_table(table: dict) -> dict:
  """Add `table` (primitive -> rule) to those whose rules are sealed as stablejax's own."""
  rule_tables.append(table)
  return table


def seal_builtin_rules() -> None:
  """Mark every rule registered so far as stablejax's own (once its modules are imported)."""
  _builtin.update(rule for table in rule_tables for rule in table.values())


def is_checked(rule: Callable) -> bool:
  """Whether the results of `rule` are checked."""
  return rule not in _builtin or config.check_transform_rules or config.enable_checks


def rule_location(rule: Any) -> str:
  """`name (file:line)` of the function defining `rule` (through `functools.partial`s and
  `functools.wraps`), for errors naming it."""
  while isinstance(rule, functools.partial):
    rule = rule.func
  rule = inspect.unwrap(rule)
  code = getattr(rule, "__code__", None)
  if code is None:  # a callable object: its __call__
    code = getattr(getattr(type(rule), "__call__", None), "__code__", None)
  name = getattr(rule, "__qualname__", None) or type(rule).__qualname__
  if code is None:
    return name
  return f"{name} ({code.co_filename}:{code.co_firstlineno})"


def bad_result(kind: str, primitive: Any, rule: Callable, what: str) -> TypeError:
  """The error for a `kind` rule ("JVP", "transpose", "batching") of `primitive` that
  returned `what` (a description of the wrong part of its result)."""
  return TypeError(f"the {kind} rule of primitive '{primitive.name}', "
                   f"{rule_location(rule)}, returned {what}")
