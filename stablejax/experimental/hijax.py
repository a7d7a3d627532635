"""`jax.experimental.hijax`: JAX's extension API for high-level types and the primitives on them.

stablejax gives the parts its machinery can honestly do:
- `Zero`, `instantiate_zeros`, `is_undefined_primal`, `ShapedArray`, `AbstractValue`,
  `AbstractRef`, `aval_method` / `aval_property` (a tracer forwards them from its aval) are
  stablejax's own;
- a `HiPrimitive`'s methods are its rules: `is_high` says whether an application involves
  high-level types; such an application runs its `to_lojax` (under every trace, as JAX's traces
  that require low-level values do), any other is an ordinary primitive with `impl`,
  `abstract_eval` (returning `(avals, effects)`), `jvp` and `transpose` as its rules;
- a `VJPHiPrimitive` evaluates eagerly by its `expand`.

What stablejax cannot do is trace a value of a high-level type: a value registered with
`register_hitype` has no stablejax type, so it cannot be an argument or a result of a
transformation, and a tracer carries no quasi-dynamic data (`cur_qdd`). Those, and a
`VJPHiPrimitive` under a transformation, are refused with an error naming
`jax.experimental.hijax`."""
from __future__ import annotations

import dataclasses
from typing import Any, Callable

from stablejax import core
from stablejax.core import AbstractValue, ShapedArray, aval_method, aval_property
from stablejax.interpreters import ad
from stablejax.interpreters.ad import Zero, instantiate_zeros, is_undefined_primal
from stablejax.lax.state import AbstractRef
from stablejax.tree_util import tree_flatten, tree_leaves, tree_unflatten

__all__ = [
    "AbstractRef", "AbstractValue", "AvalMutableQDD", "AvalQDD", "HiPrimitive", "HiPspec",
    "HiType", "MutableHiType", "ShapedArray", "TransformedRef", "VJPHiPrimitive", "Zero",
    "aval_method", "aval_property", "control_flow_allowed_effects",
    "instantiate_zeros", "is_undefined_primal", "register_hitype",
]

_WHAT = "jax.experimental.hijax"


class EffectTypeSet:
  """A set of effect types (JAX's `effects.EffectTypeSet`): `add_type`, `contains`."""

  def __init__(self):
    self._effect_types: set[type[core.Effect]] = set()

  def add_type(self, effect_type: type[core.Effect]) -> None:
    self._effect_types.add(effect_type)

  def contains(self, effect: core.Effect) -> bool:
    return any(isinstance(effect, t) for t in self._effect_types)

  def __repr__(self) -> str:
    return f"EffectTypeSet({self._effect_types})"


# The effect types control flow admits. stablejax's control flow admits every effect, so this
# records what libraries declare and restricts nothing.
control_flow_allowed_effects = EffectTypeSet()


# ----------------------------------------------------------------------------------------------
# High-level types

class HiType(AbstractValue):
  """The type of immutable values of a high-level type (JAX's interface: `lo_ty`,
  `lower_val`, `raise_val`, `to_tangent_aval`, ... given by a subclass)."""
  is_high = True
  has_qdd = False

  def to_ct_aval(self) -> AbstractValue:
    return self.to_tangent_aval()


class MutableHiType(AbstractValue):
  """The type of mutable values of a high-level type, whose current state is their
  quasi-dynamic data (JAX's interface: `lo_ty_qdd`, `new_from_loval`, `read_loval`,
  `update_from_loval`, `to_tangent_aval` given by a subclass)."""
  is_high = True
  has_qdd = True
  is_writer = False

  def to_ct_aval(self) -> AbstractValue:
    return self.to_tangent_aval()


@dataclasses.dataclass(frozen=True)
class AvalQDD:
  """A mutable high-level type with its quasi-dynamic data (what an `abstract_eval` of a
  high-level application returns in JAX)."""
  aval: AbstractValue
  qdd: Any
  is_high = True
  has_qdd = True


@dataclasses.dataclass
class AvalMutableQDD:
  """A mutable high-level type with its quasi-dynamic data, updatable in place."""
  aval: AbstractValue
  mutable_qdd: Any


class HiPspec:
  """The partition spec of a high-level type (JAX's interface for `shard_map`: `to_lo`,
  `to_tangent_spec`, `to_ct_spec` given by a subclass)."""


class TransformedRef:
  """A view of a ref through indexing transforms (JAX's `ref.at[...]`): stablejax's refs have
  none (`Ref.at` is refused), so no value is one and none can be made."""

  def __init__(self, *args: Any, **kwargs: Any):
    raise NotImplementedError(f"{_WHAT}.TransformedRef: stablejax's refs have no transformed "
                              "views (Ref.at); index the ref instead")


# value class -> the function giving a value's high-level type
hitype_typeofs: dict[type, Callable[[Any], AbstractValue]] = {}


def register_hitype(val_cls: type, typeof_fn: Callable[[Any], AbstractValue]) -> None:
  """Declare `val_cls`'s values to be of the high-level type `typeof_fn(value)`. Such values are
  not traceable by stablejax: asked for their stablejax type (an argument or result of `jit`,
  `grad`, `vmap`, ..., or `typeof`), they are refused."""
  hitype_typeofs[val_cls] = typeof_fn

  def refuse(value: Any) -> ShapedArray:
    raise TypeError(
        f"{_WHAT}: a value of the high-level type {val_cls.__qualname__} (register_hitype) "
        "cannot be traced by stablejax: it has no stablejax type, so it cannot be an argument "
        "or a result of a transformation (jit, grad, vmap, ...); pass the arrays it holds")
  core.aval_handlers[val_cls] = refuse


