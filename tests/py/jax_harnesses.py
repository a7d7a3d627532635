"""JAX's own primitive harnesses run against stablejax (the oracle for `test_jax_harnesses.py`).

JAX ships a catalogue of primitive use cases, `jax._src.internal_test_util.test_harnesses`, and the
lax op records `lax_test_util.lax_ops()`. A harness's function is written against `jax.lax` and
`jax.numpy`; `to_stablejax` rebuilds it against stablejax (its module globals, closure cells,
`functools.partial` arguments and static arguments translated name for name: a JAX primitive to
stablejax's primitive of the same name, a JAX function to stablejax's function of the same name, a
JAX named tuple or enum to stablejax's class of the same name), so JAX's own function is never
called on the stablejax side. `run_case` runs one case on both libraries with the same numpy
arguments and compares values, dtypes, shapes and errors, eagerly and, where asked, under `jit`,
`vmap`, `jvp` and `grad`.

Every harness that is not expected to pass is in `EXCLUSIONS`, one row each, with its reason.
"""
from __future__ import annotations

import dataclasses
import enum
import functools
import inspect
import random
import re
import sys
import types
from typing import Any, Callable, NamedTuple

import numpy as np

import jax
import jax.numpy as jnp
from jax.extend import core as jax_core
from jax._src import test_util as jtu
from jax._src.internal_test_util import lax_test_util
from jax._src.internal_test_util import test_harnesses

import stablejax as sj
import stablejax.lax as slax
import stablejax.numpy as snp
import stablejax.random as srandom


# ----------------------------------------------------------------------------------------------
# The exclusion table.

JAX_CPU = "JAX lacks it on the CPU"
DOCUMENTED = "deliberate difference, documented in the README"
MISSING = "operation missing"
OPEN = "issue 40 open"


class Exclusion(NamedTuple):
  group: str          # the harness group (lax_ops records: "lax_ops_<op>")
  name: str           # a regular expression searched in the harness's name ("" matches all)
  kind: str           # JAX_CPU, DOCUMENTED, MISSING or OPEN
  reason: str


# JAX's own `jax_unimplemented` limitations on the CPU are excluded as JAX_CPU without a row.
EXCLUSIONS: list[Exclusion] = [
    # operations stablejax does not have
    Exclusion("iota_2x32_shape", "", MISSING, "the threefry iota_2x32_shape primitive (JAX's "
              "PRNG internals; sj.random computes the same counters with iota)"),
    # deliberate differences, documented in the README
    Exclusion("rng_bit_generator", "", DOCUMENTED, "vmap over keys gives what applying it key by "
              "key gives; JAX's batching rule gives other keys and bits from the second key on"),
    Exclusion("cholesky", "", DOCUMENTED, "cholesky_p's jvp and grad read only the tangent's "
              "lower triangle, as the factorization reads only the operand's (finite differences "
              "agree); JAX 0.10.2's rule takes the whole tangent, a gradient above the diagonal "
              "the function does not have"),
    Exclusion("approx_top_k", "_op_(bfloat16|float16)_", DOCUMENTED, "approx_top_k is exact and "
              "orders equal values by index; XLA's CPU fallback leaves their order unspecified, "
              "and 16-bit operands hold equal values"),
]


class Missing(Exception):
  """stablejax has no counterpart of a JAX name the harness uses."""


# ----------------------------------------------------------------------------------------------
# Translating a harness's function to stablejax.

_MODULES = [  # JAX module-name prefix -> stablejax module, most specific first
    ("jax._src.lax.linalg", slax.linalg),
    ("jax.lax.linalg", slax.linalg),
    ("jax._src.lax", slax),
    ("jax.lax", slax),
    ("jax._src.numpy.linalg", snp.linalg),
    ("jax._src.numpy", snp),
    ("jax.numpy", snp),
    ("jax._src.random", srandom),
    ("jax.random", srandom),
    ("jax._src.dispatch", slax),
    ("jax._src.api", sj),
    ("jax._src.xla_bridge", sj),
]


def _stablejax_module(module_name: str):
  for prefix, module in _MODULES:
    if module_name == prefix or module_name.startswith(prefix + "."):
      return module
  return None


