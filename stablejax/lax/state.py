"""Mutable array references (JAX's `jax.ref`): the `Ref` type and its aval `AbstractRef`, the
primitives that make, read, write and end refs (`new_ref`, `empty_ref`, `get`, `swap`,
`addupdate`, `freeze`, `free_ref`), and for each its discharge rule: the same operation on the
ref's current value, functionally. Eagerly a `Ref` holds a device buffer that the rules
replace; staged, the `discharge` pass (passes/discharge.py) runs the rules over a jaxpr before
it is lowered, so no ref reaches the lowering."""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from stablejax import core, dtypes, jaxpr
from stablejax.core import ShapedArray
from stablejax.interpreters import ad, batching, flops
from stablejax.lax.elementwise import add, convert_element_type
from stablejax.lax.misc import copy_p
from stablejax.lax.primitive_kit import full, standard_primitive
from stablejax.lax.structural import (broadcast_in_dim, dynamic_slice, dynamic_update_slice,
                                      reshape)

__all__ = ["addupdate_p", "empty_ref_p", "free_ref_p", "freeze_p", "get_p", "new_ref_p",
           "swap_p"]


class AbstractRef(ShapedArray):
  """The type of a mutable reference to an array of type `inner_aval` (printed `Ref{f32[3]}`).
  Its shape and dtype are the array's; it equals only a ref type of the same array type."""
  __slots__ = ("inner_aval", "kind", "memory_space")
  is_ref = True

  def __init__(self, inner_aval: ShapedArray, kind: Any = None, memory_space: Any = None):
    super().__init__(inner_aval.shape, inner_aval.dtype, False)
    self.inner_aval = inner_aval.update(weak_type=False)
    self.kind, self.memory_space = kind, memory_space

  def __eq__(self, other: Any) -> bool:
    return type(other) is AbstractRef and self.inner_aval == other.inner_aval

  def __hash__(self) -> int:
    return hash(("Ref", self.inner_aval))

  def update(self, shape=None, dtype=None, weak_type=None, sharding=None) -> AbstractRef:
    return AbstractRef(self.inner_aval.update(shape, dtype, weak_type, sharding), self.kind,
                       self.memory_space)

  def to_tangent_aval(self) -> AbstractRef:
    return AbstractRef(self.inner_aval.to_tangent_aval(), self.kind, self.memory_space)

  def str_short(self) -> str:
    return f"Ref{{{self.inner_aval.str_short()}}}"

  __str__ = str_short

  def __repr__(self) -> str:
    return f"AbstractRef({self.inner_aval.str_short()})"

  def _getitem(self, ref: Any, idx: Any) -> Any:
    return ref_get(ref, idx)

  def _setitem(self, ref: Any, idx: Any, value: Any) -> None:
    ref_set(ref, idx, value)


class _RefMeta(type):
  def __instancecheck__(cls, inst: Any) -> bool:
    return super().__instancecheck__(inst) or (
        isinstance(inst, core.Tracer) and isinstance(inst.aval, AbstractRef))


class Ref(metaclass=_RefMeta):
  """A mutable array reference (`jax.Ref`), made by `new_ref`: read with `ref[idx]`, write with
  `ref[idx] = value` or `ref[idx] += value`, end with `freeze`. A tracer of a ref type is an
  instance too."""
  __slots__ = ("_aval", "_buf")

  def __init__(self, aval: AbstractRef, buf: Any):
    self._aval, self._buf = aval, buf

  aval = property(lambda self: self._aval)
  shape = property(lambda self: self._aval.shape)
  dtype = property(lambda self: self._aval.dtype)
  ndim = property(lambda self: self._aval.ndim)
  size = property(lambda self: self._aval.size)

  def __len__(self) -> int:
    if not self.shape:
      raise TypeError("len() of unsized object")
    return self.shape[0]

  def __getitem__(self, idx: Any) -> Any:
    return ref_get(self, idx)

  def __setitem__(self, idx: Any, value: Any) -> None:
    ref_set(self, idx, value)

  def addupdate(self, x: Any, idx: Any = ()) -> None:
    ref_addupdate(self, idx, x)

  @property
  def at(self) -> Any:
    raise NotImplementedError("Ref.at is not supported (nor in JAX 0.10.2)")

  def __repr__(self) -> str:
    text = repr(self._buf)
    return "Ref" + text[text.index("("):]


