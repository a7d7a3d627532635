"""numpy's array creation routines: from shape or value (zeros, ones, full, empty, eye, identity),
from existing data (array/asarray as host constants, astype, copy, frombuffer, fromfunction,
fromstring), numerical ranges (arange, linspace, logspace, geomspace, meshgrid, mgrid, ogrid) and
building matrices (diagflat, tri, tril, triu, vander)."""
from __future__ import annotations

import warnings
import builtins
import operator
from typing import Any, Sequence

import numpy as np

from stablejax import core, dlpack, dtypes, lax, runtime, sharding
from stablejax.lax.sharding import apply_out_sharding
from stablejax.jit import jit
from stablejax.numpy._manipulation_shape import ravel, reshape, stack
from stablejax.numpy._math_arithmetic import multiply, power, sign as _sign
from stablejax.numpy._math_transcendental import log10
from stablejax.numpy._promotion import (
    broadcast_shapes, broadcast_to, convert, dtype as dtype_of, ensure_arraylike, filled_like,
    is_arraylike,
    promote_dtypes, result_type, scalar_like, shape, to_inexact)
from stablejax.shape_poly import canonicalize_dim, is_symbolic_dim, slice_count
from stablejax.tree_util import tree_leaves
from stablejax.util import canonicalize_axis

Shape = int | Sequence[int]


def _canonical_dtype(dtype: Any, default: np.dtype | None = None) -> np.dtype | None:
  """The user's dtype, canonicalized, or `default` when it is None."""
  return default if dtype is None else dtypes.canonicalize(np.dtype(dtype))


def _is_host(x: Any) -> bool:
  return dtypes.is_python_scalar(x) or isinstance(x, (np.ndarray, np.generic))


def _placed(out: Any, device: Any, out_sharding: Any, name: str) -> Any:
  """`out` (a pytree) placed as the `device=` or `out_sharding=` argument of jnp.`name` asks
  (at most one of them, as JAX): a device or sharding puts a concrete result there; under a
  trace a NamedSharding is a sharding constraint, and a device is honoured only where there
  is no other device to run on."""
  if device is None:
    return apply_out_sharding(out, out_sharding, f"jnp.{name}")
  if out_sharding is not None:
    raise ValueError(f"Only one of `device` or `out_sharding` can be set. Got {device=} and "
                     f"{out_sharding=}")
  if not any(isinstance(leaf, core.Tracer) for leaf in tree_leaves(out)):
    return sharding.device_put(out, device)
  if isinstance(device, sharding.NamedSharding):
    return apply_out_sharding(out, device, f"jnp.{name}")
  if runtime.device_count() == 1 and isinstance(device, (sharding.Device,
                                                         sharding.SingleDeviceSharding)):
    return out
  raise NotImplementedError(f"jnp.{name}: device={device!r} under a trace (jit, grad, vmap) is "
                            "not supported: create the array outside the trace, or pass a "
                            "NamedSharding")


def _positional(args: tuple, copy: bool, order: str | None, ndmin: int) -> tuple:
  """jnp.array's deprecated positional copy, order and ndmin (as JAX 0.10.2 takes them)."""
  if len(args) > 3:
    raise TypeError(f"array() takes at most 5 positional arguments but {len(args) + 2} were "
                    "given")
  for i, name in enumerate(["copy", "order", "ndmin"]):
    if i < len(args) and [copy, order, ndmin][i] != [True, "K", 0][i]:
      raise TypeError(f"array() got multiple values for argument '{name}'")
  warnings.warn("Passing the copy, order, and ndmin arguments to jnp.array positionally is "
                "deprecated. Use keyword arguments instead.", DeprecationWarning, stacklevel=3)
  return tuple((list(args) + [copy, order, ndmin][len(args):])[:3])


def array(object: Any, dtype: Any = None, *args: Any, copy: bool = True,  # noqa: A002
          order: str | None = "K", ndmin: int = 0, device: Any = None,
          out_sharding: Any = None) -> Any:
  """An array from `object`: a device Array in the canonical dtype (as in JAX, so operations on
  it are staged, not folded, under tracing), or a traced or device value (converted to `dtype`
  if given); nested lists may hold traced values. `ndmin` adds leading size-1 axes."""
  if args:
    copy, order, ndmin = _positional(args, copy, order, ndmin)
  del copy  # arrays are immutable
  if order not in (None, "K", "A", "C"):
    raise NotImplementedError(f"array: only order='C' (or 'K', 'A') is supported, got {order!r}")
  out = _array(object, _canonical_dtype(dtype))
  ndim = len(shape(out))
  out = reshape(out, (1,) * (ndmin - ndim) + shape(out)) if ndmin > ndim else out
  return _placed(out, device, out_sharding, "array")