@functools.cache
def _stablejax_registry() -> tuple[dict, dict]:
  """stablejax's primitives by name, and its classes by name."""
  prims, classes = {}, {}
  for name, module in sorted(sys.modules.items()):
    if not name.startswith("stablejax") or module is None:
      continue
    for value in vars(module).values():
      if isinstance(value, sj.core.Primitive):
        prims.setdefault(value.name, value)
      elif isinstance(value, type) and value.__module__.startswith("stablejax"):
        classes.setdefault(value.__name__, value)
  return prims, classes


def _is_jax(value: Any) -> bool:
  module = getattr(type(value), "__module__", "") or ""
  return module.split(".")[0] in ("jax", "jaxlib")


def _translate_function(f: Callable) -> Callable:
  wrapped = getattr(f, "__wrapped__", None)
  if wrapped is not None and not isinstance(f, types.FunctionType):
    return _translate_function(wrapped)  # a jitted JAX function
  if isinstance(f, types.MethodType):
    if isinstance(f.__self__, jax_core.Primitive):
      return getattr(to_stablejax(f.__self__), f.__name__)
    raise Missing(f"method {f!r}")
  module_name = getattr(f, "__module__", "") or ""
  if module_name == test_harnesses.__name__ or not module_name.startswith("jax"):
    return _rebind(f)
  module = _stablejax_module(module_name)
  counterpart = getattr(module, f.__name__, None) if module is not None else None
  counterpart = counterpart or PRIVATE_WRAPPERS.get(f"{module_name}.{f.__name__}")
  if counterpart is None:
    raise Missing(f"{module_name}.{f.__name__}")
  return counterpart


class _PrimitiveView:
  """A stablejax primitive bound the way a harness binds JAX's: JAX's internal params that
  stablejax's primitive does not have (`sharding`, `out_sharding`, `accuracy`, ...) are dropped
  where they hold JAX's default, None; stablejax leaves them out of its primitives and jaxprs."""

  def __init__(self, prim):
    self.prim = prim

  def __getattr__(self, name: str) -> Any:
    return getattr(self.prim, name)

  @staticmethod
  def unwrap(value: Any) -> Any:
    """The stablejax primitive a view stands for (other values unchanged)."""
    return value.prim if isinstance(value, _PrimitiveView) else value

  def bind(self, *args, **params):
    named = _named_params(self.prim)
    params = {k: v for k, v in params.items()
              if not (k in _JAX_DEFAULT_PARAMS and v is None and k not in named)}
    return self.prim.bind(*args, **params)


_JAX_DEFAULT_PARAMS = ("sharding", "out_sharding", "accuracy")


@functools.cache
def _named_params(prim) -> frozenset:
  """The params `prim`'s abstract evaluation names."""
  try:
    return frozenset(inspect.signature(prim.abstract_eval).parameters)
  except (TypeError, ValueError):
    return frozenset()


def _bind_positionally(prim_name: str, n_operands: int, param_names: tuple[str, ...]) -> Callable:
  """stablejax's primitive `prim_name` called the way JAX's private wrapper of it is: operands,
  then the params by position."""
  def bind(*args):
    params = {k: _PrimitiveView.unwrap(_tuples(v))
              for k, v in zip(param_names, args[n_operands:])}
    return _stablejax_registry()[0][prim_name].bind(*args[:n_operands], **params)
  return bind


def _tuples(value: Any) -> Any:
  return tuple(map(_tuples, value)) if isinstance(value, (tuple, list)) else value


_WINDOW = ("select_prim", "window_dimensions", "window_strides", "padding")

# JAX's private wrappers of a primitive that harnesses call, by module and name.
PRIVATE_WRAPPERS: dict[str, Callable] = {
    "jax._src.lax.windowed_reductions._select_and_gather_add": _bind_positionally(
        "select_and_gather_add", 2, _WINDOW + ("base_dilation", "window_dilation")),
    "jax._src.lax.windowed_reductions._select_and_scatter_add": _bind_positionally(
        "select_and_scatter_add", 2, _WINDOW),
}


class _Namespace:
  """A JAX module seen from a harness: its attributes translated to stablejax's."""

  def __init__(self, jax_module: types.ModuleType):
    self._jax_module = jax_module

  def __getattr__(self, name: str) -> Any:
    return to_stablejax(getattr(self._jax_module, name))


