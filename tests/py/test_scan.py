"""lax.scan and lax.fori_loop: printing as JAX prints them, numbers against numpy and JAX, every
transformation (jvp, grad, linearize, vmap, jit, nesting) and the cost of reverse mode."""
import numpy as np
import pytest

import stablejax as sj
import stablejax.numpy as jnp
from stablejax import lax
from stablejax.test_util import check_close, check_jvp, check_vmap, numerical_jvp


# ----------------------------------------------------------------------------------------------
# Programs, written once for stablejax and for JAX (`np_` is the numpy module, `lax_` the lax)

def func11(np_, lax_):
  """The scan example of "Understanding Jaxprs"."""
  def f(arr, extra):
    ones = np_.ones(arr.shape)

    def body(carry, aelems):
      ae1, ae2 = aelems
      return (carry + ae1 * ae2 + extra, carry)
    return lax_.scan(body, 0., (arr, ones))
  return f


def func10(np_, lax_):
  """The fori_loop example of "Understanding Jaxprs" (a while: its upper bound is traced)."""
  def f(arg, n):
    ones = np_.ones(arg.shape)
    return lax_.fori_loop(0, n, lambda i, carry: carry + ones * 3. + arg, arg + ones)
  return f


def fori_static(np_, lax_):
  def f(arg):
    ones = np_.ones(arg.shape)
    return lax_.fori_loop(0, 5, lambda i, carry: carry + ones * 3. + arg, arg + ones)
  return f


def fori_index(np_, lax_):
  return lambda x: lax_.fori_loop(2, 7, lambda i, c: c * i, x)


def reverse_unroll(np_, lax_):
  return lambda x: lax_.scan(lambda c, _: (c * 2., None), x, None, length=3, reverse=True,
                             unroll=2)


def forwarded(np_, lax_):
  """A carry returned unchanged becomes a const, as JAX does."""
  return lambda x, w: lax_.scan(lambda c, x: ((c[0] * x, c[1]), c[1] + x), (x, w),
                                np.arange(3.0, dtype=np.float32))


def rnn(np_, lax_):
  """A nonlinear recurrence with a const, a carry and xs, and stacked outputs."""
  def f(c0, xs, w):
    def body(c, x):
      c = np_.sin(c * w) + x * c
      return c, c * 2.
    c, ys = lax_.scan(body, c0, xs)
    return c.sum() + ys.sum()
  return f


def pytrees(np_, lax_):
  def f(x, xs):
    def body(c, x):
      a, b = c
      return (a * x["u"] + b, np_.sin(b) * a), {"o": a * b, "p": x["v"]}
    (a, b), ys = lax_.scan(body, (x, 2. * x), {"u": xs, "v": xs * 3.}, reverse=True)
    return (a + b + ys["o"].sum(0) + ys["p"].sum(0)).sum()
  return f


def nested(np_, lax_):
  """A scan of a scan."""
  def f(x, w):
    def outer(c, row):
      d, ds = lax_.scan(lambda d, r: (np_.tanh(d * r + w), d), c, row)
      return d * 0.5, ds.sum()
    c, ys = lax_.scan(outer, x, np_.reshape(np_.arange(12.0), (3, 4)) / 10., reverse=True)
    return (c ** 2).sum() + ys.sum()
  return f


def int_carry(np_, lax_):
  def f(x):
    def body(c, _):
      i, y = c
      return (i + 1, y * i.astype(y.dtype) + np_.cos(y)), y
    (_, y), ys = lax_.scan(body, (0, x), None, length=4)
    return y.sum() + ys.sum()
  return f


def fori_sum(np_, lax_):
  return lambda x: lax_.fori_loop(1, 5, lambda i, c: np_.sin(c) * i + c, x).sum()


def cond_in_scan(np_, lax_):
  def f(x, xs):
    def body(c, x):
      c = lax_.cond(x.sum() > 0, lambda c: np_.sin(c) * x, lambda c: c * c + x, c)
      return c, c
    c, ys = lax_.scan(body, x, xs)
    return c.sum() + ys.sum()
  return f


def scan_in_cond(np_, lax_):
  def f(x, xs):
    g = lambda x: lax_.scan(lambda c, y: (np_.cos(c) + y, c * y), x, xs)[1].sum()
    return lax_.cond(x.sum() > 0, g, lambda x: (x * xs[0]).sum(), x)
  return f


