"""Effects, as in JAX: ordered effects (`debug.print(..., ordered=True)`, a user's primitive)
are threaded through the lowered module with tokens, so they run in program order under jit,
also inside cond, while_loop, scan and nested jits; DCE and partial evaluation keep effectful
equations."""
import jax
import numpy as np
import pytest

import stablejax as sj
from stablejax import core, lax, passes
from stablejax.lowering import LoweringError, hlo, register_lowering


def _program(api):
  """Ordered prints at the top, in a cond, a while_loop (body and cond), a scan and a jit."""
  def f(x):
    api.debug.print("start {}", x, ordered=True)
    y = api.lax.cond(x > 0, lambda x: (api.debug.print("pos {}", x, ordered=True), x + 1)[1],
                     lambda x: x - 1, x)

    def cond(i):
      api.debug.print("cond {}", i, ordered=True)
      return i < 2

    def body(i):
      api.debug.print("body {}", i, ordered=True)
      return i + 1
    api.lax.while_loop(cond, body, 0)

    def step(c, x):
      api.debug.print("scan {} {}", c, x, ordered=True)
      return c + x, c
    c, _ = api.lax.scan(step, 0., api.numpy.arange(3.))
    z = api.jit(lambda v: (api.debug.print("inner {}", v, ordered=True), v * 2)[1])(y)
    api.debug.print("end {}", z, ordered=True)
    return y + c
  return f


@pytest.mark.parametrize("wrap", ["eager", "jit"])
def test_ordered_prints_run_in_program_order_as_in_jax(capfd, wrap):
  x = np.float32(1.)
  jax.jit(_program(jax))(x).block_until_ready()
  want = capfd.readouterr().out
  fn = _program(sj)
  got_value = (sj.jit(fn) if wrap == "jit" else fn)(x)
  assert capfd.readouterr().out == want
  assert want.splitlines()[:2] == ["start 1.0", "pos 1.0"] and want.endswith("end 4.0\n")
  assert float(got_value) == 5.


def test_lowering_threads_one_token_through_the_ordered_effects():
  text = sj.jit(_program(sj)).lower(np.float32(1.)).as_text()
  main = text[text.index("@main("):text.index("func.func private")]
  assert main.count("stablehlo.create_token") == 1  # one ordered effect: one token
  assert "@main(%arg0: tensor<f32>) -> tensor<f32>" in main  # no tokens in main's signature
  # cond returns it, the loops carry it, the callee takes and returns it
  assert "(tensor<i32>) -> (!stablehlo.token, tensor<f32>)" in main
  assert ": tensor<i1>, !stablehlo.token, tensor<i32>" in main  # while: pred, token, carry
  assert "(!stablehlo.token, tensor<f32>) -> (!stablehlo.token, tensor<f32>)" in main
  assert main.count("(!stablehlo.token, tensor<f32>) -> !stablehlo.token") >= 2


def test_unordered_effects_have_no_tokens():
  def f(x):
    sj.debug.print("a {}", x)
    lax.cond(x > 0, lambda: sj.debug.print("b"), lambda: None)
    return x
  text = sj.jit(f).lower(np.float32(1.)).as_text()
  assert "token" not in text and text.count("xla_ffi_python_cpu_callback") == 2


class _Counter(core.Effect):
  ordered = True

  def __repr__(self):
    return "Counter"


def test_a_primitive_with_its_own_ordered_effect_gets_and_returns_its_token():
  counter = _Counter()
  prim = core.Primitive("test_ordered_effect")
  prim.def_abstract_eval(lambda x: x)
  prim.def_effects(lambda: (counter,))
  seen = []

  def rule(ctx, x):
    seen.append(list(ctx.tokens_in))
    ctx.set_tokens_out({counter: hlo.after_all([ctx.tokens_in[counter]])})
    return hlo.negate(x)
  register_lowering(prim, rule)

  def f(x):
    y = prim.bind(x)
    return lax.while_loop(lambda v: v[0] < 0, lambda v: prim.bind(v), y)
  f_jaxpr = sj.make_jaxpr(f)(np.ones(2, np.float32))
  assert counter in f_jaxpr.effects
  text = sj.jit(f).lower(np.ones(2, np.float32)).as_text()
  assert seen == [[counter], [counter]]
  assert text.count("stablehlo.after_all") == 2
  assert "stablehlo.while(%iterArg = %1, " in text  # the token after the first one is carried


