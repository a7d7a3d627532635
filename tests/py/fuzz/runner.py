"""Runs a program with stablejax and JAX under each transformation and compares the results."""
from __future__ import annotations

import contextlib
import dataclasses
import importlib
import re
import signal
import warnings
from typing import Optional

import numpy as np

from . import program as P

# The transformations checked, as expressions over the harness's names (see `harness`). Modes of
# one group compute the same function, so a value may match any of JAX's results in the group
# (XLA computes fused and unfused floating point differently; a discrete op after it may flip).
MODES = {
    "eager": "f(*args)",
    "jit": "jax.jit(f)(*args)",
    "vmap": "jax.vmap(f, in_axes=AXES)(*bargs)",
    "jit_vmap": "jax.jit(jax.vmap(f, in_axes=AXES))(*bargs)",
    "grad": "jax.grad(loss, argnums=GRAD_ARGNUMS)(*args)",
    "jit_grad": "jax.jit(jax.grad(loss, argnums=GRAD_ARGNUMS))(*args)",
    "vmap_grad": "jax.vmap(jax.grad(loss, argnums=GRAD_ARGNUMS), in_axes=AXES)(*bargs)",
    "jvp": "jvp_leaves(*jax.jvp(fpart, primals, tangents))",
}
GROUPS = [("eager", "jit"), ("vmap", "jit_vmap"), ("grad", "jit_grad"), ("vmap_grad",), ("jvp",)]
GROUP_OF = {m: g for g in GROUPS for m in g}

HARNESS = '''
def loss(*a):
  return sum((jnp.sum(jnp.real(o).astype(jnp.float32)) for o in f(*a)
              if jnp.issubdtype(o.dtype, jnp.inexact)), jnp.float32(0))

def fpart(*fa):
  a = list(args)
  for i, x in zip(JVP_ARGS, fa):
    a[i] = x
  return f(*a)

def jvp_leaves(p, t):
  """The primal outputs and the tangents of the inexact ones (the others' are float0)."""
  return p + tuple(y for x, y in zip(p, t) if jnp.issubdtype(x.dtype, jnp.inexact))
'''
# An error stablejax raises where JAX raises too must be one of these (a clear error, not an
# AttributeError or KeyError from inside the library).
CLEAN_ERRORS = (TypeError, ValueError, IndexError, OverflowError, NotImplementedError,
                ZeroDivisionError)
RTOL = {"float16": 4e-3, "bfloat16": 3e-2, "float32": 2e-4, "complex64": 2e-4}
# Absolute tolerances of the half-precision types: one unit in the last place at 1 (results of
# O(1) inputs that cancel to near 0, e.g. the tangent of x / x, keep their operands' rounding).
ATOL = {"float16": 2.0 ** -10, "bfloat16": 2.0 ** -7}


@dataclasses.dataclass
class Mismatch:
  kind: str  # value, dtype, shape, weak_type, structure, error parity, error type, timeout, crash
  mode: str
  detail: str

  def __str__(self) -> str:
    return f"[{self.kind}] {self.mode}: {self.detail}"


# ----------------------------------------------------------------------------------------------
# Namespaces and the programs' arguments

_LIBS: dict[str, dict] = {}


def library(name: str) -> dict:
  """The names a program sees: `jax`, `jnp`, `lax` of library `name` (jax or stablejax)."""
  if name not in _LIBS:
    mod = importlib.import_module(name)
    _LIBS[name] = {"jax": mod, "jnp": importlib.import_module(name + ".numpy"), "lax": mod.lax,
                   "np": np, "nan": np.nan, "inf": np.inf}
  return _LIBS[name]


def grad_argnums(prog: P.Program) -> tuple:
  return tuple(i for i, x in enumerate(prog.inputs)
               if (isinstance(x.value, float) if x.scalar else str(x.value.dtype) in P.FLOATS))


def jvp_argnums(prog: P.Program) -> tuple:
  return tuple(i for i, x in enumerate(prog.inputs) if x.tangent is not None)


def modes_of(prog: P.Program) -> list[str]:
  out = ["eager", "jit"]
  if any(not x.scalar for x in prog.inputs):
    out += ["vmap", "jit_vmap"]
  if grad_argnums(prog):
    out += ["grad", "jit_grad"] + (["vmap_grad"] if "vmap" in out else [])
  if jvp_argnums(prog):
    out.append("jvp")
  return out


