"""Passes: the jaxpr passes (DCE, CSE, inlining, constant folding, algebraic simplification),
MLIR pipelines, and the registry that chooses them."""
import collections
import re

import jax
import jax.numpy as jaxnp
import numpy as np
import pytest
from jaxlib.mlir import ir

import stablejax as sj
import stablejax.numpy as jnp
from stablejax import lax, passes
from stablejax.lowering.context import make_ir_context
from stablejax.jaxpr import (ClosedJaxpr, Jaxpr, JaxprEqn, JaxprTypeError, Literal, Var,
                             check_jaxpr, jaxpr_as_fun)
from stablejax.test_util import check_close


def test_dce_removes_unused_equations():
  closed = sj.make_jaxpr(lambda x: (jnp.sin(x), jnp.cos(x))[1])(1.0)
  assert [e.primitive.name for e in closed.eqns] == ["sin", "cos"]
  cleaned = passes.dce_closed_jaxpr(closed)
  assert [e.primitive.name for e in cleaned.eqns] == ["cos"]
  check_jaxpr(cleaned.jaxpr)
  check_close(jaxpr_as_fun(cleaned)(0.5)[0], np.cos(0.5))


def test_dce_keeps_a_live_jaxpr_as_is():
  closed = sj.make_jaxpr(lambda x: jnp.sin(x) * 2.0)(1.0)
  assert passes.dce_closed_jaxpr(closed) is closed


def test_dce_finds_dead_equations_among_live_ones():
  """A dead chain (`cos`, then `+ 1` on it) in the middle of live equations, and an unused
  result of a multiple-results primitive beside a used one (whose equation stays)."""
  def f(x):
    a = jnp.sin(x)
    b = jnp.cos(a) + 1.0
    del b
    q, _ = lax.sort_key_val(a, x)
    return jnp.exp(q) * 2.0
  x = np.linspace(0, 1, 4, dtype=np.float32)
  closed = sj.make_jaxpr(f)(x)
  cleaned = passes.dce_closed_jaxpr(closed)
  names = [e.primitive.name for e in cleaned.eqns]
  assert "cos" in [e.primitive.name for e in closed.eqns] and "cos" not in names
  assert names == ["sin", "sort", "exp", "mul"]
  check_close(jaxpr_as_fun(cleaned)(x)[0], np.exp(np.sort(np.sin(x))) * 2)


def test_dce_pruning_again_still_finds_unused_inputs():
  """A jaxpr the dce pass (its inputs instantiated) left as is still reports an unused input
  when pruned again without instantiating (jit's keep_unused=False check); one using every
  input is answered at once, the same as pruning it."""
  unused = sj.make_jaxpr(lambda x, y: x * 2.0)(1.0, 2.0)
  assert passes.dce_jaxpr(unused) is unused
  assert passes.prune_jaxpr(unused, [True], False)[1] == [True, False]
  used = sj.make_jaxpr(lambda x, y: x * y)(1.0, 2.0)
  assert passes.dce_jaxpr(used) is used
  assert passes.prune_jaxpr(used, [True], False) == (used, [True, True])
  assert sj.jit(lambda x, y: x * 2.0)(3.0, 4.0) == 6.0


def test_dce_cleans_sub_jaxprs_once():
  inner = sj.jit(lambda x: (jnp.sin(x), jnp.exp(x))[0])
  closed = sj.make_jaxpr(lambda x: inner(x) + inner(x + 1.0))(1.0)
  cleaned = passes.dce_closed_jaxpr(closed)
  callees = [e.params["jaxpr"] for e in cleaned.eqns if e.primitive.name == "jit"]
  assert len(callees) == 2 and callees[0] is callees[1]
  assert [e.primitive.name for e in callees[0].eqns] == ["sin"]


def test_jit_lowering_drops_dead_primal_work():
  text = sj.jit(sj.grad(jnp.sin)).lower(1.0).as_text()
  assert "stablehlo.cosine" in text and "stablehlo.sine" not in text
  # the jaxpr itself is unchanged, as in JAX
  assert "sin" in str(sj.make_jaxpr(sj.grad(jnp.sin))(1.0))


