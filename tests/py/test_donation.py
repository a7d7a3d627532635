"""`jit(..., donate_argnums=, donate_argnames=)`: donated arguments alias results of their type
in the module (as JAX marks them), XLA writes the results into their buffers, and a donated
Array is deleted by the call (and says so when used again). Each case is compared with JAX."""
from __future__ import annotations

import re
import warnings

import jax
import jax.numpy as jjnp
import numpy as np
import pytest

import stablejax as sj
import stablejax.numpy as jnp

LIBS = {"stablejax": (sj, jnp), "jax": (jax, jjnp)}


def aliases(text: str) -> list[int | None]:
  """Per argument of `@main`: the result it aliases (`tf.aliasing_output`), or None."""
  signature = re.search(r"func\.func public @main\((.*?)\) ->", text).group(1)
  args = re.split(r", (?=%arg)", signature)
  return [int(m.group(1)) if (m := re.search(r"tf\.aliasing_output = (\d+)", a)) else None
          for a in args]


def two_results(x, y, z):
  return z + 1.0, x * y


CASES = {  # name -> (function, jit keywords, arguments, keyword arguments)
    "positional": (two_results, {"donate_argnums": (0, 2)},
                   (np.ones(3, np.float32), np.ones(3, np.float32), np.ones(2, np.float32)), {}),
    "unusable donation skipped": (two_results, {"donate_argnums": (0, 1, 2)},
                                  (np.ones(3, np.float32),) * 2 + (np.ones(2, np.float32),), {}),
    "pytree argument": (lambda d: {k: v * 2 for k, v in d.items()}, {"donate_argnums": 0},
                        ({"a": np.ones(3, np.float32), "b": np.ones(2, np.int32)},), {}),
    "by name, passed by keyword": (lambda x, y: (x + y, y), {"donate_argnames": "y"},
                                   (np.ones(3, np.float32),), {"y": np.ones(3, np.float32)}),
    "by name, passed by position": (lambda x, y: (x + y, y), {"donate_argnames": "y"},
                                    (np.ones(3, np.float32), np.ones(3, np.float32)), {}),
    "with a static argument": (lambda n, x: x * n, {"static_argnums": 0, "donate_argnums": 1},
                               (3, np.ones(4, np.float32)), {}),
}


@pytest.mark.parametrize("name", CASES)
def test_lowered_aliases_match_jax(name):
  fun, kw, args, kwargs = CASES[name]
  with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # the unusable donation's warning (tested below)
    texts = {lib: api.jit(fun, **kw).lower(*args, **kwargs).as_text()
             for lib, (api, _) in LIBS.items()}
  assert aliases(texts["stablejax"]) == aliases(texts["jax"])


@pytest.mark.parametrize("name", CASES)
def test_donated_arrays_are_deleted_as_in_jax(name):
  fun, kw, args, kwargs = CASES[name]
  out = {}
  for lib, (api, np_) in LIBS.items():
    on_device = lambda t: api.tree_util.tree_map(np_.asarray, t)
    a, k = on_device(args[1:] if "static_argnums" in kw else args), on_device(kwargs)
    a = args[:1] + a if "static_argnums" in kw else a
    with warnings.catch_warnings():
      warnings.simplefilter("ignore")
      result = api.jit(fun, **kw)(*a, **k)
    leaves = api.tree_util.tree_leaves((a, k))
    out[lib] = ([np.asarray(r).tolist() for r in api.tree_util.tree_leaves(result)],
                [x.is_deleted() for x in leaves if hasattr(x, "is_deleted")])
  assert out["stablejax"] == out["jax"]
  assert any(out["stablejax"][1])  # something was donated


def test_reusing_a_donated_array_is_a_clear_error():
  f = sj.jit(lambda x: x * 2.0, donate_argnums=0)
  x = jnp.arange(3.0)
  y = f(x)
  np.testing.assert_array_equal(y, [0.0, 2.0, 4.0])
  assert x.is_deleted() and not y.is_deleted()
  uses = {"jit call": lambda: f(x), "eager op": lambda: x + 1.0, "read": lambda: np.asarray(x),
          "repr": lambda: repr(x), "block": lambda: x.block_until_ready()}
  for what, use in uses.items():
    with pytest.raises(RuntimeError, match=r"f32\[3\]\) has been deleted: it was donated"):
      use()


def test_donating_a_numpy_argument_leaves_it_alone():
  host = np.ones(3, np.float32)
  out = sj.jit(lambda x: x + 1.0, donate_argnums=0)(host)
  np.testing.assert_array_equal(out, [2.0, 2.0, 2.0])
  np.testing.assert_array_equal(host, [1.0, 1.0, 1.0])


def test_an_array_read_on_the_host_is_not_donated():
  # its buffer is shared with the numpy view (on CPU): PJRT keeps it, as in JAX
  outs = {}
  for lib, (api, np_) in LIBS.items():
    x = np_.ones(3)
    view = np.asarray(x)
    y = api.jit(lambda a: a + 1.0, donate_argnums=0)(x)
    outs[lib] = (x.is_deleted(), view.tolist(), np.asarray(y).tolist())
  assert outs["stablejax"] == outs["jax"]


def test_ahead_of_time_compiled_function_donates():
  x = jnp.ones(3)
  compiled = sj.jit(lambda a: a * 3.0, donate_argnums=0).lower(x).compile()
  np.testing.assert_array_equal(compiled(x), [3.0, 3.0, 3.0])
  assert x.is_deleted()


def test_donation_is_part_of_the_cache_key():
  def f(a):
    return a - 1.0
  x, y = jnp.ones(2), jnp.ones(2)
  sj.jit(f)(x)
  assert not x.is_deleted()
  sj.jit(f, donate_argnums=0)(y)
  assert y.is_deleted()
  sj.jit(f)(x)
  assert not x.is_deleted()


def test_unusable_donation_warns():
  with pytest.warns(UserWarning, match=r"donated buffers were not usable: f32\[2,2\]"):
    sj.jit(lambda x: x.sum(), donate_argnums=0)(jnp.ones((2, 2)))


@pytest.mark.parametrize("kw, message", [
    ({"static_argnums": 0, "donate_argnums": 0}, "static and donated arguments cannot intersect"),
    ({"static_argnames": "x", "donate_argnames": "x"}, "cannot intersect"),
    ({"donate_argnums": 2}, "beyond the 1 positional parameters"),
    ({"donate_argnums": -1}, "non-negative"),
])
def test_bad_donation_arguments(kw, message):
  with pytest.raises(ValueError, match=message):
    sj.jit(lambda x: x, **kw)


def test_delete():
  x = jnp.ones(2)
  assert not x.is_deleted()
  x.delete()
  assert x.is_deleted()
  with pytest.raises(RuntimeError, match="has been deleted"):
    np.asarray(x)