def namespace(lib: str, prog: P.Program) -> dict:
  """`lib`'s names plus the program, its harness and its arguments as `lib` arrays."""
  ns = dict(library(lib))
  asarray = ns["jax"].device_put  # (jnp.asarray compiles a copy in JAX, for each type)
  conv = lambda v: v if not isinstance(v, np.ndarray) else asarray(v)
  ns.update(args=tuple(conv(x.value) for x in prog.inputs),
            bargs=tuple(conv(x.batched) for x in prog.inputs),
            AXES=tuple(None if x.scalar else 0 for x in prog.inputs),
            GRAD_ARGNUMS=grad_argnums(prog), JVP_ARGS=jvp_argnums(prog))
  ns["primals"] = tuple(ns["args"][i] for i in ns["JVP_ARGS"])
  ns["tangents"] = tuple(asarray(prog.inputs[i].tangent) for i in ns["JVP_ARGS"])
  exec(prog.source() + HARNESS, ns)  # pylint: disable=exec-used
  return ns


# ----------------------------------------------------------------------------------------------
# Running and comparing

class Timeout(Exception):
  pass


@contextlib.contextmanager
def alarm(seconds: int):
  """Raise Timeout in the body after `seconds` (SIGALRM)."""
  def ring(signum, frame):
    raise Timeout(f"timed out after {seconds} s")
  old = signal.signal(signal.SIGALRM, ring)
  signal.alarm(seconds)
  try:
    yield
  finally:
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


def leaves(x) -> list:
  if isinstance(x, (tuple, list)):
    return [l for y in x for l in leaves(y)]
  return [x]


def describe(x) -> tuple:
  """(numpy value, dtype, shape, weak_type) of one output."""
  weak = bool(getattr(x, "weak_type", False)) if hasattr(x, "dtype") else True
  a = np.asarray(x)
  return a, str(getattr(x, "dtype", a.dtype)), tuple(np.shape(x)), weak


def run(lib: str, prog: P.Program, mode: str, timeout: int = 60):
  """The outputs of `prog` under `mode` as a list of `describe` tuples, or the exception."""
  try:
    with alarm(timeout), warnings.catch_warnings():
      warnings.simplefilter("ignore")
      ns = namespace(lib, prog)
      return [describe(x) for x in leaves(eval(MODES[mode], ns))]  # pylint: disable=eval-used
  except Exception as e:  # pylint: disable=broad-except  (Timeout included)
    return e


def _close(ref: np.ndarray, got: np.ndarray, dtype: str) -> Optional[str]:
  """Why `got` is not close to `ref` (same dtype and shape), or None."""
  if dtype not in RTOL:
    bad = ref != got
    return None if not bad.any() else f"{int(bad.sum())} elements differ, e.g. " \
        f"{ref[bad].ravel()[:3]} vs {got[bad].ravel()[:3]}"
  if dtype == "complex64":
    return _close(ref.real, got.real, "float32") or _close(ref.imag, got.imag, "float32")
  ref, got = ref.astype(np.float64), got.astype(np.float64)
  if (np.isnan(ref) != np.isnan(got)).any():
    return "NaN patterns differ"
  fin = np.isfinite(ref)
  inf = ~fin & ~np.isnan(ref)
  if (fin != np.isfinite(got)).any() or (ref[inf] != got[inf]).any():
    return "inf patterns differ"
  r, g = ref[fin], got[fin]
  if not r.size:
    return None
  rtol = RTOL[dtype]
  atol = rtol * max(np.abs(r).max(), 1e-30) + ATOL.get(dtype, 1e-6)
  err = np.abs(r - g) - (atol + rtol * np.abs(r))
  if (err > 0).any():
    i = int(np.argmax(err))
    return f"max error at {r[i]!r} vs {g[i]!r} (rtol {rtol})"
  return None


def compare(ref, got) -> Optional[tuple[str, str]]:
  """(kind, detail) of the first difference between two `run` results, or None."""
  if len(ref) != len(got):
    return "structure", f"{len(ref)} outputs vs {len(got)}"
  for i, ((rv, rd, rs, rw), (gv, gd, gs, gw)) in enumerate(zip(ref, got)):
    if rs != gs:
      return "shape", f"output {i}: JAX {rs} vs stablejax {gs}"
    if rd != gd:
      return "dtype", f"output {i}: JAX {rd} vs stablejax {gd}"
    if rw != gw:
      return "weak_type", f"output {i} ({rd}{list(rs)}): JAX weak_type={rw} vs stablejax {gw}"
    why = _close(rv, gv, rd)
    if why:
      return "value", f"output {i} ({rd}{list(rs)}): {why}"
  return None