def _array(object: Any, dtype: np.dtype | None) -> Any:  # noqa: A002
  object = _from_protocol(object)  # noqa: A001
  if is_symbolic_dim(object):
    object = lax.dimension_as_value(object)  # noqa: A001
  if is_arraylike(object) and not _is_host(object):
    return object if dtype is None else convert(object, dtype)
  if dtype is None and dtypes.is_python_scalar(object):
    return runtime.device_put(object)  # weakly typed, as in JAX
  if isinstance(object, (list, tuple)) and _holds_traced(object):
    out = stack([_array(x, None) for x in object])
    return out if dtype is None else convert(out, dtype)
  try:
    host = np.asarray(object, dtype)
  except (TypeError, ValueError) as e:
    raise TypeError(f"array: cannot convert {object!r} to an array: {e}") from None
  return runtime.device_put(host.astype(dtypes.canonicalize(host.dtype), copy=False))


def _from_protocol(obj: Any) -> Any:
  """`obj` with the objects that convert themselves to an array (`__jax_array__`: a framework's
  variable type) converted, in nested lists and tuples too, as jnp.array takes them."""
  if isinstance(obj, (list, tuple)):
    return [_from_protocol(x) for x in obj]
  convert_self = getattr(obj, "__jax_array__", None)
  return obj if convert_self is None else convert_self()


def _holds_traced(obj: Any) -> bool:
  if isinstance(obj, (list, tuple)):
    return any(_holds_traced(x) for x in obj)
  return is_arraylike(obj) and not _is_host(obj)


def asarray(a: Any, dtype: Any = None, order: str | None = None, *, copy: bool | None = None,
            device: Any = None, out_sharding: Any = None) -> Any:
  """`a` as an array (of `dtype` if given); nothing is copied, arrays being immutable."""
  del copy
  return array(a, dtype, order=order, device=device, out_sharding=out_sharding)


def _shape_tuple(name: str, shape_: Shape) -> tuple[int, ...]:
  try:
    out = tuple(map(canonicalize_dim, (shape_,) if np.ndim(shape_) == 0 else shape_))
  except TypeError:
    raise TypeError(f"{name}: shape must be an int or a sequence of ints, got {shape_!r}") from None
  if any(d < 0 for d in out):
    raise ValueError(f"{name}: negative dimensions are not allowed, got shape {out}")
  return out


def full(shape: Shape, fill_value: Any, dtype: Any = None, *, device: Any = None,
         out_sharding: Any = None) -> Any:
  """An array of `shape` filled with `fill_value` (broadcast if it is an array)."""
  shape = _shape_tuple("full", shape)
  (fill_value,) = ensure_arraylike("full", fill_value)
  if core.get_aval(fill_value).ndim:
    dtype = _canonical_dtype(dtype)
    out = broadcast_to(fill_value if dtype is None else convert(fill_value, dtype), shape)
  else:
    out = lax.full(shape, fill_value, _canonical_dtype(dtype))
  return _placed(out, device, out_sharding, "full")


def zeros(shape: Shape, dtype: Any = None, *, device: Any = None, out_sharding: Any = None
          ) -> Any:
  """An array of zeros (float32 by default)."""
  out = lax.full(_shape_tuple("zeros", shape), 0, _canonical_dtype(dtype, dtypes.default_float()))
  return _placed(out, device, out_sharding, "zeros")


def ones(shape: Shape, dtype: Any = None, *, device: Any = None, out_sharding: Any = None
         ) -> Any:
  """An array of ones (float32 by default)."""
  out = lax.full(_shape_tuple("ones", shape), 1, _canonical_dtype(dtype, dtypes.default_float()))
  return _placed(out, device, out_sharding, "ones")


