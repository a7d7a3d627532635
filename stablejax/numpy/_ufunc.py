"""numpy's universal functions: the `ufunc` class (its `reduce`, `accumulate`, `at`, `reduceat`
and `outer` methods, derived from a scalar function by loops unless a faster one is given),
`frompyfunc`, and the functions JAX makes ufuncs (`add`, `multiply`, `maximum`, the bitwise and
logical ones, ...), each its section's function with JAX's fast methods (`add.reduce` is `sum`,
`add.accumulate` is `cumsum`, `add.at` is a scatter-add, ...)."""
from __future__ import annotations

import operator
from typing import Any, Callable, NamedTuple

import numpy as np

from stablejax import api, dtypes, lax
from stablejax.numpy import _bitwise, _logic, _math_arithmetic, _math_transcendental
from stablejax.numpy._axes import expand_axes
from stablejax.numpy._creation import asarray
from stablejax.numpy._elementwise import where as where_
from stablejax.numpy._functional import vectorize
from stablejax.numpy._indexing_routines import take
from stablejax.numpy._manipulation_elements import append
from stablejax.numpy._manipulation_shape import concatenate, moveaxis, ravel, reshape
from stablejax.numpy._math_sums import cumprod, cumsum, prod, sum as sum_
from stablejax.numpy._promotion import (
    broadcast_shapes, broadcast_to, convert, dtype as dtype_of, ensure_arraylike, promote_dtypes,
    promote_dtypes_inexact, shape)
from stablejax.numpy._reductions import (
    ALL, AND_BITS, ANY, MAX, MIN, XOR, Axis, check_where, reduce as reduce_, reduced_axes)
from stablejax.numpy._statistics import max as max_
from stablejax.typing import ArrayLike, DTypeLike
from stablejax.util import canonicalize_axis

_AT_INPLACE = ("jnp.ufunc.at() cannot update an array in place as np.ufunc.at() does: JAX "
               "arrays are immutable. Pass inplace=False and use the result, e.g. "
               "arr = jnp.add.at(arr, ind, val, inplace=False)")


class _Props(NamedTuple):
  """A ufunc's read-only attributes."""
  func: Callable[..., Any]
  nin: int
  nout: int
  nargs: int
  identity: Any


