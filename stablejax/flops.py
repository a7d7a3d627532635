"""`flops(f)(*args)`: an estimate of the floating-point operations of `f`, counted on its jaxpr
(Mini-JAX's FLOPS transformation, done statically). `f` may be a `jit`, `grad`, `vmap`, ... of a
function: the transformed program is what is counted, after dead-code elimination (the program
that is lowered).

Each primitive's cost comes from `flops_rules[prim](avals_in, avals_out, **params)`, registered
in the primitive's family file (`stablejax.interpreters.flops`); a user adds one with
`register_flops_rule`. Conventions (XLA's `HloCostAnalysis` where it has one):
- elementwise ops: 1 per output element, transcendental ones (`exp`, `sin`, `tanh`, ...) too.
  XLA reports transcendentals apart from "flops", so compare with its flops + transcendentals;
  `integer_pow` counts the multiplies of square-and-multiply, as XLA sees them after lowering;
  `convert_element_type` to the same dtype is free.
- reductions (also argmax/argmin and cumulative ones): 1 per input element (XLA: input - output).
- `dot_general`: 2 x batch x free x contracting sizes = 2 x output elements x contracting size.
- `conv_general_dilated`: 2 x output elements x kernel spatial size x input features per group,
  less the kernel taps that fall on padding or lhs-dilation holes (as XLA counts).
- windowed reductions: output elements x window size; `sort`: n log2 n compares per sorted row;
  `cholesky` n^3/3 and `triangular_solve` m^2 n per matrix; the other factorizations by the
  textbook counts (Golub and Van Loan) per m x n matrix, k = min(m, n): `lu` m n k - k^3/3,
  `geqrf` and `householder_product` 2 m n k - 2 k^3/3 (`qr` both), `eigh` 9 n^3 (with
  vectors, as computed), `svd` 4 m n k + 8 k^3 (with vectors; 4 m n k - 4 k^3/3 without);
  `fft` 5 N log2 N per transform of N points (half for the real ones); `scatter-add` (-mul,
  -min, -max) 1 per update element; the reducing collectives (`psum`, `pmax`, `pmin`,
  `psum_scatter`) 1 per input element, the others and sharding constraints 0.
- structural ops (reshape, transpose, broadcast, slice, pad, concatenate, gather, plain scatter,
  iota, ...) and host callbacks: 0, as XLA counts them.
- control flow: the max over `cond` branches; `scan`: length x body; a `while` whose trip count is
  static (the `i < n` / `i + 1` loop `fori_loop` stages, started from literals) trip count x
  (body + cond) + cond; `jit`, `custom_jvp`/`custom_vjp` and `checkpoint` bodies are counted once.
A `while` with a dynamic trip count, and a primitive without a rule (`ffi_call`, `call_exported`,
a user's primitive), raise `UnknownFlopsError` naming the primitive and its source line.
"""
from __future__ import annotations

from typing import Callable, Sequence

from stablejax import passes
from stablejax.api import make_jaxpr
from stablejax.interpreters.flops import (LiteralAval, UnknownFlopsError, flops_rules,
                                          jaxpr_flops, register_flops_rule)

__all__ = ["LiteralAval", "UnknownFlopsError", "flops", "flops_rules", "jaxpr_flops",
           "register_flops_rule"]


def flops(fun: Callable, static_argnums: int | Sequence[int] = ()) -> Callable[..., float]:
  """`flops(f)(*args)`: the estimated floating-point operations of `f(*args)` (see the module
  docstring for the conventions); `args` may be arrays or ShapeDtypeStructs."""
  trace = make_jaxpr(fun, static_argnums=static_argnums)

  def count(*args, **kwargs) -> float:
    return jaxpr_flops(passes.dce_closed_jaxpr(trace(*args, **kwargs)))

  return count