def full_like(a: Any, fill_value: Any, dtype: Any = None, shape: Shape | None = None, *,
              device: Any = None, out_sharding: Any = None) -> Any:
  """An array like `a` (its shape and dtype unless given) filled with `fill_value`."""
  (a,) = ensure_arraylike("full_like", a)
  shape = None if shape is None else _shape_tuple("full_like", shape)
  out = filled_like(a, fill_value, _canonical_dtype(dtype), shape)
  return _placed(out, device, out_sharding, "full_like")


def zeros_like(a: Any, dtype: Any = None, shape: Shape | None = None, *, device: Any = None,
               out_sharding: Any = None) -> Any:
  """Zeros with the shape and dtype of `a` (unless given)."""
  return full_like(a, 0, dtype, shape, device=device, out_sharding=out_sharding)


def ones_like(a: Any, dtype: Any = None, shape: Shape | None = None, *, device: Any = None,
              out_sharding: Any = None) -> Any:
  """Ones with the shape and dtype of `a` (unless given)."""
  return full_like(a, 1, dtype, shape, device=device, out_sharding=out_sharding)


def arange(start: Any, stop: Any = None, step: Any = None, dtype: Any = None, *,
           device: Any = None, out_sharding: Any = None) -> Any:
  """Evenly spaced values in [start, stop): start + step * iota."""
  return _placed(_arange(start, stop, step, dtype), device, out_sharding, "arange")


def _arange(start: Any, stop: Any, step: Any, dtype: Any) -> Any:
  if any(is_symbolic_dim(x) for x in (start, stop, step)):
    return _symbolic_arange(start, stop, step, dtype)
  given = [core.concrete_or_error(x, "an arange bound") for x in (start, stop, step)
           if x is not None]
  if any(dtypes.is_complex(dtypes.dtype_of(b)) for b in given):
    raise ValueError("Passing complex start/stop/step to jnp.arange is no longer supported "
                     "(as in JAX 0.10)")
  dtype = _canonical_dtype(dtype)
  if dtype is None:  # (from the bounds given: `arange(True)` is bool, which iota refuses)
    dtype = result_type(*ensure_arraylike("arange", *given))[0]
  if stop is None:
    start, stop = 0, start
  step = 1 if step is None else step
  bounds = [core.concrete_or_error(x, "an arange bound") for x in (start, stop, step)]
  if step == 0:
    raise ValueError("arange: step must not be zero")
  size = len(np.arange(*(np.asarray(b).item() for b in bounds)))
  working = np.dtype(np.float32) if dtype == np.float16 else dtype
  out = lax.iota(working, size)
  if step != 1:
    out = lax.mul(scalar_like(out, step), out)
  if start != 0:
    out = lax.add(scalar_like(out, start), out)
  return convert(out, dtype)


def _symbolic_arange(start: Any, stop: Any, step: Any, dtype: Any) -> Any:
  """arange up to a symbolic dimension (from and by integers)."""
  start, stop = (0, start) if stop is None else (start, stop)
  step = 1 if step is None else step
  if is_symbolic_dim(start) or is_symbolic_dim(step):
    raise TypeError(f"arange: only the stop may be a symbolic dimension, got start={start} and "
                    f"step={step}")
  dtype = _canonical_dtype(dtype) or dtypes.default_int()
  out = lax.iota(dtype, slice_count(operator.index(start), stop, operator.index(step)))
  if step != 1:
    out = lax.mul(scalar_like(out, step), out)
  return out if start == 0 else lax.add(scalar_like(out, start), out)


def linspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, retstep: bool = False,
             dtype: Any = None, axis: int = 0, *, device: Any = None) -> Any:
  """`num` evenly spaced values from `start` to `stop` (broadcast arrays), including `stop`
  when `endpoint`, along a new axis `axis`; with the step too when `retstep`."""
  num, axis = operator.index(num), operator.index(axis)
  if num < 0:
    raise ValueError(f"Number of samples, {num}, must be non-negative.")
  start, stop = ensure_arraylike("linspace", start, stop)
  return _placed(_linspace(start, stop, num, endpoint, retstep, dtype, axis), device, None,
                 "linspace")