core.aval_handlers[Ref] = lambda r: r._aval


class RefEffect(core.Effect):
  """The effect of allocating, reading or writing a ref (JAX's `InternalMutableArrayEffect`)."""

  def __repr__(self) -> str:
    return "RefEffect"


ref_effect = RefEffect()

# primitive -> rule(value, *operands, **params) -> (the ref's new value, the outputs), for the
# primitives taking a ref first; the allocating ones give the ref's first value.
discharge_rules: dict[core.Primitive, Callable] = {}
allocators: dict[core.Primitive, Callable] = {}


def _state_primitive(name: str, abstract_eval: Callable, multiple_results: bool = False
                     ) -> core.Primitive:
  p = standard_primitive(name, abstract_eval, multiple_results)
  p.takes_refs = True
  p.def_effects(lambda **_: {ref_effect})
  flops.flops_rules[p] = flops.free  # moving data (addupdate's adds below)
  return p


def _impl(p: core.Primitive) -> Callable:
  """The eager evaluation of a ref access `p`: its discharge rule on the ref's buffer."""
  def impl(ref: Ref, *args: Any, **params: Any) -> Any:
    p.out_avals([ref.aval, *map(core.get_aval, args)], params)  # JAX's errors on bad operands
    ref._buf, out = discharge_rules[p](ref._buf, *args, **params)
    return out
  return impl


def _check_ref(aval: Any, what: str) -> AbstractRef:
  if not isinstance(aval, AbstractRef):
    raise TypeError(f"{what} requires a Ref, got a value of type {aval.str_short()}")
  return aval


# ----------------------------------------------------------------------------------------------
# Indexers: `ref[idx]` as one entry per dimension, its dynamic indices as operands

class Indexer:
  """A static description of `ref[idx]` for a ref of `shape`: per dimension an int (dropped),
  "dyn" (a traced scalar index, an operand; dropped) or (start, size, stride) (kept)."""
  __slots__ = ("entries", "shape")

  def __init__(self, entries: tuple, shape: tuple[int, ...]):
    self.entries, self.shape = entries, shape

  def __eq__(self, other: Any) -> bool:
    return type(other) is Indexer and (self.entries, self.shape) == (other.entries, other.shape)

  def __hash__(self) -> int:
    return hash((self.entries, self.shape))

  @property
  def out_shape(self) -> tuple[int, ...]:
    return tuple(e[1] for e in self.entries if type(e) is tuple)

  def text(self, name: Callable[[Any], str], dyn: Sequence[Any]) -> str:
    """`[...]`, or `[0,1:3]` with dynamic indices named by `name` (as JAX prints them)."""
    if all(type(e) is tuple and e == (0, d, 1) for e, d in zip(self.entries, self.shape)):
      return "[...]"
    it, parts = iter(dyn), []
    for e, d in zip(self.entries, self.shape):
      if e == "dyn":
        parts.append(name(next(it)))
      elif type(e) is tuple:
        parts.append(f"{e[0] or ''}:{'' if e[0] + e[1] == d else e[0] + e[1]}")
      else:
        parts.append(str(e))
    return f"[{','.join(parts)}]"

  def __repr__(self) -> str:
    return self.text(lambda _: "?", ["?"] * len(self.entries))


def _entry(x: Any, dim: int) -> tuple[Any, list]:
  if isinstance(x, slice):
    start, stop, stride = x.indices(dim)
    return (start, len(range(start, stop, stride)), stride), []
  if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
    if not -dim <= int(x) < dim:
      raise IndexError(f"index {int(x)} is out of bounds for axis of size {dim}")
    return int(x), []
  aval = core.get_aval(x)
  if aval.shape or not dtypes.is_integer(aval.dtype):
    raise NotImplementedError(f"a Ref is indexed by ints, slices and scalar integer indices; "
                              f"got an index of type {aval.str_short()}")
  return "dyn", [x]


