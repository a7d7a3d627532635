"""Printed jaxprs match JAX 0.10.2's text, layout included.

Hand-built jaxprs (with stand-in primitives for cond/while/scan/jit) are checked against strings
JAX printed for the same programs; when jax is installed, jaxprs JAX traces are also converted
to stablejax jaxprs and must print exactly as JAX prints them.
"""
import numpy as np
import pytest

import stablejax as sj
from stablejax import core, jaxpr as jaxpr_lib, lax, pretty_print as pp
from stablejax.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var

F32 = np.dtype(np.float32)
I32 = np.dtype(np.int32)

_prims: dict[str, core.Primitive] = {"broadcast_in_dim": lax.broadcast_in_dim_p}


def prim(name: str) -> core.Primitive:
  """A stand-in primitive (print-only); `jit` prints as a call."""
  if name not in _prims:
    _prims[name] = core.Primitive(name)
    if name == "jit":
      jaxpr_lib.register_call_primitive(_prims[name])
  return _prims[name]


def var(dtype=F32, *shape: int) -> Var:
  return Var(core.ShapedArray(shape, dtype))


def lit(val, dtype=F32) -> Literal:
  return Literal(val, core.ShapedArray((), dtype, weak_type=True))


def eqn(name: str, ins: list, outs: list, /, **params) -> JaxprEqn:
  return JaxprEqn(ins, outs, prim(name), params)


def convert(x: Var, out: Var) -> JaxprEqn:
  return eqn("convert_element_type", [x], [out], new_dtype=out.aval.dtype, weak_type=False)


# ----------------------------------------------------------------------------------------------
# The document engine

def test_group_is_flat_when_it_fits():
  doc = pp.group(pp.text("[") + pp.nest(2, pp.brk("") + pp.text("abc")) + pp.brk("") +
                 pp.text("]"))
  assert pp.render(doc, 80) == "[abc]"
  assert pp.render(doc, 4) == "[\n  abc\n]"


def test_group_fits_ignores_text_after_it():
  doc = pp.group(pp.text("ab") + pp.brk() + pp.text("cd")) + pp.text("efgh")
  assert pp.render(doc, 5) == "ab cdefgh"
  assert pp.render(doc, 4) == "ab\ncdefgh"


def test_outside_any_group_breaks_are_newlines():
  assert pp.render(pp.join(pp.brk(), [pp.text("a"), pp.text("b")])) == "a\nb"


def test_break_in_own_group_fills_lines():
  words = [pp.text(w) for w in ["aaa", "bbb", "ccc", "ddd"]]
  doc = pp.nest(1, pp.group(pp.join(pp.group(pp.brk()), words)))
  assert pp.render(doc, 9) == "aaa bbb ccc\n ddd"


# ----------------------------------------------------------------------------------------------
# Variable names, literals and params

@pytest.mark.parametrize("n, name", [(0, "a"), (25, "z"), (26, "ba"), (27, "bb"), (51, "bz"),
                                     (52, "ca"), (675, "zz"), (676, "baa")])
def test_variable_names_after_z(n, name):
  assert jaxpr_lib._alphabetic(n) == name


@pytest.mark.parametrize("val, dtype, expected", [
    (3.0, F32, "3.0:f32[]"), (2, I32, "2:i32[]"), (True, np.bool_, "True:bool[]"),
    (0.1, F32, "0.1:f32[]"), (3, F32, "3.0:f32[]"), (np.float32(0.1), F32,
                                                     "0.10000000149011612:f32[]"),
    (np.float32(3), F32, "3.0:f32[]"), (np.array(2, np.int32), I32, "2:i32[]"),
    (np.float64(1e20), F32, "1.0000000200408773e+20:f32[]"), (np.bool_(False), np.bool_,
                                                             "False:bool[]"),
    (1 + 2j, np.complex64, "(1+2j):c64[]"), (float("inf"), F32, "inf:f32[]"),
    (np.float16(0.1), np.float16, "0.0999755859375:f16[]"),
])
def test_literal_text(val, dtype, expected):
  assert jaxpr_lib.literal_text(lit(val, np.dtype(dtype))) == expected