def _err(e: BaseException) -> str:
  return f"{type(e).__name__}: {str(e).splitlines()[0][:160] if str(e) else ''}"


def check_mode(prog: P.Program, mode: str, ref=None) -> Optional[Mismatch]:
  """The mismatch of `prog` under `mode`, or None. `ref` holds JAX's results of the modes of
  `mode`'s group that are known already; the others are run when needed (a value that differs
  from JAX's under `mode` may match JAX's under another mode of the group)."""
  ref = dict(ref or {})
  jax_result = lambda m: ref[m] if m in ref else ref.setdefault(m, run("jax", prog, m))
  want = jax_result(mode)
  got = run("stablejax", prog, mode)
  if isinstance(got, Timeout):
    return Mismatch("timeout", mode, str(got))
  if isinstance(want, BaseException) or isinstance(got, BaseException):
    if not isinstance(got, BaseException):
      return Mismatch("error parity", mode, f"JAX raises {_err(want)}; stablejax does not")
    if not isinstance(want, BaseException):
      return Mismatch("error parity", mode, f"stablejax raises {_err(got)}; JAX does not")
    if not isinstance(got, CLEAN_ERRORS):
      return Mismatch("error type", mode, f"stablejax raises {_err(got)}; JAX {_err(want)}")
    return None
  diff = compare(want, got)
  if diff and diff[0] == "value" and any(
      not isinstance(r, BaseException) and compare(r, got) is None
      for r in map(jax_result, GROUP_OF[mode])):
    return None
  return Mismatch(diff[0], mode, diff[1]) if diff else None


def check(prog: P.Program) -> list[Mismatch]:
  """All mismatches of `prog`, at most one per mode."""
  modes = modes_of(prog)
  ref = {m: run("jax", prog, m) for m in modes}
  out = []
  for m in modes:
    mm = check_mode(prog, m, {k: ref[k] for k in GROUP_OF[m] if k in ref})
    if mm:
      out.append(mm)
  return out


EAGER_MODES = r"^(eager|vmap|grad|vmap_grad|jvp)$"  # the modes that run primitive by primitive
TINY = r"(-?\d\.\d+e-(0[5-9]|[1-9]\d)|-?0\.0)"  # a float64 repr under 1e-4 in magnitude

