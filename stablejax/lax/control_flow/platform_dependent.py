"""`platform_dependent`: one branch per platform, chosen where the code is lowered. The
`platform_index` primitive (JAX's) is the index of the branch for the platform running the code:
a constant on one platform, a `stablehlo.case` on the module's platform index on several (its
lowering is in `stablejax.lowering.rules.control_flow.platform_dependent`); a `switch` on it
applies the branch."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from stablejax import core
from stablejax.interpreters import flops
from stablejax.core import ShapedArray
from stablejax.lax.control_flow.cond import switch
from stablejax.lax.primitive_kit import standard_primitive

__all__ = ["platform_dependent"]

# One entry per branch: the platforms it serves, or None for the default branch.
BranchesPlatforms = tuple


def platform_dependent(*args: Any, default: Callable | None = None,
                       **per_platform: Callable) -> Any:
  """`per_platform[p](*args)` for the platform p the code runs on (`default(*args)` for any
  other); identical branches are joined into one."""
  groups: list[tuple[list[str], Callable]] = []
  for name, branch in per_platform.items():
    if not callable(branch):
      raise TypeError(f"lax.platform_dependent: the '{name}' branch must be a callable.")
    if name == "gpu":
      raise ValueError("Use 'cuda' or 'rocm' for lax.platform_dependent.")
    same = [names for names, b in groups if b == branch]
    if same:
      same[0].append(name)
    else:
      groups.append(([name], branch))
  platforms = tuple(tuple(names) for names, _ in groups)
  branches = [b for _, b in groups]
  if default is not None:
    if not callable(default):
      raise TypeError("lax.platform_dependent: the 'default' branch must be a callable.")
    platforms, branches = platforms + (None,), branches + [default]
  index = platform_index_p.bind(platforms=platforms)
  if core.is_concrete(index):
    return branches[int(index)](*args)
  return switch(index, branches, *args)


def branch_index(platforms: BranchesPlatforms, platform: str) -> int:
  """The branch serving `platform`: the first naming it, else the default one."""
  for i, names in enumerate(platforms):
    if names is not None and platform in names:
      return i
  if platforms and platforms[-1] is None:
    return len(platforms) - 1
  raise NotImplementedError(f"lax.platform_dependent has no branch for platform '{platform}' "
                            f"(branches for {[p for p in platforms if p is not None]}) and no "
                            f"default")


def _platform_index_abstract_eval(*, platforms) -> ShapedArray:
  return ShapedArray((), np.dtype(np.int32))


platform_index_p = standard_primitive("platform_index", _platform_index_abstract_eval)
flops.flops_rules[platform_index_p] = flops.free
