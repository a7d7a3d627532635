"""A census of JAX's public API: for each public module of the installed JAX, the fraction of its
public names that the stablejax module of the same name has. The table is printed (run with
`-s` to see it) and each fraction must stay at or above the floor recorded here, so coverage
only grows; the targets are the issue's goals.

stablejax follows JAX 0.10.2 and the floors are fractions of 0.10.2's names. On a newer JAX the
census counts the names that exist both there and in 0.10.2: the names JAX added after 0.10.2
(recorded below) leave the count, names JAX removed leave it by themselves.

A second census compares signatures: for every jax.numpy function that stablejax.numpy has, the
parameters `inspect.signature` gives (names, kinds, and defaults where they are plain values)
against JAX's. It counts the functions whose signatures match and the keywords (JAX's
parameters) that stablejax's function has alike; the names that are `jnp.ufunc` objects in JAX
are counted apart (their signatures are the ufunc class's). Its floors hold on JAX 0.10.2, whose
signatures stablejax follows; on a newer JAX the census is printed only."""
import functools
import importlib
import inspect
import json
import subprocess
import sys

import pytest

import stablejax.numpy

jax = pytest.importorskip("jax")
pytest.importorskip("jax.numpy")

# module -> (floor: the coverage reached so far, target)
MODULES = {
    "": (1.0, None),
    "numpy": (1.0, 0.90),
    "lax": (0.97, 0.75),
    "random": (0.95, 0.90),
    "nn": (1.0, 0.90),
    "scipy.special": (1.0, 0.60),
    "scipy.stats": (1.0, None),
    "tree": (1.0, None),
    "tree_util": (1.0, 0.95),
    "numpy.linalg": (1.0, None),
    "numpy.fft": (1.0, None),
    "scipy.linalg": (1.0, None),
    "extend.core": (0.84, None),
    "extend.core.primitives": (0.89, None),
    "extend.linear_util": (0.90, None),
    "interpreters.mlir": (0.46, None),
    "interpreters.ad": (0.90, None),
    "interpreters.batching": (0.70, None),
    "interpreters.partial_eval": (0.46, None),
    "api_util": (1.0, None),
    "custom_derivatives": (0.83, None),
    "scipy.fft": (1.0, None),
    "scipy.optimize": (1.0, None),
    "experimental.checkify": (1.0, None),
    "experimental.sparse": (0.11, None),
    "experimental.mesh_utils": (1.0, None),
    "experimental.layout": (0.66, None),
    "experimental.hijax": (1.0, None),
    "export": (1.0, None),
}


