"""The rest of jax.numpy: numpy-2 aliases, dtype predicates, float decomposition (frexp, ldexp,
modf, spacing), unique_*, diagonal helpers, choose/piecewise, vectorize and the apply_* helpers,
index tricks (s_, index_exp, r_, c_), print options and einsum_path."""
from __future__ import annotations

import builtins
import warnings
from typing import Any, Callable, NamedTuple, Sequence

import numpy as np

from stablejax import api, core, dtypes, lax
from stablejax.numpy._contractions import matmul
from stablejax.numpy._creation import asarray, ones, zeros
from stablejax.numpy._indexing_functions import (
    diag_indices, nonzero, take_along_axis, tril_indices, triu_indices, unravel_index)
from stablejax.numpy._manipulation_elements import broadcast_arrays
from stablejax.numpy._manipulation_shape import concat, expand_dims, moveaxis, ravel, reshape, stack
from stablejax.numpy._promotion import (
    convert, dtype as dtype_of, ensure_arraylike, promote_args, promote_args_inexact,
    promote_dtypes_inexact, scalar_like, shape)
from stablejax.numpy._sorting import sort, unique
from stablejax.numpy._ufuncs import (
    BINARY, conjugate, constant_like, copysign, floor_divide, imag, invert, isinf, isnan,
    remainder, round, UNARY, where)
from stablejax.runtime import Array
from stablejax.util import canonicalize_axis

# numpy-2 (array API) names of existing functions
asin, acos, atan = UNARY["arcsin"], UNARY["arccos"], UNARY["arctan"]
asinh, acosh, atanh = UNARY["arcsinh"], UNARY["arccosh"], UNARY["arctanh"]
atan2 = BINARY["arctan2"]
bitwise_invert = bitwise_not = invert
around = round
euler_gamma = np.euler_gamma
ComplexWarning = np.exceptions.ComplexWarning
get_printoptions, set_printoptions, printoptions = (
    np.get_printoptions, np.set_printoptions, np.printoptions)
s_ = np.s_
index_exp = np.index_exp
array_repr, array_str, save, savez = np.array_repr, np.array_str, np.save, np.savez


def load(file: Any, *args: Any, **kwargs: Any) -> Any:
  """numpy.load, with an array result put on the device (an unsupported dtype stays numpy)."""
  out = np.load(file, *args, **kwargs)
  if isinstance(out, np.ndarray):
    try:
      return asarray(out)
    except TypeError:
      return out
  return out


def fromstring(string: str, dtype: Any = float, count: int = -1, *, sep: str) -> Any:
  """The array numpy.fromstring reads from the text `string`."""
  return asarray(np.fromstring(string, dtype=dtype, count=count, sep=sep))


def _impure(name: str) -> Callable[..., Any]:
  def fn(*args: Any, **kwargs: Any) -> Any:
    raise NotImplementedError(
        f"jnp.{name}() is not implemented because it may be non-pure and thus unsafe for use "
        f"with JIT and other JAX transformations. Consider using jnp.asarray(np.{name}(...)) "
        "instead.")
  fn.__name__ = fn.__qualname__ = name
  fn.__doc__ = f"Not implemented (numpy.{name} reads a file or iterator: it is impure)."
  return fn


fromfile, fromiter = _impure("fromfile"), _impure("fromiter")


def einsum_path(subscripts: str, /, *operands: Any,
                optimize: bool | str | list = "auto") -> tuple[list[tuple[int, ...]], str]:
  """The contraction order einsum would use (as JAX's: the list of contracted operand pairs)
  and numpy's report of it; computed on shapes only."""
  shaped = [np.empty(shape(x), dtype_of(x)) if isinstance(x, (Array, core.Tracer)) else x
            for x in operands]
  strategy = "greedy" if isinstance(optimize, bool) or optimize == "auto" else optimize
  path, report = np.einsum_path(subscripts, *shaped, optimize=strategy)
  if optimize is False:
    return [(0, 1)] * (len(shaped) - 1), report
  return [tuple(step) for step in path[1:]], report


