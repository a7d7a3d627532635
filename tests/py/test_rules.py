"""Every built-in primitive has the rules it needs: abstract evaluation, a lowering (on cpu), a
JVP and a batching rule; a partial-evaluation rule where it is higher-order; a numpy reference
(the test oracle) where it is not. A primitive
added without one of them fails here, with the primitive and the rule named."""
import pytest

from stablejax import core, lax, test_util
from stablejax.interpreters import ad, batching, partial_eval as pe
from stablejax.lax import primitive_kit, state
from stablejax.lowering import LoweringError, registry

BUILTINS = test_util.lax_primitives() + [ad.add_jaxvals_p]

# No second list of the primitives' kinds here: the registries are the tables. A primitive whose
# params hold jaxprs needs a partial-evaluation rule instead of a numpy reference (it is evaluated
# by evaluating its jaxprs); one linear in an operand has its transpose rule checked by the
# gradient tests (test_grads.py, test_recipe.py), which transpose its JVP.

# The primitives that call the user's compiled code: no numpy reference is possible.
NO_REFERENCE = {lax.ffi_call_p}
# XLA's random number generators: their bits are XLA's algorithms' (compared with JAX's in
# test_lax_additions.py).
NO_REFERENCE |= {lax.rng_bit_generator_p, lax.rng_uniform_p}
# The collectives: their value depends on the other participants of a named axis.
NO_REFERENCE |= {lax.psum_p, lax.pmax_p, lax.pmin_p, lax.all_gather_p, lax.reduce_scatter_p,
                 lax.ppermute_p, lax.all_to_all_p, lax.axis_index_p, lax.ragged_all_to_all_p}

# The primitives without operands: JVP and vmap apply a rule only to a primitive with a nonzero
# tangent or a batched operand, so these need neither rule.
NULLARY = {lax.iota_p, lax.axis_index_p}


# The mutable-ref primitives (lax/state.py) are discharged to array operations before lowering
# (passes/discharge.py): a discharge rule instead of a lowering and a reference.
REFS = set(state.discharge_rules) | set(state.allocators)


def _has_lowering(prim: core.Primitive) -> bool:
  if prim in REFS:
    return prim in state.discharge_rules or prim in state.allocators
  try:
    registry.lookup_rule(prim, "cpu")
  except LoweringError:
    return False
  return True


def missing_rules(prim: core.Primitive) -> list[str]:
  """The rules `prim` lacks (reused by test_recipe.py on a primitive built by the recipe)."""
  needs = {
      "abstract evaluation (def_abstract_eval)": prim.abstract_eval is not None,
      "cpu lowering (register_lowering)": _has_lowering(prim),
      "JVP (ad.primitive_jvps; ad.defjvp_zero if not differentiable)":
          prim in NULLARY or prim in ad.primitive_jvps,
      "batching (batching.primitive_batchers or fancy_primitive_batchers)":
          prim in NULLARY or prim in batching.primitive_batchers
          or prim in batching.fancy_primitive_batchers,
      "numpy reference (primitive_kit.def_reference), or partial evaluation "
      "(pe.partial_eval_rules) if its params hold jaxprs":
          prim in pe.partial_eval_rules or prim in NO_REFERENCE or prim in REFS
          or prim in primitive_kit.reference_impls,
  }
  return [rule for rule, present in needs.items() if not present]


@pytest.mark.parametrize("prim", BUILTINS, ids=lambda p: p.name)
def test_primitive_has_every_rule(prim):
  missing = missing_rules(prim)
  assert not missing, f"primitive '{prim.name}' has no rule for: {'; '.join(missing)}"