def _rebind(f: types.FunctionType) -> Callable:
  """`f` (a harness's own function) with its globals and closure translated."""
  if not isinstance(f, types.FunctionType):
    raise Missing(f"callable {f!r}")
  glob = dict(f.__globals__)
  for name in f.__code__.co_names:
    if name in glob:
      glob[name] = _translate_global(glob[name])
  closure = tuple(types.CellType(to_stablejax(c.cell_contents)) for c in f.__closure__ or ())
  g = types.FunctionType(f.__code__, glob, f.__name__, f.__defaults__, closure)
  g.__kwdefaults__ = f.__kwdefaults__
  return g


def _translate_global(value: Any) -> Any:
  if isinstance(value, types.ModuleType):
    return _Namespace(value) if value.__name__.startswith("jax") else value
  return to_stablejax(value)


def to_stablejax(value: Any) -> Any:
  """`value` (a harness's function, static argument, closure cell, ...) with JAX's names replaced
  by stablejax's; raises `Missing` when stablejax has no counterpart."""
  if isinstance(value, types.ModuleType):
    module = _stablejax_module(value.__name__)
    if module is None:
      raise Missing(f"module {value.__name__}")
    return module
  if isinstance(value, (tuple, list)) and not hasattr(value, "_fields"):
    return type(value)(to_stablejax(v) for v in value)
  if isinstance(value, dict):
    return {k: to_stablejax(v) for k, v in value.items()}
  if isinstance(value, functools.partial):
    return functools.partial(to_stablejax(value.func), *to_stablejax(value.args),
                             **to_stablejax(value.keywords))
  if isinstance(value, jax_core.Primitive):
    prim = _stablejax_registry()[0].get(value.name)
    if prim is None:
      raise Missing(f"primitive {value.name}")
    return _PrimitiveView(prim)
  if isinstance(value, jax.Array):
    return np.asarray(value)
  if callable(value) and not isinstance(value, type) and (
      isinstance(value, (types.FunctionType, types.MethodType)) or _is_jax(value)):
    return _translate_function(value)
  if isinstance(value, type) and value.__module__.split(".")[0] == "jax":
    return _stablejax_registry()[1].get(value.__name__, value)  # lax.Precision, ...
  if _is_jax(value) and not isinstance(value, (type, np.dtype)):
    return _translate_object(value)
  return value


def _translate_object(value: Any) -> Any:
  cls = _stablejax_registry()[1].get(type(value).__name__)
  if cls is None:
    raise Missing(f"class {type(value).__module__}.{type(value).__name__}")
  if isinstance(value, enum.Enum):
    return cls[value.name]
  if hasattr(value, "_fields"):
    return cls(*(to_stablejax(v) for v in value))
  if dataclasses.is_dataclass(value):
    return cls(**{f.name: to_stablejax(getattr(value, f.name))
                  for f in dataclasses.fields(value) if f.init})
  raise Missing(f"object of {type(value).__name__}")


# ----------------------------------------------------------------------------------------------
# The cases: one per harness, and one per lax_ops() record, dtype and shape.

class Case(NamedTuple):
  group: str
  name: str
  fun: Callable                  # the JAX function of the dynamic arguments
  make_args: Callable            # rng -> the dynamic arguments (numpy values)
  dtype: Any
  tol: Any                       # the tolerance (None: jtu's default for the dtype)
  jax_cpu_unimplemented: bool    # JAX's own limitation on the CPU
  static: Callable               # the stablejax function of the dynamic arguments (lazy)

  @property
  def fullname(self) -> str:
    return f"{self.group}/{self.name}"


def _svd(params: dict) -> Callable:
  def svd(x):
    out = slax.linalg.svd(x, full_matrices=params["full_matrices"],
                          compute_uv=params["compute_uv"],
                          subset_by_index=params["subset_by_index"])
    return [out[1], out[0], out[2]] if params["compute_uv"] else [out]
  return svd


# Groups whose harness binds a JAX primitive with JAX's internal params (conj_p without its
# `input_dtype`, svd_p without its `algorithm`): stablejax's function of the same name, built from
# the harness's params, outputs in the primitive's order.
GROUP_FUNCTIONS: dict[str, Callable[[dict], Callable]] = {
    "conj": lambda params: slax.conj,
    "svd": _svd,
}


# Tolerances wider than jtu's defaults, by group, where the two libraries round differently:
# a complex64 convolution (sums of products near 100 cancel to 0.5: 2e-5 apart), and a
# float16 reduce_window_add with a non-identity init (2 ulp, another summation order).
GROUP_TOLERANCES: dict[str, dict] = {
    "conv_general_dilated": {np.complex64: 1e-4},
    "reduce_window_add": {np.float16: 1e-2},
}