def _hi_typeof(x: Any) -> Any:
  typeof_fn = hitype_typeofs.get(type(x))
  return core.get_aval(x) if typeof_fn is None else typeof_fn(x)


def cur_qdd(x: Any) -> Any:
  """The quasi-dynamic data (current state) of `x`, a value of a mutable high-level type."""
  if isinstance(x, core.Tracer):
    raise NotImplementedError(f"{_WHAT}.cur_qdd: stablejax's tracers carry no quasi-dynamic "
                              f"data (traced value {x!r})")
  return x.cur_qdd()


MutableHiType.type_state = aval_method(cur_qdd)


# ----------------------------------------------------------------------------------------------
# Primitives

class HiPrimitive(core.Primitive):
  """A primitive given by its methods (JAX's hijax primitive). An application for which
  `is_high(*types, **params)` holds (the default) is replaced by `to_lojax(*args, **params)`
  under the current trace; any other is an ordinary primitive whose rules are `impl`,
  `abstract_eval` (returning `(avals, effects)`), `jvp` and `transpose`."""

  def __init__(self, name: str):
    # (not Primitive.__init__: its `impl` and `abstract_eval` would hide the methods)
    self.name = name
    self.effects_rule = None
    ad.primitive_jvps[self] = self.jvp
    ad.primitive_transposes[self] = self.transpose

  def is_high(self, *avals: Any, **params: Any) -> bool:
    return True

  def bind(self, *args: Any, **params: Any) -> Any:
    if self.is_high(*map(_hi_typeof, args), **params):
      return self.to_lojax(*args, **params)
    return super().bind(*args, **params)

  def out_avals(self, avals_in: Any, params: dict) -> list[ShapedArray]:
    out, effects = self.abstract_eval(*avals_in, **params)
    outs = out if self.multiple_results and isinstance(out, (list, tuple)) else [out]
    high = [a for a in outs if not isinstance(a, ShapedArray)]
    if high:
      raise NotImplementedError(
          f"{_WHAT}: the abstract_eval of {self.name} gives the high-level type {high[0]!r}; "
          "stablejax traces arrays only (make is_high hold for this application, so that "
          "to_lojax replaces it)")
    if effects:
      raise NotImplementedError(
          f"{_WHAT}: the abstract_eval of {self.name} gives the effects {set(effects)}, which "
          "depend on its operand types; stablejax's primitives take their effects from their "
          "params (Primitive.def_effects)")
    return self.checked_out_avals(avals_in, out, params)

  def impl(self, *args: Any, **params: Any) -> Any:
    raise NotImplementedError(f"Evaluation rule for '{self.name}' not implemented")

  def abstract_eval(self, *avals: Any, **params: Any) -> Any:
    raise NotImplementedError(f"{type(self).__name__} must override abstract_eval")

  def to_lojax(self, *args: Any, **params: Any) -> Any:
    raise NotImplementedError(f"{type(self).__name__} must override to_lojax")

  def jvp(self, primals: Any, tangents: Any, **params: Any) -> Any:
    raise NotImplementedError(f"{type(self).__name__} must override jvp")

  def transpose(self, *args: Any, **params: Any) -> Any:
    raise NotImplementedError(f"{type(self).__name__} must override transpose")


class VJPHiPrimitive:
  """An operation given by its methods (JAX's new-style hijax primitive): a subclass's
  `__init__` sets `in_avals`, `out_aval` and `params`, `expand(*args)` computes it from
  low-level operations, `vjp_fwd` / `vjp_bwd_retval`, `jvp` and `batch` are its rules.
  stablejax evaluates an application eagerly by `expand`; under a transformation it would need
  those rules, which it cannot take, and refuses."""
  effects: frozenset = frozenset()

  def __init__(self):
    for attr in ("in_avals", "out_aval", "params"):
      if not hasattr(self, attr):
        raise AttributeError(f"subclass __init__ should set `self.{attr}`")
    self.in_avals_flat, self.in_tree = tree_flatten(self.in_avals)
    self.out_avals_flat, self.out_tree = tree_flatten(self.out_aval)
    self.__dict__.update(self.params)
    self.check(*self.in_avals)

  def check(self, *arg_tys: Any) -> None:
    """Check the operand types (a subclass may override)."""

  def expand(self, *args: Any) -> Any:
    raise NotImplementedError(f"subclass {type(self)} must implement `expand`")

  def __call__(self, *args: Any) -> Any:
    leaves = tree_leaves(args)
    tracer = next((x for x in leaves if isinstance(x, core.Tracer)), None)
    if tracer is not None or not core.is_evaluating():
      raise NotImplementedError(
          f"{_WHAT}: {self!r} applied under a transformation ({core.current_trace()!r}): "
          "stablejax evaluates a VJPHiPrimitive eagerly by its `expand` only, and does not "
          "take its vjp_fwd/vjp_bwd, jvp or batch rules (use jax.custom_vjp for custom rules)")
    if len(leaves) != len(self.in_avals_flat):
      raise TypeError(f"{self!r} takes {len(self.in_avals_flat)} array arguments, got "
                      f"{len(leaves)}")
    out = self.expand(*args)
    return tree_unflatten(self.out_tree, tree_leaves(out))

  def __repr__(self) -> str:
    return f"{type(self).__name__}[{self.params}]"

  def __hash__(self) -> int:
    return hash((type(self).__name__, tuple(self.params.items()), self.effects))

  def __eq__(self, other: Any) -> bool:
    return (type(self) is type(other) and self.params == other.params
            and self.effects == other.effects)
