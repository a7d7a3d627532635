"""The core: abstract values, primitives, traces and tracers.

Tracing follows the "current trace" design of modern JAX: `Primitive.bind` hands its arguments to the
trace that is current on this thread. A trace that transforms a primitive (JVP, batching, jaxpr
building) unpacks the tracers it owns, treats every other value as a constant, and runs its rule with
its parent trace made current, so transformations compose in any order and nesting.
"""
from __future__ import annotations

import functools
import os
import sys
import threading
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from stablejax import dtypes
from stablejax.config import config


# ----------------------------------------------------------------------------------------------
# Abstract values

class ShapedArray:
  """The type of an array: shape, dtype and whether the dtype is weak (from a Python scalar)."""
  __slots__ = ("shape", "dtype", "weak_type", "_hash")

  def __init__(self, shape: Sequence[int], dtype, weak_type: bool = False):
    self.shape = tuple(shape)
    self.dtype = dtype if isinstance(dtype, np.dtype) else np.dtype(dtype)
    self.weak_type = weak_type
    self._hash = None

  @property
  def ndim(self) -> int:
    return len(self.shape)

  @property
  def size(self) -> int:
    size = 1
    for d in self.shape:
      size *= d
    return size

  def __eq__(self, other: Any) -> bool:
    return (type(other) is ShapedArray and self.shape == other.shape and
            self.dtype == other.dtype and self.weak_type == other.weak_type)

  def __hash__(self) -> int:
    if self._hash is None:
      self._hash = hash((self.shape, self.dtype, self.weak_type))
    return self._hash

  def update(self, shape=None, dtype=None, weak_type=None) -> ShapedArray:
    return ShapedArray(self.shape if shape is None else shape,
                       self.dtype if dtype is None else dtype,
                       self.weak_type if weak_type is None else weak_type)

  def str_short(self) -> str:
    return f"{dtypes.short_name(self.dtype)}[{','.join(map(str, self.shape))}]"

  def __repr__(self) -> str:
    weak = ", weak_type=True" if self.weak_type else ""
    return f"ShapedArray({self.str_short()}{weak})"

  __str__ = str_short


def typematch(a: ShapedArray, b: ShapedArray) -> bool:
  """Equal shapes and dtypes; weak types may differ (JAX's `typematch`)."""
  return a.shape == b.shape and a.dtype == b.dtype


def _ndarray_aval(x: np.ndarray | np.generic) -> ShapedArray:
  return ShapedArray(x.shape, dtypes.canonicalize(x.dtype))


@functools.lru_cache(maxsize=None)
def _scalar_type_aval(t: type, x64: bool) -> ShapedArray:
  return ShapedArray((), dtypes.python_scalar_dtype(t()), t is not bool)


def _scalar_aval(x) -> ShapedArray:
  return _scalar_type_aval(type(x), config.enable_x64)


# How to find the abstract value of each kind of concrete value; runtime types add themselves.
aval_handlers: dict[type, Callable[[Any], ShapedArray]] = {
    bool: _scalar_aval, int: _scalar_aval, float: _scalar_aval, complex: _scalar_aval,
    np.ndarray: _ndarray_aval,
}


def get_aval(x: Any) -> ShapedArray:
  """The abstract value of a tracer or concrete value."""
  if isinstance(x, Tracer):
    return x.aval
  handler = aval_handlers.get(type(x))
  if handler is not None:
    return handler(x)
  if isinstance(x, np.generic):
    return _ndarray_aval(x)
  raise TypeError(f"Value {x!r} of type {type(x).__name__} is not a valid stablejax type: "
                  "use arrays, numpy values or Python scalars")


def is_concrete(x: Any) -> bool:
  return not isinstance(x, Tracer) and (type(x) in aval_handlers or isinstance(x, np.generic))


# ----------------------------------------------------------------------------------------------
# Errors

class ConcretizationTypeError(TypeError):
  """A concrete Python value was needed from an abstract (traced) one."""


class TracerArrayConversionError(TypeError):
  """A traced value was converted to a numpy array."""


class UnexpectedTracerError(Exception):
  """A tracer escaped the transformation that created it (a leak)."""


# ----------------------------------------------------------------------------------------------
# Primitives