def _nested():
  inner = sj.jit(lambda x, y: (jnp.sin(x) * y, x + 1.0))

  @sj.jit
  def middle(x):
    a, b = inner(x, 2.0)
    return inner(a, b)[0] + np.arange(3, dtype=np.float32)
  return lambda x: middle(x) + inner(x, x)[1]


def test_inline_calls_flattens_nested_jits():
  x = np.linspace(0, 1, 3).astype(np.float32)
  closed = sj.make_jaxpr(_nested())(x)
  flat = passes.inline_calls(closed)
  assert "jit" in [e.primitive.name for e in closed.eqns]
  assert "jit" not in [e.primitive.name for e in flat.eqns]
  check_jaxpr(flat.jaxpr)
  check_close(jaxpr_as_fun(flat)(x)[0], jaxpr_as_fun(closed)(x)[0])
  check_close(jaxpr_as_fun(flat)(x)[0], _nested()(x))


def test_inline_calls_lowers_to_one_function():
  from stablejax import lowering
  x = np.ones(3, np.float32)
  closed = sj.make_jaxpr(_nested())(x)
  assert "call @" in str(lowering.lower_jaxpr(closed, "f"))
  text = str(lowering.lower_jaxpr(passes.inline_calls(closed), "f"))
  assert "call @" not in text and "func.func private" not in text


def test_inline_calls_without_calls_is_the_identity():
  closed = sj.make_jaxpr(lambda x: x * 2.0)(1.0)
  assert passes.inline_calls(closed) is closed


# ----------------------------------------------------------------------------------------------
# Helpers: every pass result is type-checked and computes what the input does


def _names(closed):
  return [e.primitive.name for e in closed.eqns]


def _run(closed, names, *args):
  """`names` run on `closed`, type-checked, with values equal to `closed`'s on `args`."""
  out = passes.run(closed, names)
  check_jaxpr(out.jaxpr)
  if args:
    check_close(jaxpr_as_fun(out)(*args), jaxpr_as_fun(closed)(*args))
  return out


def _sub(closed, prim_name, param):
  return next(e.params[param] for e in closed.eqns if e.primitive.name == prim_name)


_X = np.linspace(-1, 1, 6).astype(np.float32)


# ----------------------------------------------------------------------------------------------
# DCE rules of higher-order primitives


def test_dce_prunes_unused_scan_outputs_and_the_carries_only_they_need():
  def f(x):
    def body(c, xi):
      a, b = c
      return (a + xi, b * xi), (jnp.sin(a), jnp.cos(b))  # b only feeds its own carry and ys[1]
    (a, _), (ys, _) = lax.scan(body, (0.0, 1.0), x)
    return a + ys.sum()
  closed = sj.make_jaxpr(f)(_X)
  out = _run(closed, ["dce"], _X)
  scan = next(e for e in out.eqns if e.primitive.name == "scan")
  assert (scan.params["num_carry"], len(scan.outvars), len(scan.invars)) == (1, 2, 2)
  assert "cos" not in str(out) and "cos" in str(closed)


def test_dce_keeps_carries_a_live_carry_reads():
  def f(x):
    def body(c, xi):
      a, b = c
      return (a + b, b * 2.0), a  # a reads b: b stays though its final value is unused
    (a, _), _ = lax.scan(body, (0.0, 1.0), x)
    return a
  out = _run(sj.make_jaxpr(f)(_X), ["dce"], _X)
  scan = next(e for e in out.eqns if e.primitive.name == "scan")
  assert scan.params["num_carry"] == 2 and len(scan.outvars) == 2  # the ys is gone


