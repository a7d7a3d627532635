"""Operators, indexing, methods and properties of traced values (`core.Tracer`) and device
arrays (`stablejax.runtime.array.Array`), all defined by the `stablejax.numpy` functions."""
from __future__ import annotations

from typing import Any, Callable

from stablejax import core
from stablejax.jit import traced_form
from stablejax.numpy import (
    _bitwise, _creation, _indexing, _indexing_routines, _linalg_products, _logic,
    _manipulation_elements, _manipulation_shape, _math_arithmetic, _math_sums,
    _sorting_searching, _statistics)
from stablejax.numpy._promotion import is_arraylike
from stablejax.runtime import Array

# operator name (without underscores) -> numpy function; each also gets a reflected `__r*__`.
_BINARY_OPERATORS = {
    "add": _math_arithmetic.add, "sub": _math_arithmetic.subtract,
    "mul": _math_arithmetic.multiply, "truediv": _math_arithmetic.true_divide,
    "floordiv": _math_arithmetic.floor_divide, "mod": _math_arithmetic.remainder,
    "pow": _math_arithmetic.power, "matmul": _linalg_products.matmul,
    "and": _bitwise.bitwise_and, "or": _bitwise.bitwise_or, "xor": _bitwise.bitwise_xor,
    "lshift": _bitwise.left_shift, "rshift": _bitwise.right_shift,
}
_COMPARISONS = {"eq": _logic.equal, "ne": _logic.not_equal, "lt": _logic.less,
                "le": _logic.less_equal, "gt": _logic.greater, "ge": _logic.greater_equal}


def _defer_to_unrecognized(fn: Callable, reflected: bool) -> Callable:
  """A binary operator that returns NotImplemented for non-array operands (lists, strings),
  so Python tries the other operand's method, as JAX does."""
  def op(self: Any, other: Any) -> Any:
    if type(other) is not Array and not is_arraylike(other):
      return NotImplemented
    return fn(other, self) if reflected else fn(self, other)
  return op


def _transpose(self: Any, *axes: Any) -> Any:
  """`x.transpose()`, `x.transpose(1, 0)` or `x.transpose((1, 0))`."""
  if len(axes) == 1 and (axes[0] is None or not isinstance(axes[0], int)):
    axes = axes[0]
  return _manipulation_shape.transpose(self, axes or None)


def _clip(self: Any, min: Any = None, max: Any = None) -> Any:  # noqa: A002
  return _math_arithmetic.clip(self, min, max)


_METHODS = {
    "__neg__": _math_arithmetic.negative, "__pos__": lambda self: self,
    "__abs__": _math_arithmetic.absolute, "__invert__": _bitwise.invert,
    "__getitem__": lambda self, idx: self.aval._getitem(self, idx),
    "__setitem__": lambda self, idx, value: self.aval._setitem(self, idx, value),
    "reshape": _manipulation_shape.reshape_method, "transpose": _transpose,
    "squeeze": _manipulation_shape.squeeze, "flatten": _manipulation_shape.ravel,
    "ravel": _manipulation_shape.ravel, "swapaxes": _manipulation_shape.swapaxes,
    "sum": _math_sums.sum, "mean": _statistics.mean, "max": _statistics.max,
    "min": _statistics.min, "prod": _math_sums.prod, "argmax": _sorting_searching.argmax,
    "argmin": _sorting_searching.argmin, "cumsum": _math_sums.cumsum,
    "std": _statistics.std, "var": _statistics.var, "any": _logic.any,
    "all": _logic.all, "ptp": _statistics.ptp, "trace": _linalg_products.trace,
    "astype": _creation.astype, "dot": _linalg_products.dot, "clip": _clip,
    "round": _math_arithmetic.round, "conj": _math_arithmetic.conj,
    "conjugate": _math_arithmetic.conjugate, "cumprod": _math_sums.cumprod,
    "sort": _sorting_searching.sort, "argsort": _sorting_searching.argsort,
    "argpartition": _sorting_searching.argpartition,
    "searchsorted": _sorting_searching.searchsorted, "diagonal": _indexing_routines.diagonal,
    "nonzero": _indexing_routines.nonzero, "take": _indexing_routines.take,
    "compress": lambda self, condition, axis=None, **kw: _indexing_routines.compress(
        condition, self, axis, **kw),
    "choose": lambda self, choices, mode="raise": _indexing_routines.choose(self, choices,
                                                                             mode=mode),
    "repeat": _manipulation_elements.repeat,
}
_PROPERTIES = {
    "T": lambda self: _manipulation_shape.transpose(self),
    "mT": _manipulation_shape.matrix_transpose, "real": _math_arithmetic.real,
    "imag": _math_arithmetic.imag, "at": _indexing._IndexUpdateHelper,
    "itemsize": lambda self: self.dtype.itemsize,
    "nbytes": lambda self: self.size * self.dtype.itemsize,
}


def _operators(resolve: Callable[[Callable], Callable]) -> dict[str, Callable]:
  ops = {}
  for name, fn in _BINARY_OPERATORS.items():
    ops[f"__{name}__"] = _defer_to_unrecognized(resolve(fn), reflected=False)
    ops[f"__r{name}__"] = _defer_to_unrecognized(resolve(fn), reflected=True)
  for name, fn in _COMPARISONS.items():
    ops[f"__{name}__"] = _defer_to_unrecognized(resolve(fn), reflected=False)
  return ops


def install(cls: type, resolve: Callable[[Callable], Callable] = lambda fn: fn) -> None:
  """Give `cls` numpy's operators, methods and properties, each calling `resolve(function)`
  (tracers': `jit.traced_form`, without the jit only concrete arrays take)."""
  methods = {name: resolve(fn) for name, fn in _METHODS.items()}
  for name, fn in {**_operators(resolve), **methods}.items():
    setattr(cls, name, fn)
  for name, fn in _PROPERTIES.items():
    setattr(cls, name, property(fn))


def _immutable(aval: core.ShapedArray, x: Any, idx: Any, value: Any) -> None:
  raise TypeError(f"{type(x).__name__!r} object does not support item assignment. JAX arrays "
                  "are immutable. Instead of ``x[idx] = y``, use ``x = x.at[idx].set(y)``.")


# `x[idx]` dispatches on the type: arrays index here, refs (lax/state.py) read and write
core.ShapedArray._getitem = lambda aval, x, idx: _indexing.getitem(x, idx)
core.ShapedArray._setitem = _immutable
install(core.Tracer, traced_form)
install(Array)
