"""Operators, indexing, methods and properties of traced values (`core.Tracer`) and device
arrays (`stablejax.runtime.array.Array`), all defined by the `stablejax.numpy` functions."""
from __future__ import annotations

from typing import Any, Callable

from stablejax import core
from stablejax.runtime import Array
from stablejax.numpy import _contractions, _indexing, _manipulation_shape, _reductions, _ufuncs
from stablejax.numpy import _indexing_functions, _manipulation_elements, _misc, _products, _sorting
from stablejax.numpy._promotion import is_arraylike

_fn = {**_ufuncs.UNARY, **_ufuncs.BINARY, "floor_divide": _ufuncs.floor_divide,
       "remainder": _ufuncs.remainder, "power": _ufuncs.power, "matmul": _contractions.matmul}

# operator name (without underscores) -> numpy function; each also gets a reflected `__r*__`.
_BINARY_OPERATORS = {
    "add": "add", "sub": "subtract", "mul": "multiply", "truediv": "true_divide",
    "floordiv": "floor_divide", "mod": "remainder", "pow": "power", "matmul": "matmul",
    "and": "bitwise_and", "or": "bitwise_or", "xor": "bitwise_xor",
    "lshift": "left_shift", "rshift": "right_shift",
}
_COMPARISONS = {"eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal",
                "gt": "greater", "ge": "greater_equal"}


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
  return _ufuncs.clip(self, min, max)


_METHODS = {
    "__neg__": _ufuncs.UNARY["negative"], "__pos__": lambda self: self,
    "__abs__": _ufuncs.UNARY["abs"], "__invert__": _ufuncs.invert,
    "__getitem__": _indexing.getitem,
    "reshape": _manipulation_shape.reshape, "transpose": _transpose, "squeeze": _manipulation_shape.squeeze,
    "flatten": _manipulation_shape.ravel, "ravel": _manipulation_shape.ravel, "swapaxes": _manipulation_shape.swapaxes,
    "sum": _reductions.sum, "mean": _reductions.mean, "max": _reductions.max,
    "min": _reductions.min, "prod": _reductions.prod, "argmax": _reductions.argmax,
    "argmin": _reductions.argmin, "cumsum": _reductions.cumsum,
    "std": _reductions.std, "var": _reductions.var, "any": _reductions.any,
    "all": _reductions.all, "ptp": _reductions.ptp, "trace": _products.trace,
    "astype": _misc.astype, "dot": _contractions.dot, "clip": _clip, "round": _ufuncs.round,
    "conj": _ufuncs.conj, "conjugate": _ufuncs.conjugate, "cumprod": _reductions.cumprod,
    "sort": _sorting.sort, "argsort": _sorting.argsort, "argpartition": _sorting.argpartition,
    "searchsorted": _sorting.searchsorted, "diagonal": _indexing_functions.diagonal,
    "nonzero": _indexing_functions.nonzero, "take": _indexing_functions.take,
    "compress": lambda self, condition, axis=None, **kw: _indexing_functions.compress(
        condition, self, axis, **kw),
    "choose": lambda self, choices, mode="raise": _misc.choose(self, choices, mode=mode),
    "repeat": _manipulation_elements.repeat,
}
_PROPERTIES = {
    "T": lambda self: _manipulation_shape.transpose(self), "mT": _manipulation_shape.matrix_transpose,
    "real": _ufuncs.real, "imag": _ufuncs.imag, "at": _indexing._IndexUpdateHelper,
    "itemsize": lambda self: self.dtype.itemsize,
    "nbytes": lambda self: self.size * self.dtype.itemsize,
}


def _operators() -> dict[str, Callable]:
  ops = {}
  for name, fn_name in _BINARY_OPERATORS.items():
    ops[f"__{name}__"] = _defer_to_unrecognized(_fn[fn_name], reflected=False)
    ops[f"__r{name}__"] = _defer_to_unrecognized(_fn[fn_name], reflected=True)
  for name, fn_name in _COMPARISONS.items():
    ops[f"__{name}__"] = _defer_to_unrecognized(_fn[fn_name], reflected=False)
  return ops


def install(cls: type) -> None:
  """Give `cls` numpy's operators, methods and properties."""
  for name, fn in {**_operators(), **_METHODS}.items():
    setattr(cls, name, fn)
  for name, fn in _PROPERTIES.items():
    setattr(cls, name, property(fn))


install(core.Tracer)
install(Array)