def test_dce_prunes_unused_while_carries():
  def f(x):
    def body(c):
      i, a, b = c
      return i + 1, a * 2.0, b + jnp.exp(a)  # b: read by nobody
    return lax.while_loop(lambda c: c[0] < 3, body, (0, x, x))[1]
  closed = sj.make_jaxpr(f)(_X)
  out = _run(closed, ["dce"], _X)
  loop = next(e for e in out.eqns if e.primitive.name == "while")
  assert len(loop.outvars) == 2 and "exp" not in str(out)  # i stays: the predicate reads it
  check_close(sj.jit(f)(_X), _X * 8)


def test_dce_prunes_unused_cond_outputs_and_operands():
  def f(x, y):
    a, _ = lax.cond(x.sum() > 0, lambda x, y: (jnp.sin(x), jnp.exp(y)),
                    lambda x, y: (x, jnp.log(y)), x, y)
    return a
  closed = sj.make_jaxpr(f)(_X, _X + 2)
  out = _run(closed, ["dce"], _X, _X + 2)
  cond = next(e for e in out.eqns if e.primitive.name == "cond")
  assert len(cond.outvars) == 1 and len(cond.invars) == 2  # the index and x
  assert "exp" not in str(out) and "log" not in str(out)


def test_dce_prunes_unused_jit_outputs_once_per_callee():
  inner = sj.jit(lambda x: (jnp.sin(x), jnp.exp(x)))
  closed = sj.make_jaxpr(lambda x: inner(x)[0] + inner(x * 2.0)[0])(_X)
  out = _run(closed, ["dce"], _X)
  callees = [e.params["jaxpr"] for e in out.eqns if e.primitive.name == "jit"]
  assert len(callees) == 2 and callees[0] is callees[1]
  assert _names(callees[0]) == ["sin"] and len(callees[0].out_avals) == 1


def test_dce_cleans_custom_derivative_bodies():
  @sj.custom_jvp
  def g(x):
    return (jnp.exp(x), jnp.sin(x))[1]
  g.defjvp(lambda p, t: (g(p[0]), jnp.cos(p[0]) * t[0]))
  closed = sj.make_jaxpr(g)(1.0)
  assert "exp" in str(closed)
  out = _run(closed, ["dce"], 1.0)
  assert "exp" not in str(out) and "sin" in str(out)


def test_dce_prunes_unused_checkpoint_outputs():
  def f(x):
    a, _ = sj.checkpoint(lambda x: (jnp.sin(x), jnp.exp(x)))(x)
    return a
  out = _run(sj.make_jaxpr(f)(_X), ["dce"], _X)
  remat = next(e for e in out.eqns if e.primitive.name == "remat2")
  assert len(remat.outvars) == 1 and "exp" not in str(out)
  check_close(sj.jit(sj.grad(lambda x: f(x).sum()))(_X), np.cos(_X))


def test_dce_prunes_unused_custom_jvp_outputs_and_its_rule():
  @sj.custom_jvp
  def g(x):
    return jnp.sin(x), jnp.exp(x)
  g.defjvp(lambda p, t: (g(p[0]), (jnp.cos(p[0]) * t[0], jnp.exp(p[0]) * t[0])))
  out = _run(sj.make_jaxpr(lambda x: g(x)[0])(_X), ["dce"], _X)
  call = next(e for e in out.eqns if e.primitive.name == "custom_jvp_call")
  assert len(call.outvars) == 1 and "exp" not in str(call.params["call_jaxpr"])
  primal, tangent = sj.jvp(jaxpr_as_fun(out), (_X,), (np.ones_like(_X),))
  check_close(primal[0], np.sin(_X))
  check_close(tangent[0], np.cos(_X))


def test_dce_prunes_unused_custom_vjp_outputs_and_its_rules():
  @sj.custom_vjp
  def g(x):
    return jnp.sin(x), jnp.exp(x)
  g.defvjp(lambda x: (g(x), x), lambda x, cts: (jnp.cos(x) * cts[0] + jnp.exp(x) * cts[1],))
  out = _run(sj.make_jaxpr(lambda x: g(x)[1])(_X), ["dce"], _X)
  call = next(e for e in out.eqns if e.primitive.name == "custom_vjp_call")
  assert len(call.outvars) == 1 and "sin" not in str(call.params["call_jaxpr"])
  check_close(sj.grad(lambda x: jaxpr_as_fun(out)(x)[0].sum())(_X), np.exp(_X))