def _harness_case(h: test_harnesses.Harness) -> Case:
  def static():
    if h.group_name in GROUP_FUNCTIONS:
      return GROUP_FUNCTIONS[h.group_name](h.params)
    fun = to_stablejax(h.fun)
    statics = [to_stablejax(a.value) if isinstance(a, test_harnesses.StaticArg) else None
               for a in h.arg_descriptors]

    def dyn(*dyn_args):
      it = iter(dyn_args)
      return fun(*[s if isinstance(a, test_harnesses.StaticArg) else next(it)
                   for a, s in zip(h.arg_descriptors, statics)])
    return dyn
  return Case(h.group_name, h.name, h.dyn_fun, h.dyn_args_maker, h.dtype,
              GROUP_TOLERANCES.get(h.group_name),
              not h.filter("cpu"), static)


def _lax_op_cases() -> list[Case]:
  cases = []
  for rec in lax_test_util.lax_ops():
    for dtype in rec.dtypes:
      for shapes in lax_test_util.compatible_shapes:
        for shape_group in [shapes] if rec.nargs > 1 else [[s] for s in shapes]:
          arg_shapes = [shape_group[i % len(shape_group)] for i in range(rec.nargs)]
          name = f"{np.dtype(dtype).name}_{'_'.join(map(str, arg_shapes))}".replace(" ", "")
          make = functools.partial(_make_lax_op_args, rec.rng_factory, arg_shapes, dtype)
          cases.append(Case(f"lax_ops_{rec.op}", name, getattr(jax.lax, rec.op), make, dtype,
                            rec.tol, False, functools.partial(_lax_op, rec.op)))
  return cases


def _make_lax_op_args(rng_factory, shapes, dtype, rng):
  r = rng_factory(rng)
  return [r(s, dtype) for s in shapes]


def _lax_op(name: str) -> Callable:
  op = getattr(slax, name, None)
  if op is None:
    raise Missing(f"lax.{name}")
  return op


@functools.cache
def all_cases() -> tuple[Case, ...]:
  """Every harness of JAX's catalogue, then every lax_ops() record."""
  return tuple([_harness_case(h) for h in test_harnesses.all_harnesses] + _lax_op_cases())


def groups() -> list[str]:
  return sorted({c.group for c in all_cases()})


def exclusion(case: Case) -> Exclusion | None:
  """The table's row for `case` (or JAX's own CPU limitation), None where it must pass."""
  if case.jax_cpu_unimplemented:
    return Exclusion(case.group, "", JAX_CPU, "the harness's jax_unimplemented limitation")
  for row in EXCLUSIONS:
    if row.group == case.group and re.search(row.name, case.name):
      return row
  return None


# ----------------------------------------------------------------------------------------------
# Running cases on both libraries.

class Outcome(NamedTuple):
  status: str   # "pass", "fail", "missing" or "excluded" (JAX's own CPU limitation)
  detail: str = ""


class Check(NamedTuple):
  """One comparison: `jax_fun(*args)` against `sj_fun(*args)` (numpy arguments)."""
  case: Case
  mode: str     # "eager", "jit", "vmap", "jvp" or "grad"
  jax_fun: Callable
  sj_fun: Callable
  args: list


def _try(fun: Callable, *args) -> tuple[Any, BaseException | None]:
  try:
    return fun(*args), None
  except Exception as e:  # noqa: BLE001 -- errors are compared between the libraries
    return None, e


def _builtin_class(e: BaseException) -> type:
  return next(c for c in type(e).__mro__ if c.__module__ == "builtins")


def _compare_errors(what: str, jax_error, sj_error) -> None:
  if isinstance(sj_error, Missing):
    raise sj_error
  if jax_error is None:
    raise AssertionError(f"{what}: stablejax raises {type(sj_error).__name__}: "
                         f"{str(sj_error)[:300]}")
  if sj_error is None:
    raise AssertionError(f"{what}: JAX raises {type(jax_error).__name__}, stablejax does not: "
                         f"{str(jax_error)[:200]}")
  if _builtin_class(jax_error) is not _builtin_class(sj_error):
    raise AssertionError(f"{what}: stablejax raises {type(sj_error).__name__}: "
                         f"{str(sj_error)[:200]}; JAX raises {type(jax_error).__name__}")