# module -> the public names JAX added after 0.10.2 (seen in 0.12), which stablejax does not
# follow yet. On 0.10.2 none of them may exist.
ADDED_AFTER_0_10_2 = {
    "": {"CompilerEffortLevel", "Inline", "get_abstract_mesh", "get_mesh", "use_abstract_mesh"},
    "numpy": {"minmax", "top_k"},
    "lax": {"log2", "log2_p", "one_minus_square", "one_minus_square_p", "polynomial",
            "polynomial_p", "psum_scatter_start"},
    "random": {"Key"},
    "export": {"symbolic_dim_bounds"},
    "scipy.special": {"erfcinv"},
    "extend.core": {"create_call_primitive", "eval_jaxpr_transpose",
                    "register_call_primitive_rules"},
    "extend.core.primitives": {"create_call_primitive", "eval_jaxpr_transpose", "log2_p",
                               "one_minus_square_p", "polynomial_p",
                               "register_call_primitive_rules"},
    "experimental.hijax": {"GradAccum", "HiPrim", "MappingSpec", "NullAccum", "RefAccum",
                           "ValAccum", "bdims_at_front", "jvp_from_lin", "linearize_from_jvp",
                           "unmap_avals", "vjp_from_jvp", "vjp_from_lin", "vmap_rule"},
    "interpreters.ad": {"backward_pass", "jvp_jaxpr"},
    "interpreters.batching": {"batch_jaxpr_axes", "batch_subtrace", "zero_if_mapped"},
    "interpreters.partial_eval": {"abstract_eval_fun", "close_jaxpr", "convert_constvars_jaxpr",
                                  "lower_jaxpr", "lower_jaxpr2", "move_binders_to_back",
                                  "new_eqn_recipe", "partial_eval_jaxpr_nounits",
                                  "prune_closed_jaxpr_outputs"},
    "experimental.layout": {"explicit_layout"},
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


# jax.numpy's signature census: (floor of the functions whose signatures match, floor of the
# keywords that match), as fractions of the functions stablejax has (ufuncs apart).
SIGNATURE_FLOORS = {"numpy": (1.0, 1.0)}

_PLAIN = (type(None), bool, int, float, complex, str)


def _plain(value) -> bool:
  return isinstance(value, _PLAIN) or (isinstance(value, tuple) and all(map(_plain, value)))


def _parameters(fn) -> list[tuple] | None:
  """fn's parameters as comparable (name, kind, default) rows: a positional-only parameter is
  named by its position (its name is no part of the API), a default that is not a plain value
  is only 'given', JAX's private parameters (`_dot_general`) are left out. None: no signature,
  or JAX's `(*args, **kwargs)` (a pass-through to numpy, which any signature matches)."""
  try:
    params = list(inspect.signature(fn).parameters.values())
  except (TypeError, ValueError):
    return None
  if [p.kind for p in params] == [inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD]:
    return None
  rows = []
  for i, p in enumerate(params):
    if p.name.startswith("_"):
      continue
    name = i if p.kind is inspect.Parameter.POSITIONAL_ONLY else p.name
    default = (p.default if _plain(p.default) else "given") if p.default is not p.empty else None
    rows.append((name, p.kind, default if p.default is not p.empty else "none"))
  return rows


def signature_census() -> tuple[int, int, int, int, list[str], list[str]]:
  """(functions whose signatures match, functions compared, keywords that match, keywords
  compared, the mismatches as text, the jax.numpy ufuncs left apart)."""
  theirs, ours = jax.numpy, stablejax.numpy
  same = total = kw_same = kw_total = 0
  mismatches, ufuncs = [], []
  for name in sorted(_fresh_jax_names()["numpy"]):
    fn = getattr(theirs, name, None)
    if not hasattr(ours, name) or isinstance(fn, type) or not callable(fn):
      continue
    if isinstance(fn, theirs.ufunc):
      ufuncs.append(name)
      continue
    want, got = _parameters(fn), _parameters(getattr(ours, name))
    if want is None:
      continue
    got = got or []
    total += 1
    kw_total += len(want)
    kw_same += sum(row in got for row in want)
    if want == got:
      same += 1
    else:
      missing = [str(r[0]) for r in want if r[0] not in {g[0] for g in got}]
      differ = [str(r[0]) for r in want if r not in got and str(r[0]) not in missing]
      extra = [str(g[0]) for g in got if g[0] not in {r[0] for r in want}]
      mismatches.append(f"{name}: missing {missing}, differing {differ}, extra {extra}")
  return same, total, kw_same, kw_total, mismatches, ufuncs


def test_numpy_signatures_do_not_shrink(jax_after_0_10_2):
  same, total, kw_same, kw_total, mismatches, ufuncs = signature_census()
  print(f"\njax.numpy {jax.__version__} signatures matched by stablejax.numpy: {same} / {total} "
        f"functions ({same / total:.1%}), {kw_same} / {kw_total} keywords "
        f"({kw_same / kw_total:.1%}); the {len(ufuncs)} ufuncs ({', '.join(ufuncs)}) counted "
        "apart")
  for line in mismatches:
    print(f"  {line}")
  if jax_after_0_10_2:
    return
  fn_floor, kw_floor = SIGNATURE_FLOORS["numpy"]
  assert same / total >= fn_floor, f"matching signatures fell to {same}/{total}"
  assert kw_same / kw_total >= kw_floor, f"matching keywords fell to {kw_same}/{kw_total}"
