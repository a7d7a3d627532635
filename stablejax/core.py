"""The core: abstract values, primitives, traces and tracers.

Tracing follows the "current trace" design of modern JAX: `Primitive.bind` hands its arguments to the
trace that is current on this thread. A trace that transforms a primitive (JVP, batching, jaxpr
building) unpacks the tracers it owns, treats every other value as a constant, and runs its rule with
its parent trace made current, so transformations compose in any order and nesting.
"""
from __future__ import annotations

import functools
import os
import threading
import types
import weakref
from collections import namedtuple
from typing import Any, Callable, Iterable, Sequence

import numpy as np
from jaxlib import xla_client

from stablejax import dtypes
from stablejax.basearray import Array
from stablejax.typed_sharding import AvalSharding, is_typed, of_sharding, propagate
from stablejax.errors import (
    ConcretizationTypeError, TracerArrayConversionError, TracerBoolConversionError,
    TracerIntegerConversionError, UnexpectedTracerError)
from stablejax.config import config
from stablejax.util import bounded


# ----------------------------------------------------------------------------------------------
# Abstract values

class AbstractValue:
  """The class of abstract values (types of traced values). stablejax traces values of one kind,
  `ShapedArray` (refs included); other subclasses are JAX's high-level types
  (`jax.experimental.hijax`), which stablejax cannot trace."""
  __slots__ = ()


class ShapedArray(AbstractValue):
  """The type of an array: shape, dtype and whether the dtype is weak (from a Python scalar).
  `sharding` (None: unspecified) is kept by `update`. A typed sharding (`AvalSharding`: the
  split over Explicit mesh axes) is part of the type, propagated by the primitives' sharding
  rules; any other sharding a user gives is carried along and takes no part in equality."""
  __slots__ = ("shape", "dtype", "weak_type", "sharding", "_hash")
  is_ref = False  # (the type of a mutable reference: `lax.state.AbstractRef`)

  def __init__(self, shape: Sequence[int], dtype, weak_type: bool = False, *,
               sharding: Any = None):
    self.shape = tuple(shape)
    self.dtype = (dtype if isinstance(dtype, (np.dtype, dtypes.ExtendedDType))
                  else np.dtype(dtype))
    self.weak_type = weak_type
    self.sharding = sharding
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

  @property
  def typed_sharding(self) -> AvalSharding | None:
    """The sharding that is part of the type (over Explicit mesh axes), else None."""
    s = self.sharding
    return s if type(s) is AvalSharding else None

  def __eq__(self, other: Any) -> bool:
    return (type(other) is ShapedArray and self.shape == other.shape and
            self.dtype == other.dtype and self.weak_type == other.weak_type and
            self.typed_sharding == other.typed_sharding)

  def __hash__(self) -> int:
    if self._hash is None:
      self._hash = hash((self.shape, self.dtype, self.weak_type, self.typed_sharding))
    return self._hash

  def update(self, shape=None, dtype=None, weak_type=None, sharding=None) -> ShapedArray:
    return ShapedArray(self.shape if shape is None else shape,
                       self.dtype if dtype is None else dtype,
                       self.weak_type if weak_type is None else weak_type,
                       sharding=self.sharding if sharding is None else sharding)

  def to_tangent_aval(self) -> ShapedArray:
    """The type of a tangent of this type: the same, with float0 for an integer or boolean
    dtype (JAX's `to_tangent_aval`)."""
    dtype = self.dtype if dtypes.is_inexact(self.dtype) else dtypes.float0
    return ShapedArray(self.shape, dtype, self.weak_type, sharding=self.sharding)

  def str_short(self) -> str:
    typed = self.typed_sharding
    dims = ",".join(map(str, self.shape)) if typed is None else typed.shape_str(self.shape)
    return f"{dtypes.short_name(self.dtype)}[{dims}]"

  def __repr__(self) -> str:
    weak = ", weak_type=True" if self.weak_type else ""
    return f"ShapedArray({self.str_short()}{weak})"

  __str__ = str_short