# Mismatches that are known: (kind, mode, detail, program source patterns, reason). A deliberate
# difference says why; a stablejax bug found by the fuzzer and not yet fixed names its report, and
# its entry goes when the fix lands. Anything else the fuzzer finds is a new bug.
KNOWN: list[tuple[str, str, str, str, str]] = [
    ("error parity", "jit|grad", r"stablejax raises TypeError: arg(max|min) does not accept "
     r"complex", "", "deliberate: argmax/argmin of complex values is a TypeError when traced in "
     "stablejax, when lowered in JAX, whose jit and grad drop an integer result nothing uses "
     "(e.g. isfinite of it, a constant) before lowering"),
    ("value", "", r"max error at np\.float64\(-?\d\.\d+e\+(1[5-9]|[2-9]\d)\)",
     r"jnp\.(sin|cos|tan|sinh|cosh|tanh)\(",
     "float noise: trigonometric functions iterated on huge magnitudes (over 1e15) amplify "
     "one-ulp differences between differently fused XLA programs"),
    ("error parity", "grad", r"JAX raises TypeError: Slice size at index \d+ in gather op is "
     r"out of range", r"\.at\[.*\]\.(max|min|set|add|multiply|mul)\(",
     "JAX bug: the derivative of a scatter (.at[].set/add/max/...) into an axis of size 0 "
     "builds a gather whose slice (1) exceeds the axis, and JAX's own shape check rejects it; "
     "the primal runs in both, and stablejax gives the (empty) gradient"),
    ("error type", "", r"stablejax raises JaxRuntimeError: INTERNAL: RET_CHECK failure \(\S*"
     r"fft_thunk\.cc:\d+\) LayoutUtil::IsMonotonicWithDim0Major.*; JAX JaxRuntimeError: "
     r"INTERNAL: RET_CHECK failure", "",
     "XLA bug: its CPU FFT rejects the operand's layout at run time (JAX's program fails alike), "
     "e.g. the gradient of an fft of a transposed QR factor"),
    ("error parity", "jit|grad", r"stablejax raises ValueError: RFFT of an empty axis", "",
     "deliberate: an RFFT of an empty axis is a ValueError when traced in stablejax, when lowered "
     "in JAX (a verifier error), whose jit and grad drop an fft nothing uses (only its shape) "
     "before lowering"),
    ("value", EAGER_MODES, r"\): (max error at |(NaN|inf) patterns differ)",
     r"^# inputs: [^\n]*float16",
     "deliberate: JAX runs most jnp functions eagerly as one compiled program each (jnp.tanh, "
     "jnp.divide, jnp.arctan2, ...), where XLA computes half-precision chains in float32 and "
     "rounds once; stablejax, eagerly, rounds each primitive's result as numpy does (the tangent "
     "of jnp.tanh(-2.545) for 1 is 0.0243 in float16 in JAX, 0.0247 in stablejax; JAX's "
     ".at[].min tangent leaves a bfloat16 residue where stablejax's is 0), and the difference "
     "carries into what is computed from it (a residue over 0 is ±inf where stablejax's 0 / 0 is "
     "NaN); the compiled modes agree"),
    ("value", EAGER_MODES, rf"\): max error at np\.float64\({TINY}\) vs np\.float64\({TINY}\)",
     "", "float noise: where terms cancel (the tangent of v / v), JAX's eager jnp function, "
     "compiled whole and fused by XLA, leaves other residues under 1e-4 than stablejax's "
     "primitives run one by one; the compiled modes agree"),
    ("crash", "", r"^(JAX dies .*; stablejax runs|both die )", "",
     "XLA bug: XLA dies compiling or running JAX's program, so there is nothing to compare "
     "with (stablejax's program runs, or dies alike)"),
    ("weak_type", "^vmap_grad$", r"JAX weak_type=False vs stablejax True",
     r"lax\.(cond|switch)\(",
     "JAX artifact: vmapped with a batched predicate, JAX's cond (or switch) computes its "
     "gradient with selects against residuals it creates as (strong) empty arrays, which drop "
     "the weak type; without vmap both give the weakly typed gradient"),
    ("value", "^jit", "", r"(?s)jnp\.nextafter\(.*\.astype\(jnp\.bool\)",
     "XLA quirk: nextafter makes denormals (nextafter(0, -2) is -1.4e-45), and XLA's CPU runtime "
     "compares them as 0 (DAZ) where they come from memory, as themselves where the compare is "
     "fused with nextafter; programs fused differently cast such a value to a different bool, "
     "and what is computed from it differs"),
    ("value", "^jit_grad$", r"\): max error at ",
     r"(?s)(bfloat16|float16).*(lax\.fori_loop|jnp\.where)\(",
     "XLA quirk: excess precision. JAX's module wraps each fori_loop body and each jnp.where in "
     "a call; XLA rounds JAX's half-precision gradient to bfloat16/float16 at the call, and "
     "keeps stablejax's, inline, in float32 (the gradient of arctan after a loop: 0.80078125 in "
     "JAX, 0.8 in stablejax, both 0.80078125 eagerly; of where(e > 0, e, e) + sin(e) for the "
     "bfloat16 e = 2.39: 1.265625 in JAX, 1.2695312 in stablejax, both 1.265625 with "
     "--xla_allow_excess_precision=false)"),
    ("weak_type", "^jit_grad$", r"JAX weak_type=True vs stablejax False",
     r"(jnp\.power\(v\d+, v|\*\* v\d+\))",
     "JAX inconsistency: JAX's jnp.power of an array exponent is a jit(inline=True), so its "
     "gradient's weak type depends on whether it is traced inline: grad of jnp.power(v, v) at a "
     "Python float is strong in JAX, jit(grad) weak; stablejax follows JAX's grad (and its "
     "jit(grad) where the power's tangent alone reaches the output)"),
    ("value", "", "", r"jnp\.linalg\.qr\(jnp\.sin\([^\n]*\.reshape\(3, 3\)\)\)",
     "generator artifact: its 3x3 matrix sin(a + 3i + j) has rank 2 (sin(a + 3i) cos j + "
     "cos(a + 3i) sin j), so R[2, 2] of its QR is rounding noise (-1e-8 beside 1.6), different "
     "in differently fused programs, and what is computed from it (a quotient, an exp) differs"),
    ("value", "", "", r"(?s)v(\d+) = jax\.random\.bits\(.*\[v\1\]",
     "JAX artifact: a 0-d uint32 index past the int32 range (random bits) into an array of 2 or "
     "more axes is converted to int32 by JAX's dynamic-slice path (its start indices must share "
     "a type), so it wraps negative and is counted from the end; stablejax clamps it to the last "
     "element, as JAX does for a 1-d array and for index arrays (numpy raises IndexError)"),
    ("value", EAGER_MODES, r"NaN patterns differ",
     r"(?s)v(\d+) = (\(v\d+ [<>=!]=? v\d+\)|jnp\.(is\w+|logical_\w+|equal|not_equal|less\w*|"
     r"greater\w*)\().*(jnp\.(true_)?divide\(v\1, |\(v\1 / |jnp\.multiply\((v\1, |v\d+, v\1\))"
     r"|\(v\1 \* |\* v\1\))",
     "XLA quirk: compiled, XLA rewrites a bool cast to float and multiplied by y as select(b, y, "
     "0) (divided by y: select(b, 1/y, 0)), so False * nan and False / 0.0 are 0, where IEEE "
     "(numpy, and stablejax eagerly) gives NaN; JAX's eager jnp.multiply and jnp.divide are "
     "compiled, so give 0; under jit both libraries give XLA's 0"),
    ("value", "^jvp$", r"NaN patterns differ", r"jnp\.(min|max|amin|amax)\(",
     "XLA quirk: JAX runs jnp.min/max eagerly as one compiled program, where XLA rewrites the "
     "tangent times the (converted bool) indicator of the extremum as a select, so an infinite "
     "tangent off the extremum drops out; stablejax, eagerly, multiplies as the rule (JAX's) "
     "says, and inf * 0 is NaN; compiled, both give XLA's"),
    ("value", EAGER_MODES, r"\(complex\d+\[[\d, ]*\]\): NaN patterns differ", r"jnp\.mean\(",
     "deliberate: JAX runs jnp.mean eagerly (and vmapped) as one compiled program, where XLA "
     "divides a complex sum by the real count part by part (or folds a count of 1 away); "
     "stablejax divides as numpy does ((nan+1j)/1 is nan+nanj, (inf-5j)/3 is inf+nanj)"),
    ("value", EAGER_MODES, r"\): max error at ", r"(?s)jnp\.mean\(.*(jnp\.(fmod|remainder)\(| % )",
     "deliberate: JAX runs jnp.mean eagerly as one compiled program, where XLA multiplies the sum "
     "by the reciprocal of the count (a float32 96437 / 3 comes out 32145.668); stablejax, "
     "eagerly, divides as numpy does (32145.666), and an fmod or remainder of the mean by a small "
     "value makes that one ulp a large relative difference; the compiled modes agree"),
    ("weak_type", "^jit_grad$", r"JAX weak_type=True vs stablejax False", r"jnp\.where\(v\d+, ",
     "JAX inconsistency: JAX's grad and jit(grad) of jnp.where(v, arctan(e), e), e from a Python "
     "float v, disagree on the gradient's weak type (strong and weak); stablejax gives JAX's "
     "grad's (strong) in both"),
    ("value", EAGER_MODES, r"NaN patterns differ",
     r"(?s)(==|!=|<=|>=| < | > |jnp\.bool|jnp\.logical_|jnp\.is(nan|inf|finite)\(|"
     r"jnp\.(any|all)\().*(jnp\.(true_)?divide\(| / )",
     "deliberate: JAX runs jnp.divide eagerly as one compiled program, where XLA rewrites the "
     "division of a converted bool into a select (False / 0 comes out 0); stablejax, eagerly, "
     "converts and then divides as numpy does (0.0 / 0 is NaN); under jit both give XLA's"),
    ("value", r"^jit(_vmap)?$", r"(NaN patterns differ|elements differ)",
     r"(?s)\.at\[[^\]\n]*:[^\]\n]*\]\.set\(.*( / |jnp\.(true_)?divide\()",
     "XLA: stablejax's .at[slice].set scatters at constant indices (JAX computes them with an "
     "iota), so XLA folds the updated array into a constant, turns the division by it into a "
     "multiplication by its reciprocal and that of a converted bool into a select: 0 / 0 comes "
     "out 0 in stablejax's program, NaN in JAX's"),
    ("value", "grad", r"\): max error at ", r"\[[^\]\n]*::-?\d[^\]\n]*\]",
     "JAX inconsistency: a static index past the end is clamped, and JAX's gradient through it "
     "depends on how JAX lowers the indexing: with a strided slice beside it, a gather whose "
     "transpose (a scatter) drops the out-of-bounds update (gradient 0), else a slice whose "
     "transpose keeps it (gradient 1); stablejax's is 1 in both (grad of sum(v[None, ::2, 2]) "
     "for v of shape (1, 1, 1) is 0 in JAX, of sum(v[:, :, 2]) 1)"),
    ("value", "", "",
     r"(?s)(^# inputs: [^\n]*uint32|jax\.random\.(bits|split)\().*\[[^\]\n]*\bv\d+\b[^\]\n]*\]",
     "JAX artifact: JAX converts a uint32 index to int32 before gathering, so an index of 2**31 "
     "or more (random.bits gives them, products of split keys, and a uint32 input times a "
     "negative Python int) wraps negative and is clamped to the first element; "
     "stablejax clamps it to the last, as any index past the end (x[..., uint32 3e9] of a (4, 3) "
     "array is column 0 in JAX, column 2 in stablejax)"),
    ("value", "^jit", r"\): max error at ",
     r"(?s)^# inputs: [^\n]*(bfloat16|float16).*jnp\.where\(.*\.astype\(jnp\.float32\)",
     "XLA quirk: excess precision. JAX's jnp.where is a jitted function, a call in JAX's module, "
     "and XLA rounds its half-precision result at the call; stablejax's select is inline, and "
     "XLA fuses exp, select and the cast to float32 without rounding to bfloat16 between "
     "(jnp.where(e > 0, e, e).astype(float32) for e = exp(bfloat16 -0.703125) is 0.49414 in JAX, "
     "0.49504 in stablejax; both 0.49414 with --xla_allow_excess_precision=false)"),
    ("value", "^jit_vmap$", r"\): max error at ",
     r"(?s)^# inputs: [^\n]*(bfloat16|float16).*lax\.dynamic_update_slice",
     "deliberate: vmapped with unbatched start indices, stablejax's dynamic_update_slice stays "
     "one (JAX's batching rule makes it a scatter); XLA fuses the two programs differently and, "
     "allowed excess precision by default, keeps a half-precision sum in float32 in one of them "
     "(0.98535 in stablejax, the bfloat16 0.984375 in JAX)"),
    ("value", "^jit_vmap$", r"\): (max error at |\d+ elements differ)",
     r"(?s)(v\d+) = lax\.dynamic_update_slice\w*\((v\d+), [^\n]*\b\2\b.*"
     r"(jnp\.reshape\(\1,|\b\1\.reshape\()",
     "XLA bug (openxla/xla#49176): on CPU, a dynamic_update_slice whose update is read from its "
     "own operand, its result reshaped, runs as an in-place kernel that reads rows it has "
     "already overwritten (JAX's own jit of dynamic_update_slice(y, flip(y[:, :5], 1), (0, 3, 0))"
     ".reshape(2, 8, 2, 1) gives row 4 for row 3 alike); vmapped with an unbatched traced "
     "start, JAX's batching rule makes it a scatter, which XLA gets right, where stablejax's "
     "stays a dynamic_update_slice"),
    ("value", "^jit_vmap$", r"\): max error at ",
     r"(?s)^# inputs: [^\n]*(bfloat16|float16).*(jnp\.(matmul|dot|inner|vdot|tensordot)\(| @ )",
     "XLA quirk: excess precision. Vmapped, JAX's stack becomes a concatenate and a transpose, "
     "and its dot batches over another axis than stablejax's; XLA fuses stablejax's half-"
     "precision dot with the convert to float32 after it, without rounding to bfloat16 between, "
     "where it rounds JAX's (the row [log x, x] times itself for the bfloat16 x = 0.1445 is "
     "3.78125 vmapped in JAX, 3.7748 in stablejax and in JAX's jit without vmap; both 3.78125 "
     "with --xla_allow_excess_precision=false)"),
    ("weak_type", "^jit_grad$", r"JAX weak_type=False vs stablejax True", r"jnp\.flip\(",
     "JAX artifact: add_any takes its first operand's weak type (JAX's, followed by stablejax), so "
     "under jit a gradient's weak type is that of the first cotangent summed, which follows the "
     "order of the program's equations: with a weakly typed v, jit(grad) of s + w is weak where "
     "s = sum(exp2(stack([v, v]))) is computed first, strong where w = sum(expand_dims(v, 0)) is, "
     "in JAX and in stablejax (eager grad: strong in both); JAX's flip of a 0-d array is an "
     "equation (a call of rev), stablejax's the array itself, so a different cotangent comes "
     "first"),
]