def astype(x: Any, dtype: Any, /, *, copy: bool = False, device: Any = None) -> Any:
  """`x` converted to `dtype` (default: the default float); complex to bool is `x != 0`."""
  x = asarray(*ensure_arraylike("astype", x))
  dt = dtypes.default_float() if dtype is None else dtypes.canonicalize(np.dtype(dtype))
  if dtype_of(x).kind == "c" and dt == dtypes.bool_:
    return lax.ne(x, scalar_like(x, 0))
  if dtype_of(x).kind == "c" and dt.kind != "c":  # (JAX's warning, instead of numpy's)
    warnings.warn("Casting from complex to real dtypes will soon raise a ValueError. Please "
                  "first use jnp.real or jnp.imag to take the real/imaginary component of your "
                  "input.", DeprecationWarning, stacklevel=2)
    return lax.convert_element_type(x, dt, warn_on_complex_to_real_cast=False)
  return convert(x, dt)


_KINDS = {
    "bool": "b", "signed integer": "i", "unsigned integer": "u", "integral": "iu",
    "real floating": "f", "complex floating": "c", "numeric": "iufc"}


def isdtype(dtype: Any, kind: Any) -> bool:
  """Whether `dtype` is of `kind`: a dtype, one of the array API's kind names, or a tuple."""
  dt = np.dtype(dtype)
  for k in kind if isinstance(kind, tuple) else (kind,):
    if isinstance(k, str) and k in _KINDS:
      if dtypes.kind(dt) in _KINDS[k]:
        return True
      continue
    try:
      if np.dtype(k) == dt:
        return True
    except TypeError as e:
      if isinstance(k, str):
        raise ValueError(f"Unrecognized kind={k!r} expected one of {list(_KINDS)}, or a "
                         "compatible input for jnp.dtype()") from e
      raise TypeError(f"Expected kind to be a dtype, string, or tuple; got kind={k!r}") from e
  return False


def can_cast(from_: Any, to: Any, casting: str = "safe") -> bool:
  """Whether `from_` (a dtype or an array) can be cast to `to` under numpy's `casting` rule."""
  if isinstance(from_, (Array, core.Tracer)):
    from_ = dtype_of(from_)
  return np.can_cast(from_, to, casting=casting)


def fabs(x: Any, /) -> Any:
  """|x| in floating point; complex inputs are an error."""
  (x,) = promote_args_inexact("fabs", x)
  if dtype_of(x).kind == "c":
    raise TypeError("ufunc 'fabs' does not support complex dtypes")
  return lax.abs(x)


def divmod(x1: Any, x2: Any, /) -> tuple[Any, Any]:  # noqa: A001  (numpy's name)
  """(floor_divide(x1, x2), remainder(x1, x2))."""
  x1, x2 = promote_args("divmod", x1, x2)
  if dtype_of(x1) == dtypes.bool_:
    x1, x2 = (convert(v, dtypes.default_int()) for v in (x1, x2))
  return floor_divide(x1, x2), remainder(x1, x2)


def modf(x: Any, /, out: None = None) -> tuple[Any, Any]:
  """(fractional part, integral part) of `x`, both with the sign of `x`."""
  if out is not None:
    raise NotImplementedError("The 'out' argument to jnp.modf is not supported.")
  (x,) = promote_args_inexact("modf", x)
  whole = lax.select_n(lax.ge(x, scalar_like(x, 0)), lax.ceil(x), lax.floor(x))
  return lax.sub(x, whole), whole


def _uint_of(dt: np.dtype) -> np.dtype:
  return np.dtype(f"uint{dt.itemsize * 8}")