class Effect:
  """A side effect of applying a primitive (a host callback, a kernel writing somewhere). Jaxprs
  carry the effects of their equations, and the passes keep effectful equations even when their
  results are unused. The equations with an `ordered` effect also run in program order: the
  lowering threads a token through them (one per ordered effect)."""
  ordered = False


NO_EFFECTS: frozenset[Effect] = frozenset()


class Primitive:
  """A primitive operation: traces dispatch `bind` to the rules registered for it."""
  multiple_results = False

  def __init__(self, name: str):
    self.name = name
    self.impl: Callable | None = None
    self.abstract_eval: Callable | None = None
    self.effects_rule: Callable[..., Iterable[Effect]] | None = None

  def def_effects(self, rule: Callable[..., Iterable[Effect]]) -> Callable:
    """`rule(**params)` gives the effects of an application with `params` (none by default;
    the effects of the jaxprs in params are added by `jaxpr.eqn_effects`)."""
    self.effects_rule = rule
    return rule

  def effects(self, params: dict) -> frozenset[Effect]:
    """This primitive's own effects when applied with `params`."""
    return NO_EFFECTS if self.effects_rule is None else frozenset(self.effects_rule(**params))

  def __repr__(self) -> str:
    return self.name

  def bind(self, *args: Any, **params: Any) -> Any:
    return _state.trace.process_primitive(self, args, params)

  def def_impl(self, impl: Callable) -> Callable:
    """`impl(*values, **params)` evaluates the primitive on concrete values."""
    self.impl = impl
    return impl

  def def_abstract_eval(self, abstract_eval: Callable) -> Callable:
    """`abstract_eval(*avals, **params)` gives the output aval (a list for multiple results)."""
    self.abstract_eval = abstract_eval
    return abstract_eval

  def out_avals(self, avals_in: Sequence[ShapedArray], params: dict) -> list[ShapedArray]:
    """The output avals as a list, whatever `multiple_results` is."""
    if self.abstract_eval is None:
      raise NotImplementedError(f"primitive '{self.name}' has no abstract evaluation rule "
                                "(register one with def_abstract_eval)")
    out = self.abstract_eval(*avals_in, **params)
    return list(out) if self.multiple_results else [out]


# ----------------------------------------------------------------------------------------------
# Traces and tracers

class Trace:
  """Interprets primitives; `parent` is the trace its rules run under."""

  def __init__(self, parent: Trace | None):
    self.parent = parent
    self.valid = True

  def process_primitive(self, primitive: Primitive, args: Sequence, params: dict) -> Any:
    raise NotImplementedError

  def invalidate(self) -> None:
    """Called when the transformation ends: its tracers must not be used any more."""
    self.valid = False

  def __repr__(self) -> str:
    return f"{type(self).__name__}"


def _leak_error(tracer: Tracer) -> UnexpectedTracerError:
  return UnexpectedTracerError(
      f"Encountered an unexpected tracer: {tracer!r} was created by a {tracer._trace!r} "
      "transformation that has already returned, and escaped it (for example through a global, "
      "a closure or a side effect). A transformed function must return its traced values "
      "instead of storing them.")


class EvalTrace(Trace):
  """The bottom of every stack: applies primitives to concrete values. A primitive with an
  `impl` (a user primitive given one with `def_impl`) runs it; every other primitive, which
  includes all the built-ins, is compiled once for its types and run on a device by the
  pipeline's evaluator (`install_compiled_eval`)."""

  def __init__(self):
    super().__init__(None)
    self.compiled_eval: Callable[[Primitive, Sequence, dict], Any] | None = None

  def process_primitive(self, primitive, args, params):
    for x in args:
      if isinstance(x, Tracer):
        raise _leak_error(x)
    if primitive.impl is not None:
      return primitive.impl(*args, **params)
    if self.compiled_eval is None:
      raise NotImplementedError(f"primitive '{primitive.name}' has no evaluation rule "
                                "(register one with def_impl)")
    return self.compiled_eval(primitive, args, params)


eval_trace = EvalTrace()


def install_compiled_eval(evaluate: Callable[[Primitive, Sequence, dict], Any]) -> None:
  """Make `evaluate(primitive, args, params)` the eager evaluation of primitives without an
  `impl`. The pipeline installs it: compiling needs the lowering rules, which are written in
  terms of every primitive, so the bottom trace is given its evaluator instead of importing it."""
  eval_trace.compiled_eval = evaluate