def test_dce_keeps_effects_inside_loops(capfd):
  def f(x):
    def body(c, xi):
      sj.debug.print("x={}", xi, ordered=True)
      return c, jnp.sin(xi)
    return lax.scan(body, 0.0, x)[0]
  x = np.array([1.0, 2.0], np.float32)
  out = _run(sj.make_jaxpr(f)(x), ["dce"])
  assert "debug_callback" in str(out) and "sin" not in str(out)
  sj.jit(f)(x)
  assert capfd.readouterr().out == "x=1.0\nx=2.0\n"


def _scan_program(lax_, np_):
  def f(x):
    def body(c, xi):
      c2 = lax_.sin(c) * xi
      return c2, c2 * 2.0
    c, ys = lax_.scan(body, x[0], x)
    return (c + np_.sum(ys)).sum()
  return f


def _op_counts(text, ops=("dynamic_slice", "dynamic_update_slice", "while")):
  """Op counts of `@main` with each `call` counted as its callee's ops (JAX calls a private
  function per slice)."""
  bodies = dict(re.findall(r"func\.func (?:public|private) @(\w+)\(.*?\n(.*?)\n  }", text, re.S))

  def count(name):
    body = bodies[name]
    total = collections.Counter(re.findall(r"stablehlo\.([a-z_]+)", body))
    for callee in re.findall(r"call @(\w+)\(", body):
      total += count(callee)
    return total
  counts = count("main")
  return {op: counts[op] for op in ops}


def test_grad_of_scan_lowers_to_jaxs_op_counts():
  x = np.ones((5, 3), np.float32)
  ours = sj.jit(sj.grad(_scan_program(lax, jnp))).lower(x).as_text()
  theirs = jax.jit(jax.grad(_scan_program(jax.lax, jaxnp))).lower(x).as_text()
  # the forward loop slices xs once and stacks 2 residuals (not the dead ys), as JAX's does
  assert _op_counts(ours) == _op_counts(theirs) == {
      "dynamic_slice": 5, "dynamic_update_slice": 3, "while": 2}
  check_close(sj.jit(sj.grad(_scan_program(lax, jnp)))(x),
              jax.grad(_scan_program(jax.lax, jaxnp))(x))


# ----------------------------------------------------------------------------------------------
# CSE


def test_cse_merges_repeated_equations_and_nested_jit_calls():
  inner = sj.jit(lambda x: jnp.sin(x) * 2.0)

  def f(x):
    return inner(x) + inner(x) + jnp.cos(x) * jnp.cos(x) + jnp.sum(x, 0) + jnp.max(x, 0)
  closed = sj.make_jaxpr(f)(_X)
  out = _run(closed, ["cse"], _X)
  assert _names(closed).count("jit") == 2 and _names(out).count("jit") == 1
  assert _names(out).count("cos") == 1
  assert "reduce_sum" in _names(out) and "reduce_max" in _names(out)  # different params


def test_cse_inside_sub_jaxprs_and_literals_by_value():
  def f(x):
    return lax.scan(lambda c, xi: (c + xi * 3.0 + xi * 3.0, c), 0.0, x)
  closed = sj.make_jaxpr(f)(_X)
  out = _run(closed, ["cse"], _X)
  assert _names(_sub(out, "scan", "jaxpr")).count("mul") == 1


def test_cse_never_merges_effectful_equations(capfd):
  def f(x):
    sj.debug.print("hi", ordered=True)
    sj.debug.print("hi", ordered=True)
    return x
  out = _run(sj.make_jaxpr(f)(1.0), ["cse"])
  assert _names(out).count("debug_callback") == 2
  sj.jit(f, passes=["cse"])(1.0)
  assert capfd.readouterr().out == "hi\nhi\n"