def frexp(x: Any, /) -> tuple[Any, Any]:
  """(mantissa in [0.5, 1), int32 exponent) with x = mantissa * 2**exponent."""
  (x,) = promote_args_inexact("frexp", x)
  dt = dtype_of(x)
  if dt.kind == "c":
    raise TypeError("frexp does not support complex-valued inputs")
  info = dtypes.finfo(dt)
  subnormal = lax.lt(lax.abs(x), scalar_like(x, info.tiny))
  scaled = where(subnormal, lax.mul(x, scalar_like(x, 2.0 ** info.nmant)), x)
  bits = lax.bitcast_convert_type(scaled, _uint_of(dt))
  ut = bits.dtype
  mask = (1 << info.nexp) - 1
  bias = -int(info.minexp) + 1
  raw = lax.bitwise_and(lax.shift_right_logical(bits, np.asarray(info.nmant, ut)),
                        np.asarray(mask, ut))
  exp = lax.sub(convert(raw, np.dtype(np.int32)), np.int32(bias - 1))
  exp = lax.sub(exp, where(subnormal, np.int32(info.nmant), np.int32(0)))
  mant_bits = lax.bitwise_or(
      lax.bitwise_and(bits, np.asarray(~(mask << info.nmant) & ((1 << 8 * dt.itemsize) - 1), ut)),
      np.asarray((bias - 1) << info.nmant, ut))
  mant = lax.bitcast_convert_type(mant_bits, dt)
  special = lax.bitwise_or(lax.bitwise_or(isinf(x), isnan(x)), lax.eq(x, scalar_like(x, 0)))
  return where(special, x, mant), where(special, np.int32(0), exp)


def ldexp(x1: Any, x2: Any, /) -> Any:
  """x1 * 2**x2, for floating (or integer) x1 and integer x2."""
  x1, x2 = ensure_arraylike("ldexp", x1, x2)
  if dtype_of(x1).kind == "c" or dtypes.kind(dtype_of(x2)) in "fc":
    raise ValueError(f"ldexp not supported for input types {(dtype_of(x1), dtype_of(x2))}")
  (x1,) = promote_dtypes_inexact(x1)
  m, e = frexp(x1)
  e = lax.add(convert(e, dtype_of(x1)), convert(x2, dtype_of(x1)))
  pos = lax.gt(e, scalar_like(e, 0))
  m = where(pos, lax.mul(m, scalar_like(m, 2)), m)
  e = where(pos, lax.sub(e, scalar_like(e, 1)), e)
  y = lax.mul(m, lax.pow(scalar_like(m, 2), e))  # exact, where exp2 rounds in bfloat16
  return where(lax.bitwise_or(isinf(x1), lax.eq(x1, scalar_like(x1, 0))), x1, y)


def spacing(x: Any, /) -> Any:
  """The distance from `x` to the next representable number away from zero."""
  (x,) = promote_args_inexact("spacing", x)
  if dtype_of(x).kind == "c":
    raise ValueError("jnp.spacing is not defined for complex inputs.")
  inf = scalar_like(x, np.inf)
  if dtype_of(x) == dtypes.float16:
    return lax.sub(lax.nextafter(x, lax.full_like(x, inf)), x)
  result = lax.sub(lax.nextafter(x, copysign(inf, x)), x)
  tiny = scalar_like(x, dtypes.finfo(dtype_of(x)).smallest_subnormal)
  return where(lax.eq(result, scalar_like(x, 0)), copysign(tiny, x), result)


def matvec(x1: Any, x2: Any, /) -> Any:
  """Batched matrix-vector products: x1 (..., n, m) with x2 (..., m)."""
  x1, x2 = ensure_arraylike("matvec", x1, x2)
  return vectorize(matmul, signature="(n,m),(m)->(n)")(x1, x2)


def vecmat(x1: Any, x2: Any, /) -> Any:
  """Batched vector-matrix products conj(x1) (..., n) with x2 (..., n, m)."""
  x1, x2 = ensure_arraylike("vecmat", x1, x2)
  return vectorize(matmul, signature="(n),(n,m)->(m)")(conjugate(x1), x2)


class _UniqueAllResult(NamedTuple):
  values: Any
  indices: Any
  inverse_indices: Any
  counts: Any


class _UniqueCountsResult(NamedTuple):
  values: Any
  counts: Any


class _UniqueInverseResult(NamedTuple):
  values: Any
  inverse_indices: Any


def unique_all(x: Any, /, *, size: int | None = None, fill_value: Any = None) -> _UniqueAllResult:
  """The unique values, first indices, inverse indices and counts of `x`."""
  x = asarray(*ensure_arraylike("unique_all", x))
  return _UniqueAllResult(*unique(x, True, True, True, equal_nan=False, size=size,
                                  fill_value=fill_value))