def test_non_scalar_literal_is_elided():
  x = Literal(np.ones(3, F32), core.ShapedArray((3,), F32))
  assert jaxpr_lib.literal_text(x) == "[...]:f32[3]"


def test_params_sorted_and_printed_like_jax():
  a, b = var(F32, 3), var(F32, 3)
  e = eqn("p", [a], [b], z=None, dtype=F32, axes=(0,), perm=(1, 0), flag=True, t=np.int32,
          s=frozenset({2, 1}), f=lambda: 0)
  assert jaxpr_lib.pp_eqn(e) == (
      "a:f32[3] = p[\n  axes=(0,)\n  dtype=float32\n  f=<function test_params_sorted_and_"
      "printed_like_jax.<locals>.<lambda> at 0xXXXXXXXXXXXX>\n  flag=True\n  perm=(1, 0)\n"
      "  s=frozenset({1, 2})\n  t=int32\n  z=None\n] b")


def test_no_params_no_brackets_and_no_outputs():
  a = var()
  assert jaxpr_lib.pp_eqn(eqn("sin", [a], [var()])) == "a:f32[] = sin b"
  assert jaxpr_lib.pp_eqn(eqn("effect", [a], [])) == "effect a"


def test_hide_params_registers_by_primitive():
  p = core.Primitive("bcast")
  jaxpr_lib.hide_params(p, "shape", if_empty=("dims",))
  x = var()
  assert jaxpr_lib.pp_eqn(JaxprEqn([x], [var(F32, 2)], p, dict(shape=(2,), dims=()))) == (
      "a:f32[2] = bcast b")
  assert jaxpr_lib.pp_eqn(JaxprEqn([x], [var(F32, 2)], p, dict(shape=(2,), dims=(0,)))) == (
      "a:f32[2] = bcast[dims=(0,)] b")


def test_bad_atom_is_a_clear_error():
  with pytest.raises(TypeError, match="cannot print 3 of type int as a jaxpr variable"):
    jaxpr_lib.pp_eqn(eqn("sin", [3], [var()]))


# ----------------------------------------------------------------------------------------------
# Hand-built jaxprs against JAX's printed text

def test_design_example():
  a, b, c, d, e, f = [var(F32, 8) for _ in range(5)] + [var()]
  jaxpr = Jaxpr([], [a, b], [f], [
      eqn("sin", [b], [c]), eqn("mul", [c, lit(3.0)], [d]), eqn("add", [a, d], [e]),
      eqn("reduce_sum", [e], [f], axes=(0,))])
  assert str(jaxpr) == """\
{ lambda ; a:f32[8] b:f32[8]. let
    c:f32[8] = sin b
    d:f32[8] = mul c 3.0:f32[]
    e:f32[8] = add a d
    f:f32[] = reduce_sum[axes=(0,)] e
  in (f,) }"""


def test_one_line_with_unused_output_and_constvars():
  k, a, b, c = var(F32, 4), var(), var(), var()
  jaxpr = Jaxpr([k], [a], [b], [eqn("sin", [a], [b]), eqn("cos", [a], [c])])
  assert str(ClosedJaxpr(jaxpr, [np.ones(4, F32)])) == (
      "{ lambda a:f32[4]; b:f32[]. let c:f32[] = sin b; _:f32[] = cos b in (c,) }")