PRINT_CASES = [
    (func11, (np.ones(16), 5.)), (func10, (np.ones(16), 5)), (fori_static, (np.ones(16),)),
    (fori_index, (1.,)), (reverse_unroll, (1.,)), (forwarded, (1., 2.))]


@pytest.mark.parametrize("make, args", PRINT_CASES, ids=[c[0].__name__ for c in PRINT_CASES])
def test_prints_like_jax(make, args, jax_text):
  jax = pytest.importorskip("jax")
  expected = jax_text(jax.make_jaxpr(make(jax.numpy, jax.lax))(*args))
  assert str(sj.make_jaxpr(make(jnp, lax))(*args)) == expected


def test_func11_prints_the_documented_jaxpr():
  assert str(sj.make_jaxpr(func11(jnp, lax))(np.ones(16), 5.)) == """\
{ lambda ; a:f32[16] b:f32[]. let
    c:f32[16] = broadcast_in_dim 1.0:f32[]
    d:f32[] e:f32[16] = scan[
      jaxpr={ lambda ; f:f32[] g:f32[] h:f32[] i:f32[]. let
          j:f32[] = mul h i
          k:f32[] = convert_element_type[new_dtype=float32 weak_type=False] g
          l:f32[] = add k j
          m:f32[] = convert_element_type[new_dtype=float32 weak_type=False] f
          n:f32[] = add l m
        in (n, g) }
      length=16
      num_carry=1
      num_consts=1
      reverse=False
      unroll=1
    ] b 0.0:f32[] a c
  in (d, e) }"""


# ----------------------------------------------------------------------------------------------
# Numbers

def _scan_reference(f, init, xs, reverse=False):
  order = range(len(xs))[::-1] if reverse else range(len(xs))
  carry, ys = init, [None] * len(xs)
  for i in order:
    carry, ys[i] = f(carry, xs[i])
  return carry, np.stack(ys)


@pytest.mark.parametrize("reverse", [False, True])
def test_scan_matches_a_python_loop_eagerly_and_under_jit(reverse):
  xs = np.arange(12, dtype=np.float32).reshape(4, 3) / 4
  f = lambda c, x: (c * 0.5 + x, c * x)
  expected = _scan_reference(f, np.ones(3, np.float32), xs, reverse)
  run = lambda c, xs: lax.scan(f, c, xs, reverse=reverse)
  check_close(run(np.ones(3, np.float32), xs), expected)
  check_close(sj.jit(run)(np.ones(3, np.float32), xs), expected)


def test_scan_without_xs_and_with_empty_outputs():
  carry, ys = lax.scan(lambda c, _: (c + 1.0, None), 0.0, None, length=5)
  assert float(carry) == 5.0 and ys is None
  carry, ys = sj.jit(lambda c: lax.scan(lambda c, x: (c + x, c), c, np.zeros((0, 2))))(
      np.ones(2))
  check_close(carry, np.ones(2))
  assert np.shape(ys) == (0, 2)


VALUE_CASES = [
    (func11, (np.arange(16.0, dtype=np.float32), 5.)), (func10, (np.ones(16, np.float32), 5)),
    (fori_static, (np.ones(16, np.float32),)), (fori_index, (1.5,)), (pytrees, None),
    (nested, None), (int_carry, None), (cond_in_scan, None), (scan_in_cond, None)]


@pytest.mark.parametrize("make, args", VALUE_CASES, ids=[c[0].__name__ for c in VALUE_CASES])
def test_values_match_jax(make, args, rng):
  jax = pytest.importorskip("jax")
  args = args or _float_args(make, rng, np.float32)
  check_close(make(jnp, lax)(*args), make(jax.numpy, jax.lax)(*args))
  check_close(sj.jit(make(jnp, lax))(*args), make(jax.numpy, jax.lax)(*args))


# ----------------------------------------------------------------------------------------------
# Derivatives: against finite differences and JAX

def _float_args(make, rng, dtype=np.float64):
  shapes = {rnn: [(3,), (5, 3), (3,)], pytrees: [(3,), (5, 3)], nested: [(3,), (3,)],
            int_carry: [(3,)], fori_sum: [(3,)], cond_in_scan: [(3,), (4, 3)],
            scan_in_cond: [(3,), (4, 3)]}[make]
  return tuple(rng.standard_normal(s).astype(dtype) for s in shapes)


DIFF_CASES = [rnn, pytrees, nested, int_carry, fori_sum, cond_in_scan, scan_in_cond]