def known_reason(m: Mismatch, prog: P.Program) -> Optional[str]:
  """Why mismatch `m` of `prog` is expected (see KNOWN), or None for a new one. The source
  patterns see the source after a line `# inputs: ` with the types of the arguments."""
  types = ", ".join(type(x.value).__name__ if x.scalar else str(x.value.dtype)
                    for x in prog.inputs)
  text = f"# inputs: {types}\n{prog.source()}"
  for kind, mode, detail, source, reason in KNOWN:
    if (m.kind == kind and re.search(mode, m.mode) and re.search(detail, m.detail)
        and re.search(source, text)):
      return reason
  return None


def evaluate_with_jax(expr: str, values: dict):
  """The type of one generator line, traced by JAX (`jax.eval_shape`: nothing is compiled) over
  the arrays in `values` (ShapeDtypeStructs or arrays; Python scalars stay Python scalars). A
  line that needs concrete values (valid only eagerly) raises, and is not used."""
  ns = dict(library("jax"))
  arrays = [k for k, v in values.items() if hasattr(v, "shape")]

  def line(*xs):
    return eval(expr, {**ns, **{f"v{k}": v for k, v in values.items()},  # pylint: disable=eval-used
                       **{f"v{k}": x for k, x in zip(arrays, xs)}})
  with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    return ns["jax"].eval_shape(line, *[values[k] for k in arrays])


