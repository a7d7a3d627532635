"""Typed PRNG keys (`random.key`, dtype `key<fry>`) against JAX: values bit for bit, jaxprs,
and keys through jit, vmap, scan, cond and grad."""
import numpy as np
import pytest

import stablejax as sj
from stablejax import dtypes, lax, random

jax = pytest.importorskip("jax")
jrandom = jax.random


def _same(x, y):
  x, y = np.asarray(x), np.asarray(y)
  assert x.dtype == y.dtype and x.shape == y.shape
  np.testing.assert_array_equal(x, y)


def test_key_dtype_and_data():
  k, jk = random.key(42), jrandom.key(42)
  assert str(k.dtype) == str(jk.dtype) == "key<fry>" and k.shape == jk.shape == ()
  assert dtypes.issubdtype(k.dtype, dtypes.prng_key)
  assert dtypes.issubdtype(k.dtype, dtypes.extended)
  assert not dtypes.issubdtype(np.dtype(np.uint32), dtypes.prng_key)
  _same(random.key_data(k), jrandom.key_data(jk))
  assert random.key_impl(k) == str(jrandom.key_impl(jk))
  w = random.wrap_key_data(np.array([[1, 2], [3, 4]], np.uint32))
  assert w.shape == (2,) and str(w.dtype) == "key<fry>"
  _same(random.key_data(w), np.array([[1, 2], [3, 4]], np.uint32))


@pytest.mark.parametrize("name,args", [
    ("uniform", ((5,),)), ("normal", ((2, 3),)), ("bits", ((4,),)),
    ("randint", ((6,), 0, 10)), ("bernoulli", (0.3, (5,))), ("gamma", (2.0, (3,))),
    ("permutation", (6,)),
])
def test_samplers_bit_identical(name, args):
  k, jk = random.key(7), jrandom.key(7)
  _same(getattr(random, name)(k, *args), getattr(jrandom, name)(jk, *args))


def test_split_fold_in_and_raw_keys():
  k, jk = random.key(3), jrandom.key(3)
  _same(random.key_data(random.split(k, 3)), jrandom.key_data(jrandom.split(jk, 3)))
  _same(random.key_data(random.fold_in(k, 9)), jrandom.key_data(jrandom.fold_in(jk, 9)))
  a, b = random.split(k)
  ja, jb = jrandom.split(jk)
  _same(random.uniform(b, (3,)), jrandom.uniform(jb, (3,)))
  # a raw key with the same data gives the same values
  _same(random.uniform(random.key_data(a), (3,)), jrandom.uniform(ja, (3,)))
  with pytest.raises(ValueError, match="single key"):
    random.split(random.split(k, 2), 2)


def _jaxpr_text(make_jaxpr, f, *args):
  return str(make_jaxpr(f)(*args))


@pytest.mark.parametrize("f", [
    lambda k: random.split(k), lambda k: random.split(k)[0],
    lambda k: random.fold_in(k, 3), lambda k: random.key_data(k),
])
def test_jaxpr_printing(f):
  ours = _jaxpr_text(sj.make_jaxpr, f, random.key(0))
  theirs = _jaxpr_text(jax.make_jaxpr, _as_jax(f), jrandom.key(0))
  assert ours == theirs


def _as_jax(f):
  """`f` with stablejax.random replaced by jax.random."""
  return type(f)(f.__code__, {**f.__globals__, "random": jrandom})


def test_jaxpr_seed_and_wrap():
  assert str(sj.make_jaxpr(random.key)(0)) == str(jax.make_jaxpr(jrandom.key)(0))
  data = np.array([1, 2], np.uint32)
  assert (str(sj.make_jaxpr(random.wrap_key_data)(data)) ==
          str(jax.make_jaxpr(jrandom.wrap_key_data)(data)))
  assert "random_bits[bit_width=32 shape=(2,)]" in str(
      sj.make_jaxpr(lambda k: random.bits(k, (2,)))(random.key(0)))


