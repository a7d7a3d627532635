"""Symbolic dimensions (`stablejax.shape_poly`, `export.symbolic_shape` & co) against JAX's
`jax.export` on the same expressions: printing, arithmetic, decisions, bounds and error types;
and tracing with symbolic shapes (jaxprs printed as JAX prints them)."""
import numpy as np
import pytest

import jax
import jax.numpy as jjnp
from jax import export as jexport
from jax._src.export import shape_poly as jsp  # (its bounds: jax.export has no public API)

import stablejax as sj
import stablejax.numpy as jnp
from stablejax import errors, export, shape_poly

# (specification, constraints, expression of the dims): printed as JAX prints it
EXPRESSIONS = [
    ("b", (), lambda b: b), ("b", (), lambda b: 2 * b), ("b", (), lambda b: b + 1),
    ("b", (), lambda b: b - 1), ("b", (), lambda b: 3 - b), ("b", (), lambda b: -b),
    ("b", (), lambda b: b // 2), ("b", (), lambda b: b % 2), ("b", (), lambda b: b * b),
    ("b", (), lambda b: (2 * b) // 2), ("b", (), lambda b: (2 * b + 1) // 2),
    ("b", (), lambda b: (2 * b + 1) % 2), ("b", (), lambda b: (4 * b + 2) // 4),
    ("b", (), lambda b: b ** 3 - 2 * b), ("b", (), lambda b: (b + 1) * (b - 1)),
    ("b", (), lambda b: 7 // b), ("b", (), lambda b: (b * b) // b), ("b", (), lambda b: b.max(2 * b)),
    ("b", (), lambda b: b.max(3)), ("b", (), lambda b: b.min(3)), ("b", (), lambda b: 5 % b),
    ("a, b", (), lambda a, b: a + b), ("a, b", (), lambda a, b: b * a + a),
    ("a, b", (), lambda a, b: a.max(b) + a.min(b)), ("a, b", (), lambda a, b: (a * b) // b),
    ("a, b", (), lambda a, b: a // b), ("a, b", (), lambda a, b: (a + 2 * b) % b),
    ("a, b", (), lambda a, b: b - a), ("a, b", (), lambda a, b: (a - b) * (a + b)),
    ("a, b", ("a == 2*b",), lambda a, b: a), ("a, b", ("a == 2*b",), lambda a, b: a // 2),
    ("a, b", ("a == 2*b",), lambda a, b: a * b), ("a, b", ("a >= b",), lambda a, b: a.max(b)),
    ("a, b", ("a >= b",), lambda a, b: a.min(b)),
    ("b", ("mod(b, 2) == 0",), lambda b: 2 * (b // 2)),
    ("b", ("b >= 4",), lambda b: b.max(3)),
    ("mod(b, 2), floordiv(b, 3) + 1, max(a, b), min(a, 3), b^2, -2", (), lambda *ds: ds),
    ("(b, 4)", (), lambda *ds: ds), ("b, 2*b", (), lambda *ds: ds),
]


def _both(spec, constraints, fn):
  ours = fn(*export.symbolic_shape(spec, constraints=constraints))
  theirs = fn(*jexport.symbolic_shape(spec, constraints=constraints))
  return ours, theirs


@pytest.mark.parametrize("spec, constraints, fn", EXPRESSIONS)
def test_expression_printed_as_jax(spec, constraints, fn):
  ours, theirs = _both(spec, constraints, fn)
  assert str(ours) == str(theirs)
  assert type(ours) is int or export.is_symbolic_dim(ours) or isinstance(ours, tuple)


# (specification, constraints, comparison): the same answer as JAX, or both inconclusive
COMPARISONS = [
    ("b", (), lambda b: b >= 1), ("b", (), lambda b: b >= 2), ("b", (), lambda b: b > 0),
    ("b", (), lambda b: b < 1), ("b", (), lambda b: 2 * b >= b), ("b", (), lambda b: b <= 5),
    ("b", (), lambda b: b == 1), ("b", (), lambda b: b != b + 0), ("b", (), lambda b: b >= b // 2),
    ("b", (), lambda b: b % 3 <= 2), ("b", (), lambda b: b % 3 < 3), ("b", (), lambda b: b % 3 >= 1),
    ("b", (), lambda b: 2 * (b // 2) <= b), ("b", (), lambda b: b - b // 2 >= 0),
    ("b", (), lambda b: b.max(3) >= 3), ("b", (), lambda b: b.max(3) >= b),
    ("b", (), lambda b: b.min(3) <= 3), ("b", (), lambda b: b.min(3) <= b),
    ("b", (), lambda b: b * b >= b), ("b", (), lambda b: b * b >= 1),
    ("a, b", (), lambda a, b: a >= b), ("a, b", (), lambda a, b: a + b >= 2),
    ("a, b", (), lambda a, b: a * b >= 1), ("a, b", (), lambda a, b: a == b),
    ("a, b", ("a >= b",), lambda a, b: a >= b), ("a, b", ("a >= b",), lambda a, b: a + 1 > b),
    ("a, b", ("a >= b",), lambda a, b: a > b), ("a, b", ("a >= b", "b >= 3"), lambda a, b: a >= 3),
    ("a, b", ("a <= 5",), lambda a, b: a < 6), ("a, b", ("a <= 5",), lambda a, b: a <= 4),
    ("a, b", ("a == 2*b",), lambda a, b: a >= b), ("a, b", ("a == 2*b",), lambda a, b: a == 2 * b),
    ("d", ("d >= 2",), lambda d: d >= 2), ("d", ("d >= 2",), lambda d: d > 2),
    ("d", ("d >= 2",), lambda d: d != 1),
]


def _outcome(fn, dims):
  try:
    return fn(*dims)
  except Exception as e:  # the error's type is the answer
    return type(e).__name__


@pytest.mark.parametrize("spec, constraints, fn", COMPARISONS)
def test_comparison_decided_as_jax(spec, constraints, fn):
  ours = _outcome(fn, export.symbolic_shape(spec, constraints=constraints))
  theirs = _outcome(fn, jexport.symbolic_shape(spec, constraints=constraints))
  assert ours == theirs


def test_inconclusive_is_jax_errors_class():
  b, = export.symbolic_shape("b")
  with pytest.raises(errors.InconclusiveDimensionOperation, match="'b' >= '2' is inconclusive"):
    b >= 2
  with pytest.raises(errors.InconclusiveDimensionOperation, match="requires a constant"):
    int(b)
  with pytest.raises(TypeError):  # as JAX's: not an index
    range(b)
  assert errors.InconclusiveDimensionOperation.__mro__[1] is Exception
  assert export.is_symbolic_dim(b) and not export.is_symbolic_dim(3)


@pytest.mark.parametrize("spec, constraints, fn", [
    ("b", (), lambda b: b), ("b", (), lambda b: b - 3), ("b", (), lambda b: b % 4),
    ("b", (), lambda b: b // 3), ("b", (), lambda b: 5 - b), ("d", ("d >= 2",), lambda d: d),
    ("a, b", ("a >= b", "b <= 5"), lambda a, b: b), ("a, b", ("a >= b",), lambda a, b: a - b),
    ("a, b", ("a <= 5",), lambda a, b: a.max(b)), ("b", (), lambda b: b - 2 * (b // 2)),
])
def test_bounds_as_jax(spec, constraints, fn):
  ours = fn(*export.symbolic_shape(spec, constraints=constraints))
  theirs = fn(*jexport.symbolic_shape(spec, constraints=constraints))
  assert export.symbolic_dim_bounds(ours) == jsp._bounds_decision(theirs,
                                                                  jsp.BoundsPrecision.BEST)


@pytest.mark.parametrize("spec, kwargs", [
    ("b +", {}), ("b -* 2", {}), ("max(b)", {}), ("(b, 4))", {}), ("b, _", {}), ("b, ...", {}), ("2.5", {}),
    ("b", {"constraints": "b >= 2"}), ("b", {"constraints": ["b > 2"]}),
    ("b", {"constraints": ["1 >= 2"]}), ("b", {"constraints": ["b + a == 3"]}),
    (3, {}), ("_, 4", {"like": (None, 4)}), ("b, 3", {"like": (2, 4)}),
])
def test_bad_specification_same_error_type(spec, kwargs):
  ours = _outcome(lambda: export.symbolic_shape(spec, **kwargs), ())
  theirs = _outcome(lambda: jexport.symbolic_shape(spec, **kwargs), ())
  assert ours == theirs and isinstance(ours, str)


def test_placeholders_from_like():
  assert str(export.symbolic_shape("_, b, ...", like=(2, None, 5, 6))) == "(2, b, 5, 6)"
  assert export.symbolic_shape(None, like=(2, 3)) == (2, 3)


def test_scopes_do_not_mix():
  a, = export.symbolic_shape("a")
  a2, = export.symbolic_shape("a")
  assert a != a2
  with pytest.raises(ValueError, match="Invalid mixing of symbolic scopes"):
    a + a2
  scope = export.SymbolicScope(["a >= 3"])
  a3, = export.symbolic_shape("a", scope=scope)
  b3, = export.symbolic_shape("b", scope=scope)
  assert a3 >= 3 and {a3: 1}[export.symbolic_shape("a", scope=scope)[0]] == 1
  with pytest.raises(ValueError, match="Cannot specify both"):
    export.symbolic_shape("a", scope=scope, constraints=["a >= 1"])
  assert str(a3 + b3) == "b + a"


def test_symbolic_args_specs_as_jax():
  args = (np.zeros((3, 4), np.float32), {"y": np.zeros((5,), np.int32)})
  ours = export.symbolic_args_specs(args, ("b, _", {"y": "c"}))
  theirs = jexport.symbolic_args_specs(args, ("b, _", {"y": "c"}))
  assert str(ours) == str(theirs).replace("jax.ShapeDtypeStruct", "ShapeDtypeStruct")
  ours = export.symbolic_args_specs(args, "...", constraints=["b >= 1"])
  assert ours[0].shape == (3, 4)