def test_cse_on_a_hand_built_jaxpr():
  a = Var(sj.core.ShapedArray((3,), np.float32))
  b, c, d = (Var(a.aval) for _ in range(3))
  eqns = [JaxprEqn([a], [b], lax.exp_p, {}), JaxprEqn([a], [c], lax.exp_p, {}),
          JaxprEqn([b, c], [d], lax.add_p, {})]
  closed = ClosedJaxpr(Jaxpr([], [a], [d], eqns), [])
  out = _run(closed, ["cse"], _X)
  assert _names(out) == ["exp", "add"] and out.eqns[1].invars == [b, b]


# ----------------------------------------------------------------------------------------------
# inlining, constant folding, simplification


def test_inline_inside_sub_jaxprs():
  inner = sj.jit(lambda x: jnp.sin(x) + 1.0)
  closed = sj.make_jaxpr(lambda x: lax.scan(lambda c, xi: (c + inner(xi), c), 0.0, x))(_X)
  out = _run(closed, ["inline"], _X)
  assert "jit" not in str(out) and "sin" in _names(_sub(out, "scan", "jaxpr"))


def test_constant_folding_folds_small_results_only():
  def f(x):
    small = jnp.arange(4.0) * 2.0 + 1.0
    big = jnp.ones(2000) * 3.0
    return x.sum() + small.sum() + big.sum() + lax.exp(np.float32(2.0))
  closed = sj.make_jaxpr(f)(_X)
  out = _run(closed, ["constant_folding", "dce"], _X)
  assert "iota" not in _names(out) and "exp" not in _names(out)
  assert out.consts == []  # the folded [4] arrays fed a sum that folded too
  assert "mul" in _names(out)  # ones(2000) * 3 is not materialized
  limited = passes.fold_constants(closed, max_size=2)
  assert "iota" in _names(limited)


def test_constant_folding_makes_array_consts_of_the_top_jaxpr():
  closed = sj.make_jaxpr(lambda x: x + jnp.arange(6.0, dtype=np.float32) * 2.0)(_X)
  out = _run(closed, ["constant_folding"], _X)
  assert _names(out) == ["add"] and len(out.consts) == 1
  check_close(out.consts[0], np.arange(6.0) * 2.0)


def test_constant_folding_inside_sub_jaxprs_makes_literals():
  def f(x):
    return lax.scan(lambda c, xi: (c + xi * (np.float32(2.0) * np.float32(3.0)), c), 0.0, x)
  closed = sj.make_jaxpr(lambda x: f(x * lax.exp(np.float32(0.0))))(_X)
  out = _run(closed, ["constant_folding"], _X)
  assert "exp" not in _names(out)


def test_constant_folding_keeps_effects_and_control_flow(capfd):
  def f(x):
    sj.debug.print("{}", np.float32(1.0), ordered=True)
    return lax.cond(True, lambda: np.float32(1.0), lambda: np.float32(2.0)) + x
  out = _run(sj.make_jaxpr(f)(1.0), ["constant_folding"], 1.0)
  assert "debug_callback" in _names(out) and "cond" in _names(out)


def test_simplify_identities():
  def f(x):
    b = jnp.transpose(jnp.transpose(x.reshape(3, 2))).reshape(6) * 1.0 + 0.0 - 0.0
    c = lax.convert_element_type(-(-b), np.float32)
    d = lax.broadcast_in_dim(c, (6,), (0,))
    return lax.select_n(True, x, d), 1.0 * x
  closed = sj.make_jaxpr(f)(_X)
  out = _run(closed, ["simplify", "dce"], _X)
  assert _names(out) == [] and out.jaxpr.outvars == [out.jaxpr.invars[0]] * 2


def test_simplify_composes_transposes_and_reshapes():
  x = np.arange(24.0, dtype=np.float32).reshape(2, 3, 4)
  f = lambda x: lax.transpose(lax.transpose(x, (1, 2, 0)), (1, 0, 2)).reshape(4, 6).reshape(24)
  out = _run(sj.make_jaxpr(f)(x), ["simplify", "dce"], x)
  assert _names(out) == ["transpose", "reshape"]
  assert out.eqns[0].params["permutation"] == (2, 1, 0)