def unique_counts(x: Any, /, *, size: int | None = None,
                  fill_value: Any = None) -> _UniqueCountsResult:
  """The unique values of `x` and their counts."""
  x = asarray(*ensure_arraylike("unique_counts", x))
  return _UniqueCountsResult(*unique(x, return_counts=True, equal_nan=False, size=size,
                                     fill_value=fill_value))


def unique_inverse(x: Any, /, *, size: int | None = None,
                   fill_value: Any = None) -> _UniqueInverseResult:
  """The unique values of `x` and the inverse indices that rebuild `x` from them."""
  x = asarray(*ensure_arraylike("unique_inverse", x))
  return _UniqueInverseResult(*unique(x, return_inverse=True, equal_nan=False, size=size,
                                      fill_value=fill_value))


def unique_values(x: Any, /, *, size: int | None = None, fill_value: Any = None) -> Any:
  """The unique values of `x`."""
  x = asarray(*ensure_arraylike("unique_values", x))
  return unique(x, equal_nan=False, size=size, fill_value=fill_value)


# type questions
def iscomplexobj(x: Any) -> bool:
  """Whether `x` has a complex dtype."""
  if isinstance(x, (complex, np.complexfloating)):
    return True
  if x is None or isinstance(x, (bool, int, float, str, np.generic)):
    return False
  dt = getattr(x, "dtype", None)
  return np.dtype(dt if dt is not None else np.asarray(x).dtype).kind == "c"


def isrealobj(x: Any) -> bool:
  """Whether `x` does not have a complex dtype."""
  return not iscomplexobj(x)


def isscalar(element: Any) -> bool:
  """Whether `element` is a scalar: a Python or numpy scalar, or a 0-d array."""
  if np.isscalar(element):
    return True
  if isinstance(element, (np.ndarray, Array, core.Tracer)):
    return element.ndim == 0
  return False


def iscomplex(x: Any) -> Any:
  """Elementwise: whether the imaginary part is nonzero."""
  i = imag(x)
  return lax.ne(i, constant_like(i, 0))


def isreal(x: Any) -> Any:
  """Elementwise: whether the imaginary part is zero."""
  i = imag(x)
  return lax.eq(i, constant_like(i, 0))


iterable = np.iterable


def sort_complex(a: Any) -> Any:
  """`a` sorted along its last axis (by real part, then imaginary part), as complex."""
  (a,) = ensure_arraylike("sort_complex", a)
  a = sort(a)
  return convert(a, dtypes.result_type((dtype_of(a), False), (np.dtype(np.complex64), False))[0])


def trim_zeros(filt: Any, trim: str = "fb", axis: Any = None) -> Any:
  """`filt` without its leading ('f') and trailing ('b') all-zero slices (concrete `filt`)."""
  filt = asarray(*ensure_arraylike("trim_zeros", filt))
  if isinstance(filt, core.Tracer):
    raise core.ConcretizationTypeError(
        "trim_zeros: Error arose in the `filt` argument of trim_zeros(): it must be concrete")
  value = np.asarray(filt)
  ndim = value.ndim
  axes = range(ndim) if axis is None else [
      canonicalize_axis(a, ndim) for a in (axis if isinstance(axis, Sequence) else (axis,))]
  index = [slice(None)] * ndim
  trim = trim.lower()
  for ax in axes:
    mask = value.any(axis=tuple(i for i in range(ndim) if i != ax))
    if not mask.any():
      index[ax] = slice(0, 0)
      continue
    start = int(mask.argmax()) if "f" in trim else None
    stop = value.shape[ax] - int(mask[::-1].argmax()) if "b" in trim else None
    index[ax] = slice(start, stop)
  return filt[tuple(index)]


# diagonals and indices
def diagflat(v: Any, k: int = 0) -> Any:
  """A 2-D array with the flattened `v` on diagonal `k`."""
  (v,) = ensure_arraylike("diagflat", v)
  v = ravel(v)
  n = shape(v)[0] + builtins.abs(k)
  rows = np.arange(shape(v)[0]) + builtins.max(-k, 0)
  out = zeros((n, n), dtype_of(v))
  return out.at[rows, rows + k].set(v)


