"""The extension surface under JAX's names (`jax.extend.*`, `jax.interpreters.{mlir, ad,
batching, partial_eval}`, the legacy `jax.core` names), checked against JAX 0.10.2: every name
stablejax gives there JAX has too, the names libraries use are there, and a user primitive
written the way JAX's documentation shows (`jax.extend.core.Primitive`, `mlir.register_lowering`,
`ad`, `batching`) gives JAX's values under `install_as_jax` (JAX and stablejax each in a fresh
interpreter: the hook changes what `import jax` means for a whole process)."""
import importlib
import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import stablejax as sj
import stablejax.core
import stablejax.legacy_core
from stablejax import lax
from stablejax.extend import linear_util as lu, random as sj_random
from stablejax.interpreters import partial_eval as pe

jax = pytest.importorskip("jax")

# stablejax module -> JAX's module of the same name
MODULES = [
    "extend", "extend.core", "extend.core.primitives", "extend.linear_util",
    "extend.source_info_util", "extend.backend", "extend.random", "extend.mlir",
    "interpreters.mlir", "interpreters.ad", "interpreters.batching", "interpreters.partial_eval",
    "api_util", "custom_derivatives",
]

# What flax 0.12, equinox 0.13, dm-haiku 0.0.17 and numpyro 0.22 read from these modules.
USED_BY_LIBRARIES = {
    "extend.core": ["ClosedJaxpr", "DropVar", "Effect", "Jaxpr", "JaxprEqn", "Literal",
                    "Primitive", "Var", "find_top_trace", "get_opaque_trace_state",
                    "jaxpr_as_fun", "mapped_aval", "primitives", "set_current_trace",
                    "take_current_trace", "unmapped_aval"],
    "extend.core.primitives": ["call_p", "closed_call_p", "jit_p"],
    "extend.linear_util": ["transformation", "wrap_init"],
    "extend.source_info_util": ["register_exclusion"],
    "interpreters.ad": ["JVPTracer", "UndefinedPrimal", "Zero", "deflinear", "instantiate_zeros",
                        "is_undefined_primal", "primitive_jvps", "primitive_transposes"],
    "interpreters.batching": ["axis_primitive_batchers", "primitive_batchers"],
    "interpreters.mlir": ["lower_fun", "register_lowering"],
    "interpreters.partial_eval": ["PartialVal", "trace_to_jaxpr_nounits"],
    "api_util": ["debug_info", "flatten_fun", "flatten_fun_nokwargs"],
    "custom_derivatives": ["CustomVJPPrimal", "SymbolicZero", "custom_jvp_call_p"],
}
LEGACY_CORE_USED = ["AbstractValue", "Atom", "DropVar", "ShapedArray", "Trace", "Tracer",
                    "eval_jaxpr", "find_top_trace", "get_aval", "get_opaque_trace_state",
                    "jaxprs_in_params"]


def _jax_names(name: str) -> set[str]:
  """The names JAX's module exports, its still-working deprecated ones included."""
  module = importlib.import_module(name)
  names = {n for n in dir(module) if not n.startswith("__")}
  deprecations = getattr(module, "_deprecations", {})
  return names | {k for k, v in deprecations.items() if v[1] is not None}


def _public(module) -> set[str]:
  names = getattr(module, "__all__", None)
  if names is None:
    names = [n for n, v in vars(module).items() if not n.startswith("_")
             and getattr(v, "__module__", module.__name__) != "__future__"]
  return set(names)


@pytest.mark.parametrize("name", MODULES)
def test_the_names_stablejax_gives_are_jaxs(name):
  ours = importlib.import_module("stablejax." + name)
  extra = set(getattr(ours, "__all__", ())) - _jax_names("jax." + name)
  assert not extra, f"stablejax.{name} exports names jax.{name} does not have: {sorted(extra)}"
  missing = [n for n in USED_BY_LIBRARIES.get(name, ()) if not hasattr(ours, n)]
  assert not missing, f"stablejax.{name} lacks names libraries use: {missing}"


def test_legacy_core_names_are_jaxs_and_not_stablejax_cores():
  jax_core = _jax_names("jax.core")
  ours = set(stablejax.legacy_core.__all__)
  assert ours <= jax_core, sorted(ours - jax_core)
  shadowed = [n for n in ours if n in vars(stablejax.core)]
  assert not shadowed, f"stablejax.core already has {shadowed}: the fallback would never be used"
  have = ours | set(vars(stablejax.core))
  assert [n for n in LEGACY_CORE_USED if n not in have] == []