def _is_float(dtype: np.dtype) -> bool:
  return dtype.kind in "fc" or dtype.name.startswith(("bfloat16", "float8"))


def compare_values(what: str, expected: Any, actual: Any, case: Case) -> None:
  """The same number of outputs, each with JAX's dtype and shape and values within tolerance."""
  exp = jax.tree_util.tree_leaves(expected)
  act = sj.tree_util.tree_leaves(actual)
  if len(exp) != len(act):
    raise AssertionError(f"{what}: {len(act)} outputs, JAX gives {len(exp)}")
  for i, (e, a) in enumerate(zip(exp, act)):
    e, a = _as_numpy(e), _as_numpy(a)
    if e.shape != a.shape or e.dtype != a.dtype:
      raise AssertionError(f"{what}: output {i} is {a.dtype}{list(a.shape)}, JAX gives "
                           f"{e.dtype}{list(e.shape)}")
    try:
      if _is_float(e.dtype):
        wide = np.complex128 if e.dtype.kind == "c" else np.float64
        tol = jtu.tolerance(e.dtype, case.tol)
        np.testing.assert_allclose(a.astype(wide), e.astype(wide), rtol=tol, atol=tol)
      else:
        np.testing.assert_array_equal(a, e)
    except AssertionError as err:
      raise AssertionError(f"{what}: output {i}: {str(err)[:500]}") from None


def _as_numpy(x: Any) -> np.ndarray:
  if hasattr(x, "dtype") and jnp.issubdtype(x.dtype, jax.dtypes.prng_key):
    x = jax.random.key_data(x)
  elif type(x).__module__.startswith("stablejax") and "key" in str(getattr(x, "dtype", "")):
    x = srandom.key_data(x)
  return np.asarray(x)


def run_check(check: Check) -> None:
  """Run one check on both libraries, one call each; raises AssertionError on a difference."""
  expected, jax_error = _try(check.jax_fun, *check.args)
  actual, sj_error = _try(check.sj_fun, *check.args)
  if jax_error is not None or sj_error is not None:
    _compare_errors(check.mode, jax_error, sj_error)
    return
  compare_values(check.mode, expected, actual, check.case)


# ----------------------------------------------------------------------------------------------
# The checks of a case: eager and jit; vmap over two draws of the arrays; jvp and grad in the
# float32/float64 arrays.

def _arrays(args: list) -> list[int]:
  return [i for i, a in enumerate(args) if isinstance(a, (np.ndarray, np.generic))]


def _with(args: list, idx: list[int], vals) -> list:
  out = list(args)
  for i, v in zip(idx, vals):
    out[i] = v
  return out


def _over(fun: Callable, args: list, idx: list[int]) -> Callable:
  """`fun` as a function of `args[idx]` only (the other arguments fixed)."""
  return lambda *vals: fun(*_with(args, idx, vals))


def _total(tree_util, lib_np) -> Callable:
  def total(out):
    leaves = [l for l in tree_util.tree_leaves(out) if lib_np.issubdtype(l.dtype, lib_np.inexact)]
    return sum((lib_np.sum(lib_np.real(l)).astype(lib_np.float32) for l in leaves),
               lib_np.float32(0))
  return total


def case_checks(case: Case, sj_fun: Callable, args: list, seed: int,
                transforms: bool) -> list[Check]:
  """The jit check of `case` and, if `transforms`, its vmap, jvp and grad checks."""
  idx = _arrays(args)
  jf, sf = _over(case.fun, args, idx), _over(sj_fun, args, idx)
  arrays = [args[i] for i in idx]
  checks = [Check(case, "jit", jf, sf, arrays)]
  if not transforms or not idx:
    return checks
  other = [case.make_args(np.random.RandomState(seed + 1))[i] for i in idx]
  if all(np.shape(a) == np.shape(b) for a, b in zip(arrays, other)):
    batched = [np.stack([a, b]) for a, b in zip(arrays, other)]
    checks.append(Check(case, "vmap", jax.vmap(jf), sj.vmap(sf), batched))
  diff = [k for k, a in enumerate(arrays) if np.asarray(a).dtype in (np.float32, np.float64)]
  if diff:
    rng = np.random.RandomState(seed + 2)
    tangents = [rng.standard_normal(np.shape(arrays[k])).astype(arrays[k].dtype) for k in diff]
    jd, sd = _over(jf, arrays, diff), _over(sf, arrays, diff)
    primals = [arrays[k] for k in diff]
    checks.append(Check(case, "jvp", lambda *p: jax.jvp(jd, p, tangents),
                        lambda *p: sj.jvp(sd, p, tangents), primals))
    argnums = tuple(range(len(diff)))
    jt, st = _total(jax.tree_util, jnp), _total(sj.tree_util, snp)
    checks.append(Check(case, "grad", jax.grad(lambda *p: jt(jd(*p)), argnums=argnums),
                        sj.grad(lambda *p: st(sd(*p)), argnums=argnums), primals))
  return checks