def fill_diagonal(a: Any, val: Any, wrap: bool = False, *, inplace: bool = True) -> Any:
  """A copy of `a` with its main diagonal set to `val` (JAX arrays are immutable: pass
  inplace=False)."""
  if inplace:
    raise NotImplementedError("JAX arrays are immutable, must use inplace=False")
  if wrap:
    raise NotImplementedError("wrap=True is not implemented, must use wrap=False")
  a, val = map(asarray, ensure_arraylike("fill_diagonal", a, val))
  a_shape = shape(a)
  if len(a_shape) < 2:
    raise ValueError("array must be at least 2-d")
  if len(a_shape) > 2 and len(set(a_shape)) != 1:
    raise ValueError("All dimensions of input must be of equal length")
  n = builtins.min(a_shape)
  if shape(val):
    val = _tile_to(ravel(val), n)
  return a.at[diag_indices(n, len(a_shape))].set(val)


def diag_indices_from(arr: Any) -> tuple[Any, ...]:
  """The indices of the main diagonal of the square array `arr`."""
  (arr,) = ensure_arraylike("diag_indices_from", arr)
  s = shape(arr)
  if len(s) < 2:
    raise ValueError("input array must be at least 2-d")
  if len(set(s)) != 1:
    raise ValueError("All dimensions of input must be of equal length")
  return tuple(map(asarray, diag_indices(s[0], len(s))))


def _indices_from(name: str, fn: Callable) -> Callable:
  def from_(arr: Any, k: int = 0) -> tuple[Any, Any]:
    s = arr.shape if hasattr(arr, "shape") else shape(ensure_arraylike(name, arr)[0])
    if len(s) != 2:
      raise ValueError("Only 2-D inputs are accepted")
    return tuple(map(asarray, fn(s[0], k=k, m=s[1])))
  from_.__name__ = from_.__qualname__ = name
  from_.__doc__ = f"{fn.__name__} for the shape of the 2-D array `arr`."
  return from_


tril_indices_from = _indices_from("tril_indices_from", tril_indices)
triu_indices_from = _indices_from("triu_indices_from", triu_indices)


def mask_indices(n: int, mask_func: Callable[[Any, int], Any], k: int = 0, *,
                 size: int | None = None) -> tuple[Any, Any]:
  """The indices where `mask_func(ones((n, n)), k)` is nonzero."""
  i, j = nonzero(mask_func(ones((n, n)), k), size=size)
  return i, j


# selection
def choose(a: Any, choices: Any, out: None = None, mode: str = "raise") -> Any:
  """choices[a[i]][i] for each index i (broadcast), with `mode` for out-of-range `a`."""
  if out is not None:
    raise NotImplementedError("The 'out' argument to jnp.choose is not supported.")
  a, *choices = ensure_arraylike("choose", a, *choices)
  if dtype_of(a).kind not in "iu":
    raise ValueError("`a` array must be integer typed")
  n = len(choices)
  if mode == "raise":
    if isinstance(a, core.Tracer):
      raise core.ConcretizationTypeError(
          "jnp.choose was jit-compiled with mode='raise'. Use mode='wrap' or mode='clip' "
          "instead.")
    if np.any((np.asarray(a) < 0) | (np.asarray(a) >= n)):
      raise ValueError("invalid entry in choice array")
  elif mode == "wrap":
    a = remainder(a, scalar_like(a, n))
  elif mode == "clip":
    a = lax.clamp(scalar_like(a, 0), a, scalar_like(a, n - 1))
  else:
    raise ValueError(f"mode={mode!r} not understood. Must be 'raise', 'wrap', or 'clip'")
  a, *choices = broadcast_arrays(a, *choices)
  return take_along_axis(stack(choices), expand_dims(a, 0), axis=0)[0]