def test_func12_jit_binders_named_after_call():
  a, b, c, h, i = var(), var(), var(F32, 1), var(), var(F32, 1)
  x, y, d, e, f, g, r = var(), var(), var(F32, 1), var(), var(F32, 1), var(), var(F32, 1)
  inner = Jaxpr([], [x, y], [r], [
      eqn("broadcast_in_dim", [lit(1.0)], [d], shape=(1,), broadcast_dimensions=()),
      convert(x, e), eqn("mul", [e, d], [f]), convert(y, g), eqn("add", [g, f], [r])])
  outer = Jaxpr([], [a], [i], [
      eqn("sub", [a, lit(2.0)], [b]),
      eqn("jit", [a, b], [c], name="inner", jaxpr=ClosedJaxpr(inner, [])),
      convert(a, h), eqn("add", [h, c], [i])])
  assert str(outer) == """\
{ lambda ; a:f32[]. let
    b:f32[] = sub a 2.0:f32[]
    c:f32[1] = jit[
      name=inner
      jaxpr={ lambda ; a:f32[] b:f32[]. let
          d:f32[1] = broadcast_in_dim 1.0:f32[]
          e:f32[] = convert_element_type[new_dtype=float32 weak_type=False] a
          f:f32[1] = mul e d
          g:f32[] = convert_element_type[new_dtype=float32 weak_type=False] b
          c:f32[1] = add g f
        in (c,) }
    ] a b
    h:f32[] = convert_element_type[new_dtype=float32 weak_type=False] a
    i:f32[1] = add h c
  in (i,) }"""


def _branch(op: str, c: float) -> ClosedJaxpr:
  x, y = var(), var()
  return ClosedJaxpr(Jaxpr([], [x], [y], [eqn(op, [x, lit(c)], [y])]), [])


def test_cond_branches():
  a, b, c, d = var(), var(np.bool_), var(I32), var()
  jaxpr = Jaxpr([], [a], [d], [
      eqn("ge", [a, lit(0.0)], [b]), convert(b, c),
      eqn("cond", [c, a], [d], branches=(_branch("sub", 3.0), _branch("add", 3.0)))])
  assert str(jaxpr) == """\
{ lambda ; a:f32[]. let
    b:bool[] = ge a 0.0:f32[]
    c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] b
    d:f32[] = cond[
      branches=(
        { lambda ; e:f32[]. let f:f32[] = sub e 3.0:f32[] in (f,) }
        { lambda ; g:f32[]. let h:f32[] = add g 3.0:f32[] in (h,) }
      )
    ] c a
  in (d,) }"""


def test_cond_branch_without_equations():
  k, b, c, d, e, f, g = var(I32, 1), var(), var(F32, 1), var(), var(np.bool_), var(I32), var(F32, 1)
  h, i, j, kk, l = var(I32, 1), var(F32, 1), var(), var(F32, 1), var(F32, 1)
  m, n, o = var(I32, 1), var(F32, 1), var()
  true = Jaxpr([], [h, i, j], [l], [
      eqn("convert_element_type", [h], [kk], new_dtype=F32, weak_type=True),
      eqn("add", [kk, j], [l])])
  false = Jaxpr([], [m, n, o], [n], [])
  jaxpr = Jaxpr([k], [b, c, d], [g], [
      eqn("ge", [b, lit(0.0)], [e]), convert(e, f),
      eqn("cond", [f, k, c, d], [g], branches=(ClosedJaxpr(true, []), ClosedJaxpr(false, [])))])
  assert str(jaxpr) == """\
{ lambda a:i32[1]; b:f32[] c:f32[1] d:f32[]. let
    e:bool[] = ge b 0.0:f32[]
    f:i32[] = convert_element_type[new_dtype=int32 weak_type=False] e
    g:f32[1] = cond[
      branches=(
        { lambda ; h:i32[1] i:f32[1] j:f32[]. let
            k:f32[1] = convert_element_type[new_dtype=float32 weak_type=True] h
            l:f32[1] = add k j
          in (l,) }
        { lambda ; m:i32[1] n:f32[1] o:f32[]. let  in (n,) }
      )
    ] f a c d
  in (g,) }"""