@pytest.mark.parametrize("make", DIFF_CASES, ids=lambda m: m.__name__)
def test_jvp_matches_finite_differences(make, rng, x64):
  check_jvp(make(jnp, lax), _float_args(make, rng))


@pytest.mark.parametrize("make", DIFF_CASES, ids=lambda m: m.__name__)
def test_grad_matches_finite_differences(make, rng, x64):
  f, args = make(jnp, lax), _float_args(make, rng)
  argnums = tuple(range(len(args)))
  grads = sj.grad(f, argnums)(*args)
  tangents = [rng.standard_normal(np.shape(a)) for a in args]
  directional = sum(float(np.sum(np.asarray(g) * t)) for g, t in zip(grads, tangents))
  check_close(directional, numerical_jvp(f, args, tangents), rtol=1e-6, atol=1e-6)


JAX_GRAD_CASES = [rnn, pytrees, cond_in_scan, scan_in_cond,
                  pytest.param(nested, marks=pytest.mark.slow)]


@pytest.mark.parametrize("make", JAX_GRAD_CASES, ids=lambda m: m.__name__)
def test_grad_of_jit_and_linearize_match_jax(make, rng, x64):
  jax = pytest.importorskip("jax")
  f, jf, args = make(jnp, lax), make(jax.numpy, jax.lax), _float_args(make, rng)
  argnums = tuple(range(len(args)))
  with jax.enable_x64(True):
    expected = jax.grad(jf, argnums)(*args)
    tangents = tuple(rng.standard_normal(np.shape(a)) for a in args)
    expected_jvp = jax.jvp(jf, args, tangents)[1]
  check_close(sj.grad(sj.jit(f), argnums)(*args), expected)
  check_close(sj.jit(sj.grad(f, argnums))(*args), expected)
  _, f_jvp = sj.linearize(f, *args)
  check_close(f_jvp(*tangents), expected_jvp)


@pytest.mark.slow
def test_hessian_of_scan_matches_jax(rng, x64):
  jax = pytest.importorskip("jax")
  args = _float_args(rnn, rng)
  with jax.enable_x64(True):
    expected = jax.hessian(rnn(jax.numpy, jax.lax))(*args)
  check_close(sj.hessian(rnn(jnp, lax))(*args), expected)


def test_grad_of_fori_loop_with_static_bounds(x64):
  f = lambda x: lax.fori_loop(0, 3, lambda i, c: c * c + i, x)
  # ((x^2)^2 + 1)^2 + 2 ... derivative by the chain rule
  x = 0.7
  a = x * x
  b = a * a + 1.0
  check_close(sj.grad(f)(x), 2 * b * 2 * a * 2 * x)


def test_grad_jaxpr_size_is_independent_of_length():
  def f(x, xs):
    c, ys = lax.scan(lambda c, x: (jnp.sin(c) * x + c, c * c), x, xs)
    return c + ys.sum()
  counts = {len(sj.make_jaxpr(sj.grad(f))(1., np.ones(n, np.float32)).eqns) for n in (3, 3000)}
  assert len(counts) == 1


@pytest.mark.slow
def test_grad_of_a_long_scan_runs():
  def f(x, xs):
    c, ys = lax.scan(lambda c, x: (jnp.sin(c) * x + c, c * c), x, xs)
    return c + ys.sum()
  n = 20000
  g = float(sj.grad(f)(0.1, np.full(n, 1e-4, np.float32)))
  assert np.isfinite(g) and g > n * 0.1


def test_reverse_mode_stores_per_iteration_residuals_and_passes_invariant_consts():
  """The known scan stacks the cos residual; the const w is passed to the backward scan as a
  const, not stacked; xs are forwarded unchanged."""
  def f(w, xs):
    return lax.scan(lambda c, x: (jnp.sin(c * w) + x, c), 1.0, xs)[0]
  jaxpr = sj.make_jaxpr(sj.grad(f))(np.float32(2.), np.ones(7, np.float32))
  forward, backward = [e for e in jaxpr.eqns if e.primitive is lax.scan_p]
  assert [str(v.aval) for v in forward.outvars] == ["f32[]", "f32[7]", "f32[7]", "f32[7]"]
  assert backward.params["reverse"] and backward.params["num_consts"] == 1
  assert str(backward.invars[0].aval) == "f32[]"


# ----------------------------------------------------------------------------------------------
# Batching