# ----------------------------------------------------------------------------------------------
# Running many cases: each check is traced alone on both libraries (errors compared there); the
# checks that trace run under one `jit` per chunk and library, so a group compiles a few
# programs, not one per harness and transformation.

CHUNK = 48
# Groups run one check per program: JAX's program of several LAPACK calls (qr's geqrf and
# orgqr, through scipy's OpenBLAS) was seen to hang when XLA runs them side by side.
ONE_PER_PROGRAM = frozenset({"cholesky", "eig", "eigh", "lu", "qr", "svd", "tridiagonal_solve"})


def run_cases(cases: list[Case], seed: int = 0, transforms: int | None = None,
              eager: bool = False) -> dict[str, Outcome]:
  """Each case's outcome by its fullname (the first difference found, if any). Every case is
  checked under jit (and eagerly if `eager`); vmap, jvp and grad are checked on `transforms`
  cases drawn with `seed` (all if None)."""
  outcomes: dict[str, Outcome] = {}
  pending: list[Check] = []
  chosen = {c.fullname for c in (cases if transforms is None else random.Random(seed).sample(
      cases, min(transforms, len(cases))))}
  for case in cases:
    if case.jax_cpu_unimplemented:
      outcomes[case.fullname] = Outcome("excluded", JAX_CPU)
      continue
    try:
      pending += _traced_checks(case, seed, case.fullname in chosen, eager)
      outcomes[case.fullname] = Outcome("pass")
    except Missing as e:
      outcomes[case.fullname] = Outcome("missing", str(e))
    except AssertionError as e:
      outcomes[case.fullname] = Outcome("fail", str(e))
  chunk = 1 if {c.group for c in cases} & ONE_PER_PROGRAM else CHUNK
  for start in range(0, len(pending), chunk):
    for check, error in _run_chunk(pending[start:start + chunk]):
      if error and outcomes[check.case.fullname].status == "pass":
        outcomes[check.case.fullname] = Outcome("fail", error)
  return outcomes


def _traced_checks(case: Case, seed: int, transforms: bool, eager: bool) -> list[Check]:
  """The checks of `case` that trace on both libraries; raises on a difference in tracing."""
  sj_fun = case.static()
  args = case.make_args(np.random.RandomState(seed))
  if eager:
    run_check(Check(case, "eager", case.fun, sj_fun, args))
  traced = []
  for check in case_checks(case, sj_fun, args, seed, transforms):
    _, jax_error = _try(jax.eval_shape, check.jax_fun, *check.args)
    _, sj_error = _try(sj.eval_shape, check.sj_fun, *check.args)
    if jax_error is not None and check.mode != "jit":
      continue  # JAX refuses this transformation of the harness: nothing to compare
    if jax_error is not None or sj_error is not None:
      _compare_errors(check.mode, jax_error, sj_error)
      if check.mode == "jit":
        return []
      continue
    traced.append(check)
  return traced


def _run_chunk(chunk: list[Check]) -> list[tuple[Check, str]]:
  """Run `chunk` as one program per library; one by one where a program fails."""
  jax_all = jax.jit(lambda argss: [c.jax_fun(*a) for c, a in zip(chunk, argss)])
  sj_all = sj.jit(lambda argss: [c.sj_fun(*a) for c, a in zip(chunk, argss)])
  argss = [c.args for c in chunk]
  expected, jax_error = _try(jax_all, argss)
  actual, sj_error = _try(sj_all, argss)
  if jax_error is not None or sj_error is not None:
    return [(c, _error_of(run_check, c)) for c in chunk]
  return [(c, _error_of(compare_values, c.mode, e, a, c.case))
          for c, e, a in zip(chunk, expected, actual)]


def _error_of(fun: Callable, *args) -> str:
  try:
    fun(*args)
  except AssertionError as e:
    return str(e)
  return ""