def test_fori_loop_as_while():
  a, b, c, d = var(F32, 16), var(I32), var(F32, 16), var(F32, 16)
  i0, i1, e = var(I32), var(I32), var(F32, 16)
  f, g, h, i, j = var(F32, 16), var(F32, 16), var(I32), var(I32), var(F32, 16)
  k, l, m, n = var(I32), var(F32, 16), var(F32, 16), var(F32, 16)
  body = Jaxpr([], [f, g, h, i, j], [k, i, n], [
      eqn("add", [h, lit(1, I32)], [k]), eqn("mul", [f, lit(3.0)], [l]),
      eqn("add", [j, l], [m]), eqn("add", [m, g], [n])])
  o, p, q, r = var(I32), var(I32), var(F32, 16), var(np.bool_)
  cond = Jaxpr([], [o, p, q], [r], [eqn("lt", [o, p], [r])])
  jaxpr = Jaxpr([], [a, b], [e], [
      eqn("broadcast_in_dim", [lit(1.0)], [c], shape=(16,), broadcast_dimensions=()),
      eqn("add", [a, c], [d]),
      eqn("while", [c, a, lit(0, I32), b, d], [i0, i1, e], body_jaxpr=ClosedJaxpr(body, []),
          body_nconsts=2, cond_jaxpr=ClosedJaxpr(cond, []), cond_nconsts=0)])
  assert str(jaxpr) == """\
{ lambda ; a:f32[16] b:i32[]. let
    c:f32[16] = broadcast_in_dim 1.0:f32[]
    d:f32[16] = add a c
    _:i32[] _:i32[] e:f32[16] = while[
      body_jaxpr={ lambda ; f:f32[16] g:f32[16] h:i32[] i:i32[] j:f32[16]. let
          k:i32[] = add h 1:i32[]
          l:f32[16] = mul f 3.0:f32[]
          m:f32[16] = add j l
          n:f32[16] = add m g
        in (k, i, n) }
      body_nconsts=2
      cond_jaxpr={ lambda ; o:i32[] p:i32[] q:f32[16]. let
          r:bool[] = lt o p
        in (r,) }
      cond_nconsts=0
    ] c a 0:i32[] b d
  in (e,) }"""


def test_scan():
  a, b, c, d, e = var(F32, 16), var(), var(F32, 16), var(), var(F32, 16)
  f, g, h, i, j, k, l, m, n = [var() for _ in range(9)]
  body = Jaxpr([], [f, g, h, i], [n, g], [
      eqn("mul", [h, i], [j]), convert(g, k), eqn("add", [k, j], [l]), convert(f, m),
      eqn("add", [l, m], [n])])
  jaxpr = Jaxpr([], [a, b], [d, e], [
      eqn("broadcast_in_dim", [lit(1.0)], [c], shape=(16,), broadcast_dimensions=()),
      eqn("scan", [b, lit(0.0), a, c], [d, e], jaxpr=ClosedJaxpr(body, []), length=16,
          num_carry=1, num_consts=1, reverse=False, unroll=1)])
  assert str(jaxpr) == """\
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


def test_dot_general_params_break_one_per_line():
  a, b, c = var(F32, 4, 3), var(F32, 3, 4), var(F32, 4, 4)
  jaxpr = Jaxpr([], [a], [c], [
      eqn("transpose", [a], [b], permutation=(1, 0)),
      eqn("dot_general", [a, b], [c], dimension_numbers=(([1], [0]), ([], [])),
          preferred_element_type=F32)])
  assert str(jaxpr) == """\
{ lambda ; a:f32[4,3]. let
    b:f32[3,4] = transpose[permutation=(1, 0)] a
    c:f32[4,4] = dot_general[
      dimension_numbers=(([1], [0]), ([], []))
      preferred_element_type=float32
    ] a b
  in (c,) }"""


def test_shared_jaxprs_printed_first_with_names_skipped():
  chain = [var() for _ in range(12)]
  g = Jaxpr([], chain[:1], chain[-1:], [eqn("sin", [x], [y]) for x, y in zip(chain, chain[1:])])
  o, p = var(), var()
  h = Jaxpr([], [o], [p], [eqn("add", [o, lit(1.0)], [p])])
  q, r, s, t, u, v, w = [var() for _ in range(7)]
  jit = lambda name, j, x, y: eqn("jit", [x], [y], name=name, jaxpr=ClosedJaxpr(j, []))
  top = Jaxpr([], [q], [w], [jit("g", g, q, r), jit("h", h, r, s), jit("h", h, q, t),
                             eqn("add", [s, t], [u]), jit("g", g, q, v), eqn("add", [u, v], [w])])
  assert str(top) == """\