# linspace, logspace and geomspace run as one jitted computation of their endpoints, as JAX's do:
# eagerly too, so that XLA evaluates them as it does JAX's (op by op it rounds differently).
@jit(static_argnames=("num", "endpoint", "retstep", "dtype", "axis"))
def _linspace(start: Any, stop: Any, num: int, endpoint: bool, retstep: bool, dtype: Any,
              axis: int) -> Any:
  dtype = _canonical_dtype(dtype, to_inexact(result_type(start, stop)[0]))
  compute = to_inexact(dtype)
  bounds = broadcast_shapes("linspace", shape(start), shape(stop))
  start, stop = (broadcast_to(convert(v, compute), bounds) for v in (start, stop))
  axis = canonicalize_axis(axis, len(bounds) + 1)
  out_shape = bounds[:axis] + (1,) + bounds[axis:]
  div = num - 1 if endpoint else num
  delta = None  # NaN unless there is a step
  if num > 1:
    delta = lax.div(lax.sub(stop, start), scalar_like(stop, div))
    frac = lax.div(lax.broadcasted_iota(compute, out_shape[:axis] + (div,) + bounds[axis:],
                                        axis), scalar_like(start, div))
    lo, hi = (lax.broadcast_in_dim(v, shape(frac), tuple(i for i in range(len(out_shape))
                                                          if i != axis)) for v in (start, stop))
    out = lax.add(lax.mul(lo, lax.sub(scalar_like(frac, 1), frac)), lax.mul(hi, frac))
    if endpoint:
      out = lax.concatenate([out, reshape(stop, out_shape)], axis)
  elif num == 1:
    out = reshape(start, out_shape)
    delta = None if endpoint else lax.sub(stop, start)
  else:
    out = lax.full(out_shape[:axis] + (0,) + out_shape[axis + 1:], 0, compute)
  if dtypes.is_integer(dtype):
    out = lax.floor(out)
  if not retstep:
    return convert(out, dtype)
  return convert(out, dtype), lax.full((), np.nan, compute) if delta is None else delta


def eye(N: int, M: int | None = None, k: int = 0, dtype: Any = None, *,  # noqa: N803
        device: Any = None) -> Any:
  """The N x M matrix with ones on diagonal `k` and zeros elsewhere."""
  N = canonicalize_dim(N)  # noqa: N806
  M = N if M is None else canonicalize_dim(M)  # noqa: N806
  if N < 0 or M < 0:
    raise ValueError(f"eye: negative dimensions are not allowed, got N={N}, M={M}")
  int_dtype = dtypes.default_int()
  rows = lax.broadcasted_iota(int_dtype, (N, M), 0)
  cols = lax.broadcasted_iota(int_dtype, (N, M), 1)
  diagonal = lax.eq(lax.add(rows, np.asarray(k, int_dtype)[()]), cols)
  return _placed(convert(diagonal, _canonical_dtype(dtype, dtypes.default_float())), device, None,
                "eye")


def empty(shape: Shape, dtype: Any = None, *, device: Any = None, out_sharding: Any = None
          ) -> Any:
  """An array of `shape` (zeros: XLA has no uninitialized memory)."""
  return zeros(shape, dtype, device=device, out_sharding=out_sharding)


def empty_like(prototype: Any, dtype: Any = None, shape: Shape | None = None, *,
               device: Any = None) -> Any:
  """An array like `prototype` (zeros)."""
  return zeros_like(prototype, dtype, shape, device=device)


def identity(n: int, dtype: Any = None) -> Any:
  """The n x n identity matrix."""
  return eye(n, dtype=dtype)


def _tri_mask(N: int, M: int, k: int) -> Any:  # noqa: N803
  """The boolean N x M mask of the entries on and below diagonal `k`."""
  int_dtype = dtypes.default_int()
  rows = lax.broadcasted_iota(int_dtype, (N, M), 0)
  cols = lax.broadcasted_iota(int_dtype, (N, M), 1)
  return lax.ge(lax.add(rows, np.asarray(k, int_dtype)[()]), cols)


def tri(N: int, M: int | None = None, k: int = 0, dtype: Any = None) -> Any:  # noqa: N803
  """The N x M array with ones on and below diagonal `k` and zeros elsewhere."""
  N = operator.index(N)  # noqa: N806
  M = N if M is None else operator.index(M)  # noqa: N806
  if N < 0 or M < 0:
    raise ValueError(f"tri: negative dimensions are not allowed, got N={N}, M={M}")
  return convert(_tri_mask(N, M, operator.index(k)),
                 _canonical_dtype(dtype, dtypes.default_float()))


