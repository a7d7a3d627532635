"""Every built-in primitive has the rules it needs: abstract evaluation, a lowering (on cpu), a
JVP and a batching rule; a transpose rule where it is linear in an operand; a partial-evaluation
rule where it is higher-order; a numpy reference (the test oracle) where it is not. A primitive
added without one of them fails here, with the primitive and the rule named."""
import pytest

from stablejax import core, lax, test_util
from stablejax.interpreters import ad, batching, partial_eval as pe
from stablejax.lax import standard
from stablejax.lowering import LoweringError, registry

BUILTINS = test_util.lax_primitives() + [ad.add_jaxvals_p]

# The primitives whose params hold jaxprs: partial evaluation needs a rule for them, and they
# have no numpy reference (they are evaluated by evaluating their jaxprs).
HIGHER_ORDER = {lax.cond_p, lax.while_p, lax.scan_p, lax.jit_p,
                lax.custom_jvp_call_p, lax.custom_vjp_call_p, lax.remat_p}

# The primitives that call the user's compiled code: no numpy reference is possible.
NO_REFERENCE = {lax.ffi_call_p}
# The collectives: their value depends on the other participants of a named axis.
NO_REFERENCE |= {lax.psum_p, lax.pmax_p, lax.pmin_p, lax.all_gather_p, lax.reduce_scatter_p,
                 lax.ppermute_p, lax.all_to_all_p, lax.axis_index_p}

# The primitives linear in at least one operand: exactly these have transpose rules.
LINEAR = {
    lax.add_p, lax.sub_p, lax.neg_p, lax.mul_p, lax.div_p, lax.dot_general_p,
    lax.reduce_window_sum_p,
    lax.convert_element_type_p, lax.reduce_sum_p, lax.cumsum_p, lax.broadcast_in_dim_p,
    lax.reshape_p, lax.transpose_p, lax.squeeze_p, lax.expand_dims_p, lax.concatenate_p,
    lax.slice_p, lax.pad_p, lax.dynamic_slice_p, lax.dynamic_update_slice_p, lax.select_n_p,
    ad.add_jaxvals_p, lax.cond_p, lax.scan_p, lax.jit_p,
    lax.while_p,  # (its rule raises JAX's error: a loop of unknown trip count is not reversible)
    lax.remat_p,
    lax.real_p, lax.imag_p, lax.conj_p, lax.complex_p,
    lax.reduce_precision_p, lax.optimization_barrier_p, lax.sharding_constraint_p,
    lax.rev_p, lax.gather_p, lax.scatter_add_p,
    lax.conv_general_dilated_p,
    lax.linalg.triangular_solve_p,
    lax.fft_p,
    lax.psum_p, lax.all_gather_p, lax.reduce_scatter_p, lax.ppermute_p, lax.all_to_all_p,
}

# The primitives without operands: JVP and vmap apply a rule only to a primitive with a nonzero
# tangent or a batched operand, so these need neither rule.
NULLARY = {lax.iota_p, lax.axis_index_p}


def _has_lowering(prim: core.Primitive) -> bool:
  try:
    registry.lookup_rule(prim, "cpu")
  except LoweringError:
    return False
  return True


def _missing_rules(prim: core.Primitive) -> list[str]:
  needs = {
      "abstract evaluation (def_abstract_eval)": prim.abstract_eval is not None,
      "cpu lowering (register_lowering)": _has_lowering(prim),
      "JVP (ad.primitive_jvps; ad.defjvp_zero if not differentiable)":
          prim in NULLARY or prim in ad.primitive_jvps,
      "batching (batching.primitive_batchers or fancy_primitive_batchers)":
          prim in NULLARY or prim in batching.primitive_batchers
          or prim in batching.fancy_primitive_batchers,
      "transpose (ad.primitive_transposes)": prim not in LINEAR or prim in ad.primitive_transposes,
      "partial evaluation (pe.partial_eval_rules)":
          prim not in HIGHER_ORDER or prim in pe.partial_eval_rules,
      "numpy reference (standard.def_reference)":
          prim in HIGHER_ORDER or prim in NO_REFERENCE or prim in standard.reference_impls,
  }
  return [rule for rule, present in needs.items() if not present]


@pytest.mark.parametrize("prim", BUILTINS, ids=lambda p: p.name)
def test_primitive_has_every_rule(prim):
  missing = _missing_rules(prim)
  assert not missing, f"primitive '{prim.name}' has no rule for: {'; '.join(missing)}"


def test_linear_list_matches_the_transpose_rules():
  with_transpose = {p for p in BUILTINS if p in ad.primitive_transposes}
  assert not with_transpose - LINEAR, (
      f"primitives with a transpose rule missing from LINEAR in this test: "
      f"{sorted(p.name for p in with_transpose - LINEAR)}")
  assert not LINEAR - with_transpose, (
      f"primitives in LINEAR without a transpose rule: "
      f"{sorted(p.name for p in LINEAR - with_transpose)}")


def test_higher_order_list_matches_the_partial_eval_rules():
  with_rule = {p for p in BUILTINS if p in pe.partial_eval_rules}
  assert with_rule == HIGHER_ORDER, (
      f"primitives with a partial-evaluation rule: {sorted(p.name for p in with_rule)}; "
      f"HIGHER_ORDER in this test: {sorted(p.name for p in HIGHER_ORDER)}")

