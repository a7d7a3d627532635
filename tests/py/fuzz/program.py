"""Random straight-line programs over stablejax's primitive families, as Python source.

A program is a function `f(v0, ..., vk)` of straight-line lines `vN = <expression>` over the
names `jax`, `jnp` and `lax`; binding them to stablejax or JAX runs the same code on either. The
generator traces each candidate line with JAX (`eval_shape`) to learn its result's shape and dtype.
"""
from __future__ import annotations

import dataclasses
import re
from typing import Callable, Optional

import ml_dtypes  # noqa: F401  (names numpy's "bfloat16")
import numpy as np

# Dtypes of generated inputs (float32 and int32, the common ones, more often).
DTYPES = ("bool", "int8", "int16", "int32", "uint8", "uint32", "float16", "bfloat16", "float32",
          "float32", "float32", "int32", "complex64")
FLOATS = ("float16", "bfloat16", "float32")
VAR = re.compile(r"\bv(\d+)\b")


@dataclasses.dataclass
class Input:
  """An argument: an array (`value`, and `batched` with a leading vmap axis) or a Python scalar."""
  value: object
  batched: object  # the vmap argument: `value` for a Python scalar (not mapped)
  tangent: Optional[np.ndarray]  # jvp tangent for float arrays

  @property
  def scalar(self) -> bool:
    return not isinstance(self.value, np.ndarray)


@dataclasses.dataclass
class Program:
  inputs: list[Input]
  lines: list[tuple[int, str]]  # (var number, expression)
  outputs: list[int]

  def source(self) -> str:
    args = ", ".join(f"v{i}" for i in range(len(self.inputs)))
    body = "".join(f"  v{n} = {e}\n" for n, e in self.lines)
    outs = "".join(f"v{n}, " for n in self.outputs)
    return f"def f({args}):\n{body}  return ({outs})\n"


def deps(expr: str) -> list[int]:
  return [int(m) for m in VAR.findall(expr)]


# ----------------------------------------------------------------------------------------------
# Abstract values of the generator's environment

@dataclasses.dataclass(frozen=True)
class Aval:
  shape: tuple
  dtype: str
  weak: bool
  pyscalar: bool

  @property
  def kind(self) -> str:
    return np.dtype(self.dtype).kind if self.dtype != "bfloat16" else "f"

  @property
  def ndim(self) -> int:
    return len(self.shape)

  @property
  def size(self) -> int:
    return int(np.prod(self.shape))


def aval_of(x) -> Aval:
  if isinstance(x, (bool, int, float, complex)):
    dt = {bool: "bool", int: "int32", float: "float32", complex: "complex64"}[type(x)]
    return Aval((), dt, True, True)
  return Aval(tuple(x.shape), str(x.dtype), bool(getattr(x, "weak_type", False)), False)


# ----------------------------------------------------------------------------------------------
# Input values

def _values(rng: np.random.Generator, shape: tuple, dtype: str, special: bool) -> np.ndarray:
  if dtype == "bool":
    return rng.random(shape) < 0.5
  if dtype.startswith("uint"):
    return rng.integers(0, 9, shape).astype(dtype)
  if dtype.startswith("int"):
    return rng.integers(-6, 7, shape).astype(dtype)
  if dtype.startswith("complex"):
    re_, im = (_values(rng, shape, "float32", special) for _ in range(2))
    with np.errstate(invalid="ignore"):  # (inf * 1j has a NaN real part, as intended)
      return (re_ + 1j * im).astype(dtype)
  x = rng.standard_normal(shape) * rng.choice([0.5, 2.0, 4.0])
  if special:
    x = np.where(rng.random(shape) < 0.05, rng.choice([0.0, -0.0, np.inf, -np.inf, np.nan], shape), x)
  return x.astype(dtype)


def _pyscalar(rng: np.random.Generator):
  kind = rng.choice(["float", "int", "bool", "complex"], p=[0.5, 0.3, 0.12, 0.08])
  if kind == "float":
    return float(rng.choice([0.5, -1.5, 2.0, 3.25, 0.0]))
  if kind == "int":
    return int(rng.integers(-3, 5))
  if kind == "bool":
    return bool(rng.integers(2))
  return complex(float(rng.choice([0.5, -1.0])), 1.0)


