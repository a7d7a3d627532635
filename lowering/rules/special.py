"""Lowering rules of the special functions: chlo ops where JAX uses them; the regularized
incomplete gamma functions and the derivative of igamma in `a` as a power series or a continued
fraction written with lax ops (lowered in place with `lower_fun`, as JAX does), and `bessel_i0e`
as Cephes' Chebyshev expansions."""
from __future__ import annotations

from jaxlib.mlir.dialects import chlo

from stablejax import lax
from stablejax.lowering.module import lower_fun
from stablejax.lowering.registry import register_lowering
from stablejax.lowering.rules.elementwise import nary_rule

CHLO_OPS = {
    lax.erf_p: chlo.ErfOp, lax.erfc_p: chlo.ErfcOp, lax.erf_inv_p: chlo.ErfInvOp,
    lax.lgamma_p: chlo.LgammaOp, lax.digamma_p: chlo.DigammaOp,
    lax.polygamma_p: chlo.PolygammaOp, lax.zeta_p: chlo.ZetaOp,
    lax.bessel_i1e_p: chlo.BesselI1eOp,
}

for _prim, _op in CHLO_OPS.items():
  register_lowering(_prim, nary_rule(_op))
for _prim, _impl in [(lax.igamma_p, lax.special.igamma_impl),
                     (lax.igammac_p, lax.special.igammac_impl),
                     (lax.igamma_grad_a_p, lax.special.igamma_grad_a_impl),
                     (lax.regularized_incomplete_beta_p,
                      lax.special.regularized_incomplete_beta_impl)]:
  register_lowering(_prim, lower_fun(_impl))
register_lowering(lax.bessel_i0e_p, lower_fun(lax.special.bessel_i0e_impl))