def typed_aval(aval: ShapedArray, sharding: Any) -> ShapedArray:
  """`aval` typed as an array laid out by `sharding`: with its split over Explicit mesh axes,
  without any for other shardings (None included)."""
  typed = of_sharding(sharding, aval.ndim)
  if typed == aval.sharding:
    return aval
  return ShapedArray(aval.shape, aval.dtype, aval.weak_type, sharding=typed)


def physical_aval(aval: ShapedArray) -> ShapedArray:
  """The aval of the array storing values of `aval`: itself, for an extended dtype (PRNG keys)
  the array of its physical dtype with its physical shape appended, and for float0 (no data) a
  bool array, as in JAX's HLO."""
  dtype = aval.dtype
  if dtype == dtypes.float0:
    return ShapedArray(aval.shape, np.dtype(np.bool_))
  if not isinstance(dtype, dtypes.ExtendedDType):
    return aval
  return ShapedArray(aval.shape + dtype.physical_shape, dtype.physical_dtype)


def typematch(a: ShapedArray, b: ShapedArray) -> bool:
  """Equal shapes and dtypes; weak types may differ (JAX's `typematch`)."""
  return a.shape == b.shape and a.dtype == b.dtype


def _ndarray_aval(x: np.ndarray) -> ShapedArray:
  return ShapedArray(x.shape, dtypes.canonicalize(x.dtype))


@functools.lru_cache(maxsize=None)
def _numpy_scalar_aval(dtype: np.dtype, x64: bool) -> ShapedArray:
  """The type of a numpy scalar (every literal jax.numpy stages), made once per dtype: avals
  are immutable."""
  return ShapedArray((), dtypes.canonicalize(dtype))


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
    return _numpy_scalar_aval(x.dtype, config.enable_x64)
  raise TypeError(f"Value {x!r} of type {type(x).__name__} is not a valid stablejax type: "
                  "use arrays, numpy values or Python scalars")


def is_concrete(x: Any) -> bool:
  return not isinstance(x, Tracer) and (type(x) in aval_handlers or isinstance(x, np.generic))


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
  takes_refs = False  # whether a ref (not its value) may be an operand: the ref primitives,
                      # and the calls and control flow whose jaxprs use refs

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

  def get_bind_params(self, params: dict) -> dict:
    """The params to bind with to apply an equation's `params` again (JAX's: the same, here
    for every primitive, call primitives included)."""
    return params

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
      raise NotImplementedError(f"Abstract evaluation for '{self.name}' not implemented "
                                "(register one with def_abstract_eval)")
    if not self.takes_refs:
      for a in avals_in:
        if type(a) is not ShapedArray and a.is_ref:
          raise TypeError(f"{self.name} requires ndarray or scalar arguments, got a Ref "
                          f"({a.str_short()}): read its value with ref[...]")
    return self.checked_out_avals(avals_in, self.abstract_eval(*avals_in, **params), params)

  def checked_out_avals(self, avals_in: Sequence[ShapedArray], out: Any, params: dict
                        ) -> list[ShapedArray]:
    """`out`, what the abstract evaluation rule gave for `avals_in`, as a checked list."""
    if not self.multiple_results:
      if type(out) is ShapedArray or isinstance(out, ShapedArray):  # (the first: fast)
        out = [out]
      else:
        raise TypeError(self._bad_abstract_eval(out))
    elif isinstance(out, (list, tuple)) and all(isinstance(a, ShapedArray) for a in out):
      out = list(out)
    else:
      raise TypeError(self._bad_abstract_eval(out))
    return propagate(self, avals_in, out, params) if is_typed(avals_in) else out

  def _bad_abstract_eval(self, out: Any) -> str:
    want = ("a list of ShapedArrays (multiple_results=True)" if self.multiple_results
            else "a ShapedArray")
    return (f"the abstract evaluation rule of primitive '{self.name}' returned {out!r} of type "
            f"{type(out).__name__}; it must return {want}")


# ----------------------------------------------------------------------------------------------
# Traces and tracers

# The traces ended since the last leak check, under `config.check_tracer_leaks` (weakly: one
# kept alive by nothing but its tracers' references is what the check looks for).
ended_traces: list[weakref.ref] = []