def test_simplify_never_changes_a_type():
  def f(x, i):
    return (x * 1.0, lax.convert_element_type(x, np.float32), i + 0, 2.0 * 1.0)
  closed = sj.make_jaxpr(f)(1.0, 3)  # x is a weak f32[]: x * 1.0 stays weak
  out = _run(closed, ["simplify"], np.float32(1.0), 3)
  assert [v.aval for v in out.jaxpr.outvars] == [v.aval for v in closed.jaxpr.outvars]
  x = np.ones(3, np.float32)
  widened = sj.make_jaxpr(lambda x: x * np.ones((2, 3), np.float32))(x)  # broadcasting stays
  assert "mul" in _names(_run(widened, ["simplify"], x))


def test_simplify_on_a_hand_built_jaxpr_with_a_literal_scalar():
  a = Var(sj.core.ShapedArray((3,), np.float32))
  b, c = Var(a.aval), Var(a.aval)
  one = Literal(1.0, sj.core.ShapedArray((), np.float32))
  eqns = [JaxprEqn([one, a], [b], lax.mul_p, {}), JaxprEqn([b], [c], lax.neg_p, {})]
  out = _run(ClosedJaxpr(Jaxpr([], [a], [c], eqns), []), ["simplify"], _X)
  assert _names(out) == ["neg"] and out.eqns[0].invars == [a]


# ----------------------------------------------------------------------------------------------
# Every pass on traced whole programs


def _mlp(params, x):
  for w, b in params:
    x = jnp.tanh(x @ w + b)
  return jnp.sum(x ** 2)


_ALL = ["inline", "constant_folding", "simplify", "cse", "dce"]


@pytest.mark.parametrize("name", _ALL + ["all"])
def test_each_pass_keeps_whole_programs_equal(name):
  rng = np.random.default_rng(0)
  params = [(rng.normal(size=(4, 5)).astype(np.float32), np.zeros(5, np.float32)),
            (rng.normal(size=(5, 3)).astype(np.float32), np.ones(3, np.float32))]
  x = rng.normal(size=(2, 4)).astype(np.float32)
  names = _ALL if name == "all" else [name]
  programs = [
      (sj.jit(sj.grad(_mlp)), (params, x)),
      (sj.vmap(sj.grad(lambda x: jnp.sum(jnp.sin(x) * x))), (x,)),
      (sj.grad(_scan_program(lax, jnp)), (np.ones((5, 3), np.float32),)),
      (lambda x: lax.fori_loop(0, 3, lambda i, c: c * 2.0 + i, x), (x,)),
  ]
  for fun, args in programs:
    expected = sj.jit(fun, passes=[])(*args)
    check_close(sj.jit(fun, passes=names)(*args), expected)
    flat = sj.tree_util.tree_leaves(args)
    closed = sj.make_jaxpr(fun)(*args)
    _run(closed, names, *flat)


# ----------------------------------------------------------------------------------------------
# The registry: one way to choose


def test_register_and_choose_a_jaxpr_pass():
  seen = []

  def count(closed):
    seen.append(len(closed.eqns))
    return closed
  passes.register("test_count", count)
  f = lambda x: jnp.sin(x) * 2.0
  assert sj.jit(f, passes=["test_count"])(_X).shape == (6,)
  sj.jit(f).lower(_X, passes=["dce", "test_count"])
  assert passes.run(sj.make_jaxpr(f)(_X), ["test_count"]) is not None
  assert seen == [2, 2, 2]
  assert "test_count" in passes.registered("jaxpr")


def test_config_default_and_jit_cache_follow_the_choice():
  calls = []
  passes.register("test_calls", lambda closed: (calls.append(1), closed)[1])
  f = sj.jit(lambda x: x + 1.0)
  f(_X)
  old = sj.config.passes
  try:
    sj.config.update("passes", ["dce", "test_calls"])
    assert sj.config.passes == ("dce", "test_calls")
    f(_X)
    f(_X)
    assert calls == [1]  # compiled again once for the new choice, then cached
  finally:
    sj.config.update("passes", old)
  assert sj.jit(lambda x: inner_twice(x), passes=["cse"]).lower(_X).as_text().count("call @") == 1


