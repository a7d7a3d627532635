"""`sj.flops(f)(*args)`: each rule, control flow, transformed programs, users' primitives, and
whole programs against XLA's own count (`Compiled.cost_analysis()`)."""
import numpy as np
import pytest

import stablejax as sj
import stablejax.numpy as jnp
from stablejax import core, lax, nn, test_util
from stablejax.flops import UnknownFlopsError, flops_rules, jaxpr_flops, register_flops_rule
from stablejax.interpreters import ad

# The primitives deliberately without a rule: their cost is the user's code (an FFI kernel, an
# exported module, a custom_vjp backward function) and counting them raises UnknownFlopsError.
NO_RULE = {lax.ffi_call_p, lax.call_exported_p, lax.custom_derivatives.custom_lin_p}


def f32(rng, *shape):
  return rng.standard_normal(shape).astype(np.float32)


def xla_flops(f, *args) -> float:
  """XLA's count of `jit(f)(*args)`: its "flops" plus its "transcendentals", which it reports
  apart and `flops` counts as 1 per element like every elementwise op."""
  cost = sj.jit(f).lower(*args).compile().cost_analysis()
  return cost.get("flops", 0.0) + cost.get("transcendentals", 0.0)


def test_every_primitive_has_a_rule():
  missing = [p.name for p in test_util.lax_primitives() + [ad.add_jaxvals_p]
             if p not in flops_rules and p not in NO_RULE]
  assert not missing, f"primitives without a FLOPS rule (registered in its family file): {missing}"


# ----------------------------------------------------------------------------------------------
# Rules

def test_elementwise_counts_output_elements(rng):
  x, y = f32(rng, 3, 4), f32(rng, 4)
  assert sj.flops(lambda x, y: x + y)(x, y) == 12          # broadcast (free) + add
  assert sj.flops(lambda x: jnp.sin(x) * 2.0)(x) == 24     # a transcendental counts 1
  assert sj.flops(lambda x: jnp.where(x > 0, x, 0.0))(x) == 24  # compare + select
  assert sj.flops(lambda x: x.astype(np.int32))(x) == 12
  assert sj.flops(lambda x: lax.convert_element_type(x, np.float32))(x) == 0


@pytest.mark.parametrize("y,muls", [(0, 0), (1, 0), (2, 1), (3, 2), (8, 3), (-2, 2)])
def test_integer_pow_counts_square_and_multiply(rng, y, muls):
  assert sj.flops(lambda x: lax.integer_pow(x, y))(f32(rng, 5)) == 5 * muls


def test_reductions_count_input_elements(rng):
  x = f32(rng, 6, 5, 4)
  for f in (lambda x: x.sum(), lambda x: x.max(1), lambda x: jnp.argmin(x, 2),
            lambda x: jnp.cumsum(x, 0), lambda x: jnp.prod(x, (0, 2))):
    assert sj.flops(f)(x) == 120
  window = lambda x: lax.reduce_window(x, 0.0, lax.add, (2, 2, 1), (1, 1, 1), "VALID")
  assert sj.flops(window)(x) == 5 * 4 * 4 * 4


def test_dot_general_counts_batch_free_and_contracting_dims(rng):
  a, b = f32(rng, 3, 5, 7, 2), f32(rng, 3, 7, 2, 4)
  assert sj.flops(lambda a, b: jnp.einsum("bmkc,bkcn->bmn", a, b))(a, b) == 2 * 3 * 5 * 4 * 7 * 2
  assert sj.flops(lambda x, w: x @ w)(f32(rng, 8, 16), f32(rng, 16, 3)) == 2 * 8 * 16 * 3
  assert sj.flops(jnp.vdot)(f32(rng, 9), f32(rng, 9)) == 18