def _shape(rng: np.random.Generator) -> tuple:
  ndim = int(rng.choice([0, 1, 2, 3], p=[0.12, 0.3, 0.4, 0.18]))
  return tuple(int(rng.choice([0, 1, 2, 3, 4], p=[0.04, 0.16, 0.3, 0.3, 0.2])) for _ in range(ndim))


def make_input(rng: np.random.Generator, batch: int, special: bool, shape=None, dtype=None) -> Input:
  if shape is None and rng.random() < 0.15:
    v = _pyscalar(rng)
    return Input(v, v, None)
  shape = _shape(rng) if shape is None else shape
  dtype = str(rng.choice(DTYPES)) if dtype is None else dtype
  value = np.asarray(_values(rng, shape, dtype, special))
  batched = np.asarray(_values(rng, (batch,) + shape, dtype, special))
  tangent = np.asarray(_values(rng, shape, dtype, False)) if dtype in FLOATS else None
  return Input(value, batched, tangent)


# ----------------------------------------------------------------------------------------------
# Operation generators: each takes (rng, env) and returns an expression or None. `env` maps var
# numbers to Avals.

class Gen:
  """The generator's state for one line: the environment and helpers to pick from it."""

  def __init__(self, rng: np.random.Generator, env: dict[int, Aval]):
    self.rng, self.env = rng, env

  def pick(self, pred: Callable[[Aval], bool] = lambda a: True) -> Optional[int]:
    """A var satisfying `pred`, favouring recent ones."""
    cands = [n for n, a in self.env.items() if pred(a)]
    if not cands:
      return None
    w = np.arange(1, len(cands) + 1, dtype=float) ** 1.5
    return int(self.rng.choice(cands, p=w / w.sum()))

  def choice(self, xs):
    return xs[int(self.rng.integers(len(xs)))]

  def literal(self) -> str:
    return self.choice(["2", "-1", "0.5", "3", "True", "1.5", "0", "-2.0", "(1+1j)"])

  def axis(self, a: Aval, allow_none: bool = True):
    opts = ([None] if allow_none else []) + list(range(-a.ndim, a.ndim))
    return self.choice(opts) if opts else None


def _array(a: Aval) -> bool:
  return not a.pyscalar


UNARY = ["jnp.sin", "jnp.cos", "jnp.tanh", "jnp.exp", "jnp.log", "jnp.sqrt", "jnp.expm1",
         "jnp.log1p", "jnp.arctan", "jnp.sinh", "jnp.floor", "jnp.ceil", "jnp.round", "jnp.sign",
         "jnp.abs", "jnp.negative", "jnp.square", "jnp.reciprocal", "lax.rsqrt", "jnp.isnan",
         "jnp.isfinite", "jnp.logical_not", "jnp.bitwise_not", "jnp.conj", "jnp.real",
         "jnp.imag", "jnp.exp2", "jnp.cbrt", "jnp.arcsinh", "jnp.trunc"]
BINARY = ["jnp.add", "jnp.subtract", "jnp.multiply", "jnp.divide", "jnp.power", "jnp.floor_divide",
          "jnp.remainder", "jnp.maximum", "jnp.minimum", "jnp.arctan2", "jnp.less", "jnp.equal",
          "jnp.greater_equal", "jnp.not_equal", "jnp.logical_and", "jnp.logical_or",
          "jnp.bitwise_and", "jnp.bitwise_or", "jnp.bitwise_xor", "jnp.left_shift",
          "jnp.right_shift", "jnp.fmod", "jnp.hypot", "jnp.copysign", "jnp.nextafter"]
OPERATORS = ["+", "-", "*", "/", "**", "//", "%", "<", "==", ">=", "&", "|", "^"]


def g_unary(g: Gen) -> Optional[str]:
  x = g.pick()
  return f"{g.choice(UNARY)}(v{x})"


def _broadcastable(a: Aval, b: Aval) -> bool:
  try:
    np.broadcast_shapes(a.shape, b.shape)
    return True
  except ValueError:
    return False