def make_indexer(shape: tuple[int, ...], idx: Any) -> tuple[Indexer, list]:
  """The indexer of `ref[idx]` on a ref of `shape`, and its dynamic indices."""
  idx = idx if isinstance(idx, tuple) else (idx,)
  if sum(x is Ellipsis for x in idx) > 1:
    raise IndexError("an index can only have a single ellipsis ('...')")
  if Ellipsis in [x for x in idx if x is Ellipsis]:
    at = next(i for i, x in enumerate(idx) if x is Ellipsis)
    idx = idx[:at] + (slice(None),) * (len(shape) - len(idx) + 1) + idx[at + 1:]
  if len(idx) > len(shape):
    raise IndexError(f"too many indices for a Ref of rank {len(shape)}: {len(idx)}")
  idx = idx + (slice(None),) * (len(shape) - len(idx))
  entries, dyn = [], []
  for x, d in zip(idx, shape):
    e, operands = _entry(x, d)
    entries.append(e)
    dyn += operands
  return Indexer(tuple(entries), tuple(shape)), dyn


def _window(indexer: Indexer, dyn: Sequence[Any]) -> tuple[list, list[int]]:
  """The start (normalized) and size of `indexer`'s window in each dimension."""
  it, starts, sizes = iter(dyn), [], []
  for e, d in zip(indexer.entries, indexer.shape):
    if type(e) is tuple:
      if e[2] != 1 and e[1] > 1:
        raise NotImplementedError("a strided slice of a Ref is not supported")
      starts.append(np.int32(e[0]))
      sizes.append(e[1])
    elif e == "dyn":
      i = next(it)
      starts.append(i + (i < 0).astype(core.get_aval(i).dtype) * d)
      sizes.append(1)
    else:
      starts.append(np.int32(e % d))
      sizes.append(1)
  return starts, sizes


def _read(value: Any, indexer: Indexer, dyn: Sequence[Any]) -> Any:
  starts, sizes = _window(indexer, dyn)
  return reshape(dynamic_slice(value, starts, sizes), indexer.out_shape)


def _write(value: Any, update: Any, indexer: Indexer, dyn: Sequence[Any]) -> Any:
  starts, sizes = _window(indexer, dyn)
  return dynamic_update_slice(value, reshape(update, tuple(sizes)), starts)


def _index_avals(ref_aval: Any, what: str, indexer: Indexer, idx_avals: Sequence[Any]
                 ) -> AbstractRef:
  ref_aval = _check_ref(ref_aval, what)
  if indexer.shape != ref_aval.shape:
    raise TypeError(f"{what}: indexer for shape {indexer.shape} on a Ref of shape "
                    f"{ref_aval.shape}")
  return ref_aval


def _check_value(ref_aval: AbstractRef, v: ShapedArray, indexer: Indexer, what: str) -> None:
  if v.shape != indexer.out_shape:
    raise ValueError(f"Invalid shape for `{what}`. Ref shape: {ref_aval.shape}. Expected shape: "
                     f"{indexer.out_shape}. Value shape: {v.shape}.")
  if v.dtype != ref_aval.dtype:
    raise ValueError(f"Invalid dtype for `{what}`. Ref dtype: {ref_aval.dtype}. Value dtype: "
                     f"{v.dtype}.")


# ----------------------------------------------------------------------------------------------
# new_ref, empty_ref, freeze, free_ref

def _new_ref_abstract_eval(x: ShapedArray, *, memory_space: Any, kind: Any) -> AbstractRef:
  if isinstance(x, AbstractRef):
    raise TypeError(f"new_ref of a Ref ({x.str_short()}): refs cannot hold refs")
  return AbstractRef(x, kind, memory_space)


new_ref_p = _state_primitive("new_ref", _new_ref_abstract_eval)
allocators[new_ref_p] = lambda x, **_: copy_p.bind(x)


@new_ref_p.def_impl
def _new_ref_impl(x: Any, *, memory_space: Any, kind: Any) -> Ref:
  if memory_space is not None:
    raise NotImplementedError("array ref with memory space only works inside of a `jit`.")
  aval = core.get_aval(x)
  return Ref(AbstractRef(aval, kind), copy_p.bind(x))