class Trace:
  """Interprets primitives; `parent` is the trace its rules run under."""

  def __init__(self, parent: Trace | None):
    self.parent = parent
    self.valid = True

  def process_primitive(self, primitive: Primitive, args: Sequence, params: dict) -> Any:
    raise NotImplementedError

  def stage_value(self, x: Any) -> Any:
    """`x`, a constant, as a value of this trace without an equation, where the trace stages
    one (a literal or constvar of a jaxpr); None elsewhere."""
    return None

  def invalidate(self) -> None:
    """Called when the transformation ends: its tracers must not be used any more."""
    self.valid = False
    if config.check_tracer_leaks:
      ended_traces.append(weakref.ref(self))  # checked for leaks by `stablejax.leak_checks`

  def __repr__(self) -> str:
    return f"{type(self).__name__}"


def leak_error(tracer: Tracer) -> UnexpectedTracerError:
  """JAX's error for a tracer used after the transformation that made it returned."""
  return UnexpectedTracerError(
      f"Encountered an unexpected tracer: {tracer!r} was created by a {tracer._trace!r} "
      "transformation that has already returned, and escaped it (for example through a global, "
      "a closure or a side effect). A transformed function must return its traced values "
      "instead of storing them.")


class EvalTrace(Trace):
  """The bottom of every stack: applies primitives to concrete values. A primitive with an
  `impl` (a user primitive given one with `def_impl`, or `slice`) runs it; every other
  primitive goes to the pipeline's evaluator (`install_compiled_eval`), which compiles the
  built-ins once for their types and runs them on a device, and refuses a user's primitive (it
  needs an impl)."""

  def __init__(self):
    super().__init__(None)
    self.compiled_eval: Callable[[Primitive, Sequence, dict], Any] | None = None

  def process_primitive(self, primitive, args, params):
    for x in args:
      if isinstance(x, Tracer):
        raise leak_error(x)
    if primitive.impl is not None:
      return primitive.impl(*args, **params)
    if self.compiled_eval is None:
      raise NotImplementedError(f"Evaluation rule for '{primitive.name}' not implemented")
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


_state = trace_state = _TraceState()  # `trace_state.trace`: the current trace (hot paths)


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


# Forward an attribute of a tracer to its aval's (JAX's): a tracer `t` has the attribute `name`
# of its aval that is an `aval_property(fget)` as `fget(t)`, an `aval_method(fun)` as the bound
# method `fun` of `t`.
aval_property = namedtuple("aval_property", ["fget"])
aval_method = namedtuple("aval_method", ["fun"])


class Tracer(Array):
  """A value being traced by `_trace` (an `Array`, as JAX's tracers); the operators come from
  `stablejax.numpy`."""
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

  def __getattr__(self, name: str) -> Any:
    # (only when the usual lookup fails: never on a hot path)
    if not name.startswith("__") and name not in ("aval", "_trace"):
      attr = getattr(self.aval, name, None)
      if type(attr) is aval_property:
        return attr.fget(self)
      if type(attr) is aval_method:
        return types.MethodType(attr.fun, self)
    raise AttributeError(f"{type(self).__name__} has no attribute {name!r}")

  def __len__(self) -> int:
    if not self.shape:
      raise TypeError("len() of unsized object (a rank-0 traced value)")
    return self.shape[0]

  def __iter__(self):
    if not self.shape:
      raise TypeError("iteration over a rank-0 traced value")
    return (self[i] for i in range(self.shape[0]))

  def _concrete(self, what: str, error: type = ConcretizationTypeError) -> Any:
    """The concrete value, or `error` (JAX's class for the conversion `what`)."""
    val = self.to_concrete_value()
    if val is None:
      raise error(
          f"Abstract tracer value encountered where a concrete value is expected: {what} of "
          f"a traced value of type {self.aval.str_short()} ({self!r}). Python control flow "
          "can only depend on concrete values: under jit or make_jaxpr use lax.cond, "
          "lax.switch or lax.while_loop; under vmap use jnp.where or lax.select_n; or mark the "
          "argument static with static_argnums.")
    return val

  def __bool__(self) -> bool:
    return bool(self._concrete("bool()", TracerBoolConversionError))

  def __int__(self) -> int:
    return int(self._concrete("int()"))

  def __float__(self) -> float:
    return float(self._concrete("float()"))

  def __complex__(self) -> complex:
    return complex(self._concrete("complex()"))

  def __index__(self) -> int:
    return int(np.asarray(self._concrete("an index (__index__)", TracerIntegerConversionError))
               .item())

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
    raise leak_error(tracer)