def piecewise(x: Any, condlist: Any, funclist: list, *args: Any, **kw: Any) -> Any:
  """funclist[i](x) (or the constant funclist[i]) where condlist[i]; the extra function, if
  given, where no condition holds (else 0)."""
  (x,) = ensure_arraylike("piecewise", x)
  nc, nf = len(condlist), len(funclist)
  if nf == nc + 1:
    funclist = list(funclist[-1:]) + list(funclist[:-1])
  elif nf == nc:
    funclist = [0] + list(funclist)
  else:
    raise ValueError(f"with {nc} condition(s), either {nc} or {nc + 1} functions are expected; "
                     f"got {nf}")
  conds = asarray(condlist, dtype=bool)
  if not shape(conds) or shape(conds)[1:] != shape(x):
    conds = lax.broadcast_in_dim(conds, (nc,) + shape(x), (0,) if shape(conds) else ())
  out = lax.full_like(x, 0)
  dt = dtype_of(x)
  for i, f in enumerate(funclist):
    value = f(x, *args, **kw) if callable(f) else f
    value = convert(asarray(value), dt)
    value = lax.broadcast_in_dim(value, shape(x), tuple(range(len(shape(x)) - len(shape(value)),
                                                              len(shape(x)))))
    out = value if i == 0 else where(conds[i - 1], value, out)
  return out


def _tile_to(v: Any, n: int) -> Any:
  """The flat `v` repeated (cyclically) to `n` elements."""
  return v[np.arange(n) % shape(v)[0]]


def place(arr: Any, mask: Any, vals: Any, *, inplace: bool = True) -> Any:
  """A copy of `arr` with the elements where `mask` is True set, in order, from `vals` (cycled);
  JAX arrays are immutable: pass inplace=False."""
  data, mask, vals = map(asarray, ensure_arraylike("place", arr, mask, vals))
  vals = ravel(vals)
  if inplace:
    raise ValueError("jax.numpy.place cannot modify arrays in-place, because JAX arrays are "
                     "immutable. Pass inplace=False to instead return an updated array.")
  n = int(np.prod(shape(data)))
  if n != int(np.prod(shape(mask))):
    raise ValueError("place: arr and mask must be the same size")
  if not shape(vals)[0]:
    raise ValueError("Cannot place values from an empty array")
  if not n:
    return data
  (pos,) = nonzero(ravel(mask), size=n, fill_value=n)
  return reshape(ravel(data).at[pos].set(_tile_to(vals, n), mode="drop"), shape(data))


def put(a: Any, ind: Any, v: Any, mode: str | None = None, *, inplace: bool = True) -> Any:
  """A copy of `a` with the flat elements at `ind` set to `v` (cycled); JAX arrays are
  immutable: pass inplace=False."""
  if inplace:
    raise ValueError("jax.numpy.put cannot modify arrays in-place, because JAX arrays are "
                     "immutable. Pass inplace=False to instead return an updated array.")
  a, ind, v = map(asarray, ensure_arraylike("put", a, ind, v))
  ind, v = ravel(ind), ravel(v)
  size = int(np.prod(shape(a)))
  if not size or not shape(ind)[0] or not shape(v)[0]:
    return a
  if mode == "clip":
    ind = lax.clamp(scalar_like(ind, 0), ind, scalar_like(ind, size - 1))
  elif mode == "wrap":
    ind = remainder(ind, scalar_like(ind, size))
  elif mode == "raise":
    raise NotImplementedError("The 'raise' mode to jnp.put is not supported.")
  elif mode is not None:
    raise ValueError(f"mode should be one of 'wrap' or 'clip'; got {mode=}")
  scatter_mode = "drop" if mode is None else "promise_in_bounds"
  return a.at[unravel_index(ind, shape(a))].set(_tile_to(v, shape(ind)[0]), mode=scatter_mode)


# function transformations
def _parse_signature(signature: str) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]:
  def parse(part: str) -> list[tuple[str, ...]]:
    part = part.strip()
    if not part.startswith("("):
      raise ValueError(f"not a valid gufunc signature: {signature}")
    groups = part[1:-1].split("),(") if part != "()" else [""]
    return [tuple(d.strip() for d in g.replace("(", "").replace(")", "").split(",") if d.strip())
            for g in groups]
  try:
    ins, outs = signature.split("->")
  except ValueError as e:
    raise ValueError(f"not a valid gufunc signature: {signature}") from e
  return parse(ins.replace(" ", "")), parse(outs.replace(" ", ""))


