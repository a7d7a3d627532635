"""The call primitive `jit`: its param is the traced jaxpr of the called function, which every
transformation transforms (`jvp`, `vmap`, partial evaluation and transposition keep it staged as a
new `jit`). Its lowering, a `func.call` of a private function, is in lowering/rules/call.py; the
user-facing `sj.jit` wrapper is in stablejax/jit.py."""
from __future__ import annotations

from stablejax import core
from stablejax.interpreters import ad, batching, partial_eval as pe
from stablejax.jaxpr import ClosedJaxpr, register_call_primitive

jit_p = core.Primitive("jit")
jit_p.multiple_results = True


def _jit_abstract_eval(*avals: core.ShapedArray, jaxpr: ClosedJaxpr, name: str):
  expected = jaxpr.in_avals
  if len(avals) != len(expected) or not all(map(core.typematch, avals, expected)):
    raise TypeError(f"jit of {name}: called with {[a.str_short() for a in avals]} but its jaxpr "
                    f"takes {[a.str_short() for a in expected]}")
  return jaxpr.out_avals


jit_p.def_abstract_eval(_jit_abstract_eval)


def _jit_jvp(primals, tangents, *, jaxpr: ClosedJaxpr, name: str):
  nonzeros = [type(t) is not ad.Zero for t in tangents]
  jvp_jaxpr, out_nonzeros = ad.jvp_jaxpr(jaxpr, nonzeros, instantiate=False)
  outs = jit_p.bind(*primals, *[t for t in tangents if type(t) is not ad.Zero],
                    jaxpr=jvp_jaxpr, name=f"jvp({name})")
  n = len(jaxpr.out_avals)
  primals_out, nz_tangents_out = outs[:n], iter(outs[n:])
  tangents_out = [next(nz_tangents_out) if nz else ad.Zero.from_primal_value(p)
                  for p, nz in zip(primals_out, out_nonzeros)]
  return primals_out, tangents_out


ad.primitive_jvps[jit_p] = _jit_jvp


def _jit_batch(axis_data, args, dims, *, jaxpr: ClosedJaxpr, name: str):
  batched, out_dims = batching.batch_jaxpr(jaxpr, axis_data, dims)
  return jit_p.bind(*args, jaxpr=batched, name=f"vmap({name})"), out_dims


batching.fancy_primitive_batchers[jit_p] = _jit_batch


def _jit_partial_eval(trace: pe.PartialEvalTrace, args, params):
  """Run the known part of the body now (as its own jit) and stage the unknown part."""
  jaxpr, name = params["jaxpr"], params["name"]
  unknowns = [trace.is_unknown(x) for x in args]
  known, unknown, out_unknowns, num_res = pe.partial_eval_jaxpr(jaxpr, unknowns, False)
  with core.set_current_trace(trace.parent):
    known_outs = jit_p.bind(*[x for x, u in zip(args, unknowns) if not u], jaxpr=known,
                            name=name)
  n_known = len(known_outs) - num_res
  residuals = known_outs[n_known:]
  unknown_outs = trace.stage(jit_p, residuals + [x for x, u in zip(args, unknowns) if u],
                             dict(jaxpr=unknown, name=name))
  known_it, unknown_it = iter(known_outs[:n_known]), iter(unknown_outs)
  return [next(unknown_it) if u else next(known_it) for u in out_unknowns]


pe.partial_eval_rules[jit_p] = _jit_partial_eval


def _jit_transpose(cts, *args, jaxpr: ClosedJaxpr, name: str):
  linear = [ad.is_undefined_primal(x) for x in args]
  cts = [ad.instantiate_zeros(ct) for ct in cts]
  ct_jaxpr = ad.transpose_jaxpr(jaxpr, linear, [core.get_aval(ct) for ct in cts])
  outs = iter(jit_p.bind(*[x for x, lin in zip(args, linear) if not lin], *cts,
                         jaxpr=ct_jaxpr, name=f"transpose({name})"))
  return [next(outs) if lin else None for lin in linear]


ad.primitive_transposes[jit_p] = _jit_transpose


register_call_primitive(jit_p)