@pytest.mark.parametrize("in_axes", [(0, None), (None, 0), (0, 0), (None, 1)])
def test_vmap_of_scan_matches_a_loop(in_axes, rng):
  def f(c, xs):
    return lax.scan(lambda c, x: (jnp.tanh(c * x) + 1.0, c * 2.0), c, xs)
  c = rng.standard_normal((2, 3)).astype(np.float32) if in_axes[0] == 0 else \
      rng.standard_normal(3).astype(np.float32)
  shape = {None: (4, 3), 0: (2, 4, 3), 1: (4, 2, 3)}[in_axes[1]]
  check_vmap(f, [c, rng.standard_normal(shape).astype(np.float32)], in_axes)


def test_vmap_of_batched_const_and_of_grad(rng, x64):
  f = rnn(jnp, lax)
  c0, xs, w = _float_args(rnn, rng)
  ws = np.stack([w, 2 * w])
  check_vmap(lambda w: f(c0, xs, w), [ws], [0])
  check_vmap(sj.grad(lambda w: f(c0, xs, w)), [ws], [0], rtol=1e-8, atol=1e-8)


# ----------------------------------------------------------------------------------------------
# Errors

def test_carry_type_mismatch_names_both_types():
  with pytest.raises(TypeError, match=r"carry c has type f32\[\] but .* has type f32\[3\]"):
    lax.scan(lambda c, x: (c * x, c), np.float32(0), np.ones((4, 3), np.float32))


def test_carry_structure_and_body_output_errors():
  with pytest.raises(TypeError, match="same pytree structure"):
    lax.scan(lambda c, x: ((c, c), x), 0.0, np.ones(3))
  with pytest.raises(TypeError, match="must be a pair"):
    lax.scan(lambda c, x: c, 0.0, np.ones(3))


def test_length_errors():
  with pytest.raises(ValueError, match="different leading axis sizes: 3, 4"):
    lax.scan(lambda c, x: (c, None), 0.0, (np.ones(3), np.ones(4)))
  with pytest.raises(ValueError, match="disagrees with leading axis sizes"):
    lax.scan(lambda c, x: (c, None), 0.0, np.ones(3), length=4)
  with pytest.raises(ValueError, match="no values to scan over"):
    lax.scan(lambda c, x: (c, None), 0.0, None)
  with pytest.raises(ValueError, match="no leading axis"):
    lax.scan(lambda c, x: (c, None), 0.0, 1.0)


def test_fori_loop_errors():
  with pytest.raises(TypeError, match="must have equal types"):
    lax.fori_loop(np.int32(0), np.int16(3), lambda i, c: c, 0.0)
  with pytest.raises(ValueError, match="statically known"):
    sj.jit(lambda n: lax.fori_loop(0, n, lambda i, c: c, 0.0, unroll=2))(3)


@pytest.mark.parametrize("where", ["around_scan", "body"])
def test_grad_of_checkpointed_scan_multiplying_carries(where):
  jax = pytest.importorskip("jax")
  # the body multiplies two values that depend on the carry; with nothing saved, the
  # rematerialized products must transpose with respect to one operand each
  def program(api, np_, lax_):
    policy = api.checkpoint_policies.nothing_saveable
    def body(c, x):
      return (c[0] * c[1], np_.sin(c[1]) * c[0]), c[0] * x
    if where == "body":
      return lambda c: lax_.scan(api.checkpoint(body, policy=policy), c, np_.arange(3.))[1].sum()
    return lambda c: api.checkpoint(lambda c: lax_.scan(body, c, np_.arange(3.)),
                                    policy=policy)(c)[1].sum()
  c = (np.float32(1.1), np.float32(0.9))
  check_close(sj.grad(program(sj, jnp, lax))(c), jax.grad(program(jax, jax.numpy, jax.lax))(c))
  check_close(sj.jit(sj.grad(program(sj, jnp, lax)))(c),
              jax.grad(program(jax, jax.numpy, jax.lax))(c))


def test_split_transpose_is_accepted_and_changes_no_result():
  # flax's nn.scan passes JAX's experimental `_split_transpose`; the gradient is the same.
  def loss(w, split):
    carry, ys = lax.scan(lambda c, x: (c * w + x, jnp.sin(c)), 1.0, jnp.arange(4.0),
                         _split_transpose=split)
    return carry + ys.sum()
  np.testing.assert_array_equal(sj.grad(loss)(0.5, True), sj.grad(loss)(0.5, False))
  eps = 1e-3
  fd = (loss(0.5 + eps, False) - loss(0.5 - eps, False)) / (2 * eps)
  np.testing.assert_allclose(sj.grad(loss)(0.5, True), fd, rtol=1e-3)
