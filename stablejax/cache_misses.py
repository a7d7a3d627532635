"""`sj.config.update("explain_cache_misses", True)`: each time a `jit`ted function traces again,
one WARNING record on the `stablejax` logger says why, as JAX's `explain_cache_misses` does:
the function was never seen, or, against the closest key in its trace cache, what changed:
the tracing context (a config option, by name, or the mesh), the argument tree, a static
argument, or an argument's shape, dtype or weak type (each argument by its name).

A key of `jit`'s trace cache is (argument count, avals, context) for positional arrays, else
(argument tree, avals, static arguments, context) (stablejax/jit.py).
"""
from __future__ import annotations

import inspect
import logging
from typing import Any, Callable

from stablejax.config import TRACE_CONTEXT
from stablejax.stages import arg_names_of
from stablejax.tree_util import tree_structure

logger = logging.getLogger(__name__)

Diff = tuple[int, str]  # (the number of differences, the text)


def explain(fun: Callable, name: str, key: tuple, cache: dict) -> None:
  """Log why `jit` of `fun` (`name`) traces for `key`, missing the keys of `cache`."""
  where = _defined_at(fun)
  if not cache:
    logger.warning("TRACING CACHE MISS at jit(%s):\n  never seen function:\n    %s id=%d%s",
                   name, name, id(fun), where)
    return
  # the closest key: the fewest parts differing, then the fewest differences
  diffs = min((_diffs(fun, key, seen) for seen in cache),
              key=lambda ds: (len(ds), sum(n for n, _ in ds)))
  text = "\n  ".join(t for _, t in diffs) or "cache miss explanation unavailable"
  logger.warning("TRACING CACHE MISS at jit(%s):\n  for %s%s\n  all %d previously seen cache "
                 "keys differ. For the closest previous key:\n  %s", name, name, where,
                 len(cache), text)


def _defined_at(fun: Callable) -> str:
  try:
    code = inspect.unwrap(fun).__code__
  except AttributeError:
    return ""
  return f" defined at {code.co_filename}:{code.co_firstlineno}"


def _parts(key: tuple) -> tuple[Any, tuple, tuple, tuple]:
  """(tree, avals, static arguments, context) of a key (tree: the argument count for a key of
  positional arrays)."""
  if len(key) == 3:
    return key[0], key[1], ((), ()), key[2]
  return key


def _diffs(fun: Callable, new: tuple, old: tuple) -> list[Diff]:
  """What differs between two keys, part by part."""
  new_tree, new_avals, new_static, new_ctx = _parts(new)
  old_tree, old_avals, old_static, old_ctx = _parts(old)
  diffs = [_diff_context(new_ctx, old_ctx), _diff_tree(new_tree, old_tree),
           _diff_static(new_static, old_static)]
  if new_tree == old_tree:  # (types of other trees do not compare argument by argument)
    diffs.append(_diff_types(fun, new_tree, new_static, new_avals, old_avals))
  return [d for d in diffs if d is not None]


def _diff_context(new: tuple, old: tuple) -> Diff | None:
  if new == old:
    return None
  (new_values, new_mesh), (old_values, old_mesh) = new, old
  lines = [f"  * {n} differs: now {a} and before {b}"
           for n, a, b in zip(TRACE_CONTEXT, new_values, old_values) if a != b]
  if new_mesh != old_mesh:
    lines.append(f"  * the context mesh differs: now {new_mesh} and before {old_mesh}")
  return len(lines), ("tracing context doesn't match, e.g. due to config or context "
                         "manager:\n" + "\n".join(lines))


def _diff_tree(new: Any, old: Any) -> Diff | None:
  if new == old:
    return None
  if isinstance(new, int) and isinstance(old, int):
    return 1, f"different number of arguments: now {new} and before {old}"
  show = lambda t: f"{t} positional arrays" if isinstance(t, int) else str(t)
  return 1, f"different input pytree:\n  * now {show(new)} and before {show(old)}"


def _diff_static(new: tuple, old: tuple) -> Diff | None:
  if new == old:
    return None
  lines = []
  for kind, new_items, old_items in (("position", *[dict(s[0]) for s in (new, old)]),
                                     ("keyword", *[dict(s[1]) for s in (new, old)])):
    for k in sorted(set(new_items) | set(old_items), key=str):
      a, b = new_items.get(k, _NOT_GIVEN), old_items.get(k, _NOT_GIVEN)
      if a != b or type(a) is not type(b):
        lines.append(f"  * static argument at {kind} {k!r}: now {_show(a)} and before "
                     f"{_show(b)}")
  return len(lines), "different static arguments:\n" + "\n".join(lines)


_NOT_GIVEN = object()


def _show(value: Any) -> str:
  return "not given" if value is _NOT_GIVEN else repr(value)


def _diff_types(fun: Callable, tree: Any, static: tuple, new: tuple, old: tuple) -> Diff | None:
  if new == old:
    return None
  if isinstance(tree, int):
    names = arg_names_of(fun, tree_structure(((0,) * tree, {})))
  else:
    names = arg_names_of(fun, tree, {i for i, _ in static[0]})
  lines, weak = [], False
  for name, a, b in zip(names, new, old):
    if a != b:
      now, before = a.str_short(), b.str_short()
      if getattr(a, "weak_type", False) != getattr(b, "weak_type", False):
        weak = True
        now, before = f"{now}{{weak_type={a.weak_type}}}", f"{before}{{weak_type={b.weak_type}}}"
      lines.append(f"  * at {name}, now {now} and before {before}")
  hint = ("\n  (a Python scalar has a weak type: "
          "https://docs.jax.dev/en/latest/type_promotion.html#weak-types)" if weak else "")
  return len(lines), "different input types:\n" + "\n".join(lines) + hint