def test_jit_vmap_scan_cond():
  k, jk = random.key(11), jrandom.key(11)
  out = sj.jit(lambda k: random.split(k, 4))(k)
  assert str(out.dtype) == "key<fry>" and out.shape == (4,)
  _same(random.key_data(out), jrandom.key_data(jrandom.split(jk, 4)))
  keys, jkeys = random.split(k, 3), jrandom.split(jk, 3)
  _same(sj.vmap(lambda k: random.normal(k, (2,)))(keys),
        jax.vmap(lambda k: jrandom.normal(k, (2,)))(jkeys))
  _same(random.key_data(sj.vmap(random.split)(keys)),
        jrandom.key_data(jax.vmap(jrandom.split)(jkeys)))

  def body(rnd):
    def step(key, _):
      key, sub = rnd.split(key)
      return key, rnd.uniform(sub)
    return step
  c, ys = lax.scan(body(random), k, None, length=4)
  jc, jys = jax.lax.scan(body(jrandom), jk, None, length=4)
  _same(ys, jys)
  _same(random.key_data(c), jrandom.key_data(jc))
  pick = lambda lx, rnd, p, key: lx.cond(p, lambda k: rnd.fold_in(k, 1), lambda k: k, key)
  _same(random.key_data(sj.jit(lambda p, k: pick(lax, random, p, k))(True, k)),
        jrandom.key_data(jax.jit(lambda p, k: pick(jax.lax, jrandom, p, k))(True, jk)))


@pytest.mark.parametrize("in_axes", [(0, None), (0, 0), (None, 0)])
def test_vmap_of_fold_in_over_keys_data_or_both(in_axes):
  # (flax.nnx's `nnx.split_rngs` + `nnx.vmap` folds a batched count into batched keys)
  def run(rnd, vmap, np_data):
    keys = rnd.split(rnd.key(3), 3)
    return rnd.key_data(vmap(rnd.fold_in, in_axes=in_axes)(
        keys if in_axes[0] == 0 else keys[0], np_data if in_axes[1] == 0 else np_data[0]))
  data = np.arange(5, 8, dtype=np.uint32)
  _same(run(random, sj.vmap, data), run(jrandom, jax.vmap, data))


@pytest.mark.parametrize("convert", [
    lambda lib, x, dt: lib.lax.convert_element_type(x, dt),
    lambda lib, x, dt: lib.numpy.asarray(x, dt),
    lambda lib, x, dt: lib.jit(lambda x: lib.lax.convert_element_type(x, dt))(x),
])
def test_a_key_is_not_converted_to_another_dtype_nor_made_by_conversion(convert):
  for lib in (sj, jax):
    key = lib.random.key(0)
    with pytest.raises(ValueError, match="Cannot convert_element_type from key<fry> to float32"):
      convert(lib, key, np.float32)
    with pytest.raises(ValueError, match="Cannot convert_element_type from uint32 to key<fry>"):
      lib.lax.convert_element_type(np.zeros(2, np.uint32), key.dtype)
  with pytest.raises(ValueError, match="from key<fry> to int32"):
    random.key(0).astype(np.int32)


def test_grad_float0_tangent():
  f = lambda rnd: lambda x, k: x * rnd.uniform(k)  # noqa: E731
  gx = sj.grad(f(random))(2., random.key(0))
  _same(gx, jax.grad(f(jrandom))(2., jrandom.key(0)))
  # the tangent of a key is float0 (JAX: grad(allow_int=True) of a key)
  _, tk = sj.jvp(lambda k: random.split(k), (random.key(0),),
                 (np.zeros((), dtypes.float0),))
  assert np.shape(tk) == (2,) and np.asarray(tk).dtype == dtypes.float0


def test_bad_keys():
  with pytest.raises(TypeError):
    random.wrap_key_data(np.zeros(3, np.float32))
  with pytest.raises(TypeError):
    random.key(1.5)