class vectorize:  # noqa: N801  (numpy's name)
  """`pyfunc` mapped over the leading (broadcast) axes of its arguments with vmap; `signature`
  names the core dimensions a generalized ufunc keeps."""

  def __init__(self, pyfunc: Callable, *, excluded: frozenset = frozenset(),
               signature: str | None = None) -> None:
    self.pyfunc, self.excluded, self.signature = pyfunc, frozenset(excluded), signature
    self.__wrapped__ = pyfunc
    self.__name__ = getattr(pyfunc, "__name__", "vectorize")
    self.__doc__ = getattr(pyfunc, "__doc__", None)

  def __call__(self, *args: Any, **kwargs: Any) -> Any:
    excluded = {i for i in self.excluded if isinstance(i, int)}
    static_kw = {k: v for k, v in kwargs.items() if k in self.excluded}
    dyn_kw = {k: v for k, v in kwargs.items() if k not in self.excluded}
    keys = list(dyn_kw)
    dyn = [asarray(a) for i, a in enumerate(args) if i not in excluded] + [
        asarray(dyn_kw[k]) for k in keys]

    def call(*vals: Any) -> Any:
      it = iter(vals[:len(vals) - len(keys)])
      full = [a if i in excluded else next(it) for i, a in enumerate(args)]
      return self.pyfunc(*full, **static_kw, **dict(zip(keys, vals[len(vals) - len(keys):])))

    core_dims = [()] * len(dyn)
    if self.signature is not None:
      ins, _ = _parse_signature(self.signature)
      if len(ins) != len(dyn):
        raise TypeError(f"wrong number of positional arguments: expected {len(ins)}, got "
                        f"{len(dyn)}")
      core_dims = ins
    loop_shapes = []
    for a, dims in zip(dyn, core_dims):
      nd = len(shape(a)) - len(dims)
      if nd < 0:
        raise ValueError(f"input with shape {shape(a)} does not have enough dimensions for its "
                         f"core dimensions {dims} in signature {self.signature}")
      loop_shapes.append(shape(a)[:nd])
    loop = np.broadcast_shapes(*loop_shapes) if loop_shapes else ()
    dyn = [_broadcast_leading(a, loop, len(d)) for a, d in zip(dyn, core_dims)]
    fn = call
    for _ in loop:
      fn = api.vmap(fn)
    return fn(*dyn)


def _broadcast_leading(a: Any, loop: tuple[int, ...], ncore: int) -> Any:
  core_shape = shape(a)[len(shape(a)) - ncore:]
  target = tuple(loop) + core_shape
  if shape(a) == target:
    return a
  nd = len(shape(a))
  return lax.broadcast_in_dim(a, target, tuple(range(len(target) - nd, len(target))))


def apply_along_axis(func1d: Callable, axis: int, arr: Any, *args: Any, **kwargs: Any) -> Any:
  """func1d applied to each 1-D slice of `arr` along `axis` (by vmap)."""
  (arr,) = ensure_arraylike("apply_along_axis", arr)
  ndim = len(shape(arr))
  axis = canonicalize_axis(axis, ndim)
  fn = lambda x: func1d(x, *args, **kwargs)
  for i in range(1, ndim - axis):
    fn = api.vmap(fn, in_axes=i, out_axes=-1)
  for _ in range(axis):
    fn = api.vmap(fn, in_axes=0, out_axes=0)
  return fn(arr)


def apply_over_axes(func: Callable, a: Any, axes: Sequence[int]) -> Any:
  """func(a, axis) applied for each axis in turn, keeping the number of dimensions."""
  (a,) = ensure_arraylike("apply_over_axes", a)
  for axis in axes:
    b = func(a, axis)
    a = b if len(shape(b)) == len(shape(a)) else expand_dims(b, axis)
  return a


