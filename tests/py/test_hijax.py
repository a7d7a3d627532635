"""`jax.experimental.hijax` (stablejax.experimental.hijax): JAX's names; a `HiPrimitive` on
arrays gets its methods as rules and gives JAX's values eagerly, under `jvp`, `grad` and
`make_jaxpr`; a high-level application runs its `to_lojax`; `aval_method` / `aval_property`
forward from tracers as in JAX; what stablejax cannot do (trace a value of a registered
high-level type, a tracer's quasi-dynamic data, a VJPHiPrimitive under a transformation, an
abstract_eval giving a high-level type or operand-dependent effects) is refused with an error
naming `jax.experimental.hijax`."""
import dataclasses

import numpy as np
import pytest

import stablejax as sj
import stablejax.numpy as sjnp
from stablejax import core
from stablejax.experimental import cur_qdd, hijax as hjx
from stablejax.interpreters import ad

jax = pytest.importorskip("jax")
import jax.experimental.hijax as jax_hjx  # noqa: E402
import jax.numpy as jnp  # noqa: E402


def test_the_names_are_jaxs():
  jax_names = {n for n in dir(jax_hjx) if not n.startswith("_")}
  assert set(hjx.__all__) == jax_names
  assert hjx.Zero is ad.Zero and hjx.ShapedArray is core.ShapedArray
  assert hjx.instantiate_zeros is ad.instantiate_zeros
  assert isinstance(core.ShapedArray((2,), np.float32), hjx.AbstractValue)
  assert issubclass(hjx.MutableHiType, hjx.AbstractValue)


def _scale3_program(h, lib, np_):
  """A primitive `3 * x` defined by its methods, under eval, jvp, grad and make_jaxpr."""
  class Scale3(h.HiPrimitive):
    def is_high(self, *avals, **params):
      return False

    def impl(self, x):
      return np_.asarray(x) * np.float32(3)

    def abstract_eval(self, x):
      return x, set()

    def jvp(self, primals, tangents):
      return self.bind(*primals), self.bind(*tangents)

    def transpose(self, ct, x):
      assert h.is_undefined_primal(x)
      return [self.bind(ct)]

  p = Scale3("scale3")
  x = np.array([1., 2.], np.float32)
  _, tangent = lib.jvp(p.bind, (x,), (np.ones(2, np.float32),))
  grad = lib.grad(lambda x: (p.bind(x) ** 2).sum())(x)
  jaxpr = lib.make_jaxpr(p.bind)(x)
  return (np.asarray(p.bind(x)), np.asarray(tangent), np.asarray(grad),
          [e.primitive.name for e in jaxpr.jaxpr.eqns])


def test_a_low_hiprimitive_has_its_methods_as_rules_as_in_jax():
  ours = _scale3_program(hjx, sj, sjnp)
  theirs = _scale3_program(jax_hjx, jax, jnp)
  for a, b in zip(ours[:3], theirs[:3]):
    np.testing.assert_array_equal(a, b)
  assert ours[3] == theirs[3] == ["scale3"]


def test_a_tracer_forwards_aval_methods_and_properties_as_in_jax(monkeypatch):
  def program(h, lib):
    monkeypatch.setattr(h.ShapedArray, "twice_ndim", h.aval_property(lambda t: 2 * t.ndim),
                        raising=False)
    monkeypatch.setattr(h.ShapedArray, "plus_rows",
                        h.aval_method(lambda t, k: t + t.shape[0] * k), raising=False)
    return lib.jit(lambda x: x.plus_rows(x.twice_ndim))(np.ones((3, 2), np.float32))

  ours = program(hjx, sj)
  theirs = program(jax_hjx, jax)
  np.testing.assert_array_equal(np.asarray(ours), np.asarray(theirs))
  with pytest.raises(AttributeError, match="no attribute 'not_an_attribute'"):
    sj.jit(lambda x: x.not_an_attribute)(1.0)


class _Box:
  """A mutable value of a high-level type: its state (quasi-dynamic data) is its content's
  type."""

  def __init__(self, val):
    self.val = val

  def cur_qdd(self):
    return core.get_aval(self.val)