class ufunc:  # noqa: N801  (numpy's name)
  """A function applied elementwise to broadcast arrays, with numpy's ufunc methods (as
  jax.numpy.ufunc). `call`, `reduce`, `accumulate`, `at` and `reduceat` replace the generic
  methods, which loop over `func` (a function of scalars)."""

  def __init__(self, func: Callable[..., Any], /, nin: int, nout: int, *,
               name: str | None = None, nargs: int | None = None, identity: Any = None,
               call: Callable[..., Any] | None = None, reduce: Callable[..., Any] | None = None,
               accumulate: Callable[..., Any] | None = None, at: Callable[..., Any] | None = None,
               reduceat: Callable[..., Any] | None = None):
    self.__doc__ = func.__doc__
    self.__name__ = name or func.__name__
    self.__props = _Props(func, operator.index(nin), operator.index(nout),
                          operator.index(nargs or nin), identity)
    self._call = call or self._call_vectorized
    self._reduce = reduce or self._reduce_by_loop
    self._accumulate = accumulate or self._accumulate_by_scan
    self._at = at or self._at_by_scan
    self._reduceat = reduceat or self._reduceat_by_loop

  _func = property(lambda self: self.__props.func)
  nin = property(lambda self: self.__props.nin, doc="The number of inputs.")
  nout = property(lambda self: self.__props.nout, doc="The number of outputs.")
  nargs = property(lambda self: self.__props.nargs, doc="The number of arguments.")
  identity = property(lambda self: self.__props.identity,
                      doc="The identity of the operation, or None.")

  def _key(self) -> tuple:
    return (self.__name__, *self.__props)

  def __hash__(self) -> int:
    return hash(self._key())

  def __eq__(self, other: Any) -> bool:
    return isinstance(other, ufunc) and self._key() == other._key()

  def __repr__(self) -> str:
    return f"<jnp.ufunc '{self.__name__}'>"

  def __call__(self, *args: ArrayLike, out: None = None, where: None = None) -> Any:
    ensure_arraylike(self.__name__, *args)
    if out is not None:
      raise NotImplementedError(f"out argument of {self}")
    if where is not None:
      raise NotImplementedError(f"where argument of {self}")
    return self._call(*args)

  def _call_vectorized(self, *args: Any) -> Any:
    return vectorize(self._func)(*args)

  def _check_binary(self, method: str) -> None:
    if self.nin != 2:
      raise ValueError(f"{method} only supported for binary ufuncs")
    if self.nout != 1:
      raise ValueError(f"{method} only supported for functions returning a single value")

  def _result_dtype(self, *args: Any) -> np.dtype:
    """The dtype `func` gives for scalars of the arguments' types."""
    ones = [lax.full_like(asarray(a), 1, shape=()) for a in args]
    return api.eval_shape(self._func, *ones).dtype

  def reduce(self, a: ArrayLike, axis: int | None = 0, dtype: DTypeLike | None = None,
             out: None = None, keepdims: bool = False, initial: ArrayLike | None = None,
             where: ArrayLike | None = None) -> Any:
    """The reduction of `a` along `axis` by this binary ufunc (as numpy.ufunc.reduce)."""
    name = f"{self.__name__}.reduce"
    ensure_arraylike(name, a)
    self._check_binary("reduce")
    if out is not None:
      raise NotImplementedError(f"out argument of {name}()")
    if initial is not None:
      ensure_arraylike(name, initial)
    if where is not None:
      ensure_arraylike(name, where)
      if self.identity is None and initial is None:
        raise ValueError(f"reduction operation {self.__name__!r} does not have an identity, "
                         "so to use a where mask one has to specify 'initial'.")
      if dtype_of(where) != dtypes.bool_:
        raise ValueError(f"where argument must have dtype=bool; got dtype={dtype_of(where)}")
    return self._reduce(a, axis=axis, dtype=dtype, keepdims=keepdims, initial=initial,
                        where=where)

  def _reduce_by_loop(self, a: Any, axis: Axis = 0, dtype: Any = None, keepdims: bool = False,
                      initial: Any = None, where: Any = None) -> Any:
    a = asarray(a)
    initial = self.identity if initial is None else initial
    dtype = self._result_dtype(a, a) if dtype is None else dtype
    where = None if where is None else broadcast_to(where, shape(a))
    if isinstance(axis, tuple):
      reduced_axes(self.__name__, axis, len(shape(a)))  # (a bad axis is an error first)
      raise NotImplementedError("tuple of axes")
    if axis is None:
      out_shape = (1,) * len(shape(a)) if keepdims else ()
      a, where, axis = ravel(a), None if where is None else ravel(where), 0
    else:
      axis = canonicalize_axis(axis, len(shape(a)))
      out_shape = shape(a)[:axis] + (1,) * keepdims + shape(a)[axis + 1:]
    a = moveaxis(a, axis, 0)
    where = None if where is None else moveaxis(where, axis, 0)
    if shape(a)[0] == 0:
      if initial is None:
        raise ValueError(f"zero-size array to reduction operation {self.__name__} which has "
                         "no identity")
      return lax.full(out_shape, initial, dtype)

    def body(i: Any, acc: Any) -> Any:
      new = self(acc, convert(lax.dynamic_index_in_dim(a, i, 0, keepdims=False), dtype))
      if where is None:
        return new
      return where_(lax.dynamic_index_in_dim(where, i, 0, keepdims=False), new, acc)
    start, first = (1, a[0]) if initial is None else (0, initial)
    first = broadcast_to(convert(asarray(first), dtype), shape(a)[1:])
    return reshape(lax.fori_loop(start, shape(a)[0], body, first), out_shape)

  def accumulate(self, a: ArrayLike, axis: int = 0, dtype: DTypeLike | None = None,
                 out: None = None) -> Any:
    """The running reduction of `a` along `axis` by this binary ufunc (as
    numpy.ufunc.accumulate)."""
    self._check_binary("accumulate")
    if out is not None:
      raise NotImplementedError(f"out argument of {self.__name__}.accumulate()")
    return self._accumulate(a, axis=axis, dtype=dtype)

  def _accumulate_by_scan(self, a: Any, axis: int = 0, dtype: Any = None) -> Any:
    (a,) = ensure_arraylike(f"{self.__name__}.accumulate", a)
    a = asarray(a)
    dtype = self._result_dtype(a, a) if dtype is None else dtype
    if axis is None or isinstance(axis, tuple):
      raise ValueError("accumulate does not allow multiple axes")
    axis = canonicalize_axis(axis, len(shape(a)))
    if 0 in shape(a):
      return lax.full(shape(a), 0, dtype)
    a = moveaxis(a, axis, 0)

    def step(acc: Any, x: Any) -> tuple[Any, Any]:
      new = promote_dtypes(acc, self(acc, convert(x, dtype)))[1]  # (as a `where` would)
      return new, new
    first = convert(a[0], dtype)
    _, rest = lax.scan(step, first, a[1:])
    return moveaxis(concatenate([first[None], rest]), 0, axis)

  def at(self, a: ArrayLike, indices: Any, b: ArrayLike | None = None, /, *,
         inplace: bool = True) -> Any:
    """`a` with this ufunc applied at `indices` (with `b`'s values for a binary ufunc), once per
    occurrence of an index (as numpy.ufunc.at); `inplace=False` is required."""
    if inplace:
      raise NotImplementedError(_AT_INPLACE)
    return self._at(a, indices) if b is None else self._at(a, indices, b)

  def _at_by_scan(self, a: Any, indices: Any, *args: Any) -> Any:
    ensure_arraylike(f"{self.__name__}.at", a, *args)
    dtype = self._result_dtype(a, *args)
    a = convert(asarray(a), dtype)
    args = tuple(convert(asarray(arg), dtype) for arg in args)
    indices = _index_tuple(indices)
    if not indices:
      return a
    arrays = [i for i in indices if not isinstance(i, slice)]
    idx_shape = broadcast_shapes(f"{self.__name__}.at", *map(np.shape, arrays)) if arrays else ()
    if not idx_shape:
      return a.at[indices].set(self(a.at[indices].get(), *args))
    n = int(np.prod(idx_shape))
    args = tuple(reshape(broadcast_to(arg, idx_shape + shape(arg)[len(idx_shape):]),
                         (n,) + shape(arg)[len(idx_shape):]) for arg in args)
    flat = [i if isinstance(i, slice) else ravel(broadcast_to(i, idx_shape)) for i in indices]
    arrays_flat = tuple(i for i in flat if not isinstance(i, slice))

    def step(acc: Any, per_index: tuple) -> tuple[Any, None]:
      index_values, vals = per_index
      values = iter(index_values)
      idx = tuple(i if isinstance(i, slice) else next(values) for i in flat)
      return acc.at[idx].set(self(acc.at[idx].get(), *vals)), None
    out, _ = lax.scan(step, a, (arrays_flat, args))
    return out

  def reduceat(self, a: ArrayLike, indices: Any, axis: int = 0, dtype: DTypeLike | None = None,
               out: None = None) -> Any:
    """Reductions of `a` along `axis` over the segments that start at `indices` (as
    numpy.ufunc.reduceat)."""
    self._check_binary("reduceat")
    if out is not None:
      raise NotImplementedError(f"out argument of {self.__name__}.reduceat()")
    return self._reduceat(a, indices, axis=axis, dtype=dtype)

  def _reduceat_by_loop(self, a: Any, indices: Any, axis: int = 0, dtype: Any = None) -> Any:
    a, indices = map(asarray, ensure_arraylike(f"{self.__name__}.reduceat", a, indices))
    if not shape(a):
      raise ValueError(f"reduceat: a must have 1 or more dimension, got a.shape={shape(a)}")
    if len(shape(indices)) != 1:
      raise ValueError(f"reduceat: indices must be one-dimensional, got "
                       f"indices.shape={shape(indices)}")
    if axis is None or isinstance(axis, (tuple, list)):
      raise ValueError("reduceat requires a single integer axis.")
    axis = canonicalize_axis(axis, len(shape(a)))
    other = [d for d in range(len(shape(a))) if d != axis]
    bounds = expand_axes(append(indices, shape(a)[axis]), tuple(other))
    start = lax.slice_in_dim(bounds, 0, shape(bounds)[axis] - 1, axis=axis)
    end = lax.slice_in_dim(bounds, 1, shape(bounds)[axis], axis=axis)

    def body(i: Any, acc: Any) -> Any:
      inside = lax.bitwise_and(lax.gt(i, start), lax.lt(i, end))
      return where_(inside, self(acc, lax.dynamic_slice_in_dim(a, i, 1, axis)), acc)
    return lax.fori_loop(0, shape(a)[axis], body, take(a, indices, axis=axis))

  def outer(self, A: ArrayLike, B: ArrayLike, /) -> Any:  # noqa: N803  (numpy's names)
    """This ufunc of every pair of elements of `A` and `B`: shape `A.shape + B.shape`."""
    self._check_binary("outer")
    A, B = map(asarray, ensure_arraylike(f"{self.__name__}.outer", A, B))
    pairs = api.vmap(api.vmap(self, (None, 0)), (0, None))(ravel(A), ravel(B))
    return reshape(pairs, shape(A) + shape(B))


