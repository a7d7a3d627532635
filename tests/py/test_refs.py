"""Mutable array references (`sj.Ref`, `new_ref`, `freeze`, `jax.ref`): eager, staged, under
jit (made inside, passed in, closed over), printed as JAX prints them; compared with JAX."""
import numpy as np
import pytest

import stablejax as sj
import stablejax.numpy as jnp

jax = pytest.importorskip("jax")
import jax.numpy as jjnp  # noqa: E402


def both(fn):
  """fn(lib, np-module) for stablejax and JAX."""
  return fn(sj, jnp), fn(jax, jjnp)


def test_eager_reads_writes_match_jax():
  def prog(lib, np_):
    r = lib.new_ref(np_.arange(6.).reshape(2, 3))
    r[...] += 1
    r[1] = np_.zeros(3)
    r[0, 2] = 7.
    r[0, :2] += np_.ones(2)
    lib.ref.addupdate(r, (1, 1), 4.)
    old = lib.ref.swap(r, (0, 0), np_.float32(9))
    return np.asarray(r[...]), np.asarray(r[-1]), np.asarray(old), repr(r)
  ours, theirs = both(prog)
  for a, b in zip(ours[:3], theirs[:3]):
    np.testing.assert_array_equal(a, b)
  assert ours[3] == theirs[3]


def test_ref_type_and_properties():
  r = sj.new_ref(jnp.zeros((3, 4), jnp.int32))
  assert isinstance(r, sj.Ref) and isinstance(r, sj.ref.Ref)
  assert (r.shape, r.dtype, r.ndim, r.size, len(r)) == ((3, 4), np.dtype("int32"), 2, 12, 3)
  assert str(sj.typeof(r)) == "Ref{i32[3,4]}"
  seen = []
  sj.make_jaxpr(lambda r: seen.append(isinstance(r, sj.Ref)) or 0)(r)
  assert seen == [True]
  frozen = sj.freeze(r)
  assert isinstance(frozen, sj.Array) and not isinstance(frozen, sj.Ref)


def _f(lib):
  def f(x):
    r = lib.new_ref(x)
    r[...] = r[...] * 2
    r[0] += 1
    return lib.freeze(r)
  return f


def test_jaxpr_prints_as_jax():
  x = np.arange(3, dtype=np.float32)
  assert str(sj.make_jaxpr(_f(sj))(x)) == str(jax.make_jaxpr(_f(jax))(x))

  def g(r, x):
    r[...] += x
  assert (str(sj.make_jaxpr(g)(sj.new_ref(x), 1.)) ==
          str(jax.make_jaxpr(g)(jax.new_ref(x), 1.)))


def _indexing(lib):
  def h(r, i):
    a = r[0, 1:3]
    b = r[:, 1]
    c = r[i]
    d = r[i, 2]
    r[i, :2] = r[0, :2]
    e = r[-1]
    f = lib.ref.swap(r, 1, r[2])
    lib.ref.addupdate(r, 2, f)
    return a, b, c, d, e
  return h


def test_indexing_jaxpr_prints_as_jax():
  x = np.arange(12, dtype=np.float32).reshape(3, 4)
  ours = sj.make_jaxpr(_indexing(sj))(sj.new_ref(x), 1)
  theirs = jax.make_jaxpr(_indexing(jax))(jax.new_ref(x), 1)
  assert str(ours) == str(theirs)


@pytest.mark.parametrize("i", [0, 2, -1])
def test_indexing_values_match_jax(i):
  x = np.arange(12, dtype=np.float32).reshape(3, 4)
  rs, rj = sj.new_ref(x), jax.new_ref(x)
  ours = sj.jit(_indexing(sj))(rs, np.int32(i))
  theirs = jax.jit(_indexing(jax))(rj, np.int32(i))
  for a, b in zip(ours, theirs):
    np.testing.assert_array_equal(a, b)
  np.testing.assert_array_equal(rs[...], rj[...])


def test_jit_ref_made_inside():
  x = np.arange(3, dtype=np.float32)
  np.testing.assert_array_equal(sj.jit(_f(sj))(x), jax.jit(_f(jax))(x))
  np.testing.assert_array_equal(sj.jit(_f(sj))(x), _f(sj)(x))


def test_jit_mutates_ref_arguments_and_closed_over_refs():
  def g(r, x):
    r[...] += x
    return r[0] * 2
  rs, rj = sj.new_ref(jnp.zeros(3)), jax.new_ref(jjnp.zeros(3))
  gs, gj = sj.jit(g), jax.jit(g)
  for v in (1., 2.5):
    np.testing.assert_array_equal(gs(rs, v), gj(rj, v))
  np.testing.assert_array_equal(rs[...], rj[...])

  closed = sj.new_ref(jnp.ones(2))

  @sj.jit
  def bump(x):
    closed[...] += x
    return x
  bump(3.)
  bump(1.)
  np.testing.assert_array_equal(closed[...], [5., 5.])