def g_binary(g: Gen) -> Optional[str]:
  x = g.pick()
  ax = g.env[x]
  r = g.rng.random()
  if r < 0.25:
    other = g.literal()
  else:
    y = g.pick(lambda b: _broadcastable(ax, b) or g.rng.random() < 0.05)
    other = f"v{y}"
    if ax.pyscalar and g.env[y].pyscalar:
      return f"{g.choice(BINARY)}(v{x}, {other})"
  if g.rng.random() < 0.5 and not ax.pyscalar:
    lhs, rhs = (f"v{x}", other) if g.rng.random() < 0.7 else (other, f"v{x}")
    return f"({lhs} {g.choice(OPERATORS)} {rhs})"
  return f"{g.choice(BINARY)}(v{x}, {other})"


def g_where(g: Gen) -> Optional[str]:
  c = g.pick(lambda a: a.dtype == "bool")
  x = g.pick()
  cond = f"v{c}" if c is not None else f"(v{x} > 0)"
  y = g.pick(lambda b: _broadcastable(g.env[x], b))
  other = f"v{y}" if g.rng.random() < 0.7 else g.literal()
  return f"jnp.where({cond}, v{x}, {other})"


def g_clip(g: Gen) -> Optional[str]:
  x = g.pick()
  lo, hi = g.choice([("-1", "2"), ("0", "None"), ("None", "0.5"), ("-2.5", "2.5"), ("1", "1")])
  return f"jnp.clip(v{x}, {lo}, {hi})"


def g_reduce(g: Gen) -> Optional[str]:
  x = g.pick()
  a = g.env[x]
  fn = g.choice(["sum", "max", "min", "mean", "prod", "argmax", "argmin", "any", "all", "sum"])
  if fn in ("argmax", "argmin"):
    axis = g.axis(a)
  elif a.ndim and g.rng.random() < 0.3:
    axis = tuple(sorted(set(int(i) for i in g.rng.integers(0, a.ndim, 2))))
  else:
    axis = g.axis(a)
  keep = g.rng.random() < 0.3
  return f"jnp.{fn}(v{x}, axis={axis!r}, keepdims={keep})"


def g_dot(g: Gen) -> Optional[str]:
  x = g.pick(lambda a: a.ndim >= 1 and _array(a))
  if x is None:
    return None
  a = g.env[x]
  if a.ndim >= 2 and g.rng.random() < 0.3:
    return g.choice([f"(v{x} @ jnp.swapaxes(v{x}, -1, -2))", f"jnp.einsum('...ij,...kj->...ik', v{x}, v{x})",
                     f"jnp.einsum('...ij->...j', v{x})"])
  y = g.pick(lambda b: b.ndim >= 1 and _array(b)
             and b.shape[0 if b.ndim == 1 else -2] == a.shape[-1])
  if y is None:
    return f"jnp.dot(v{x}, jnp.flip(v{x}, -1)) " if a.ndim == 1 else None
  b = g.env[y]
  if a.ndim == 2 and b.ndim == 2 and g.rng.random() < 0.4:
    return f"jnp.einsum('ij,jk->ik', v{x}, v{y})"
  return f"{g.choice(['jnp.matmul', 'jnp.dot'])}(v{x}, v{y})"