def _triangle(name: str, m: Any, k: int, lower: bool) -> Any:
  (m,) = ensure_arraylike(name, m)
  m_shape = shape(m)
  if len(m_shape) < 2:
    raise ValueError(f"Argument to jax.numpy.{name} must be at least 2D")
  mask = _tri_mask(*m_shape[-2:], operator.index(k) - (0 if lower else 1))
  mask = broadcast_to(mask, m_shape)
  zero = lax.full_like(m, 0)
  return lax.select_n(mask, zero, m) if lower else lax.select_n(mask, m, zero)


def tril(m: Any, k: int = 0) -> Any:
  """`m` with the entries above diagonal `k` of its last two axes zeroed."""
  return _triangle("tril", m, k, True)


def triu(m: Any, k: int = 0) -> Any:
  """`m` with the entries below diagonal `k` of its last two axes zeroed."""
  return _triangle("triu", m, k, False)


def vander(x: Any, N: int | None = None, increasing: bool = False) -> Any:  # noqa: N803
  """The Vandermonde matrix of 1-D `x`: columns are powers of `x` (decreasing by default)."""
  (x,) = ensure_arraylike("vander", x)
  if len(shape(x)) != 1:
    raise ValueError("x must be a one-dimensional array")
  N = shape(x)[0] if N is None else operator.index(N)  # noqa: N806
  if N < 0:
    raise ValueError("N must be nonnegative")
  powers = lax.iota(core.get_aval(x).dtype, N)  # (x's dtype, as JAX's: bool is a TypeError)
  if not increasing:
    powers = lax.sub(scalar_like(powers, N - 1), powers)
  base = lax.broadcast_in_dim(x, (shape(x)[0], N), (0,))
  return power(base, lax.broadcast_in_dim(powers, (shape(x)[0], N), (1,)))


def logspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, base: Any = 10.0,
             dtype: Any = None, axis: int = 0) -> Any:
  """`num` values `base ** t` for t evenly spaced from `start` to `stop`."""
  start, stop = ensure_arraylike("logspace", start, stop)
  return _logspace(start, stop, operator.index(num), endpoint, base, dtype, operator.index(axis))


@jit(static_argnames=("num", "endpoint", "dtype", "axis"))
def _logspace(start: Any, stop: Any, num: int, endpoint: bool, base: Any, dtype: Any, axis: int
              ) -> Any:
  dtype = _canonical_dtype(dtype, to_inexact(result_type(start, stop)[0]))
  compute = to_inexact(dtype)
  t = linspace(convert(start, compute), convert(stop, compute), num, endpoint, axis=axis)
  return convert(power(base, t), dtype)


def geomspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, dtype: Any = None,
              axis: int = 0) -> Any:
  """`num` values evenly spaced on a log scale from `start` to `stop` (same sign)."""
  start, stop = ensure_arraylike("geomspace", start, stop)
  return _geomspace(start, stop, operator.index(num), endpoint, dtype, operator.index(axis))


@jit(static_argnames=("num", "endpoint", "dtype", "axis"))
def _geomspace(start: Any, stop: Any, num: int, endpoint: bool, dtype: Any, axis: int) -> Any:
  dtype = _canonical_dtype(dtype, to_inexact(result_type(start, stop)[0]))
  compute = to_inexact(dtype)
  start, stop = convert(start, compute), convert(stop, compute)
  sign = _sign(start)
  res = multiply(sign, logspace(log10(start / sign), log10(stop / sign), num, endpoint, 10.0,
                                compute, 0))
  axis = canonicalize_axis(axis, len(shape(res)))
  return convert(lax.transpose(res, (*range(1, axis + 1), 0, *range(axis + 1, len(shape(res))))),
                 dtype)


def meshgrid(*xi: Any, copy: bool = True, sparse: bool = False, indexing: str = "xy") -> list:
  """Coordinate arrays from 1-D coordinate vectors ('xy': Cartesian, 'ij': matrix indexing)."""
  del copy
  xi = ensure_arraylike("meshgrid", *xi)
  if indexing not in ("xy", "ij"):
    raise ValueError(f"Valid values for indexing are 'xy' and 'ij', got {indexing}")
  for x in xi:
    if len(shape(x)) != 1:
      raise ValueError(f"Arguments to jax.numpy.meshgrid must be 1D, got shape {shape(x)}")
  sizes = [shape(x)[0] for x in xi]
  axes = list(range(len(xi)))
  if indexing == "xy" and len(xi) > 1:
    sizes[0], sizes[1] = sizes[1], sizes[0]
    axes[0], axes[1] = 1, 0
  out = []
  for x, ax in zip(xi, axes):
    target = tuple(s if i == ax else 1 for i, s in enumerate(sizes)) if sparse else tuple(sizes)
    out.append(lax.broadcast_in_dim(x, target, (ax,)))
  return out