def frompyfunc(func: Callable[..., Any], /, nin: int, nout: int, *,
               identity: Any = None) -> ufunc:
  """A ufunc from `func`, a function of `nin` scalars returning `nout` values."""
  return ufunc(func, nin, nout, identity=identity)


def _index_tuple(indices: Any) -> tuple:
  """The index as a tuple of entries (a list is refused, as numpy's multidimensional lists)."""
  if isinstance(indices, list):
    raise TypeError("Using a non-tuple sequence for multidimensional indexing is not allowed; "
                    "use `arr[array(seq)]` instead of `arr[seq]`.")
  return indices if isinstance(indices, tuple) else (indices,)


# ----------------------------------------------------------------------------------------------
# JAX's fast methods of its ufuncs

def _monoid_reduction(name: str, monoid: Any, preproc: Callable[[Any], Any],
                      has_identity: bool = True) -> Callable[..., Any]:
  def reduction(a: Any, axis: Axis = None, dtype: Any = None, keepdims: bool = False,
                initial: Any = None, where: Any = None) -> Any:
    return reduce_(name, monoid, a, axis, dtype, keepdims, initial, where,
                   has_identity=has_identity, preproc=preproc)
  return reduction


def _require_integer(a: Any) -> Any:
  if dtypes.kind(dtype_of(a)) not in "biu":
    raise ValueError(f"integer argument required; got dtype={dtype_of(a)}")
  return a