def test_traced_lower_takes_passes():
  traced = sj.jit(_cse_program).trace(_X)
  assert traced.lower(passes=["dce", "cse"]).as_text().count("stablehlo.sine") == 1
  assert traced.lower().as_text().count("stablehlo.sine") == 2


def inner_twice(x):
  inner = sj.jit(jnp.sin)
  return inner(x) + inner(x)


def test_unknown_pass_names_are_clear_errors():
  with pytest.raises(ValueError, match="unknown pass 'nope'.*registered jaxpr passes.*dce"):
    sj.jit(jnp.sin, passes=["nope"])
  with pytest.raises(ValueError, match="unknown pass"):
    sj.jit(jnp.sin).lower(_X, passes=["nope"])
  with pytest.raises(ValueError, match="level must be"):
    passes.register("x", lambda c: c, level="hlo")


def test_a_bad_mlir_pipeline_lists_what_is_known():
  with pytest.raises(ValueError, match=r"(?s)does not parse.*registered MLIR passes.*canonicalize"):
    passes.register("test_bad", "canonicalise", level="mlir")


def test_check_passes_names_a_pass_that_breaks_types():
  def broken(closed):  # drops the equation defining the output
    return ClosedJaxpr(closed.jaxpr.replace(eqns=[]), closed.consts)
  passes.register("test_broken", broken)
  closed = sj.make_jaxpr(jnp.sin)(1.0)
  old = sj.config.check_passes
  try:
    sj.config.update("check_passes", True)
    with pytest.raises(JaxprTypeError, match="after jaxpr pass 'test_broken'"):
      passes.run(closed, ["test_broken"])
  finally:
    sj.config.update("check_passes", old)


# ----------------------------------------------------------------------------------------------
# MLIR passes


def _cse_program(x):
  return jnp.sin(x) + jnp.sin(x) * (np.float32(1.0) + x)


@pytest.mark.parametrize("name", ["mlir-canonicalize", "mlir-cse", "mlir-symbol-dce",
                                  "mlir-sccp", "mlir-strip-debuginfo"])
def test_upstream_mlir_passes_keep_values(name):
  f = sj.jit(_cse_program, passes=["dce", name])
  check_close(f(_X), _cse_program(_X))
  lowered = sj.jit(_cse_program).lower(_X, passes=["dce", name])
  check_close(lowered.compile()(_X), _cse_program(_X))


def test_mlir_cse_and_canonicalize_change_the_module():
  base = sj.jit(_cse_program).lower(_X).as_text()
  after = sj.jit(_cse_program).lower(_X, passes=["dce", "mlir-cse"]).as_text()
  assert base.count("stablehlo.sine") == 2 and after.count("stablehlo.sine") == 1
  passes.register("test_pipeline", "canonicalize,cse", level="mlir")
  assert sj.jit(_cse_program).lower(_X, passes=["test_pipeline"]).as_text().count("sine") == 1


def test_mlir_pass_runs_on_a_copy_never_the_lowered_module():
  lowered = sj.jit(_cse_program).lower(_X)
  before = lowered.as_text()
  module = passes.run_mlir(lowered.compiler_ir(), ["mlir-cse"])
  assert str(module).count("stablehlo.sine") == 1
  assert lowered.as_text() == before


def test_a_callable_mlir_pass():
  def strip(module):
    return passes.run_mlir(module, ["mlir-strip-debuginfo"])
  passes.register("test_callable", strip, level="mlir")
  assert "test_passes.py" in sj.jit(_cse_program).lower(_X).as_text(debug_info=True)
  lowered = sj.jit(_cse_program).lower(_X, passes=["dce", "test_callable"])
  assert "test_passes.py" not in lowered.as_text(debug_info=True)
  check_close(lowered.compile()(_X), _cse_program(_X))