let g = { lambda ; a:f32[]. let
    b:f32[] = sin a
    c:f32[] = sin b
    d:f32[] = sin c
    e:f32[] = sin d
    f:f32[] = sin e
    i:f32[] = sin f
    j:f32[] = sin i
    k:f32[] = sin j
    l:f32[] = sin k
    m:f32[] = sin l
    n:f32[] = sin m
  in (n,) } in
let h = { lambda ; o:f32[]. let p:f32[] = add o 1.0:f32[] in (p,) } in
{ lambda ; q:f32[]. let
    r:f32[] = jit[name=g jaxpr=g] q
    s:f32[] = jit[name=h jaxpr=h] r
    t:f32[] = jit[name=h jaxpr=h] q
    u:f32[] = add s t
    v:f32[] = jit[name=g jaxpr=g] q
    w:f32[] = add u v
  in (w,) }"""


def test_long_binder_lists_fill_lines():
  args = [var() for _ in range(30)]
  assert str(Jaxpr([], args, args[:1], [])) == """\
{ lambda ; a:f32[] b:f32[] c:f32[] d:f32[] e:f32[] f:f32[] g:f32[] h:f32[] i:f32[]
    j:f32[] k:f32[] l:f32[] m:f32[] n:f32[] o:f32[] p:f32[] q:f32[] r:f32[] s:f32[]
    t:f32[] u:f32[] v:f32[] w:f32[] x:f32[] y:f32[] z:f32[] ba:f32[] bb:f32[] bc:f32[]
    bd:f32[]. let
    \n  in (a,) }"""


def test_equation_without_operands_keeps_trailing_space():
  a = var(I32, 3)
  jaxpr = Jaxpr([], [], [a], [eqn("iota", [], [a], dimension=0, dtype=I32, shape=(3,))])
  assert str(jaxpr) == (
      "{ lambda ; . let a:i32[3] = iota[dimension=0 dtype=int32 shape=(3,)]  in (a,) }")


def test_nested_jaxprs_do_not_drop_unused_outputs():
  x, y, z = var(), var(), var()
  inner = Jaxpr([], [x], [z], [eqn("cos", [x], [y]), eqn("sin", [x], [z])])
  a, b = var(), var()
  top = Jaxpr([], [a], [b], [eqn("jit", [a], [b], name="g", jaxpr=ClosedJaxpr(inner, []))])
  assert str(top) == """\
{ lambda ; a:f32[]. let
    b:f32[] = jit[
      name=g
      jaxpr={ lambda ; a:f32[]. let c:f32[] = cos a; b:f32[] = sin a in (b,) }
    ] a
  in (b,) }"""


# ----------------------------------------------------------------------------------------------
# make_jaxpr with stablejax's primitives

def test_make_jaxpr_design_prefix():
  f = lambda x, y: lax.add(x, lax.mul(lax.sin(y), 3.0))
  ones = np.ones(8, np.float32)
  assert str(sj.make_jaxpr(f)(ones, ones)) == """\
{ lambda ; a:f32[8] b:f32[8]. let
    c:f32[8] = sin b
    d:f32[8] = mul c 3.0:f32[]
    e:f32[8] = add a d
  in (e,) }"""


def test_make_jaxpr_broadcast_in_dim_hides_shape():
  f = lambda x, y: (lax.broadcast_in_dim(x, (3, 4), (1,)), lax.broadcast_in_dim(y, (2,), ()))
  out = str(sj.make_jaxpr(f)(np.ones(4, np.float32), np.float32(1)))
  assert out == """\
{ lambda ; a:f32[4] b:f32[]. let
    c:f32[3,4] = broadcast_in_dim[broadcast_dimensions=(1,)] a
    d:f32[2] = broadcast_in_dim b
  in (c, d) }"""


# The same programs for stablejax.lax and for jax.lax; each prints the same.
MAKE_JAXPR_CASES = [
    ("sin_cos", lambda L: lambda x: (L.sin(x), L.cos(x))[0], [np.float32(1)]),
    ("neg_chain", lambda L: lambda x: L.neg(L.neg(L.neg(L.neg(L.neg(x))))), [np.ones(3, F32)]),
    ("transpose", lambda L: lambda x: L.mul(L.transpose(x, (1, 0)), np.float32(0.1)),
     [np.ones((4, 3), F32)]),
    ("bcast", lambda L: lambda x: L.add(L.broadcast_in_dim(x, (5, 4), (1,)), 2.0),
     [np.ones(4, F32)]),
    ("many_vars", lambda L: lambda *xs: L.add(xs[0], L.mul(xs[1], xs[-1])),
     [np.float32(1)] * 28),
    ("long_chain", lambda L: _chain(L), [np.ones((2, 3), F32)]),
]


def _chain(L):
  def f(x):
    for _ in range(14):
      x = L.cos(L.sin(x))
    return x
  return f


@pytest.mark.parametrize("name, make, args", MAKE_JAXPR_CASES, ids=[c[0] for c in MAKE_JAXPR_CASES])
def test_make_jaxpr_matches_jax(name, make, args, jax_text):
  jax = pytest.importorskip("jax")
  expected = jax_text(jax.make_jaxpr(make(jax.lax))(*args))
  assert str(sj.make_jaxpr(make(lax))(*args)) == expected


# ----------------------------------------------------------------------------------------------
# Differential: jaxprs traced by JAX, converted to stablejax jaxprs, print as JAX prints them

_HIDDEN_IF_NONE = {"sharding", "out_sharding", "accuracy", "out_dtype"}


class _FromJax:
  """Converts a JAX jaxpr to a stablejax one with stand-in primitives, keeping sharing."""

  def __init__(self):
    self.vars, self.jaxprs = {}, {}

  def jaxpr(self, j) -> Jaxpr:
    if id(j) not in self.jaxprs:
      self.jaxprs[id(j)] = Jaxpr([self.var(v) for v in j.constvars],
                                 [self.var(v) for v in j.invars],
                                 [self.atom(v) for v in j.outvars], [self.eqn(e) for e in j.eqns])
    return self.jaxprs[id(j)]

  def var(self, v) -> Var:
    if v not in self.vars:
      self.vars[v] = Var(core.ShapedArray(v.aval.shape, v.aval.dtype))
    return self.vars[v]

  def atom(self, x):
    from jax.extend import core as jcore
    if not isinstance(x, jcore.Literal):
      return self.var(x)
    val = x.val
    if isinstance(val, (np.ndarray, np.generic)):
      val = np.asarray(val)[()]
    else:
      val = next(t for t in (bool, int, float, complex) if isinstance(val, t))(val)
    return Literal(val, core.ShapedArray(np.shape(val), x.aval.dtype, x.aval.weak_type))

  def value(self, v):
    from jax.extend import core as jcore
    if isinstance(v, jcore.ClosedJaxpr):
      return ClosedJaxpr(self.jaxpr(v.jaxpr), v.consts)
    if isinstance(v, jcore.Jaxpr):
      return self.jaxpr(v)
    if type(v) is tuple and v and all(isinstance(j, jcore.ClosedJaxpr) for j in v):
      return tuple(self.value(j) for j in v)
    return v

  def params(self, name: str, params: dict) -> dict:
    if name == "jit":
      return dict(name=params["name"], jaxpr=self.value(params["jaxpr"]))
    out = {k: self.value(v) for k, v in params.items()
           if not (v is None and (k in _HIDDEN_IF_NONE or name == "dot_general"))}
    if name == "dot_general":
      (lc, rc), (lb, rb) = out["dimension_numbers"]
      out["dimension_numbers"] = ((list(lc), list(rc)), (list(lb), list(rb)))
    return out

  def eqn(self, e) -> JaxprEqn:
    return JaxprEqn([self.atom(x) for x in e.invars], [self.var(v) for v in e.outvars],
                    prim(e.primitive.name), self.params(e.primitive.name, e.params))


def _jax_programs():
  import jax
  import jax.numpy as jnp
  from jax import lax as jl

  def func12(arg):
    @jax.jit
    def inner(x):
      return x + arg * jnp.ones(1)
    return arg + inner(arg - 2.)

  def switch3(index, arg):
    return jl.switch(index, [lambda x: x + 1., lambda x: x - 2., lambda x: x + 3.], arg)

  def func8(arg1, arg2):
    return jl.cond(arg1 >= 0., lambda t: t[0], lambda f: jnp.array([1]) + f[1], arg2)

  def func10(arg, n):
    ones = jnp.ones(arg.shape)
    return jl.fori_loop(0, n, lambda i, carry: carry + ones * 3. + arg, arg + ones)

  def func11(arr, extra):
    ones = jnp.ones(arr.shape)
    def body(carry, aelems):
      ae1, ae2 = aelems
      return (carry + ae1 * ae2 + extra, carry)
    return jl.scan(body, 0., (arr, ones))

  def shared(x):
    @jax.jit
    def g(y):
      for _ in range(11):
        y = jnp.sin(y)
      return y
    @jax.jit
    def h(y):
      return y + 1.
    return h(g(x)) + h(x) + g(x)

  def nested(x, xs):
    def body(c, x):
      c = jl.cond(c > 0, lambda y: jax.jit(lambda z: z * 2.)(y), lambda y: -y, c)
      return c + jl.fori_loop(0, 3, lambda i, v: v * x, x), c
    return jl.scan(body, x, xs)

  def unused_scan_output(x):
    a, b = jl.scan(lambda c, x: (c, c), x, np.ones(3, np.float32))
    return a

  def iota_and_consts(x):
    return jl.iota(np.int32, 3) + x, jnp.arange(3) * x

  def reduce_long_axes(x):
    return jnp.sum(jnp.sin(x), axis=(0, 1, 2, 3, 4, 5)), jnp.max(x, axis=(1, 3))

  def literal_out(x):
    return 1.0, x, np.float32(2.5)

  def mixed_literals(x, b):
    return x * 0.1, x * np.float32(0.1), b & True, x * float("inf"), (x + 1j) * (1 + 2j)

  programs = [
      (func12, [1.]), (switch3, [1, 5.]), (func8, [5., (jnp.zeros(1), 2.)]),
      (func10, [np.ones(16), 5]), (func11, [np.ones(16), 5.]), (shared, [1.]),
      (nested, [np.float32(1), np.ones(4, np.float32)]), (unused_scan_output, [1.]),
      (iota_and_consts, [np.int32(1)]), (reduce_long_axes, [np.ones((1,) * 6, np.float32)]),
      (literal_out, [1.]), (mixed_literals, [np.ones(2, np.float32), True]),
      (lambda x: jnp.dot(x, x.T), [np.ones((4, 3), np.float32)]),
      (lambda *xs: sum(xs[::-1]), [np.float32(1)] * 40),
      (lambda *xs: xs, [np.float32(1)] * 30),
  ]
  def a_jit_with_a_rather_long_name_to_push_the_params_past_the_width(x):
    return x * 2.

  programs += [
      (lambda *xs: jnp.concatenate(xs), [np.ones(2, np.float32)] * 30),
      (lambda x: x.reshape((1,) * 24), [np.ones(1, np.float32)]),
      (lambda x: jax.jit(a_jit_with_a_rather_long_name_to_push_the_params_past_the_width)(x),
       [np.ones((2, 3), np.float32)]),
  ]
  # Lines around the width limit, at several nesting depths, on ever longer shapes.
  for n in range(1, 14):
    x = np.ones((1,) * n, np.float32)
    programs.append((lambda x: x + 1., [x]))
    programs.append((lambda x, y: (jnp.sin(x), y), [x, 1.]))
    programs.append((lambda p, x: jl.cond(p, lambda y: y + 1., lambda y: y * 2., x), [True, x]))
    programs.append((lambda x: jl.scan(lambda c, _: (c * 2., None), x, length=2)[0], [x]))
  return programs


def test_jax_traced_programs_print_the_same(jax_as_0_10_2):
  jax = pytest.importorskip("jax")
  for fun, args in _jax_programs():
    stripped = jax_as_0_10_2(jax.make_jaxpr(fun)(*args))
    ours = _FromJax().jaxpr(stripped.jaxpr)
    assert str(ours) == str(stripped), str(stripped)
