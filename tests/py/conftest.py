import sys

import numpy as np
import pytest

import stablejax as sj
from stablejax import test_util


# stablejax's own lowering, JVP, transpose and batching rules have their results checked in the
# tests, as users' are always (config.check_lowering_rules, config.check_transform_rules).
sj.config.update("check_lowering_rules", True)
sj.config.update("check_transform_rules", True)


@pytest.fixture(autouse=True, scope="module")
def _release_compiled_programs():
  """Drop stablejax's and JAX's compiled programs after each test module. A worker runs a few
  thousand tests; every XLA CPU executable holds memory mappings (a few, or hundreds for a large
  program), and kept in the caches they reached the kernel's 65,530 per process, where LLVM
  cannot map the next compile's code and XLA crashes (seen as a segfault in test_expm_grads)."""
  yield
  sj.clear_caches()
  if "jax" in sys.modules:
    sys.modules["jax"].clear_caches()


@pytest.fixture
def x64():
  """Run the test with enable_x64 on."""
  with test_util.x64(True):
    yield


@pytest.fixture
def rng():
  return np.random.default_rng(0)


# ----------------------------------------------------------------------------------------------
# JAX's jaxprs as JAX 0.10.2 prints them. stablejax prints jaxprs as JAX 0.10.2 does; the tests
# compare with the installed JAX, so newer JAX's known printing differences are undone here, and
# only on newer JAX: on 0.10.2 only the `sharding=None`-like params that stablejax never prints
# are dropped.

@pytest.fixture
def jax_after_0_10_2() -> bool:
  """Whether the installed JAX is newer than 0.10.2, the JAX stablejax follows."""
  return test_util.after_jax_followed(pytest.importorskip("jax").__version__)


def _params_as_0_10_2(name: str, params: dict, newer: bool) -> dict:
  out = {k: v for k, v in params.items()
         if not (k in ("sharding", "out_sharding") and v is None)}
  if newer and name == "scan":
    # JAX after 0.10.2 (seen in 0.12) replaced scan's `num_consts` and `num_carry` with the flat
    # trees `ft_in` (consts, carry, xs) and `ft_out` (carry, ys); 0.10.2 prints the leaf counts.
    consts, carry, _ = out.pop("ft_in").unpack()
    out_carry, _ = out.pop("ft_out").unpack()
    assert len(out_carry) == len(carry), (out_carry, carry)
    out.update(num_consts=len(consts), num_carry=len(carry))
  return out


def _as_0_10_2(j, newer: bool, memo: dict):
  """`j` (a JAX jaxpr, closed jaxpr, tuple of them, or any param) with params as in 0.10.2,
  keeping shared sub-jaxprs shared."""
  from jax.extend import core as jcore
  if isinstance(j, tuple):
    return tuple(_as_0_10_2(x, newer, memo) for x in j)
  if not isinstance(j, (jcore.Jaxpr, jcore.ClosedJaxpr)):
    return j
  if id(j) not in memo:
    if type(j) is not jcore.Jaxpr:  # 0.10.2's ClosedJaxpr around an open Jaxpr (0.12 has one)
      memo[id(j)] = j.replace(jaxpr=_as_0_10_2(j.jaxpr, newer, memo))
    else:
      memo[id(j)] = j.replace(eqns=[
          e.replace(params=_params_as_0_10_2(
              e.primitive.name, {k: _as_0_10_2(v, newer, memo) for k, v in e.params.items()},
              newer))
          for e in j.eqns])
  return memo[id(j)]


@pytest.fixture
def jax_as_0_10_2(jax_after_0_10_2):
  """Maps a jaxpr from `jax.make_jaxpr` to one that prints as JAX 0.10.2 prints it."""
  return lambda closed: _as_0_10_2(closed, jax_after_0_10_2, {})


@pytest.fixture
def jax_text(jax_as_0_10_2):
  """The text of a jaxpr from `jax.make_jaxpr` as JAX 0.10.2 prints it, less the
  `sharding=None`-like params stablejax never prints."""
  return lambda closed: str(jax_as_0_10_2(closed))