# ----------------------------------------------------------------------------------------------
# Source locations (for debug info in emitted MLIR)

_PKG_DIR = os.path.dirname(os.path.abspath(__file__))
# In an editable install `lowering/` and `passes/` sit beside the package directory.
_LIB_DIRS = tuple(os.path.join(d, "") for d in (
    _PKG_DIR, os.path.join(os.path.dirname(_PKG_DIR), "lowering"),
    os.path.join(os.path.dirname(_PKG_DIR), "passes")))


# The Python standard library's frames (contextlib, functools, the frozen runpy of `python -m`)
# are not the user's either.
_NOT_USER = _LIB_DIRS + (os.path.join(os.path.dirname(os.__file__), ""), "<frozen ")
SOURCE_FRAMES_LIMIT = 8  # the user frames kept per equation: the call-site chain's length


def register_exclusion(path: str) -> None:
  """Frames of files under `path` are not the user's: a library built on stablejax (JAX's
  `source_info_util.register_exclusion`; flax registers its own folder)."""
  global _NOT_USER
  _NOT_USER = _NOT_USER + (os.path.join(os.path.abspath(path), ""),)


def is_user_path(path: str) -> bool:
  """Whether frames of the file `path` are the user's: not stablejax's, the standard library's
  or a registered exclusion's."""
  return not path.startswith(_NOT_USER)


class SourceInfo:
  """Where an equation comes from: `frames`, the user's frames that staged it, innermost first
  and at most SOURCE_FRAMES_LIMIT, as (code, last instruction) pairs (resolved to file, line
  and column only when locations are printed: `frame_position`), and `name_stack`, the
  transformations and scopes it was traced under, outermost first (`name_stack_str`)."""
  __slots__ = ("_frames", "_origin", "name_stack")

  def __init__(self, frames: tuple = (), name_stack: tuple = (), origin: Any = None):
    self._frames = frames
    # Where `frames` come from, read on first use: the whole stack (a jaxlib Traceback, filtered
    # to the user's frames) or the SourceInfo of the equation this one was transformed from.
    self._origin = origin
    self.name_stack = name_stack  # of (name, is_transform) pairs

  @property
  def frames(self) -> tuple:
    origin = self._origin
    if origin is not None:
      self._frames = origin.frames if type(origin) is SourceInfo else _user_frames(origin)
      self._origin = None
    return self._frames

  def __repr__(self) -> str:
    where = ", ".join("{}:{}:{} ({})".format(*frame_position(c, i)[:3], c.co_qualname)
                      for c, i in self.frames[:1])
    return f"SourceInfo({where or 'unknown'}, {name_stack_str(self.name_stack)!r})"


class _SourceState(threading.local):
  def __init__(self):
    # (origin, name stack): set by `source_context`, one attribute as every equation reads it
    # (origin set: the equations staged now share its frames)
    self.now: tuple[SourceInfo | None, tuple] = (None, ())


_source = _SourceState()
_get_traceback = xla_client.Traceback.get_traceback
_TRACEBACKS_LIMIT = 4096  # (tracebacks hold code objects: the table is bounded)
_infos: dict = {}  # `current_source_info`'s: traceback -> its SourceInfo (any thread's)


# traceback -> `_user_frames` (filtered once per line, whatever the name stack)
_frames_of: dict = {}


def _user_frames(traceback: Any) -> tuple:
  """The user's frames of a stack (innermost first): those below the innermost call into
  stablejax that are not the standard library's, at most SOURCE_FRAMES_LIMIT."""
  frames = _frames_of.get(traceback)
  if frames is None:
    frames = bounded(_frames_of, _TRACEBACKS_LIMIT)[traceback] = _filter_frames(traceback)
  return frames