def _grid_vector(s: slice, name: str) -> Any:
  """The 1-D coordinates of one slice of mgrid/ogrid (an imaginary step is a point count)."""
  start, stop, step = (core.concrete_or_error(v, f"slice of jnp.{name}")
                       for v in (s.start, s.stop, s.step))
  start, step = start or 0, step or 1
  if np.iscomplex(step):
    return linspace(start, stop, int(abs(step)))
  return arange(start, stop, step)


class _Grid:
  """mgrid (dense) and ogrid (sparse): coordinate arrays from slices, `mgrid[0:3, 0:4]`."""

  def __init__(self, name: str, sparse: bool):
    self.name, self.sparse = name, sparse

  def __getitem__(self, key: slice | tuple[slice, ...]) -> Any:
    if isinstance(key, slice):
      return _grid_vector(key, self.name)
    vectors = promote_dtypes(*(_grid_vector(k, self.name) for k in key))
    grids = meshgrid(*vectors, indexing="ij", sparse=self.sparse)
    if self.sparse:
      return grids
    return stack(grids, 0) if grids else arange(0)


mgrid = _Grid("mgrid", sparse=False)
ogrid = _Grid("ogrid", sparse=True)


def copy(a: Any, order: str | None = None) -> Any:
  """A copy of `a` (arrays are immutable, so `a` itself as an array)."""
  del order
  return array(a, copy=True)


def from_dlpack(x: Any, /, *, device: Any = None, copy: bool | None = None) -> Any:
  """The Array of `x`, an array of another library taken through DLPack (see
  `stablejax.dlpack.from_dlpack`); an Array is itself, put on `device` if one is given."""
  if isinstance(x, runtime.Array):
    return x if device is None else runtime.device_put(x, device)
  return dlpack.from_dlpack(x, device=device, copy=copy)


def frombuffer(buffer: Any, dtype: Any = float, count: int = -1, offset: int = 0) -> Any:
  """A 1-D array of the raw bytes of `buffer` read as `dtype`."""
  return array(np.frombuffer(buffer, dtype=dtype, count=count, offset=offset))


def fromfunction(function: Any, shape: Shape, *, dtype: Any = float, **kwargs: Any) -> Any:
  """`function` applied to the index arrays of `shape` (one per axis, of `dtype`)."""
  shape = _shape_tuple("fromfunction", shape)
  dt = _canonical_dtype(dtype)
  return function(*(lax.broadcasted_iota(dt, shape, i) for i in range(len(shape))), **kwargs)


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


def astype(x: Any, dtype: Any, /, *, copy: bool = False, device: Any = None) -> Any:
  """`x` converted to `dtype` (default: the default float); complex to bool is `x != 0`."""
  x = asarray(*ensure_arraylike("astype", x))
  dt = dtypes.default_float() if dtype is None else dtypes.canonicalize(np.dtype(dtype))
  complex_x = dtypes.kind(dtype_of(x)) == "c"
  if complex_x and dt == dtypes.bool_:
    return lax.ne(x, scalar_like(x, 0))
  if complex_x and dt.kind != "c":  # (JAX's warning, instead of numpy's)
    warnings.warn("Casting from complex to real dtypes will soon raise a ValueError. Please "
                  "first use jnp.real or jnp.imag to take the real/imaginary component of your "
                  "input.", DeprecationWarning, stacklevel=2)
    return lax.convert_element_type(x, dt, warn_on_complex_to_real_cast=False)
  return convert(x, dt)


def diagflat(v: Any, k: int = 0) -> Any:
  """A 2-D array with the flattened `v` on diagonal `k`."""
  (v,) = ensure_arraylike("diagflat", v)
  v = ravel(v)
  n = shape(v)[0] + builtins.abs(k)
  rows = np.arange(shape(v)[0]) + builtins.max(-k, 0)
  out = zeros((n, n), dtype_of(v))
  return out.at[rows, rows + k].set(v)