@pytest.mark.parametrize("params", [
    dict(window_strides=(1, 1), padding="VALID"),
    dict(window_strides=(2, 1), padding=((1, 2), (0, 1))),
    dict(window_strides=(1, 1), padding=((2, 2), (1, 1)), lhs_dilation=(2, 1), rhs_dilation=(1, 2)),
    dict(window_strides=(2, 2), padding="SAME", feature_group_count=2),
])
def test_conv_matches_xla_exactly(rng, params):
  groups = params.get("feature_group_count", 1)
  x, k = f32(rng, 2, 4, 9, 10), f32(rng, 6, 4 // groups, 3, 3)
  f = lambda x, k: lax.conv_general_dilated(x, k, **params)  # noqa: E731
  assert sj.flops(f)(x, k) == xla_flops(f, x, k)


def test_conv_without_padding_is_2_out_kernel_features(rng):
  x, k = f32(rng, 2, 9, 10, 4), f32(rng, 3, 3, 2, 6)  # NHWC, HWIO, 2 groups of 2 features
  f = lambda x, k: lax.conv_general_dilated(x, k, (1, 1), "VALID", feature_group_count=2,  # noqa
                                            dimension_numbers=("NHWC", "HWIO", "NHWC"))
  assert sj.flops(f)(x, k) == 2 * (2 * 7 * 8 * 6) * (3 * 3) * 2


def test_structural_ops_are_free(rng):
  x = f32(rng, 4, 6)
  for f in (lambda x: x.T.reshape(-1), lambda x: jnp.broadcast_to(x, (2, 4, 6)),
            lambda x: x[1:3, ::2], lambda x: jnp.concatenate([x, x]),
            lambda x: lax.pad(x, np.float32(0), [(1, 1, 0), (0, 2, 1)]),
            lambda x: jnp.flip(x, 0), lambda x: lax.stop_gradient(x)):
    assert sj.flops(f)(x) == 0
  # indexing normalizes its (here constant) indices: `i < 0`, `i + n`, select: 3 per index
  assert sj.flops(lambda x: x[jnp.array([3, 0])])(x) == 3 * 2
  assert sj.flops(lambda x: x.at[jnp.array([1])].set(0.0))(x) == 3
  assert sj.flops(lambda x: x.at[jnp.array([1, 2])].add(1.0))(x) == 3 * 2 + 2 * 6  # + updates


def test_sort_and_linalg(rng):
  assert sj.flops(lambda x: jnp.sort(x, axis=1))(f32(rng, 3, 8)) == 24 * 3
  a = f32(rng, 8, 8)
  spd = a @ a.T + 8 * np.eye(8, dtype=np.float32)
  assert sj.flops(lax.linalg.cholesky_p.bind)(spd) == 8 ** 3 / 3
  solve = lambda a, b: lax.linalg.triangular_solve(a, b, left_side=True, lower=True)  # noqa
  assert sj.flops(solve)(spd, f32(rng, 8, 5)) == 8 * 8 * 5
  tall = f32(rng, 2, 6, 4)  # two 6 x 4 matrices, k = 4
  assert sj.flops(lambda x: lax.linalg.lu(x)[0])(tall) == 2 * (6 * 4 * 4 - 4 ** 3 / 3)
  singular_values = lambda x: lax.linalg.svd(x, full_matrices=False, compute_uv=False)  # noqa
  assert sj.flops(singular_values)(tall) == 2 * (4 * 6 * 4 * 4 - 4 * 4 ** 3 / 3)
  assert sj.flops(lambda x: lax.fft(x, "FFT", (8,)))(f32(rng, 3, 8).astype(np.complex64)) == (
      3 * 5 * 8 * 3)
  assert sj.flops(lambda x: lax.fft(x, "RFFT", (8,)))(f32(rng, 3, 8)) == 3 * 5 * 8 * 3 / 2


# ----------------------------------------------------------------------------------------------
# Control flow

def test_cond_is_the_max_over_branches(rng):
  x = f32(rng, 10)
  f = lambda p, x: lax.cond(p, lambda x: jnp.sin(x) * x + 1.0, lambda x: x * 2.0, x)  # noqa
  assert sj.flops(f)(True, x) == 30 + 1  # + converting the predicate to an index
  g = lambda i, x: lax.switch(i, [lambda x: x, lambda x: x * x * x, lambda x: -x], x)  # noqa
  assert sj.flops(g)(0, x) == 20 + 1  # + clamping the index


def test_scan_is_length_times_body(rng):
  xs = f32(rng, 7, 4)
  f = lambda xs: lax.scan(lambda c, x: (c * x + 1.0, jnp.exp(c)), jnp.ones(4), xs)  # noqa
  assert sj.flops(f)(xs) == 7 * 12
  assert sj.flops(lambda x: lax.fori_loop(0, 5, lambda i, c: c * 2.0, x))(xs) == 5 * 28
  assert sj.flops(lambda x: lax.fori_loop(3, 1, lambda i, c: c * 2.0, x))(xs) == 0


def test_while_with_a_static_trip_count_is_counted(rng):
  x = f32(rng, 6)
  loop = lambda x: lax.while_loop(lambda c: c[0] < 4, lambda c: (c[0] + 1, c[1] * 2.0),  # noqa
                                  (0, x))[1]
  # 4 trips of (index add + 6 muls + the compare), then the last compare
  assert sj.flops(loop)(x) == 4 * (1 + 6 + 1) + 1


def test_while_with_a_dynamic_trip_count_is_an_error(rng):
  x = f32(rng, 6)
  f = lambda x, n: lax.fori_loop(0, n, lambda i, c: c * 2.0, x)  # noqa
  for fun in (f, sj.jit(f)):
    with pytest.raises(UnknownFlopsError, match=r"while_loop with a dynamic trip count.*"
                       r"test_flops.py"):
      sj.flops(fun)(x, 3)
  g = lambda x: lax.while_loop(lambda c: c.sum() < 10.0, lambda c: c * 2.0, x)  # noqa
  with pytest.raises(UnknownFlopsError, match="dynamic trip count"):
    sj.flops(g)(x)


# ----------------------------------------------------------------------------------------------
# Transformed functions

def test_jit_custom_derivatives_and_checkpoint_bodies_are_counted(rng):
  x = f32(rng, 5)
  f = lambda x: jnp.sin(x) * x  # noqa: E731
  assert sj.flops(sj.jit(f))(x) == sj.flops(f)(x) == 10
  assert sj.flops(lambda x: sj.jit(f)(x) + sj.jit(f)(x))(x) == 25
  assert sj.flops(sj.checkpoint(f))(x) == 10
  assert sj.flops(nn.relu)(x) == 5      # a custom_jvp function: its primal body
  g = sj.custom_vjp(f)
  g.defvjp(lambda x: (f(x), x), lambda x, ct: (ct,))
  assert sj.flops(g)(x) == 10


def test_transformations_change_the_count_as_they_change_the_program(rng):
  x, w = f32(rng, 8, 16), f32(rng, 16, 4)
  mm = lambda x, w: x @ w  # noqa: E731
  assert sj.flops(sj.vmap(mm, (0, None)))(np.stack([x] * 5), w) == 5 * 2 * 8 * 16 * 4
  # grad w.r.t. x only: the forward product is dead, one product for the cotangent of x
  assert sj.flops(sj.grad(lambda x, w: mm(x, w).sum()))(x, w) == 2 * 8 * 16 * 4
  # both cotangents: two products
  assert sj.flops(sj.grad(lambda x, w: mm(x, w).sum(), (0, 1)))(x, w) == 2 * (2 * 8 * 16 * 4)
  v = f32(rng, 16)
  assert sj.flops(lambda x: sj.jvp(jnp.sin, (x,), (x,)))(v) == 16 * 3  # sin, cos, mul


def test_jaxpr_flops_counts_a_given_jaxpr(rng):
  x = f32(rng, 3)
  assert jaxpr_flops(sj.make_jaxpr(lambda x: x * x + x)(x)) == 6


# ----------------------------------------------------------------------------------------------
# Users' primitives

def _user_primitive(name: str) -> core.Primitive:
  prim = core.Primitive(name)
  prim.def_abstract_eval(lambda x: core.ShapedArray(x.shape, x.dtype))
  return prim


def test_a_user_primitive_with_a_registered_rule(rng):
  prim = _user_primitive("my_fft_like")
  register_flops_rule(prim, lambda avals_in, avals_out: 5 * avals_in[0].size * 3)
  try:
    assert sj.flops(lambda x: prim.bind(x) + 1.0)(f32(rng, 8)) == 5 * 8 * 3 + 8
  finally:
    del flops_rules[prim]


def test_a_user_primitive_without_a_rule_is_an_error(rng):
  prim = _user_primitive("my_kernel")
  with pytest.raises(UnknownFlopsError, match="no FLOPS rule for primitive 'my_kernel'"):
    sj.flops(lambda x: sj.jit(prim.bind)(x))(f32(rng, 8))


def test_register_flops_rule_checks_its_arguments():
  with pytest.raises(TypeError, match="expected a Primitive"):
    register_flops_rule("add", lambda *a: 0)
  with pytest.raises(TypeError, match="must be callable"):
    register_flops_rule(_user_primitive("p"), 3)


# ----------------------------------------------------------------------------------------------
# Whole programs against XLA
#
# XLA counts the optimized program: it folds constants, simplifies algebra, counts a reduction of
# n elements as n - 1 and counts a while loop's body once (not times its trip count). The
# programs below are dot/conv dominated (so these differences are below 0.5%), take every array
# as an argument (so XLA folds nothing away), and loops are compared with their Python-unrolled
# form: within TOLERANCE = 1% of XLA's flops + transcendentals.

TOLERANCE = 0.01


def _mlp_params(rng):
  return [(f32(rng, 128, 256), f32(rng, 256)), (f32(rng, 256, 256), f32(rng, 256)),
          (f32(rng, 256, 10), f32(rng, 10))]


def _mlp(params, x):
  for w, b in params[:-1]:
    x = jnp.tanh(x @ w + b)
  w, b = params[-1]
  return x @ w + b


def mlp_step(rng):
  loss = lambda p, x, y: jnp.mean((_mlp(p, x) - y) ** 2)  # noqa: E731
  return sj.value_and_grad(loss), None, (_mlp_params(rng), f32(rng, 64, 128), f32(rng, 64, 10))


def vmapped_mlp(rng):
  return sj.vmap(_mlp, (None, 0)), None, (_mlp_params(rng), f32(rng, 5, 64, 128))


def cnn_step(rng):
  def cnn(params, images):
    k1, k2, w = params
    h = nn.relu(lax.conv_general_dilated(images, k1, (1, 1), "SAME"))
    h = lax.reduce_window(h, -np.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")
    h = nn.relu(lax.conv_general_dilated(h, k2, (1, 1), "VALID"))
    return nn.log_softmax(h.reshape(h.shape[0], -1) @ w)
  loss = lambda params, images: -jnp.mean(cnn(params, images))  # noqa: E731
  params = (f32(rng, 16, 3, 3, 3), f32(rng, 32, 16, 3, 3), f32(rng, 32 * 5 * 5, 10))
  return sj.grad(loss), None, (params, f32(rng, 8, 3, 14, 14))


def _rnn(unrolled: bool):
  def cell(h, x, wh, wx):
    return jnp.tanh(h @ wh + x @ wx)

  def rnn(wh, wx, h, xs):
    if unrolled:
      for x in xs:
        h = cell(h, x, wh, wx)
    else:
      h = lax.scan(lambda h, x: (cell(h, x, wh, wx), None), h, xs)[0]
    return jnp.sum(h ** 2)
  return rnn


def scan_rnn(rng):
  # forward only: the transposed scan of grad(scan) does more per step than the unrolled
  # gradient (it accumulates cotangent carries from zeros), about 1.3% more here
  return _rnn(False), _rnn(True), (f32(rng, 64, 64), f32(rng, 32, 64), f32(rng, 16, 64),
                                   f32(rng, 20, 16, 32))


def gp_kernel(rng):
  def predict(a, b, alpha, scale):
    d2 = jnp.sum(a ** 2, 1)[:, None] + jnp.sum(b ** 2, 1)[None, :] - 2 * a @ b.T
    return jnp.exp(-d2 / scale) @ alpha  # XLA folds constant factors as `-0.5 * d2 / s`
  return predict, None, (f32(rng, 256, 8), f32(rng, 128, 8), f32(rng, 128, 3), np.float32(2.0))


def attention(rng):
  def attend(q, k, v):
    s = jnp.einsum("bqd,bkd->bqk", q, k) / np.float32(np.sqrt(32))
    return jnp.einsum("bqk,bkd->bqd", nn.softmax(s, axis=-1), v)
  return attend, None, (f32(rng, 4, 64, 32), f32(rng, 4, 64, 32), f32(rng, 4, 64, 32))


@pytest.mark.parametrize("program", [mlp_step, vmapped_mlp, cnn_step, scan_rnn, gp_kernel,
                                     attention])
def test_whole_programs_agree_with_xla_cost_analysis(rng, program):
  f, unrolled, args = program(rng)
  ours, theirs = sj.flops(f)(*args), xla_flops(unrolled or f, *args)
  assert abs(ours - theirs) / theirs < TOLERANCE, (ours, theirs)