def generate(seed: int, index: int) -> P.Program:
  """Program `index` of the campaign with seed `seed`."""
  return P.generate(np.random.default_rng([seed, index]), library("jax"), evaluate_with_jax)


# ----------------------------------------------------------------------------------------------
# Reproducers

def _literal(v) -> str:
  if not isinstance(v, np.ndarray):
    return repr(v)
  return f"np.array({v.tolist()!r}, dtype='{v.dtype}').reshape({v.shape})"


def reproducer(prog: P.Program, mode: str) -> str:
  """A Python snippet running `prog` under `mode` with JAX and stablejax."""
  conv = lambda v: _literal(v) if not isinstance(v, np.ndarray) else f"jnp.asarray({_literal(v)})"
  data = [f"  args = ({''.join(conv(x.value) + ', ' for x in prog.inputs)})"]
  if "vmap" in mode:
    data.append(f"  bargs = ({''.join(conv(x.batched) + ', ' for x in prog.inputs)})")
    data.append(f"  AXES = {tuple(None if x.scalar else 0 for x in prog.inputs)!r}")
  if "grad" in mode:
    data.append(f"  GRAD_ARGNUMS = {grad_argnums(prog)!r}")
  if mode == "jvp":
    js = jvp_argnums(prog)
    data += [f"  JVP_ARGS = {js!r}", "  primals = tuple(args[i] for i in JVP_ARGS)",
             f"  tangents = ({''.join(conv(prog.inputs[i].tangent) + ', ' for i in js)})"]
  harness = HARNESS if mode in ("grad", "jit_grad", "vmap_grad", "jvp") else ""
  return ("import importlib\nimport numpy as np\nfrom numpy import nan, inf\n\n"
          + prog.source() + harness
          + "\nfor lib in ('jax', 'stablejax'):\n"
          "  jax, jnp = importlib.import_module(lib), importlib.import_module(lib + '.numpy')\n"
          "  lax = jax.lax\n" + "\n".join(data) + "\n"
          f"  try:\n    print(lib, {MODES[mode]})\n"
          "  except Exception as e:\n    print(lib, 'raises', type(e).__name__, e)\n")