def test_nested_jit_with_ref_argument():
  inner = sj.jit(lambda r, x: r.__setitem__(0, x))

  @sj.jit
  def outer(r):
    inner(r, 5.)
    return r[...]
  r = sj.new_ref(jnp.zeros(2))
  np.testing.assert_array_equal(outer(r), [5., 0.])
  np.testing.assert_array_equal(r[...], [5., 0.])


def test_empty_ref_and_free_ref():
  ty = sj.ShapeDtypeStruct((2,), jnp.float32)

  def f(x):
    r = sj.empty_ref(ty)
    r[...] = x
    return sj.freeze(r)
  jty = jax.ShapeDtypeStruct((2,), jjnp.float32)
  assert (str(sj.make_jaxpr(lambda: sj.freeze(sj.empty_ref(ty)))()) ==
          str(jax.make_jaxpr(lambda: jax.freeze(jax.empty_ref(jty)))()))
  np.testing.assert_array_equal(sj.jit(f)(np.ones(2, np.float32)), [1., 1.])
  with pytest.raises(NotImplementedError):
    sj.empty_ref(ty)
  assert (str(sj.make_jaxpr(lambda x: sj.free_ref(sj.new_ref(x)))(1.)) ==
          str(jax.make_jaxpr(lambda x: jax.free_ref(jax.new_ref(x)))(1.)))


def test_errors_match_jax_types():
  def errors(lib, np_):
    out = []
    r = lib.new_ref(np_.zeros(3))
    for bad in (lambda: r.__setitem__(..., np_.ones(4)),
                lambda: r.__setitem__(..., np_.ones(3, np_.int32)),
                lambda: r.addupdate(np_.ones(2)),
                lambda: r.at,
                lambda: lib.jit(lambda x: lib.new_ref(x))(np_.ones(2))):
      with pytest.raises(Exception) as e:
        bad()
      out.append(type(e.value))
    np.testing.assert_array_equal(r[...], np.zeros(3))  # a refused write leaves the ref
    return out
  ours, theirs = both(errors)
  assert ours == theirs


def test_arrays_stay_immutable():
  with pytest.raises(TypeError, match="immutable"):
    sj.make_jaxpr(lambda x: x.__setitem__(0, 1.))(np.ones(2, np.float32))


def test_discharge_pass_is_functional():
  x = np.arange(3, dtype=np.float32)
  closed = sj.make_jaxpr(_f(sj))(x)
  out = sj.passes.discharge_state(closed)
  assert "Ref" not in str(out) and not out.jaxpr.effects
  np.testing.assert_array_equal(sj.core.jaxpr_as_fun(out)(x)[0] if hasattr(
      sj.core, "jaxpr_as_fun") else sj.jit(_f(sj))(x), [1., 2., 4.])
  assert "discharge" in sj.passes.registered("jaxpr")


def _vmapped(lib, np_):
  def f(x):
    r = lib.new_ref(np_.zeros(3))  # made under vmap: batched, as JAX's
    r[...] += x * x
    r[1] = np_.sin(x[1])
    return lib.freeze(r).sum()

  def k(x):
    r = lib.new_ref(x)
    r[0] += 1.
    return r[...], lib.ref.swap(r, 1, x[2])
  return f, k


def test_vmap_of_refs_matches_jax():
  x = np.arange(6, dtype=np.float32).reshape(2, 3)
  (fs, ks), (fj, kj) = _vmapped(sj, jnp), _vmapped(jax, jjnp)
  np.testing.assert_allclose(sj.vmap(fs)(x), jax.vmap(fj)(x), rtol=1e-6)
  np.testing.assert_allclose(sj.jit(sj.vmap(fs))(x), jax.vmap(fj)(x), rtol=1e-6)
  for a, b in zip(sj.vmap(ks, in_axes=1)(x.T), jax.vmap(kj, in_axes=1)(x.T)):
    np.testing.assert_array_equal(a, b)
  assert str(sj.make_jaxpr(sj.vmap(ks))(x)) == str(jax.make_jaxpr(jax.vmap(kj))(x))


def test_vmap_writes_batched_ref_arguments_and_refuses_unbatched_ones():
  def h(r, x):
    r[...] = x
  rs, rj = sj.new_ref(jnp.zeros((2, 3))), jax.new_ref(jjnp.zeros((2, 3)))
  x = np.arange(6, dtype=np.float32).reshape(2, 3)
  sj.vmap(h)(rs, x)
  jax.vmap(h)(rj, x)
  np.testing.assert_array_equal(rs[...], rj[...])
  with pytest.raises(Exception, match="unbatched array reference") as ours:
    sj.vmap(h, in_axes=(None, 0))(sj.new_ref(jnp.zeros(3)), x)
  with pytest.raises(Exception, match="unbatched array reference") as theirs:
    jax.vmap(h, in_axes=(None, 0))(jax.new_ref(jjnp.zeros(3)), x)
  assert type(ours.value) is type(theirs.value)