def _reshape_target(g: Gen, a: Aval) -> tuple:
  s = list(a.shape)
  opts = [(-1,), tuple([1] + s), tuple(s + [1])]
  if len(s) >= 2:
    i = int(g.rng.integers(len(s) - 1))
    opts.append(tuple(s[:i] + [s[i] * s[i + 1]] + s[i + 2:]))
  for i, d in enumerate(s):
    if d % 2 == 0 and d > 0:
      opts.append(tuple(s[:i] + [2, d // 2] + s[i + 1:]))
  return g.choice(opts)


def g_shape(g: Gen) -> Optional[str]:
  x = g.pick(_array)
  if x is None:
    return None
  a = g.env[x]
  kind = g.choice(["reshape", "transpose", "expand_dims", "squeeze", "flip", "broadcast_to", "ravel"])
  if kind == "reshape":
    return f"jnp.reshape(v{x}, {_reshape_target(g, a)})"
  if kind == "transpose":
    return f"jnp.transpose(v{x}, {tuple(int(i) for i in g.rng.permutation(a.ndim))})"
  if kind == "expand_dims":
    return f"jnp.expand_dims(v{x}, {int(g.rng.integers(-a.ndim - 1, a.ndim + 1))})"
  if kind == "squeeze":
    ones = [i for i, d in enumerate(a.shape) if d == 1]
    ax = g.choice(ones) if ones and g.rng.random() < 0.95 else g.axis(a)
    return f"jnp.squeeze(v{x}, axis={ax})"
  if kind == "flip":
    return f"jnp.flip(v{x}, axis={g.axis(a)})"
  if kind == "broadcast_to":
    return f"jnp.broadcast_to(v{x}, {(int(g.rng.integers(0, 3)),) + a.shape})"
  return f"jnp.ravel(v{x})"


def _static_index(g: Gen, a: Aval) -> str:
  parts = []
  for d in a.shape[: int(g.rng.integers(1, a.ndim + 1))]:
    r = g.rng.random()
    if r < 0.3 and d > 0:
      parts.append(str(int(g.rng.integers(-d, d))))
    elif r < 0.85:
      start, stop = (g.choice([None, int(g.rng.integers(-d - 1, d + 2))]) for _ in range(2))
      step = g.choice([None, None, 2, -1, -2])
      parts.append(":".join("" if v is None else str(v) for v in (start, stop, step)) or ":")
    elif r < 0.95:
      parts.append("None")
    else:
      parts.append("...")
  return ", ".join(parts) + ("," if len(parts) == 1 else "")


def _index_scalar(g: Gen) -> str:
  i = g.pick(lambda a: a.shape == () and a.kind in "iu" and not a.pyscalar)
  return f"v{i}" if i is not None and g.rng.random() < 0.7 else str(int(g.rng.integers(-2, 4)))


def g_index(g: Gen) -> Optional[str]:
  x = g.pick(lambda a: _array(a) and a.ndim >= 1)
  if x is None:
    return None
  a = g.env[x]
  kind = g.choice(["static", "static", "dynamic_slice", "dynamic_update", "gather", "take",
                   "scatter", "scatter_static"])
  ax = int(g.rng.integers(a.ndim))
  d = a.shape[ax]
  if kind == "static":
    return f"v{x}[{_static_index(g, a)}]"
  if kind == "dynamic_slice":
    return f"lax.dynamic_slice_in_dim(v{x}, {_index_scalar(g)}, {int(g.rng.integers(0, d + 1))}, axis={ax})"
  if kind == "dynamic_update":
    k = int(g.rng.integers(0, d + 1))
    return (f"lax.dynamic_update_slice_in_dim(v{x}, jnp.flip(lax.slice_in_dim(v{x}, 0, {k}, axis={ax}),"
            f" {ax}), {_index_scalar(g)}, axis={ax})")
  idx = g.pick(lambda b: b.kind in "iu" and _array(b))
  if idx is None:
    return None
  if kind == "gather":
    return g.choice([f"v{x}[v{idx}]", f"v{x}[..., v{idx}]" if d else f"v{x}[v{idx}]",
                     f"v{x}[jnp.remainder(v{idx}, {max(a.shape[0], 1)})]"])
  if kind == "take":
    mode = g.choice(["", ", mode='clip'", ", mode='wrap'"])
    return f"jnp.take(v{x}, v{idx}, axis={ax}{mode})"
  upd = g.choice(["set", "add", "mul", "min", "max"])
  if kind == "scatter_static":
    return f"v{x}.at[{_static_index(g, a)}].{upd}({g.literal()})"
  val = g.choice([g.literal(), f"v{x}[v{idx}]"])
  return f"v{x}.at[v{idx}].{upd}({val})"


def g_concat(g: Gen) -> Optional[str]:
  x = g.pick(_array)
  if x is None:
    return None
  a = g.env[x]
  if g.rng.random() < 0.5 and a.ndim >= 1:
    ax = int(g.rng.integers(a.ndim))
    y = g.pick(lambda b: b.ndim == a.ndim and all(
        p == q for i, (p, q) in enumerate(zip(a.shape, b.shape)) if i != ax))
    return f"jnp.concatenate([v{x}, v{y}], axis={ax})"
  y = g.pick(lambda b: b.shape == a.shape)
  return f"jnp.stack([v{x}, v{y}], axis={int(g.rng.integers(-a.ndim - 1, a.ndim + 1))})"


def g_cast(g: Gen) -> Optional[str]:
  x = g.pick()
  dt = g.choice(["bool", "int8", "int16", "int32", "uint8", "uint32", "float16", "bfloat16",
                 "float32", "complex64"])
  if g.env[x].pyscalar:
    return f"jnp.asarray(v{x}, dtype=jnp.{dt})"
  if g.env[x].kind == "c" and dt not in ("complex64",):  # JAX warns on complex -> real
    return f"jnp.real(v{x}).astype(jnp.{dt})"
  return f"v{x}.astype(jnp.{dt})"


def g_cumulative(g: Gen) -> Optional[str]:
  x = g.pick(lambda a: _array(a) and a.ndim >= 1)
  if x is None:
    return None
  ax = g.axis(g.env[x], allow_none=False)
  return g.choice([f"jnp.cumsum(v{x}, axis={ax})", f"jnp.cumprod(v{x}, axis={ax})",
                   f"lax.cummax(v{x}, axis={ax % g.env[x].ndim})", f"jnp.cumsum(v{x})",
                   f"lax.cummin(v{x}, axis={ax % g.env[x].ndim})"])


def g_sort(g: Gen) -> Optional[str]:
  x = g.pick(lambda a: _array(a) and a.ndim >= 1 and a.kind != "c")
  if x is None:
    return None
  ax = g.axis(g.env[x], allow_none=False)
  return g.choice([f"jnp.sort(v{x}, axis={ax})", f"jnp.argsort(v{x}, axis={ax})",
                   f"jnp.sort(v{x}, axis={ax}, descending=True)"])


def _branch(g: Gen, a: Aval) -> tuple[str, str]:
  if a.dtype == "bool":
    return "jnp.logical_not(a)", "a"
  if a.kind in "iu":
    return g.choice([("a * 2", "a + 1"), ("a - a", "-a"), ("a // 2", "a")])
  return g.choice([("jnp.sin(a)", "a * 2"), ("a + 1", "jnp.cos(a)"), ("a * a", "-a")])


def _predicate(g: Gen) -> str:
  p = g.pick()
  return f"(jnp.sum(v{p}) > 0)" if g.rng.random() < 0.8 else f"jnp.any(v{p})"


def g_cond(g: Gen) -> Optional[str]:
  x = g.pick()
  t, f = _branch(g, g.env[x])
  if g.rng.random() < 0.2:
    return f"lax.switch(jnp.clip(jnp.sum(v{x}).astype(jnp.int32), 0, 2), [lambda a: {t}, lambda a: {f}, lambda a: a], v{x})"
  return f"lax.cond({_predicate(g)}, lambda a: {t}, lambda a: {f}, v{x})"


def g_loop(g: Gen) -> Optional[str]:
  x = g.pick(lambda a: a.dtype != "bool")
  if x is None:
    return None
  a = g.env[x]
  t, _ = _branch(g, a)
  kind = g.choice(["scan", "scan", "fori", "fori", "while"])
  if kind == "scan" and a.ndim >= 1 and not a.pyscalar:
    step = "c * 0.5 + t" if a.kind in "fc" else "c + t"
    rev = g.choice(["", ", reverse=True"])
    out = g.choice(["[0]", "[1]"])
    return f"lax.scan(lambda c, t: ({step}, c * t), jnp.zeros_like(v{x}[0]), v{x}{rev}){out}"
  n = int(g.rng.integers(0, 4))
  if kind == "fori":
    body = re.sub(r"\ba\b", "c", t)
    return f"lax.fori_loop(0, {n}, lambda i, c: {body}, v{x})"
  body = re.sub(r"\ba\b", "s[1]", t)
  return f"lax.while_loop(lambda s: s[0] < {n}, lambda s: (s[0] + 1, {body}), (0, v{x}))[1]"


def g_random(g: Gen) -> Optional[str]:
  x = g.pick()
  seed = int(g.rng.integers(0, 100))
  key = f"jax.random.PRNGKey({seed})"
  i = g.pick(lambda a: a.shape == () and a.kind in "iu" and not a.pyscalar and a.dtype != "bool")
  if i is not None and g.rng.random() < 0.4:
    key = f"jax.random.fold_in({key}, v{i})"
  shape = f"jnp.shape(v{x})"
  a = g.env[x]
  if a.kind == "f" and g.rng.random() < 0.5:
    dist = g.choice(["uniform", "normal"])
    return f"(v{x} + jax.random.{dist}({key}, {shape}, dtype=v{x}.dtype))" if not a.pyscalar else \
        f"(v{x} + jax.random.{dist}({key}, ()))"
  return g.choice([f"jax.random.bits({key}, {shape})", f"jax.random.randint({key}, {shape}, -3, 9)",
                   f"jax.random.bernoulli({key}, 0.3, {shape})", f"jax.random.split({key}, 3)",
                   f"jax.random.uniform({key}, {shape}, minval=-1.0, maxval=2.0)",
                   f"jax.random.normal({key}, {shape})"])


def g_linalg(g: Gen) -> Optional[str]:
  x = g.pick(lambda a: a.kind in "fiu")
  if x is None:
    return None
  n = int(g.rng.integers(1, 4))
  m = (f"jnp.sin(jnp.sum(v{x}).astype(jnp.float32) + jnp.arange({n * n}, dtype=jnp.float32)"
       f".reshape({n}, {n}))")
  spd = f"(lambda m: m @ m.T + {n} * jnp.eye({n}))({m})"
  return g.choice([f"jnp.linalg.cholesky({spd})", f"jnp.linalg.solve({spd}, jnp.arange({n}.0))",
                   f"jnp.abs(jnp.linalg.qr({m})[1])", f"jnp.linalg.eigvalsh({spd})",
                   f"jnp.linalg.svd({spd}, compute_uv=False)", f"jnp.linalg.det({spd})",
                   f"jnp.linalg.inv({spd})"])


def g_fft(g: Gen) -> Optional[str]:
  x = g.pick(lambda a: _array(a) and a.ndim >= 1 and a.kind in "fc")
  if x is None:
    return None
  fn = g.choice(["fft", "ifft", "rfft", "fft"])
  return f"jnp.fft.{fn}(v{x}, axis={g.axis(g.env[x], allow_none=False)})"


GENERATORS = {
    g_unary: 4, g_binary: 6, g_where: 1, g_clip: 1, g_reduce: 2, g_dot: 1, g_shape: 3,
    g_index: 3, g_concat: 1, g_cast: 2, g_cumulative: 1, g_sort: 1, g_cond: 1, g_loop: 1.5,
    g_random: 0.7, g_linalg: 0.5, g_fft: 0.5,
}


# ----------------------------------------------------------------------------------------------
# The generator

def generate(rng: np.random.Generator, namespace: dict, evaluate: Callable) -> Program:
  """A random program of 5–30 lines. `evaluate(expr, env)` types one line with the oracle (JAX),
  returning its result's type (or value) or raising."""
  batch = int(rng.choice([2, 2, 3, 1, 0], p=[0.5, 0.2, 0.15, 0.1, 0.05]))
  special = rng.random() < 0.3
  inputs = [make_input(rng, batch, special) for _ in range(int(rng.integers(1, 4)))]
  values = {i: (namespace["jnp"].asarray(inp.value) if not inp.scalar else inp.value)
            for i, inp in enumerate(inputs)}
  env = {i: aval_of(v) for i, v in values.items()}
  lines: list[tuple[int, str]] = []
  gens, w = list(GENERATORS), np.array(list(GENERATORS.values()))
  target = int(rng.integers(5, 31))
  tries = 0
  while len(lines) < target and tries < 6 * target:
    tries += 1
    expr = gens[rng.choice(len(gens), p=w / w.sum())](Gen(rng, env))
    if expr is None:
      continue
    n = len(inputs) + len(lines)
    try:
      out = evaluate(expr, values)
    except Exception:  # an invalid line: keep a few (error parity), ending the program there
      if rng.random() < 0.03:
        lines.append((n, expr))
        break
      continue
    if not hasattr(out, "shape") or getattr(out, "size", 0) > 4096:
      continue
    values[n], env[n] = out, aval_of(out)
    lines.append((n, expr))
  used = {d for _, e in lines for d in deps(e)}
  outputs = [n for n, _ in lines if n not in used] or [n for n, _ in lines[-1:]]
  return Program(inputs, lines, outputs)