def _cast_to_bool(a: Any) -> Any:
  """Booleans by a cast, a complex value by its real part (as JAX's logical reductions)."""
  return lax.convert_element_type(lax.real(a) if dtypes.is_complex(dtype_of(a)) else a,
                                  dtypes.bool_)


def _logsumexp(a: Any, axis: Axis = None, dtype: Any = None, keepdims: bool = False,
               initial: Any = None, where: Any = None) -> Any:
  """logaddexp's reduction: log(sum(exp(a))), shifted by the (finite) maximum. (`dtype` is
  accepted and unused, as in JAX.)"""
  (a,) = ensure_arraylike("logsumexp", a)
  where = check_where("logsumexp", where)
  (a,) = promote_dtypes_inexact(a)
  axes = reduced_axes("logsumexp", axis, len(shape(a)))
  amax = max_(_math_arithmetic.real(a), axis=axes, keepdims=keepdims, where=where,
              initial=-np.inf)
  amax = lax.stop_gradient(lax.select(lax.is_finite(amax), amax, lax.full_like(amax, 0)))
  shift = amax if keepdims else expand_axes(amax, axes)
  exp_a = lax.exp(lax.sub(a, convert(shift, dtype_of(a))))
  sumexp = sum_(exp_a, axis=axes, keepdims=keepdims, where=where)
  result = lax.add(lax.log(sumexp), convert(amax, dtype_of(sumexp)))
  return result if initial is None else _math_transcendental.logaddexp(initial, result)