def test_primitives_are_the_same_primitives():
  from jax.extend.core import primitives as jax_prims
  from stablejax.extend.core import primitives as ours
  for name in ours.__all__:
    assert getattr(ours, name).name == getattr(jax_prims, name).name, name


def test_partial_eval_computes_the_known_part_as_jax():
  def f(x, y):
    return [np.float32(2) * x, x + y, y * y]

  def run(pe_module, wrapped, shaped_array):
    pvals = [pe_module.PartialVal.known(np.float32(3)),
             pe_module.PartialVal.unknown(shaped_array((2,), np.float32))]
    _, outs, _ = pe_module.trace_to_jaxpr_nounits(wrapped, pvals)
    return [("known", float(np.asarray(c))) if a is None else ("unknown", a.shape)
            for a, c in outs]

  from jax.extend import linear_util as jax_lu
  from jax.interpreters import partial_eval as jax_pe
  dbg = jax.api_util.debug_info("test", f, (0, 0), {})
  assert run(pe, lu.wrap_init(f), stablejax.core.ShapedArray) == \
      run(jax_pe, jax_lu.wrap_init(f, debug_info=dbg), jax.core.ShapedArray) == \
      [("known", 6.0), ("unknown", (2,)), ("unknown", (2,))]


def test_dce_jaxpr_prunes_as_jax():
  import stablejax
  import stablejax.numpy as sjnp
  import jax.numpy as jnp
  from jax.interpreters import partial_eval as jax_pe
  ours = stablejax.make_jaxpr(lambda x, y: (sjnp.sin(x), y * 2, x + 1))(1., 2.).jaxpr
  theirs = jax.make_jaxpr(lambda x, y: (jnp.sin(x), y * 2, x + 1))(1., 2.).jaxpr
  for used, instantiate in [([True, False, False], False), ([False, True, False], [True, False]),
                            (False, True)]:
    (a, used_a), (b, used_b) = (pe.dce_jaxpr(ours, used, instantiate),
                                jax_pe.dce_jaxpr(theirs, used, instantiate))
    assert used_a == used_b and len(a.eqns) == len(b.eqns) and len(a.outvars) == len(b.outvars)


def test_generator_transformations_as_jax():
  def scale(k, *args):  # old-style: yield the arguments, get the result back, yield ours
    out = yield tuple(a * k for a in args), {}
    yield out + 1

  def with_aux(*args):
    out = yield args, {}
    yield out, len(args)

  def run(lu_module, **kw):
    f = lu_module.wrap_init(lambda x, y: x * 10 + y, **kw)
    f = lu_module.transformation(scale, f, 2)()  # (JAX's curry: applied when called)
    g, aux = lu_module.transformation_with_aux(with_aux)(f)
    return g.call_wrapped(1, 2), aux()

  from jax.extend import linear_util as jax_lu
  dbg = jax.api_util.debug_info("test", lambda x, y: 0, (1, 2), {})
  assert run(lu) == run(jax_lu, debug_info=dbg) == (25, 2)


def test_threefry_2x32_is_jaxs():
  from jax.extend import random as jax_random
  for n in (6, 7):
    count = np.arange(n, dtype=np.uint32) * np.uint32(977)
    keys = (np.uint32(12), np.uint32(0xDEADBEEF))
    np.testing.assert_array_equal(np.asarray(sj_random.threefry_2x32(keys, count)),
                                  np.asarray(jax_random.threefry_2x32(keys, count)))