empty_ref_p = _state_primitive("empty_ref", lambda *, ty, memory_space: AbstractRef(
    ty, memory_space=memory_space))
allocators[empty_ref_p] = lambda *, ty, memory_space: full(ty.shape, 0, ty.dtype)


jaxpr.param_printers[empty_ref_p] = lambda params: [
    ("memory_space", params["memory_space"]),
    ("ty", f"{params['ty'].dtype.name}[{','.join(map(str, params['ty'].shape))}]")]


@empty_ref_p.def_impl
def _empty_ref_impl(*, ty: ShapedArray, memory_space: Any) -> Any:
  raise NotImplementedError("Evaluation rule for 'empty_ref' not implemented")


freeze_p = _state_primitive("freeze", lambda r: _check_ref(r, "freeze").inner_aval)
discharge_rules[freeze_p] = lambda value: (value, value)
freeze_p.def_impl(_impl(freeze_p))

free_ref_p = _state_primitive("free_ref", lambda r: (_check_ref(r, "free_ref"), [])[1],
                              multiple_results=True)
discharge_rules[free_ref_p] = lambda value: (value, [])
free_ref_p.def_impl(_impl(free_ref_p))


# ----------------------------------------------------------------------------------------------
# get, swap, addupdate: operands (ref, [value,] *dynamic indices), param `indexer`

def _get_abstract_eval(ref: Any, *idx: ShapedArray, indexer: Indexer) -> ShapedArray:
  _index_avals(ref, "get", indexer, idx)
  return ShapedArray(indexer.out_shape, ref.dtype)


get_p = _state_primitive("get", _get_abstract_eval)
discharge_rules[get_p] = lambda value, *idx, indexer: (value, _read(value, indexer, idx))
get_p.def_impl(_impl(get_p))


def _swap_abstract_eval(ref: Any, v: ShapedArray, *idx: ShapedArray, indexer: Indexer
                        ) -> ShapedArray:
  _check_value(_index_avals(ref, "swap", indexer, idx), v, indexer, "swap")
  return ShapedArray(indexer.out_shape, ref.dtype)


def _swap_discharge(value: Any, v: Any, *idx: Any, indexer: Indexer) -> tuple[Any, Any]:
  return _write(value, v, indexer, idx), _read(value, indexer, idx)


swap_p = _state_primitive("swap", _swap_abstract_eval)
discharge_rules[swap_p] = _swap_discharge
swap_p.def_impl(_impl(swap_p))


def _addupdate_abstract_eval(ref: Any, v: ShapedArray, *idx: ShapedArray, indexer: Indexer
                             ) -> list:
  _check_value(_index_avals(ref, "addupdate", indexer, idx), v, indexer, "addupdate")
  return []


def _addupdate_discharge(value: Any, v: Any, *idx: Any, indexer: Indexer) -> tuple[Any, list]:
  return _write(value, add(_read(value, indexer, idx), v), indexer, idx), []


addupdate_p = _state_primitive("addupdate", _addupdate_abstract_eval, multiple_results=True)
discharge_rules[addupdate_p] = _addupdate_discharge
addupdate_p.def_impl(_impl(addupdate_p))
flops.flops_rules[addupdate_p] = lambda avals_in, avals_out, **_: avals_in[1].size


# ----------------------------------------------------------------------------------------------
# The user functions (`jax.ref`)

def _value_for(ref: Any, x: Any, indexer: Indexer) -> Any:
  """`x` as a value to store through `indexer`: a Python scalar or weakly typed value takes
  the ref's dtype, a scalar is broadcast to the window."""
  aval = core.get_aval(x)
  if aval.dtype != ref.dtype and (aval.weak_type or type(x) in (int, float, complex, bool)):
    x = convert_element_type(x, ref.dtype)
  if not core.get_aval(x).shape and indexer.out_shape and type(x) in (int, float, complex):
    x = broadcast_in_dim(x, indexer.out_shape, ())
  return x


def ref_get(ref: Any, idx: Any = ()) -> Any:
  """`ref[idx]`: the value read (`jax.ref.get`)."""
  indexer, dyn = make_indexer(core.get_aval(ref).shape, idx)
  return get_p.bind(ref, *dyn, indexer=indexer)