@dataclasses.dataclass(frozen=True)
class _BoxTy(hjx.MutableHiType):
  pass


hjx.register_hitype(_Box, lambda b: _BoxTy())


class _NewBox(hjx.HiPrimitive):
  def to_lojax(self, x):
    return _Box(x)


class _BoxGet(hjx.HiPrimitive):
  def to_lojax(self, box):
    return box.val


new_box_p, box_get_p = _NewBox("new_box"), _BoxGet("box_get")


def test_a_high_application_runs_its_to_lojax_eagerly_and_under_transformations():
  def f(x):
    box = new_box_p.bind(x * 2)
    return box_get_p.bind(box) + 1

  x = np.array([1., 2.], np.float32)
  np.testing.assert_array_equal(f(x), [3., 5.])
  np.testing.assert_array_equal(sj.jit(f)(x), [3., 5.])
  np.testing.assert_array_equal(sj.grad(lambda x: f(x).sum())(x), [2., 2.])
  np.testing.assert_array_equal(sj.vmap(f)(x), [3., 5.])
  assert cur_qdd(new_box_p.bind(x)) == core.ShapedArray((2,), np.float32)


def test_a_value_of_a_high_level_type_is_not_traced():
  box = _Box(np.float32(1))
  with pytest.raises(TypeError, match="jax.experimental.hijax: a value of the high-level type "
                     "_Box .* cannot be an argument or a result of a transformation"):
    sj.jit(lambda b: box_get_p.bind(b))(box)
  with pytest.raises(TypeError, match="jax.experimental.hijax"):
    sj.jit(lambda x: new_box_p.bind(x))(np.float32(1))
  with pytest.raises(NotImplementedError, match="jax.experimental.hijax.cur_qdd: stablejax's "
                     "tracers carry no quasi-dynamic data"):
    sj.jit(cur_qdd)(np.float32(1))


def test_an_abstract_eval_stablejax_cannot_follow_is_refused():
  class Effect(core.Effect):
    pass

  class HighOut(hjx.HiPrimitive):
    def is_high(self, *avals):
      return False

    def abstract_eval(self, x):
      return hjx.AvalQDD(_BoxTy(), x), set()

  class Effectful(HighOut):
    def abstract_eval(self, x):
      return x, {Effect()}

  with pytest.raises(NotImplementedError, match="jax.experimental.hijax: the abstract_eval of "
                     "high_out gives the high-level type"):
    sj.make_jaxpr(HighOut("high_out").bind)(1.0)
  with pytest.raises(NotImplementedError, match="gives the effects .* which depend on its "
                     "operand types"):
    sj.make_jaxpr(Effectful("effectful").bind)(1.0)


class _Double(hjx.VJPHiPrimitive):
  def __init__(self, aval):
    self.in_avals, self.out_aval, self.params = (aval,), aval, {}
    super().__init__()

  def expand(self, x):
    return x * 2


def test_a_vjp_hiprimitive_expands_eagerly_and_is_refused_under_transformations():
  double = _Double(core.ShapedArray((2,), np.float32))
  x = np.array([1., 2.], np.float32)
  np.testing.assert_array_equal(double(x), [2., 4.])
  with pytest.raises(NotImplementedError, match="jax.experimental.hijax: .* under a "
                     "transformation .* does not take its vjp_fwd/vjp_bwd"):
    sj.grad(lambda x: double(x).sum())(x)
  with pytest.raises(AttributeError, match="should set `self.in_avals`"):
    hjx.VJPHiPrimitive()


def test_effect_sets_and_transformed_refs():
  class Effect(core.Effect):
    pass

  assert not hjx.control_flow_allowed_effects.contains(Effect())
  hjx.control_flow_allowed_effects.add_type(Effect)
  assert hjx.control_flow_allowed_effects.contains(Effect())
  with pytest.raises(NotImplementedError, match="jax.experimental.hijax.TransformedRef"):
    hjx.TransformedRef(None, ())