USER_PRIMITIVE = """
import json
import numpy as np
import jax
import jax.numpy as jnp
from jax import lax
import jax.extend.backend
from jax.extend import core as jex_core
from jax.extend.mlir.dialects import stablehlo as hlo
from jax.interpreters import ad, batching, mlir

# JAX's "How JAX primitives work" multiply_add, through the public extension names.
multiply_add_p = jex_core.Primitive("multiply_add")


def multiply_add(x, y, z):
  return multiply_add_p.bind(x, y, z)


multiply_add_p.def_impl(lambda x, y, z: np.add(np.multiply(x, y), z))
multiply_add_p.def_abstract_eval(lambda x, y, z: jax.core.ShapedArray(x.shape, x.dtype))


def lowering(ctx, xc, yc, zc):
  assert len(ctx.avals_in) == 3 and len(ctx.avals_out) == 1
  return [hlo.add(hlo.multiply(xc, yc), zc)]


mlir.register_lowering(multiply_add_p, lowering, platform="cpu")


def jvp(primals, tangents):
  x, y, z = primals
  xt, yt, zt = (jnp.zeros_like(x) if type(t) is ad.Zero else t for t in tangents)
  return multiply_add(x, y, z), multiply_add(xt, y, multiply_add(x, yt, zt))


ad.primitive_jvps[multiply_add_p] = jvp


def transpose(ct, x, y, z):
  if not ad.is_undefined_primal(x):
    return None, multiply_add(x, ct, jnp.zeros_like(x)), ct
  return multiply_add(ct, y, jnp.zeros_like(y)), None, ct


ad.primitive_transposes[multiply_add_p] = transpose


def batch(args, dims):
  size = next(a.shape[d] for a, d in zip(args, dims) if d is not None)
  return multiply_add(*(batching.bdim_at_front(a, d, size) for a, d in zip(args, dims))), 0


batching.primitive_batchers[multiply_add_p] = batch

# A primitive batched through the older `axis_primitive_batchers` (equinox's), lowered with
# `mlir.lower_fun`.
twice_p = jex_core.Primitive("twice")
twice_p.def_impl(lambda x: x * 2)
twice_p.def_abstract_eval(lambda x: jax.core.ShapedArray(x.shape, x.dtype))
mlir.register_lowering(twice_p, mlir.lower_fun(lambda x: x * 2, multiple_results=False))
seen = []


def twice_batch(axis_size, axis_name, trace, args, dims):
  seen.append((axis_size, trace))
  return twice_p.bind(*args), dims[0]


batching.axis_primitive_batchers[twice_p] = twice_batch

# A bilinear primitive (`ad.defbilinear`): its JVP and both transposes from two rules.
mymul_p = jex_core.Primitive("mymul")
mymul_p.def_impl(lambda a, b: np.multiply(a, b))
mymul_p.def_abstract_eval(lambda a, b: jax.core.ShapedArray(a.shape, a.dtype))
mlir.register_lowering(mymul_p, mlir.lower_fun(lambda a, b: a * b, multiple_results=False))
ad.defbilinear(mymul_p, lambda ct, a, b: mymul_p.bind(ct, b), lambda ct, a, b: mymul_p.bind(a, ct))

x = np.array([1., 2., 3.], np.float32)
y = np.array([4., 5., 6.], np.float32)
z = np.array([.5, .25, .125], np.float32)
xs = np.arange(6, dtype=np.float32).reshape(2, 3)
loss = lambda x, y: jnp.sum(multiply_add(x, y, z) ** 2)
out = {
    "eager": multiply_add(x, y, z),
    "jit": jax.jit(multiply_add)(x, y, z),
    "jvp": jax.jvp(lambda x: multiply_add(x, y, z), (x,), (z,))[1],
    "grad": jax.grad(loss, argnums=(0, 1))(x, y),
    "jit_grad": jax.jit(jax.grad(loss))(x, y),
    "vmap": jax.vmap(multiply_add, in_axes=(0, None, 0))(xs, y, xs),
    "jit_vmap": jax.jit(jax.vmap(multiply_add, in_axes=(1, None, None)))(xs, y[:2], z[:2]),
    "twice": jax.jit(jax.vmap(lambda v: twice_p.bind(v)))(xs),
    "seen": seen,
    "bilinear": jax.grad(lambda a, b: jnp.sum(jnp.sin(mymul_p.bind(a, b))), (0, 1))(x, y),
    "bilinear_jvp": jax.jvp(lambda a: mymul_p.bind(a, y), (x,), (z,))[1],
    "backend": jax.extend.backend.get_backend().platform == "cpu",
}
text = jax.jit(multiply_add).lower(x, y, z).as_text()
out["lowered"] = ["stablehlo.multiply" in text, "stablehlo.add" in text]
print(json.dumps(jax.tree.map(lambda a: np.asarray(a).tolist(), out,
                              is_leaf=lambda a: a is None)))
"""