def ref_swap(ref: Any, idx: Any, value: Any) -> Any:
  """Write `value` at `ref[idx]`, returning what was there (`jax.ref.swap`)."""
  indexer, dyn = make_indexer(core.get_aval(ref).shape, idx)
  return swap_p.bind(ref, _value_for(ref, value, indexer), *dyn, indexer=indexer)


def ref_set(ref: Any, idx: Any, value: Any) -> None:
  """`ref[idx] = value` (`jax.ref.set`)."""
  ref_swap(ref, idx, value)


def ref_addupdate(ref: Any, idx: Any, x: Any) -> None:
  """`ref[idx] += x`, in place (`jax.ref.addupdate`)."""
  indexer, dyn = make_indexer(core.get_aval(ref).shape, idx)
  addupdate_p.bind(ref, _value_for(ref, x, indexer), *dyn, indexer=indexer)


def new_ref(init_val: Any, *, memory_space: Any = None, kind: str | None = None) -> Ref:
  """A mutable array reference holding a copy of `init_val` (`jax.new_ref`)."""
  return new_ref_p.bind(init_val, memory_space=memory_space, kind=kind)


def empty_ref(ty: Any, memory_space: Any = None) -> Ref:
  """A ref of type `ty` (anything with shape and dtype) with no value yet; only under a trace,
  as in JAX."""
  aval = ShapedArray(ty.shape, ty.dtype)
  return empty_ref_p.bind(ty=aval, memory_space=memory_space)


def freeze(ref: Any) -> Any:
  """The final value of `ref`, which must not be used afterwards (`jax.freeze`)."""
  return freeze_p.bind(ref)


def free_ref(ref: Any) -> tuple:
  """End `ref` (`jax.free_ref`)."""
  free_ref_p.bind(ref)
  return ()


# ----------------------------------------------------------------------------------------------
# Printing, as JAX prints refs: `b:f32[3] <- a[...]`, `a[1] <- v`, `c, a[1] <- a[1], v`,
# `a[...] += v`

def _pp_get(eqn: Any, name: Callable[[Any, bool], str]) -> str:
  ref, *idx = eqn.invars
  return f"{name(eqn.outvars[0], True)} <- {name(ref, False)}" + eqn.params["indexer"].text(
      lambda x: name(x, False), idx)


def _pp_swap(eqn: Any, name: Callable[[Any, bool], str]) -> str:
  ref, v, *idx = eqn.invars
  at = name(ref, False) + eqn.params["indexer"].text(lambda x: name(x, False), idx)
  out = name(eqn.outvars[0], True)
  if out.startswith("_"):  # a set: the old value is unused
    return f"{at} <- {name(v, False)}"
  return f"{out}, {at} <- {at}, {name(v, False)}"


def _pp_addupdate(eqn: Any, name: Callable[[Any, bool], str]) -> str:
  ref, v, *idx = eqn.invars
  at = name(ref, False) + eqn.params["indexer"].text(lambda x: name(x, False), idx)
  return f"{at} += {name(v, False)}"


jaxpr.eqn_printers[get_p] = _pp_get
jaxpr.eqn_printers[swap_p] = _pp_swap
jaxpr.eqn_printers[addupdate_p] = _pp_addupdate


# ----------------------------------------------------------------------------------------------
# vmap: a batched ref holds its batch axis first; reads and writes index it with a leading `:`

def _unbatched_ref_error(ref: Any) -> Exception:
  return Exception("performing a set/swap operation with vmapped value on an unbatched array "
                   f"reference of type {core.get_aval(ref).str_short()}. Move the array "
                   "reference to be an argument to the vmapped function?")


def _batch_indexer(indexer: Indexer, size: int) -> Indexer:
  return Indexer(((0, size, 1),) + indexer.entries, (size,) + indexer.shape)


