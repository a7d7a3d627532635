"""Symbolic dimensions (`stablejax.shape_poly`, `export.symbolic_shape` & co) against JAX's
`jax.export` on the same expressions: printing, arithmetic, decisions, bounds and error types;
and tracing with symbolic shapes (jaxprs printed as JAX prints them)."""
import re

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
    ("b", (), lambda b: 7 // b), ("b", (), lambda b: (b * b) // b),
    ("b", (), lambda b: b.max(2 * b)),
    ("b", (), lambda b: b.max(3)), ("b", (), lambda b: b.min(3)), ("b", (), lambda b: 5 % b),
    ("b", (), lambda b: (b ** 3 - 1) // (b - 1)), ("b", (), lambda b: (b * b + 1) % (b + 1)),
    ("b", (), lambda b: b // -2), ("b", (), lambda b: (b * b + 2 * b + 1) // (b + 1)),
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
    ("b", (), lambda b: b % 3 <= 2), ("b", (), lambda b: b % 3 < 3),
    ("b", (), lambda b: b % 3 >= 1),
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
    ("b +", {}), ("b -* 2", {}), ("max(b)", {}), ("(b, 4))", {}), ("b, _", {}), ("b, ...", {}),
    ("2.5", {}),
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


# ----------------------------------------------------------------------------------------------
# Tracing with symbolic shapes: the same programs as JAX, on an f32[b,4] argument

def _jaxpr_text(mod, np_, fn, spec="b, 4", constraints=()):
  shape = mod.export.symbolic_shape(spec, constraints=constraints)
  closed = mod.make_jaxpr(lambda x: fn(mod, np_, x))(mod.ShapeDtypeStruct(shape, np.float32))
  # (known differences of printing: JAX's sharding params; JAX's np.int64 axes in some rules;
  # so the line breaks)
  text = re.sub(r" (out_)?sharding=None|np\.int64\((-?\d+)\)", lambda m: m.group(2) or "",
                str(closed))
  return " ".join(text.split()), [(str(a.shape), str(a.dtype)) for a in closed.out_avals]


# programs whose jaxprs print as JAX's
SAME_JAXPR = {
    "sin": lambda sj_, np_, x: np_.sin(x) * 2.0,
    "mean": lambda sj_, np_, x: np_.mean(x, axis=0),
    "reshape": lambda sj_, np_, x: x.reshape(-1),
    "reshape2": lambda sj_, np_, x: x.reshape((-1, 2)),
    "flatten": lambda sj_, np_, x: x.reshape(x.shape[0], -1),
    "dot": lambda sj_, np_, x: x @ np_.ones((4, 3)),
    "gram": lambda sj_, np_, x: x.T @ x,
    "outer": lambda sj_, np_, x: x @ x.T,
    "concat": lambda sj_, np_, x: np_.concatenate([x, x], axis=0),
    "bcast": lambda sj_, np_, x: x + np_.ones((4,)),
    "zeros": lambda sj_, np_, x: np_.zeros(x.shape),
    "expand": lambda sj_, np_, x: x[:, None],
    "broadcast_to": lambda sj_, np_, x: np_.broadcast_to(x[None], (3, x.shape[0], 4)),
    "mul_dim": lambda sj_, np_, x: x * x.shape[0],
    "div_dim": lambda sj_, np_, x: x / x.shape[0],
    "dim_value": lambda sj_, np_, x: np_.asarray(x.shape[0]),
    "grad": lambda sj_, np_, x: sj_.grad(lambda x: np_.sum(np_.sin(x)))(x),
    "vmap": lambda sj_, np_, x: sj_.vmap(lambda r: r @ np_.ones((4,)))(x),
    "scan": lambda sj_, np_, x: sj_.lax.scan(lambda c, r: (c + r, c), np_.zeros(4), x),
    "fori": lambda sj_, np_, x: sj_.lax.fori_loop(0, 3, lambda i, c: c * 2, x),
    "cond": lambda sj_, np_, x: sj_.lax.cond(True, lambda x: x, lambda x: -x, x),
    "jit": lambda sj_, np_, x: sj_.jit(lambda y: y + 1)(x),
    "argmax": lambda sj_, np_, x: np_.argmax(x, axis=0),
    "einsum": lambda sj_, np_, x: np_.einsum("bi,bj->ij", x, x),
    "ones_like": lambda sj_, np_, x: np_.ones_like(x),
    "eye": lambda sj_, np_, x: np_.eye(x.shape[0]),
    "repeat": lambda sj_, np_, x: np_.repeat(x, 2, axis=0),
    "vmap_sum": lambda sj_, np_, x: sj_.vmap(np_.sum)(x),
    "grad_mean": lambda sj_, np_, x: sj_.grad(lambda x: np_.mean(x ** 2))(x),
}

# programs whose jaxprs differ from JAX's in ways unrelated to shapes (JAX's jit-wrapped jnp
# functions, gathers where stablejax slices): their result types print the same
SAME_TYPES = {
    "sum": lambda sj_, np_, x: np_.sum(x, axis=1),
    "slice": lambda sj_, np_, x: x[1:],
    "half": lambda sj_, np_, x: x[: x.shape[0] // 2],
    "step": lambda sj_, np_, x: x[::2],
    "reversed": lambda sj_, np_, x: x[::-1],
    "index": lambda sj_, np_, x: x[0],
    "last": lambda sj_, np_, x: x[-1],
    "iota": lambda sj_, np_, x: np_.arange(x.shape[0]),
    "arange_from": lambda sj_, np_, x: np_.arange(2, x.shape[0], 3),
    "cumsum": lambda sj_, np_, x: np_.cumsum(x, axis=0),
    "where": lambda sj_, np_, x: np_.where(x > 0, x, 0.),
    "softmax": lambda sj_, np_, x: sj_.nn.softmax(x, axis=0),
    "var": lambda sj_, np_, x: np_.var(x, axis=0),
    "std": lambda sj_, np_, x: np_.std(x),
    "take": lambda sj_, np_, x: np_.take(x, np_.array([0, 1]), axis=0),
    "gather": lambda sj_, np_, x: x[np_.array([0, -1])],
    "dynamic_slice": lambda sj_, np_, x: sj_.lax.dynamic_slice_in_dim(x, 0, 1, axis=0),
    "pad": lambda sj_, np_, x: np_.pad(x, ((1, 1), (0, 0))),
    "flip": lambda sj_, np_, x: np_.flip(x, 0),
    "sort": lambda sj_, np_, x: np_.sort(x, axis=0),
    "stack": lambda sj_, np_, x: np_.stack([x, x]),
    "split": lambda sj_, np_, x: np_.split(x, 2, axis=1),
    "tile": lambda sj_, np_, x: np_.tile(x, (2, 1)),
    "squeeze": lambda sj_, np_, x: np_.squeeze(x[:, :1], 1),
    "normal": lambda sj_, np_, x: sj_.random.normal(sj_.random.key(0), x.shape),
    "log_softmax": lambda sj_, np_, x: -np_.mean(sj_.nn.log_softmax(x)),
    "layer_norm": lambda sj_, np_, x: (x - x.mean(-1, keepdims=True)) / np_.sqrt(
        x.var(-1, keepdims=True) + 1e-5),
    "half_reshape": lambda sj_, np_, x: x.reshape(x.shape[0] // 2, 8),
    "median": lambda sj_, np_, x: np_.median(x, axis=0),
    "roll": lambda sj_, np_, x: np_.roll(x, 1, axis=0),
    "diff": lambda sj_, np_, x: np_.diff(x, axis=0),
    "argwhere": lambda sj_, np_, x: np_.argwhere(x[:, 0] > 0, size=3),
    "fori_to_dim": lambda sj_, np_, x: sj_.lax.fori_loop(0, x.shape[0], lambda i, c: c + x[i],
                                                         np_.zeros(4)),
    "window_sum": lambda sj_, np_, x: sj_.lax.reduce_window(x, 0., sj_.lax.add, (2, 1), (1, 1),
                                                            "VALID"),
    "map": lambda sj_, np_, x: sj_.lax.map(np_.sum, x),
    "vmap_axis_size": lambda sj_, np_, x: sj_.vmap(lambda: np_.float32(1),
                                                   axis_size=x.shape[0])(),
    "update_at_dim": lambda sj_, np_, x: sj_.lax.dynamic_update_slice(x, np_.ones((1, 4)),
                                                                      (x.shape[0] - 1, 0)),
    "slice_at_dim": lambda sj_, np_, x: sj_.lax.dynamic_slice(x, (x.shape[0] // 2, 1), (1, 2)),
    "update_index": lambda sj_, np_, x: sj_.lax.dynamic_update_index_in_dim(
        x, np_.ones(4), np_.argmin(x[:, 1]), 0),
    "at_set_traced": lambda sj_, np_, x: x.at[np_.argmax(x[:, 0])].set(0.),
    "segment_sum": lambda sj_, np_, x: sj_.ops.segment_sum(x, np_.arange(x.shape[0]) % 3, 3),
}


@pytest.mark.parametrize("name", SAME_JAXPR)
def test_jaxpr_printed_as_jax(name):
  assert _jaxpr_text(sj, jnp, SAME_JAXPR[name]) == _jaxpr_text(jax, jjnp, SAME_JAXPR[name])


@pytest.mark.parametrize("name", SAME_TYPES)
def test_result_types_as_jax(name):
  assert _jaxpr_text(sj, jnp, SAME_TYPES[name])[1] == _jaxpr_text(jax, jjnp, SAME_TYPES[name])[1]


def test_eval_shape_and_trace_with_constraints():
  b, = export.symbolic_shape("d", constraints=["d >= 2"])
  spec = sj.ShapeDtypeStruct((b, 3), np.float32)
  out = sj.eval_shape(lambda x: jnp.concatenate([x, x[:1]]), spec)
  assert str(out.shape) == "(d + 1, 3)" and out.dtype == np.float32
  traced = sj.jit(lambda x: x.sum(0)).trace(spec)
  assert str(traced.jaxpr) == \
      "{ lambda ; a:f32[d,3]. let b:f32[3] = reduce_sum[axes=(0,)] a in (b,) }"


# programs with symbolic shapes that JAX refuses: the same error type
ERRORS = {
    "broadcast_b_3": lambda sj_, np_, x: x @ np_.ones((3, 4)),
    "reshape_not_divisible": lambda sj_, np_, x: x.reshape(3, -1),
    "contract_b_4": lambda sj_, np_, x: x[:, None] @ x,
    "concat_mismatch": lambda sj_, np_, x: np_.concatenate([x, np_.ones((3, 3))]),
    "negative_dim": lambda sj_, np_, x: np_.zeros((x.shape[0] - 3,)),
    "split_uneven": lambda sj_, np_, x: np_.split(x, 2, axis=0),
    "python_int": lambda sj_, np_, x: np_.zeros(int(x.shape[0])),
    "python_range": lambda sj_, np_, x: [x[i] for i in range(x.shape[0])],
    "index_by_dim": lambda sj_, np_, x: x.at[x.shape[0] - 1].set(0.),
    "update_start_inconclusive": lambda sj_, np_, x: sj_.lax.dynamic_update_slice(
        x, x[:1], (x.shape[0] - 2, 0)),
    "convolve": lambda sj_, np_, x: np_.convolve(x[:, 0], np_.ones(3)),
    "convolve_valid": lambda sj_, np_, x: np_.convolve(np_.ones(7), x[:, 0], mode="valid"),
    "correlate": lambda sj_, np_, x: np_.correlate(x[:, 0], np_.ones(3), mode="same"),
    "associative_scan": lambda sj_, np_, x: sj_.lax.associative_scan(sj_.lax.add, x),
    "permutation": lambda sj_, np_, x: sj_.random.permutation(sj_.random.key(0), x),
    "permutation_of_dim": lambda sj_, np_, x: sj_.random.permutation(sj_.random.key(0),
                                                                     x.shape[0]),
    "shuffle": lambda sj_, np_, x: sj_.random.permutation(sj_.random.key(0), x, 1, True),
}


@pytest.mark.parametrize("name", ERRORS)
def test_tracing_error_types_as_jax(name):
  ours = _outcome(lambda: _jaxpr_text(sj, jnp, ERRORS[name]), ())
  theirs = _outcome(lambda: _jaxpr_text(jax, jjnp, ERRORS[name]), ())
  assert ours == theirs and isinstance(ours, str)


# Layers as keras builds them, traced with keras's one dimension for every unknown size
# (`dynamic_dimension >= 2`): the same result types as JAX's
KERAS_LIKE = {
    "conv": ("img", lambda sj_, np_, x: sj_.lax.conv_general_dilated(
        x, np_.ones((3, 3, 3, 4)), (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))),
    "maxpool": ("img", lambda sj_, np_, x: sj_.lax.reduce_window(
        x, -np_.inf, sj_.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")),
    "global_pool": ("img", lambda sj_, np_, x: np_.mean(x, axis=(1, 2))),
    "flatten": ("img", lambda sj_, np_, x: np_.reshape(x, (-1, 8 * 8 * 3))),
    "batch_norm": ("img", lambda sj_, np_, x: (x - np_.mean(x, axis=(0, 1, 2))) / np_.sqrt(
        np_.var(x, axis=(0, 1, 2)) + 1e-3)),
    "dropout": ("img", lambda sj_, np_, x: np_.where(
        sj_.random.bernoulli(sj_.random.key(0), 0.5, x.shape), x / 0.5, 0)),
    "embedding": ("ids", lambda sj_, np_, i: np_.take(np_.ones((10, 4)), i, axis=0)),
    "one_hot": ("ids", lambda sj_, np_, i: sj_.nn.one_hot(i, 10)),
    "rnn": ("seq", lambda sj_, np_, x: sj_.lax.scan(lambda c, r: (np_.tanh(c + r), c),
                                                    np_.zeros((x.shape[0], 5)),
                                                    np_.swapaxes(x, 0, 1))[0]),
    "attention": ("seq", lambda sj_, np_, x: sj_.nn.softmax(
        np_.einsum("bqd,bkd->bqk", x, x) / np_.sqrt(5.0), axis=-1) @ x),
    "causal_mask": ("seq", lambda sj_, np_, x: np_.where(
        np_.tril(np_.ones((x.shape[1], x.shape[1]), bool)), 1., 0.)),
    "top_k": ("seq", lambda sj_, np_, x: sj_.lax.top_k(x, 2)[0]),
    "merge_axes": ("seq", lambda sj_, np_, x: x.reshape((-1, 5))),
    "dense_grad": ("seq", lambda sj_, np_, x: sj_.grad(lambda w: np_.mean((x @ w) ** 2))(
        np_.ones((5, 3)))),
    "update": ("seq", lambda sj_, np_, x: x.at[:, 0].set(0.)),
    "while": ("seq", lambda sj_, np_, x: sj_.lax.while_loop(
        lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * 2), (0, x))[1]),
    "size": ("seq", lambda sj_, np_, x: x.size * np_.ones(())),
    "resize": ("img", lambda sj_, np_, x: sj_.image.resize(x, (x.shape[0], 16, 16, 3), "bilinear")),
}


def keras_spec(mod, arg: str):
  """The argument of a KERAS_LIKE layer in library `mod`, its batch dimension keras's own
  symbolic `dynamic_dimension`."""
  d, = mod.export.symbolic_shape("(dynamic_dimension)", constraints=["dynamic_dimension>=2"])
  shape, dtype = {"img": ((d, 8, 8, 3), np.float32), "seq": ((d, d, 5), np.float32),
                  "ids": ((d, 7), np.int32)}[arg]
  return mod.ShapeDtypeStruct(shape, dtype)


@pytest.mark.parametrize("name", KERAS_LIKE)
def test_keras_like_layers_as_jax(name):
  arg, fn = KERAS_LIKE[name]

  def result_types(mod, np_):
    out = mod.eval_shape(lambda x: fn(mod, np_, x), keras_spec(mod, arg))
    return [(str(o.shape), str(o.dtype)) for o in mod.tree_util.tree_leaves(out)]

  assert result_types(sj, jnp) == result_types(jax, jjnp)