class _TraceState(threading.local):
  def __init__(self):
    self.trace: Trace = eval_trace


_state = _TraceState()


def current_trace() -> Trace:
  return _state.trace


def is_evaluating() -> bool:
  """Whether primitives are being evaluated (no transformation is tracing on this thread)."""
  return _state.trace is eval_trace


class set_current_trace:
  """Context manager making `trace` current on this thread."""
  __slots__ = ("trace", "prev")

  def __init__(self, trace: Trace):
    self.trace = trace

  def __enter__(self) -> Trace:
    self.prev = _state.trace
    _state.trace = self.trace
    return self.trace

  def __exit__(self, *exc) -> None:
    _state.trace = self.prev


class Tracer:
  """A value being traced by `_trace`; the operators come from `stablejax.numpy`."""
  __slots__ = ("_trace",)
  __array_priority__ = 1000
  __hash__ = None  # like JAX: traced values are not hashable

  @property
  def aval(self) -> ShapedArray:
    raise NotImplementedError

  def to_concrete_value(self) -> Any:
    """The concrete value behind this tracer, or None when it is abstract."""
    return None

  shape = property(lambda self: self.aval.shape)
  dtype = property(lambda self: self.aval.dtype)
  ndim = property(lambda self: self.aval.ndim)
  size = property(lambda self: self.aval.size)
  weak_type = property(lambda self: self.aval.weak_type)

  def __len__(self) -> int:
    if not self.shape:
      raise TypeError("len() of unsized object (a rank-0 traced value)")
    return self.shape[0]

  def __iter__(self):
    if not self.shape:
      raise TypeError("iteration over a rank-0 traced value")
    return (self[i] for i in range(self.shape[0]))

  def _concrete(self, what: str) -> Any:
    val = self.to_concrete_value()
    if val is None:
      raise ConcretizationTypeError(
          f"Abstract tracer value encountered where a concrete value is expected: {what} of "
          f"a traced value of type {self.aval.str_short()} ({self!r}). Python control flow "
          "can only depend on concrete values: under jit or make_jaxpr use lax.cond, "
          "lax.switch or lax.while_loop; under vmap use jnp.where or lax.select_n; or mark the "
          "argument static with static_argnums.")
    return val

  def __bool__(self) -> bool:
    return bool(self._concrete("bool()"))

  def __int__(self) -> int:
    return int(self._concrete("int()"))

  def __float__(self) -> float:
    return float(self._concrete("float()"))

  def __complex__(self) -> complex:
    return complex(self._concrete("complex()"))

  def __index__(self) -> int:
    return int(np.asarray(self._concrete("an index (__index__)")).item())

  def __array__(self, dtype=None, copy=None):
    raise TracerArrayConversionError(
        f"The numpy.ndarray conversion method __array__() was called on a traced value "
        f"{self!r}. numpy functions cannot be applied to traced values: use the stablejax.numpy "
        "function of the same name instead.")

  def __repr__(self) -> str:
    return f"Traced<{self.aval.str_short()}>with<{type(self._trace).__name__}>"


def concrete_or_error(x: Any, what: str) -> Any:
  """`x` if it is concrete (or a tracer with a concrete value), else a clear error."""
  if isinstance(x, Tracer):
    return x._concrete(what)
  return x


def check_valid(tracer: Tracer) -> None:
  """Raise the leak error if `tracer`'s transformation has already returned."""
  if not tracer._trace.valid:
    raise _leak_error(tracer)


# ----------------------------------------------------------------------------------------------
# Source locations (for debug info in emitted MLIR)

_PKG_DIR = os.path.dirname(os.path.abspath(__file__))
# In an editable install `lowering/` and `passes/` sit beside the package directory.
_LIB_DIRS = tuple(os.path.join(d, "") for d in (
    _PKG_DIR, os.path.join(os.path.dirname(_PKG_DIR), "lowering"),
    os.path.join(os.path.dirname(_PKG_DIR), "passes")))


def user_frame() -> tuple[str, int, str] | None:
  """(file, line, function) of the innermost frame outside stablejax, for debug locations."""
  f = sys._getframe(2)
  while f is not None and f.f_code.co_filename.startswith(_LIB_DIRS):
    f = f.f_back
  if f is None:
    return None
  return f.f_code.co_filename, f.f_lineno, f.f_code.co_name