def _run(code: str, hooked: bool) -> dict:
  prefix = "import stablejax; stablejax.install_as_jax()\n" if hooked else ""
  out = subprocess.run([sys.executable, "-c", prefix + textwrap.dedent(code)],
                       capture_output=True, text=True)
  assert out.returncode == 0, out.stderr[-3000:]
  return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_user_primitive_as_jaxs_documentation_writes_it_gives_jaxs_values():
  ours, theirs = _run(USER_PRIMITIVE, hooked=True), _run(USER_PRIMITIVE, hooked=False)
  assert ours.keys() == theirs.keys()
  for key in ours:
    np.testing.assert_allclose(np.asarray(ours[key], float), np.asarray(theirs[key], float),
                               rtol=1e-6, err_msg=key)
  assert ours["seen"] == [[2, None]] and ours["lowered"] == [True, True]


CALLS = """
import json
import numpy as np
import jax, jax.numpy as jnp
from jax.extend.core.primitives import call_p, closed_call_p

x = np.array([.5, 1., 2.], np.float32)
body = jax.make_jaxpr(lambda a, b: [jnp.sin(a) * b + jnp.arange(3.)])(x, x)
# call_p takes its body's consts as leading operands, the body's constvars as leading invars
body_open = body.jaxpr.replace(constvars=[], invars=body.jaxpr.constvars + body.jaxpr.invars)

def closed(a, b):
  return closed_call_p.bind(a, b, **closed_call_p.get_bind_params({"call_jaxpr": body}))[0]

def opened(a, b):
  return call_p.bind(*body.consts, a, b, **call_p.get_bind_params({"call_jaxpr": body_open}))[0]

out = {}
for name, f in [("closed", closed), ("open", opened)]:
  loss = lambda a, b: jnp.sum(f(a, b) ** 2)
  out[name] = [f(x, x), jax.jit(f)(x, 2 * x), jax.grad(loss, (0, 1))(x, x),
               jax.jvp(f, (x, x), (x, 3 * x))[1],
               jax.vmap(f, (0, None))(np.stack([x, 2 * x]), x),
               jax.jit(jax.grad(loss))(x, x)]
  out[name + "_eqns"] = [e.primitive.name for e in jax.make_jaxpr(f)(x, x).jaxpr.eqns]
print(json.dumps(jax.tree.map(lambda a: np.asarray(a).tolist() if not isinstance(a, str) else a,
                              out)))
"""


def test_call_primitives_give_jaxs_values_under_every_transformation():
  ours, theirs = _run(CALLS, hooked=True), _run(CALLS, hooked=False)
  assert ours["closed_eqns"] == theirs["closed_eqns"] == ["closed_call"]
  assert ours["open_eqns"] == theirs["open_eqns"] == ["call"]
  for key in ("closed", "open"):
    for got, want in zip(ours[key], theirs[key]):
      np.testing.assert_allclose(np.asarray(got, float), np.asarray(want, float), rtol=1e-6)


def test_call_rejects_a_body_with_constvars():
  body = sj.make_jaxpr(lambda a: [a + np.arange(3.0, dtype=np.float32)])(np.ones(3, np.float32))
  assert body.jaxpr.constvars
  with pytest.raises(TypeError, match="call_jaxpr must be a Jaxpr without constvars"):
    lax.call_p.bind(np.ones(3, np.float32), call_jaxpr=body.jaxpr)


def test_legacy_core_names_under_the_hook():
  out = subprocess.run([sys.executable, "-c", textwrap.dedent("""
      import stablejax; stablejax.install_as_jax()
      import jax, jax.numpy as jnp
      from jax import core
      from jax.core import Atom, eval_jaxpr
      closed = jax.make_jaxpr(lambda x: jnp.sin(x) * 2)(1.0)
      print(eval_jaxpr(closed.jaxpr, closed.consts, 0.5), isinstance(closed.jaxpr.invars[0], Atom),
            isinstance(core.ShapedArray((), jnp.float32), core.AbstractValue))
      try:
        jax.core.call_impl
      except AttributeError as e:
        print(e)
  """)], capture_output=True, text=True)
  assert out.returncode == 0, out.stderr[-3000:]
  assert "0.958851" in out.stdout and "True True" in out.stdout
  assert "jax.core.call_impl: stablejax does not have it" in out.stdout
