"""The examples of JAX's "Understanding Jaxprs" that need no control flow (func1, func3 with
`inner`, func4 with a tuple argument, func12 with a nested jit closing over `arg`): each is
written once against a library (`stablejax` or `jax`) and its numpy, and `sj.make_jaxpr` must
print what `jax.make_jaxpr` prints (JAX's `sharding=None`-like params removed)."""
from __future__ import annotations

import numpy as np
import pytest

import stablejax as sj
import stablejax.numpy as sjnp

jax = pytest.importorskip("jax")
import jax.numpy as jaxnp  # noqa: E402


def func1(api, jnp):
  def func1(first, second):
    temp = first + jnp.sin(second) * 3.
    return jnp.sum(temp)
  return func1


def func3(api, jnp):
  def func2(inner, first, second):
    temp = first + inner(second) * 3.
    return jnp.sum(temp)

  def inner(second):
    if second.shape[0] > 4:  # Python control flow on a static shape: traced through
      return jnp.sin(second)
    else:
      assert False

  def func3(first, second):
    return func2(inner, first, second)
  return func3


def func4(api, jnp):
  def func4(arg):  # arg is a pair
    temp = arg[0] + jnp.sin(arg[1]) * 3.
    return jnp.sum(temp)
  return func4


def func12(api, jnp):
  def func12(arg):
    @api.jit
    def inner(x):
      return x + arg * jnp.ones(1)  # closes over `arg`, a tracer of the outer trace
    return arg + inner(arg - 2.)
  return func12


def zeros_ones():
  return np.zeros(8, np.float32), np.ones(8, np.float32)


EXAMPLES = {
    "func1": (func1, zeros_ones),
    "func3": (func3, zeros_ones),
    "func4": (func4, lambda: (zeros_ones(),)),
    "func12": (func12, lambda: (1.,)),
}


def jax_text(closed) -> str:
  return str(closed).replace(" sharding=None", "").replace(" out_sharding=None", "")


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_make_jaxpr_prints_like_jax(name):
  make, make_args = EXAMPLES[name]
  want = jax_text(jax.make_jaxpr(make(jax, jaxnp))(*make_args()))
  got = str(sj.make_jaxpr(make(sj, sjnp))(*make_args()))
  assert got == want


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_values_match_jax(name):
  make, make_args = EXAMPLES[name]
  want = np.asarray(make(jax, jaxnp)(*make_args()))
  for fn in (make(sj, sjnp), sj.jit(make(sj, sjnp))):
    got = np.asarray(fn(*make_args()))
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_func1_func3_func4_print_the_same_jaxpr():
  """The tutorial's point: inlined Python calls and pytree arguments leave no trace."""
  texts = {name: str(sj.make_jaxpr(EXAMPLES[name][0](sj, sjnp))(*EXAMPLES[name][1]()))
           for name in ("func1", "func3", "func4")}
  assert len(set(texts.values())) == 1, texts