def test_a_rule_returning_tokens_for_effects_it_lacks_is_an_error():
  prim = core.Primitive("test_bad_tokens")
  prim.def_abstract_eval(lambda x: x)
  register_lowering(prim, lambda ctx, x: (ctx.set_tokens_out({_Counter(): x}), x)[1])
  with pytest.raises(LoweringError, match="test_bad_tokens.*does not have"):
    sj.jit(prim.bind).lower(np.float32(1.))


def test_dce_keeps_effectful_equations_with_unused_outputs(capfd):
  inner = sj.jit(lambda x: (sj.debug.print("inner {}", x, ordered=True), x * 2)[1])

  def f(x):
    inner(x)  # result unused
    lax.cond(x > 0, lambda x: (sj.debug.print("cond {}", x, ordered=True), x)[1],
             lambda x: x, x)  # result unused
    sj.debug.print("last", ordered=True)
    return x
  closed = passes.dce_closed_jaxpr(sj.make_jaxpr(f)(1.))
  assert [e.primitive.name for e in closed.eqns] == ["jit", "gt", "convert_element_type",
                                                     "cond", "debug_callback"]
  sj.jit(f)(np.float32(3.))
  assert capfd.readouterr().out == "inner 3.0\ncond 3.0\nlast\n"


def _printing(api):
  def f(x):
    api.debug.print("x={}", x)
    api.debug.print("y={}", x * 2, ordered=True)
    return api.numpy.sin(x) * x
  return f


@pytest.mark.parametrize("transform", ["grad", "jit_grad", "grad_jit", "vjp", "linearize"])
def test_partial_evaluation_keeps_prints_once_per_evaluation_as_jax(capfd, transform):
  def run(api):
    f = _printing(api)
    if transform == "vjp":
      return api.vjp(f, 1.)[1](1.)[0]
    if transform == "linearize":
      return api.linearize(f, 1.)[1](1.)
    return {"grad": api.grad(f), "jit_grad": api.jit(api.grad(f)),
            "grad_jit": api.grad(api.jit(f))}[transform](1.)
  want_value = float(run(jax))
  want = capfd.readouterr().out
  got_value = float(run(sj))
  assert capfd.readouterr().out == want == "x=1.0\ny=2.0\n"
  assert got_value == pytest.approx(want_value)


def test_debug_print_and_callback_take_ordered_as_in_jax():
  for fn in (sj.debug.print, sj.debug.callback):
    assert "ordered" in fn.__code__.co_varnames[:fn.__code__.co_argcount +
                                                fn.__code__.co_kwonlyargcount]
  closed = sj.make_jaxpr(lambda x: sj.debug.callback(print, x, ordered=True))(1.)
  assert "effect=OrderedDebug" in str(closed)
  assert [repr(e) for e in closed.effects] == ["OrderedDebug"]


def test_ordered_effects_inside_custom_derivatives_keep_program_order(capfd):
  """custom_jvp/custom_vjp and checkpoint bodies are emitted inline, on the enclosing token."""
  def program(api):
    @api.custom_jvp
    def f(x):
      api.debug.print("jvp body {}", x, ordered=True)
      return x * 2
    f.defjvp(lambda primals, tangents: (f(*primals), tangents[0] * 2))

    def g(x):
      api.debug.print("first {}", x, ordered=True)
      y = api.checkpoint(lambda v: (api.debug.print("remat {}", v, ordered=True), v + 1)[1])(
          f(x))
      api.debug.print("last {}", y, ordered=True)
      return y
    return g
  x = np.float32(1.)
  jax.jit(program(jax))(x).block_until_ready()
  want = capfd.readouterr().out
  sj.jit(program(sj))(x)
  assert capfd.readouterr().out == want == "first 1.0\njvp body 1.0\nremat 2.0\nlast 3.0\n"
  text = sj.jit(program(sj)).lower(x).as_text()
  assert text.count("stablehlo.create_token") == 1