def _differentiated(lib, np_):
  def f(x):
    r = lib.new_ref(np_.zeros(3))  # made under grad: it has a tangent ref, as JAX's
    r[...] += x * x
    r[1] = np_.sin(x[1])
    return lib.freeze(r).sum()

  def h(x):
    r = lib.new_ref(x)
    r[0] = r[1] * r[2]
    r[2] += r[0]
    return lib.freeze(r)
  return f, h


def test_grad_jvp_and_jacrev_of_refs_match_jax():
  x = np.array([0.5, 1.0, 2.0], np.float32)
  (fs, hs), (fj, hj) = _differentiated(sj, jnp), _differentiated(jax, jjnp)
  want = jax.grad(fj)(x)
  for got in (sj.grad(fs)(x), sj.jit(sj.grad(fs))(x), sj.grad(sj.jit(fs))(x)):
    np.testing.assert_allclose(got, want, rtol=1e-6)
  for a, b in zip(sj.jvp(fs, (x,), (np.ones(3, np.float32),)),
                  jax.jvp(fj, (x,), (np.ones(3, np.float32),))):
    np.testing.assert_allclose(a, b, rtol=1e-6)
  np.testing.assert_allclose(sj.jacrev(hs)(x), jax.jacrev(hj)(x), rtol=1e-6)
  np.testing.assert_allclose(sj.vmap(sj.grad(fs))(np.stack([x, 2 * x])),
                             jax.vmap(jax.grad(fj))(np.stack([x, 2 * x])), rtol=1e-6)
  xs = np.stack([x, x])
  scan = lambda lib, f: lambda xs: lib.lax.scan(lambda c, x: (c + f(x), None), 0., xs)[0]
  np.testing.assert_allclose(sj.grad(scan(sj, fs))(xs), jax.grad(scan(jax, fj))(xs), rtol=1e-6)


def test_grad_refuses_writing_into_a_ref_made_outside_as_jax():
  def errors(lib, np_):
    r = lib.new_ref(np_.zeros(3))

    def g(x):
      r[...] += x
      return (x * x).sum()
    with pytest.raises(Exception, match="non-differentiated array reference") as e:
      lib.grad(g)(np_.arange(3.))
    return type(e.value)
  ours, theirs = both(errors)
  assert ours is theirs


def _control_flow(lib, np_, r):
  def loop(x):
    def body(i, c):
      r[...] = r[...] * 2 + x
      return c + r[1]
    a = lib.lax.fori_loop(0, 3, body, 0.)  # a scan
    lib.lax.cond(x > 0, lambda: r.__setitem__(0, 5.), lambda: None)

    def wbody(i, c):
      r[1] += 1.
      return c + r[0]
    b = lib.lax.fori_loop(0, x.astype(int), wbody, 0.)  # a while loop
    ys = lib.lax.scan(lambda c, y: (c, r[...] * y), 0., np_.arange(3.))[1]
    return a, b, ys
  return loop


def test_refs_closed_over_by_control_flow_match_jax():
  rs, rj = sj.new_ref(jnp.ones(2)), jax.new_ref(jjnp.ones(2))
  for x in (2., -1.):
    ours = sj.jit(_control_flow(sj, jnp, rs))(x)
    theirs = jax.jit(_control_flow(jax, jjnp, rj))(x)
    for a, b in zip(ours, theirs):
      np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(rs[...], rj[...])


def test_eager_loop_writing_a_ref_matches_jax():
  def run(lib, np_):
    r = lib.new_ref(np_.ones(2))

    def body(i, c):
      r[...] = r[...] * 2
      return c + r[1]
    out = lib.lax.fori_loop(0, 3, body, 0.)
    out2 = lib.lax.fori_loop(0, 3, body, 0.)  # (the cached executable, the refs written again)
    return float(out), float(out2), np.asarray(r[...])
  ours, theirs = both(run)
  assert ours[:2] == theirs[:2]
  np.testing.assert_array_equal(ours[2], theirs[2])


def test_inner_jit_closing_over_a_ref_and_a_tracer_matches_jax():
  def program(lib, np_):
    r = lib.new_ref(np_.zeros(2))

    def outer(y):
      @lib.jit
      def inner(x):
        r[...] += x * y
        return x + y
      return inner(2.) * 3
    return float(lib.jit(outer)(5.)), np.asarray(r[...]), str(lib.make_jaxpr(outer)(5.))
  ours, theirs = both(program)
  assert ours[0] == theirs[0] and ours[2] == theirs[2]
  np.testing.assert_array_equal(ours[1], theirs[1])


def test_array_operations_refuse_refs_as_jax():
  def errors(lib, np_):
    r = lib.new_ref(np_.zeros(3))
    out = []
    for bad in (lambda: lib.make_jaxpr(lambda r: np_.sin(r))(r), lambda: np_.sin(r),
                lambda: r + 1):
      with pytest.raises(Exception) as e:
        bad()
      out.append(type(e.value))
    return out
  ours, theirs = both(errors)
  assert ours == theirs == [TypeError] * 3