def _batched_access(p: core.Primitive, has_value: bool) -> Callable:
  """The batching rule of `p` (get, swap, addupdate) for a batched ref or value; a batched
  index is not supported yet."""
  def rule(args: Sequence, dims: Sequence, *, indexer: Indexer) -> tuple:
    size = batching.axis_size_of(args, dims)
    ref, rest = args[0], list(args[1:])
    if any(d is not batching.not_mapped for d in dims[1 + has_value:]):
      raise NotImplementedError(f"vmap of a Ref {p.name} with a batched index")
    if dims[0] is batching.not_mapped:
      raise _unbatched_ref_error(ref)
    if has_value:
      rest[0] = batching.matchaxis(size, dims[1], 0, rest[0])
    out = p.bind(ref, *rest, indexer=_batch_indexer(indexer, size))
    return out, ([] if p.multiple_results else 0)
  return rule


batching.always_batched.update({new_ref_p, empty_ref_p})
batching.fancy_primitive_batchers[new_ref_p] = lambda axis, args, dims, **params: (
    new_ref_p.bind(batching.matchaxis(axis.size, dims[0], 0, args[0]), **params), 0)
batching.fancy_primitive_batchers[empty_ref_p] = lambda axis, args, dims, *, ty, memory_space: (
    empty_ref_p.bind(ty=ty.update(shape=(axis.size, *ty.shape)), memory_space=memory_space), 0)
batching.primitive_batchers[freeze_p] = lambda args, dims: (freeze_p.bind(*args), dims[0])
batching.primitive_batchers[free_ref_p] = lambda args, dims: (free_ref_p.bind(*args), [])
batching.primitive_batchers[get_p] = _batched_access(get_p, False)
batching.primitive_batchers[swap_p] = _batched_access(swap_p, True)
batching.primitive_batchers[addupdate_p] = _batched_access(addupdate_p, True)


# ----------------------------------------------------------------------------------------------
# JVP: a ref made under differentiation has a tangent ref (staged under `linearize`, whose
# linear jaxpr the discharge pass makes functional before it is transposed)

def _differentiated_ref_error(ref: Any) -> Exception:
  return Exception("performing a set/swap operation with a differentiated value on a "
                   f"non-differentiated array reference of type "
                   f"{core.get_aval(ref).str_short()}. Move the array reference to be an "
                   "argument of the differentiated function?")


def _access_jvp(p: core.Primitive, has_value: bool) -> Callable:
  def jvp(primals: Sequence, tangents: Sequence, *, indexer: Indexer) -> tuple:
    ref, *rest = primals
    out = p.bind(ref, *rest, indexer=indexer)
    tref, idx = tangents[0], rest[has_value:]
    if type(tref) is ad.Zero:
      if has_value and type(tangents[1]) is not ad.Zero:
        raise _differentiated_ref_error(ref)
      return out, ([] if p.multiple_results else ad.Zero.from_primal_value(out))
    value = [ad.instantiate_zeros(tangents[1])] if has_value else []
    return out, p.bind(tref, *value, *idx, indexer=indexer)
  return jvp


ad.always_differentiated.update({new_ref_p, empty_ref_p})
ad.primitive_jvps[new_ref_p] = lambda primals, tangents, **params: (
    new_ref_p.bind(*primals, **params),
    new_ref_p.bind(ad.instantiate_zeros(tangents[0]), **params))
ad.primitive_jvps[empty_ref_p] = lambda primals, tangents, *, ty, memory_space: (
    empty_ref_p.bind(ty=ty, memory_space=memory_space),
    empty_ref_p.bind(ty=ad.tangent_aval(ty), memory_space=memory_space))
ad.primitive_jvps[freeze_p] = lambda primals, tangents: (
    freeze_p.bind(*primals), ad.Zero(ad.tangent_aval(core.get_aval(primals[0]).inner_aval))
    if type(tangents[0]) is ad.Zero else freeze_p.bind(*tangents))
ad.primitive_jvps[free_ref_p] = lambda primals, tangents: (
    free_ref_p.bind(*primals),
    [] if type(tangents[0]) is ad.Zero else free_ref_p.bind(*tangents))
ad.primitive_jvps[get_p] = _access_jvp(get_p, False)
ad.primitive_jvps[swap_p] = _access_jvp(swap_p, True)
ad.primitive_jvps[addupdate_p] = _access_jvp(addupdate_p, True)