def _logsumexp2(a: Any, axis: Axis = None, dtype: Any = None, keepdims: bool = False,
                initial: Any = None, where: Any = None) -> Any:
  """logaddexp2's reduction: logsumexp in base 2."""
  (a,) = ensure_arraylike("logsumexp2", a)
  ln2 = float(np.log(2))
  initial = None if initial is None else _math_arithmetic.multiply(initial, ln2)
  out = _logsumexp(_math_arithmetic.multiply(a, ln2), axis=axis, dtype=dtype,
                   keepdims=keepdims, initial=initial, where=where)
  return _math_arithmetic.true_divide(out, ln2)


def _scatter_at(method: str, bool_arithmetic: bool) -> Callable[..., Any]:
  """`ufunc.at` by the scatter `a.at[indices].<method>(b)`; a boolean `a` in integers when
  `bool_arithmetic` (add and multiply of booleans, as JAX)."""
  def at(a: Any, indices: Any, b: Any) -> Any:
    a = asarray(a)
    if bool_arithmetic and dtype_of(a) == dtypes.bool_:
      as_int = lambda x: convert(x, dtypes.int32)  # noqa: E731
      b = as_int(convert(asarray(b), dtypes.bool_))
      return convert(getattr(as_int(a).at[indices], method)(b), dtypes.bool_)
    return getattr(a.at[indices], method)(b)
  return at


def _unary(func: Callable[[Any], Any]) -> ufunc:
  return ufunc(func, 1, 1, name=func.__name__, call=func)


def _binary(func: Callable[[Any, Any], Any], identity: Any, **methods: Any) -> ufunc:
  return ufunc(func, 2, 1, name=func.__name__, identity=identity, call=func, **methods)


negative = _unary(_math_arithmetic.negative)
add = _binary(_math_arithmetic.add, 0, reduce=sum_, accumulate=cumsum,
              at=_scatter_at("add", True))
multiply = _binary(_math_arithmetic.multiply, 1, reduce=prod, accumulate=cumprod,
                   at=_scatter_at("multiply", True))
subtract = _binary(_math_arithmetic.subtract, None, at=_scatter_at("subtract", False))
maximum = _binary(_math_arithmetic.maximum, None,
                  reduce=_monoid_reduction("max", MAX, None, has_identity=False))
minimum = _binary(_math_arithmetic.minimum, None,
                  reduce=_monoid_reduction("min", MIN, None, has_identity=False))
bitwise_and = _binary(_bitwise.bitwise_and, -1,
                      reduce=_monoid_reduction("reduce_bitwise_and", AND_BITS, _require_integer))
bitwise_or = _binary(_bitwise.bitwise_or, 0,
                     reduce=_monoid_reduction("reduce_bitwise_or", ANY, _require_integer))
bitwise_xor = _binary(_bitwise.bitwise_xor, 0,
                      reduce=_monoid_reduction("reduce_bitwise_xor", XOR, _require_integer))
logical_and = _binary(_logic.logical_and, True,
                      reduce=_monoid_reduction("reduce_logical_and", ALL, _cast_to_bool))
logical_or = _binary(_logic.logical_or, False,
                     reduce=_monoid_reduction("reduce_logical_or", ANY, _cast_to_bool))
logical_xor = _binary(_logic.logical_xor, False,
                      reduce=_monoid_reduction("reduce_logical_xor", XOR, _cast_to_bool))
logaddexp = _binary(_math_transcendental.logaddexp, -np.inf, reduce=_logsumexp)
logaddexp2 = _binary(_math_transcendental.logaddexp2, -np.inf, reduce=_logsumexp2)