# index tricks
class _Concatenator:
  """r_ and c_: concatenate slices (as aranges/linspaces), scalars and arrays."""

  def __init__(self, axis: int, ndmin: int, trans1d: int, name: str) -> None:
    self.axis, self.ndmin, self.trans1d, self.name = axis, ndmin, trans1d, name

  def __getitem__(self, key: Any) -> Any:
    key = key if isinstance(key, tuple) else (key,)
    axis, ndmin, trans1d = self.axis, self.ndmin, self.trans1d
    if key and isinstance(key[0], str):
      try:
        parts = [int(p) for p in key[0].split(",")]
      except ValueError as e:
        raise ValueError(f"{self.name}: could not understand directive {key[0]!r}") from e
      axis, ndmin, trans1d = (parts + [ndmin, trans1d][len(parts) - 1:])[:3]
      key = key[1:]
    items = []
    for item in key:
      if isinstance(item, slice):
        item = np.r_[item]
        item = asarray(item)
      elif isinstance(item, str):
        raise ValueError(f"{self.name}: string directives must come first")
      else:
        item = asarray(item)
        item = reshape(item, (1,)) if not shape(item) else item
      if ndmin and len(shape(item)) < ndmin:
        item = _expand_r(item, ndmin, trans1d)
      items.append(item)
    return concat(items, axis=axis) if items else asarray([])


def _expand_r(item: Any, ndmin: int, trans1d: int) -> Any:
  nd = len(shape(item))
  new = reshape(item, (1,) * (ndmin - nd) + shape(item))
  if trans1d != -1 and nd:
    new = moveaxis(new, tuple(range(ndmin - nd, ndmin)), tuple(
        range(trans1d % ndmin, trans1d % ndmin + nd)))
  return new


r_ = _Concatenator(0, 0, -1, "r_")
c_ = _Concatenator(-1, 2, 0, "c_")


# packbits
def packbits(a: Any, axis: int | None = None, bitorder: str = "big") -> Any:
  """The booleans (nonzero) of `a` packed eight to a uint8 along `axis` (flattened if None)."""
  (a,) = ensure_arraylike("packbits", a)
  if dtype_of(a).kind not in "biu":
    raise TypeError("Expected an input array of integer or boolean data type")
  if bitorder not in ("little", "big"):
    raise ValueError("'order' must be either 'little' or 'big'")
  if axis is None:
    a, axis = ravel(a), 0
  axis = canonicalize_axis(axis, len(shape(a)))
  bits = convert(lax.ne(a, scalar_like(a, 0)), np.dtype(np.uint8))
  bits = moveaxis(bits, axis, -1)
  n = shape(bits)[-1]
  pad = -n % 8
  bits = lax.pad(bits, np.uint8(0), [(0, 0, 0)] * (len(shape(bits)) - 1) + [(0, pad, 0)])
  bits = reshape(bits, shape(bits)[:-1] + ((n + pad) // 8, 8))
  weights = np.array([1 << i for i in (range(7, -1, -1) if bitorder == "big" else range(8))],
                     np.uint8)
  weights = weights.reshape((1,) * (len(shape(bits)) - 1) + (8,))
  packed = lax.reduce_sum(lax.mul(bits, weights), (len(shape(bits)) - 1,))
  return moveaxis(packed, -1, axis)


def unpackbits(a: Any, axis: int | None = None, count: int | None = None,
               bitorder: str = "big") -> Any:
  """The bits of the uint8 array `a`, unpacked along `axis` (flattened if None)."""
  (a,) = ensure_arraylike("unpackbits", a)
  if dtype_of(a) != np.uint8:
    raise TypeError("Expected an input array of unsigned byte data type")
  if bitorder not in ("little", "big"):
    raise ValueError("'order' must be either 'little' or 'big'")
  shifts = np.array(list(range(7, -1, -1)) if bitorder == "big" else list(range(8)), np.uint8)
  if axis is None:
    a, axis = ravel(a), 0
  axis = canonicalize_axis(axis, len(shape(a)))
  moved = expand_dims(moveaxis(a, axis, -1), -1)
  shifts = shifts.reshape((1,) * (len(shape(moved)) - 1) + (8,))
  bits = lax.bitwise_and(lax.shift_right_logical(moved, shifts), np.uint8(1))
  bits = reshape(bits, shape(bits)[:-2] + (shape(bits)[-2] * 8,))
  if count is not None:
    bits = bits[..., :count]
  return moveaxis(bits, -1, axis)