def _filter_frames(traceback: Any) -> tuple:
  codes, lastis = traceback.raw_frames()
  i = 0
  while i < len(codes) and codes[i].co_filename.startswith(_LIB_DIRS):
    i += 1
  frames = []
  for code, lasti in zip(codes[i:], lastis[i:]):
    if len(frames) == SOURCE_FRAMES_LIMIT:
      break
    if not code.co_filename.startswith(_NOT_USER):
      frames.append((code, lasti))
  return tuple(frames)


def current_source_info() -> SourceInfo:
  """The source of an equation staged now: the user's frames calling into stablejax (or those
  of the equation being transformed, `source_context`) and the current name stack. The stack
  is captured by jaxlib's Traceback (C++, about 0.1 us) and filtered only when printed.

  Equations staged from the same place under the same name stack share one SourceInfo (they
  are immutable): a program staged in a loop keeps one per line, not one per equation (with
  its traceback, about 400 bytes: 40 MiB for 100,000 equations)."""
  origin, name_stack = _source.now
  if origin is not None:
    return SourceInfo((), name_stack, origin)
  tb = _get_traceback()
  info = _infos.get(tb)
  if info is None or info.name_stack is not name_stack:
    info = bounded(_infos, _TRACEBACKS_LIMIT)[tb] = SourceInfo((), name_stack, tb)
  return info


class source_context:
  """Context manager: equations staged inside it share the frames of `origin` (None: the
  user's frames, captured at each one) under `name_stack` (of (name, is_transform) pairs,
  outermost first)."""
  __slots__ = ("origin", "name_stack", "prev")

  def __init__(self, origin: SourceInfo | None, name_stack: tuple):
    self.origin = origin
    self.name_stack = name_stack

  def __enter__(self) -> None:
    self.prev = _source.now
    _source.now = self.origin, self.name_stack

  def __exit__(self, *exc: Any) -> None:
    _source.now = self.prev


def extend_name_stack(name: str, transform: bool = False) -> source_context:
  """Stage under a scope (`jit(f)`) or a transformation (`transform=True`: `jvp`, `vmap`,
  printed around what is inside it, `jvp(...)`) added to the name stack."""
  origin, name_stack = _source.now
  return source_context(origin, name_stack + ((name, transform),))


def new_name_stack() -> source_context:
  """Stage with an empty name stack (a new jaxpr: its caller's scopes are not its own)."""
  return source_context(_source.now[0], ())


def transformed_source(info: SourceInfo | None, transform: str | None = None
                       ) -> source_context:
  """Stage what a transformation makes of an equation from `info` (its transpose, its JVP)
  at the equation's frames, under the current name stack, `transform` and `info`'s stack."""
  origin, name_stack = _source.now
  outer = name_stack + (((transform, True),) if transform else ())
  if info is None:
    return source_context(origin, outer)
  return source_context(info, outer + info.name_stack)


@functools.lru_cache(maxsize=4096)
def name_stack_str(stack: tuple) -> str:
  """`stack` as JAX prints it: scopes joined by `/`, a transformation wrapping the entry after
  it (`transpose(jvp())`, `jvp(scope)`)."""
  parts: list[str] = []
  for name, transform in reversed(stack):
    if not transform:
      parts.append(name)
    elif parts:
      parts[-1] = f"{name}({parts[-1]})"
    else:
      parts.append(f"{name}()")
  return "/".join(reversed(parts))


_positions: dict[int, tuple] = {}  # id(code) -> (code, its positions); by identity, as a code
# object hashes all its constants (10 us for a module's code), and bounded (it keeps them)


def _code_positions(code: Any) -> tuple:
  hit = _positions.get(id(code))
  if hit is None or hit[0] is not code:
    hit = bounded(_positions, 512)[id(code)] = (code, tuple(code.co_positions()))
  return hit[1]


def frame_position(code: Any, lasti: int) -> tuple[str, int, int, int, int]:
  """(file, line, column, end line, end column) of the instruction at `lasti` in `code`."""
  positions = _code_positions(code)
  line, end_line, col, end_col = positions[lasti // 2] if 0 <= lasti // 2 < len(positions) \
      else (None,) * 4
  line = line if line is not None else code.co_firstlineno
  return (code.co_filename, line, col or 0, end_line if end_line is not None else line,
          end_col or 0)
