"""A census of JAX's public API: for each public module of the installed JAX, the fraction of its
public names that the stablejax module of the same name has. The table is printed (run with
`-s` to see it) and each fraction must stay at or above the floor recorded here, so coverage
only grows; the targets are the issue's goals.

stablejax follows JAX 0.10.2 and the floors are fractions of 0.10.2's names. On a newer JAX the
census counts the names that exist both there and in 0.10.2: the names JAX added after 0.10.2
(recorded below) leave the count, names JAX removed leave it by themselves."""
import functools
import importlib
import json
import subprocess
import sys

import pytest

jax = pytest.importorskip("jax")

# module -> (floor: the coverage reached so far, target)
MODULES = {
    "": (0.95, None),
    "numpy": (1.0, 0.90),
    "lax": (0.95, 0.75),
    "random": (0.95, 0.90),
    "nn": (1.0, 0.90),
    "scipy.special": (1.0, 0.60),
    "scipy.stats": (0.9, None),
    "tree": (1.0, None),
    "tree_util": (1.0, 0.95),
    "numpy.linalg": (1.0, None),
    "numpy.fft": (1.0, None),
    "scipy.fft": (1.0, None),
    "experimental.checkify": (1.0, None),
    "experimental.sparse": (0.11, None),
    "experimental.mesh_utils": (1.0, None),
    "experimental.layout": (0.66, None),
    "scipy.linalg": (0.45, None),
}


# module -> the public names JAX added after 0.10.2 (seen in 0.12), which stablejax does not
# follow yet. On 0.10.2 none of them may exist.
ADDED_AFTER_0_10_2 = {
    "": {"CompilerEffortLevel", "Inline", "get_abstract_mesh", "get_mesh", "use_abstract_mesh"},
    "numpy": {"minmax", "top_k"},
    "lax": {"log2", "log2_p", "one_minus_square", "one_minus_square_p", "polynomial",
            "polynomial_p", "psum_scatter_start"},
    "random": {"Key"},
    "scipy.special": {"erfcinv"},
}


def _public(module) -> set[str]:
  return {n for n in dir(module) if not n.startswith("_")}


def _module(root: str, name: str):
  try:
    return importlib.import_module(f"{root}.{name}" if name else root)
  except ImportError:
    return None


@functools.cache
def _fresh_jax_names() -> dict[str, set[str]]:
  """Each module's public names as a fresh `import jax` gives them: in this process, other tests
  have imported submodules (`jax.extend`, ...), which then appear as attributes of `jax`."""
  code = ("import importlib, json, jax\n"
          f"names = {{m: sorted(n for n in dir(importlib.import_module('jax.' + m if m else "
          f"'jax')) if not n.startswith('_')) for m in {list(MODULES)!r}}}\n"
          "print(json.dumps(names))")
  out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
  return {m: set(names) for m, names in json.loads(out.stdout.splitlines()[-1]).items()}


def census(jax_after_0_10_2: bool) -> dict[str, tuple[int, int, list[str]]]:
  """module -> (names stablejax has, names JAX has, the missing names), counting only names
  that JAX 0.10.2 has too."""
  out = {}
  for name in MODULES:
    theirs = _fresh_jax_names()[name]
    added = ADDED_AFTER_0_10_2.get(name, set())
    if jax_after_0_10_2:
      theirs -= added
    else:
      assert not theirs & added, f"jax.{name} in 0.10.2 has {sorted(theirs & added)}"
    ours_module = _module("stablejax", name)
    ours = _public(ours_module) if ours_module is not None else set()
    missing = sorted(theirs - ours)
    out[name] = (len(theirs) - len(missing), len(theirs), missing)
  return out


def test_api_coverage_does_not_shrink(jax_after_0_10_2):
  rows = census(jax_after_0_10_2)
  print(f"\nJAX {jax.__version__} public API covered by stablejax:")
  for name, (have, total, missing) in rows.items():
    floor, target = MODULES[name]
    label = f"jax.{name}" if name else "jax"
    goal = f"target {target:.0%}" if target else ""
    print(f"  {label:<20} {have:4d} / {total:4d}  {have / total:6.1%}  {goal}")
  for name, (have, total, missing) in rows.items():
    floor, _ = MODULES[name]
    assert have / total >= floor, (f"jax.{name} coverage fell to {have}/{total}, below the "
                                   f"recorded {floor:.0%}; missing: {missing}")
