"""The user-facing transformations: make_jaxpr, jvp, jacfwd, vmap, linearize, vjp, grad,
value_and_grad, jacrev, hessian."""
from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, Hashable, Sequence

import numpy as np
from jaxlib.xla_client import ArrayCopySemantics

from stablejax import core, dtypes, lax, pipeline, sharding as sharding_lib
from stablejax.interpreters import ad, batching
from stablejax.jaxpr import ClosedJaxpr, eval_jaxpr
from stablejax.jit import Jitted
from stablejax.lax.primitive_kit import const_like
from stablejax.runtime import Array, pjrt, transfer_guard
from stablejax.runtime import device_put as runtime_device_put
from stablejax.tree_util import (broadcast_prefix, flatten_fun, register_pytree_node,
                                 tree_flatten, tree_leaves, tree_map, tree_structure,
                                 tree_unflatten)


def _ensure_tuple(x: int | Sequence[int]) -> tuple[int, ...]:
  return (x,) if isinstance(x, int) else tuple(x)


def make_jaxpr(fun: Callable, static_argnums: int | Sequence[int] = (),
               return_shape: bool = False) -> Callable[..., ClosedJaxpr | tuple]:
  """`make_jaxpr(f)(*args)` traces `f` on the types of `args` and returns its ClosedJaxpr
  (and, with `return_shape`, its outputs as a pytree of ShapeDtypeStruct)."""

  @functools.wraps(fun, updated=())
  def make(*args, **kwargs) -> ClosedJaxpr | tuple:
    # jit's tracing, without its cache: static arguments, pytrees and closures as jit has them
    jitted = Jitted(fun, _ensure_tuple(static_argnums), (), shared_cache=False)
    traced = jitted.trace(*args, **kwargs)
    return (traced.jaxpr, traced.out_info) if return_shape else traced.jaxpr

  return make


def eval_shape(fun: Callable, *args, **kwargs) -> Any:
  """The types of `fun(*args, **kwargs)` as a pytree of ShapeDtypeStruct, computed by tracing
  (arguments may be arrays or ShapeDtypeStructs); nothing is evaluated."""
  return Jitted(fun, (), (), shared_cache=False).trace(*args, **kwargs).out_info


def block_until_ready(tree: Any) -> Any:
  """Wait until every array of `tree` is computed; returns `tree`."""
  arrays = [leaf for leaf in tree_leaves(tree) if isinstance(leaf, Array)]
  try:
    pjrt.block_until_ready([a._buf for a in arrays])  # one wait for all
  except pjrt.JaxRuntimeError:
    for a in arrays:
      a.block_until_ready()  # a deleted one raises its own error
    raise
  return tree


def device_get(tree: Any) -> Any:
  """`tree` with each Array replaced by its value as a numpy array."""
  with transfer_guard.explicit():
    return tree_map(lambda x: np.asarray(x) if isinstance(x, Array) else x, tree)


# ----------------------------------------------------------------------------------------------
# jvp and jacfwd

def jvp(fun: Callable, primals: Sequence, tangents: Sequence) -> tuple[Any, Any]:
  """Evaluate `fun` at `primals` and its derivative applied to `tangents` (pytrees)."""
  if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
    raise TypeError("jvp: primal and tangent arguments must be tuples or lists, got "
                    f"{type(primals).__name__} and {type(tangents).__name__}")
  primals_flat, in_tree = tree_flatten((tuple(primals), {}))
  tangents_flat, tangent_tree = tree_flatten((tuple(tangents), {}))
  if in_tree != tangent_tree:
    raise TypeError(f"jvp: primal and tangent arguments must have the same tree structure, "
                    f"got {in_tree.children[0]} and {tangent_tree.children[0]}")
  flat_f, out_tree = flatten_fun(fun, in_tree)
  primals_out, tangents_out = ad.jvp_flat(flat_f, primals_flat, tangents_flat)
  return (tree_unflatten(out_tree(), primals_out),
          tree_unflatten(out_tree(), map(_as_array, tangents_out)))


def _std_basis(flat_primals: Sequence) -> tuple[list, int]:
  """One batch of unit tangents per input element: the identity, split and reshaped."""
  sizes = [core.get_aval(x).size for x in flat_primals]
  total = sum(sizes)
  eye = np.eye(total, dtype=dtypes.default_float())
  out, start = [], 0
  for x, size in zip(flat_primals, sizes):
    aval = core.get_aval(x)
    out.append(eye[:, start:start + size].reshape((total,) + aval.shape).astype(aval.dtype))
    start += size
  return out, total


def _check_input_jacfwd(holomorphic: bool, x: Any) -> None:
  dtype = core.get_aval(x).dtype
  if holomorphic:
    if not dtypes.is_complex(dtype):
      raise TypeError("jacfwd with holomorphic=True requires inputs with complex dtype, but got "
                      f"{dtype.name}.")
  elif not dtypes.is_float(dtype):
    raise TypeError("jacfwd requires real-valued inputs (input dtype that is a sub-dtype of "
                    f"np.floating), but got {dtype.name}. For holomorphic differentiation, pass "
                    "holomorphic=True. For differentiation of non-holomorphic functions "
                    "involving complex inputs or integer inputs, use jax.jvp directly.")


def _check_output_jacfwd(holomorphic: bool, y: Any) -> None:
  dtype = core.get_aval(y).dtype
  if holomorphic and not dtypes.is_complex(dtype):
    raise TypeError("jacfwd with holomorphic=True requires outputs with complex dtype, but got "
                    f"{dtype.name}.")


def _partial_argnums(fun: Callable, argnums: tuple[int, ...], args: tuple, kwargs: dict
                     ) -> Callable:
  """`fun` as a function of `args[argnums]` only, the other arguments fixed."""
  def f_of_dyn(*dyn_args):
    full = list(args)
    for i, a in zip(argnums, dyn_args):
      full[i] = a
    return fun(*full, **kwargs)
  return f_of_dyn


def _split_aux(out: Any, has_aux: bool) -> tuple[Any, Any]:
  if not has_aux:
    return out, None
  if not (isinstance(out, tuple) and len(out) == 2):
    raise TypeError("a function with has_aux=True must return a pair (output, aux), got "
                    f"{type(out).__name__}")
  return out


def jacfwd(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
           holomorphic: bool = False) -> Callable:
  """The Jacobian of `fun` with respect to `argnums`, by forward mode (vmap of jvp); with
  `has_aux`, `fun` returns `(output, aux)` and `(jacobian, aux)` is returned."""
  int_argnums = isinstance(argnums, int)
  argnums_t = _ensure_tuple(argnums)

  @functools.wraps(fun, updated=())
  def jacfun(*args, **kwargs):
    dyn = tuple(args[i] for i in argnums_t)
    dyn_flat, dyn_tree = tree_flatten(dyn)
    for leaf in dyn_flat:
      _check_input_jacfwd(holomorphic, leaf)
    basis, _ = _std_basis(dyn_flat)
    f_of_dyn = _partial_argnums(fun, argnums_t, args, kwargs)

    def pushfwd(*tangent_flat):
      tangents = tuple(tree_unflatten(dyn_tree, tangent_flat))
      (y, aux), (jac, _) = jvp(lambda *d: _split_aux(f_of_dyn(*d), has_aux), dyn, tangents)
      return y, jac, aux

    y, jac, aux = vmap(pushfwd, in_axes=0, out_axes=(None, -1, None))(*basis)
    for leaf in tree_leaves(y):
      _check_output_jacfwd(holomorphic, leaf)
    unravel = functools.partial(_unravel_inputs, dyn_flat, dyn_tree, int_argnums)
    jac_tree = tree_map(lambda j, y_leaf: unravel(_cast_like(j, y_leaf)), jac, y)
    return (jac_tree, aux) if has_aux else jac_tree

  return jacfun


def _unravel_inputs(dyn_flat: Sequence, dyn_tree, int_argnums: bool, leaf: Any) -> Any:
  """Split the trailing (input) axis of a Jacobian per input and restore each input's shape."""
  pieces, start = [], 0
  for x in dyn_flat:
    aval = core.get_aval(x)
    piece = _slice_last(leaf, start, start + aval.size)
    pieces.append(piece.reshape(leaf.shape[:-1] + aval.shape))
    start += aval.size
  tree = tree_unflatten(dyn_tree, pieces)
  return tree[0] if int_argnums else tree


def _cast_like(x: Any, example: Any) -> Any:
  """A Jacobian block in `example`'s dtype and weak type (the output's for jacfwd, the input's
  for jacrev, as JAX's), its real part when `x` is complex and `example` is not."""
  aval, want = core.get_aval(x), core.get_aval(example)
  if aval.dtype == dtypes.float0 or (aval.dtype, aval.weak_type) == (want.dtype, want.weak_type):
    return x
  if dtypes.is_complex(aval.dtype) and not dtypes.is_complex(want.dtype):
    x = lax.real(x)
  return lax.convert_element_type(x, want.dtype, weak_type=want.weak_type)


def _slice_last(x: Any, start: int, stop: int) -> Any:
  return x[..., start:stop]


# ----------------------------------------------------------------------------------------------
# vmap

def _arg_names(fun: Callable, n: int) -> list[str]:
  try:
    params = list(inspect.signature(fun).parameters)
  except (TypeError, ValueError):
    params = []
  return [f"argument '{params[i]}'" if i < len(params) else f"argument {i}" for i in range(n)]


def _flatten_axes(what: str, axes: Any, tree_value: Any) -> list:
  try:
    return broadcast_prefix(axes, tree_value, is_leaf=lambda x: x is None)
  except ValueError as e:
    raise ValueError(f"vmap {what} specification must be a tree prefix of the corresponding "
                     f"value, got specification {axes} for value tree "
                     f"{tree_structure(tree_value)}: {e}") from None


def _check_axis_spec(what: str, ax: Any) -> None:
  if ax is not None and not isinstance(ax, (int, np.integer)):
    raise TypeError(f"vmap {what} must be an int, None, or (nested) container with those "
                    f"types as leaves, but got {ax!r} of type {type(ax).__name__}")


def vmap(fun: Callable, in_axes: Any = 0, out_axes: Any = 0, axis_name: Hashable | None = None,
         axis_size: int | None = None, spmd_axis_name: Hashable | tuple | None = None
         ) -> Callable:
  """Vectorize `fun` over axis `in_axes` of its positional arguments (and axis 0 of its keyword
  arguments), stacking results at `out_axes`; collectives over `axis_name`
  (`lax.psum(x, axis_name)`, ...) act along the mapped axis, and `spmd_axis_name` names the
  mesh axis it is sharded over."""
  if isinstance(in_axes, list):
    in_axes = tuple(in_axes)

  @functools.wraps(fun, updated=())
  def batched(*args, **kwargs):
    if isinstance(in_axes, tuple) and len(in_axes) != len(args):
      raise ValueError(f"vmap in_axes must be an int, None, or a tuple of entries corresponding "
                       f"to the positional arguments passed to the function, but got "
                       f"len(in_axes)={len(in_axes)}, len(args)={len(args)}")
    names = _arg_names(fun, len(args))
    flat, in_tree = tree_flatten((args, kwargs))
    axes_per_arg = in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(args)
    in_dims, leaf_names = [], []
    for i, (arg, ax) in enumerate(zip(args, axes_per_arg)):
      in_dims.extend(_flatten_axes(f"in_axes ({names[i]})", ax, arg))
      leaf_names.extend([names[i]] * len(tree_leaves(arg)))
    for name, arg in kwargs.items():  # keyword arguments are mapped at axis 0, as in JAX
      in_dims.extend([0] * len(tree_leaves(arg)))
      leaf_names.extend([f"keyword argument '{name}'"] * len(tree_leaves(arg)))
    size = _mapped_size(flat, in_dims, leaf_names, axis_size)
    flat_f, out_tree = flatten_fun(fun, in_tree)

    def out_dims(n_out: int) -> list:
      for ax in tree_flatten(out_axes, is_leaf=lambda x: x is None)[0]:
        _check_axis_spec("out_axes", ax)
      return _flatten_axes("out_axes", out_axes, tree_unflatten(out_tree(), [0] * n_out))

    outs = batching.vmap_flat(flat_f, size, in_dims, out_dims, [_numpy_as_array(x) for x in flat],
                              axis_name, spmd_axis_name)
    return tree_unflatten(out_tree(), [_numpy_as_array(o) for o in outs])

  return batched


def _numpy_as_array(x: Any) -> Any:
  """A numpy value as an Array (in its canonical dtype, as JAX does), anything else as it is: a
  user primitive's `impl` then sees Arrays, and its numpy results come back as Arrays."""
  return runtime_device_put(x) if isinstance(x, (np.ndarray, np.generic)) else x


def _mapped_size(flat: Sequence, in_dims: list, names: Sequence[str], axis_size: int | None
                 ) -> int:
  sizes = {}
  for i, (x, d) in enumerate(zip(flat, in_dims)):
    _check_axis_spec("in_axes", d)
    if d is None:
      continue
    aval = core.get_aval(x)
    if not -aval.ndim <= d < aval.ndim:
      raise ValueError(f"vmap was requested to map its {names[i]} along axis {d}, which "
                       f"implies that its rank should be at least {d + 1 if d >= 0 else -d}, "
                       f"but is only {aval.ndim} (its shape is {aval.shape})")
    in_dims[i] = d % aval.ndim
    sizes[i] = aval.shape[in_dims[i]]
  if not sizes:
    if axis_size is None:
      raise ValueError("vmap must have at least one non-None value in in_axes, or be given "
                       "axis_size")
    return axis_size
  distinct = set(sizes.values())
  if len(distinct) > 1 or axis_size is not None and distinct != {axis_size}:
    lines = [f"  {names[i]} of type {core.get_aval(flat[i]).str_short()} has size {s} along "
             f"axis {in_dims[i]}" for i, s in sizes.items()]
    raise ValueError("vmap got inconsistent sizes for array axes to be mapped:\n" +
                     "\n".join(lines))
  return distinct.pop()


# ----------------------------------------------------------------------------------------------
# Reverse mode

def linearize(fun: Callable, *primals) -> tuple[Any, Callable]:
  """`fun(*primals)` and its linear approximation at `primals`, as a function of tangents."""
  primals_flat, in_tree = tree_flatten((primals, {}))
  flat_f, out_tree = flatten_fun(fun, in_tree)
  primals_out, lin = ad.linearize_flat(flat_f, primals_flat)
  in_avals = [ad.tangent_aval(core.get_aval(p)) for p in primals_flat]

  def f_jvp(*tangents):
    tangents_flat, tree = tree_flatten((tangents, {}))
    if tree != in_tree:
      raise TypeError(f"linearized function takes tangents of structure {in_tree.children[0]}, "
                      f"got {tree.children[0]}")
    _check_cotangents("linearized function", tangents_flat, in_avals)
    return tree_unflatten(out_tree(), eval_jaxpr(lin.jaxpr, lin.consts, *tangents_flat))

  return tree_unflatten(out_tree(), primals_out), f_jvp


def _check_cotangents(what: str, values: Sequence, avals: Sequence[core.ShapedArray]) -> None:
  for i, (x, aval) in enumerate(zip(values, avals)):
    got = core.get_aval(x)
    if got.shape != aval.shape:
      raise ValueError(f"{what}: argument {i} should have shape {aval.shape} (type "
                       f"{aval.str_short()}), got {got.str_short()}")


def vjp(fun: Callable, *primals, has_aux: bool = False) -> tuple:
  """`fun(*primals)` and the function mapping output cotangents to input cotangents. With
  `has_aux`, `fun` returns `(output, aux)` and aux (not differentiated) is returned third."""
  primals_flat, in_tree = tree_flatten((primals, {}))

  def fun_checked(*args):
    out = fun(*args)
    if has_aux and not (isinstance(out, tuple) and len(out) == 2):
      raise TypeError("a function with has_aux=True must return a pair (output, aux), got "
                      f"{type(out).__name__}")
    return out

  flat_f, full_tree = flatten_fun(fun_checked, in_tree)
  primals_out, lin = ad.linearize_flat(flat_f, primals_flat)
  out_tree = full_tree().children[0] if has_aux else full_tree()
  n_out = out_tree.num_leaves
  out_avals = [ad.tangent_aval(core.get_aval(p)) for p in primals_out]
  in_avals = [ad.tangent_aval(core.get_aval(p)) for p in primals_flat]

  def f_vjp(ct):
    cts_flat, tree = tree_flatten(ct)
    if tree != out_tree:
      raise TypeError(f"vjp function takes a cotangent of structure {out_tree}, got {tree}")
    _check_cotangents("vjp function", cts_flat, out_avals)
    aux_cts = [ad.Zero(a) for a in out_avals[n_out:]]
    undefined = [ad.UndefinedPrimal(a) for a in in_avals]
    cts_in = ad.backward_pass(lin.jaxpr, lin.consts, undefined, list(cts_flat) + aux_cts)
    cts_in = [ad.instantiate_zeros(ct) for ct in cts_in]
    return tree_unflatten(in_tree, cts_in)[0]

  out = tree_unflatten(out_tree, primals_out[:n_out])
  if has_aux:
    return out, f_vjp, tree_unflatten(full_tree().children[1], primals_out[n_out:])
  return out, f_vjp


def _check_input_revderiv(name: str, holomorphic: bool, allow_int: bool, x: Any) -> None:
  """The input checks of reverse mode (`grad`, `jacrev`), as JAX's."""
  dtype = core.get_aval(x).dtype
  if holomorphic and not dtypes.is_complex(dtype):
    raise TypeError(f"{name} with holomorphic=True requires inputs with complex dtype, but got "
                    f"{dtype.name}.")
  if dtypes.is_integer(dtype) or dtype == np.bool_:
    if not allow_int:
      raise TypeError(f"{name} requires real- or complex-valued inputs (input dtype that is a "
                      f"sub-dtype of np.inexact), but got {dtype.name}. If you want to use "
                      "Boolean- or integer-valued inputs, use vjp or set allow_int to True.")
  elif not dtypes.is_inexact(dtype):
    raise TypeError(f"{name} requires numerical-valued inputs (input dtype that is a sub-dtype "
                    f"of np.bool_ or np.number), but got {dtype.name}.")


def _check_output_revderiv(name: str, holomorphic: bool, y: Any) -> None:
  """The output checks of reverse mode (`grad`, `jacrev`), as JAX's."""
  dtype = core.get_aval(y).dtype
  if holomorphic:
    if not dtypes.is_complex(dtype):
      raise TypeError(f"{name} with holomorphic=True requires outputs with complex dtype, but "
                      f"got {dtype.name}.")
  elif dtypes.is_complex(dtype):
    raise TypeError(f"{name} requires real-valued outputs (output dtype that is a sub-dtype of "
                    f"np.floating), but got {dtype.name}. For holomorphic differentiation, pass "
                    "holomorphic=True. For differentiation of non-holomorphic functions "
                    "involving complex outputs, use jax.vjp directly.")
  elif not dtypes.is_float(dtype):
    raise TypeError(f"{name} requires real-valued outputs (output dtype that is a sub-dtype of "
                    f"np.floating), but got {dtype.name}. For differentiation of functions "
                    "with integer outputs, use jax.vjp directly.")


def _check_scalar_output(y: Any, name: str) -> None:
  aval = core.get_aval(y)
  if aval.shape != ():
    raise TypeError(f"{name} is only defined for scalar-output functions. Output had shape "
                    f"{aval.shape}; reduce it (e.g. with .sum()) or use vjp/jacrev.")


def _check_reduce_axes(reduce_axes: Sequence[Hashable]) -> None:
  if reduce_axes:
    raise NotImplementedError("reduce_axes argument to grad is deprecated")


def _as_array(x: Any) -> Any:
  """A gradient or tangent that is a host value (passed through unchanged, or an instantiated
  zero) as an Array; float0 zeros (of integer inputs) stay numpy arrays, as in JAX."""
  if isinstance(x, (core.Tracer, Array)) or core.get_aval(x).dtype == dtypes.float0:
    return x
  return runtime_device_put(x)


def value_and_grad(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
                   holomorphic: bool = False, allow_int: bool = False,
                   reduce_axes: Sequence[Hashable] = ()) -> Callable:
  """A function returning `(fun(*args), gradient of fun w.r.t. args[argnums])`; `holomorphic`:
  complex inputs and output, `fun` holomorphic; `allow_int`: integer inputs get float0
  gradients."""
  _check_reduce_axes(reduce_axes)
  int_argnums = isinstance(argnums, int)
  argnums_t = _ensure_tuple(argnums)

  @functools.wraps(fun, updated=())
  def value_and_grad_f(*args, **kwargs):
    for i in argnums_t:
      if not -len(args) <= i < len(args):
        raise ValueError(f"argnums {argnums} refers to argument {i}, but only {len(args)} "
                         "positional arguments were given")
    dyn = tuple(args[i] for i in argnums_t)
    for leaf in tree_flatten(dyn)[0]:
      _check_input_revderiv("grad", holomorphic, allow_int, leaf)

    f_of_dyn = _partial_argnums(fun, argnums_t, args, kwargs)
    if has_aux:
      out, f_vjp, aux = vjp(f_of_dyn, *dyn, has_aux=True)
    else:
      out, f_vjp = vjp(f_of_dyn, *dyn)
    _check_scalar_output(out, "grad")
    _check_output_revderiv("grad", holomorphic, out)
    grads = tree_map(_as_array, f_vjp(const_like(core.get_aval(out), 1)))
    grads = grads[0] if int_argnums else grads
    return ((out, aux), grads) if has_aux else (out, grads)

  return value_and_grad_f


def grad(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
         holomorphic: bool = False, allow_int: bool = False,
         reduce_axes: Sequence[Hashable] = ()) -> Callable:
  """The gradient of scalar-valued `fun` with respect to `args[argnums]` (`holomorphic`,
  `allow_int`: as `value_and_grad`)."""
  vg = value_and_grad(fun, argnums, has_aux, holomorphic, allow_int, reduce_axes)

  @functools.wraps(fun, updated=())
  def grad_f(*args, **kwargs):
    if has_aux:
      (_, aux), g = vg(*args, **kwargs)
      return g, aux
    return vg(*args, **kwargs)[1]

  return grad_f


def jacrev(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
           holomorphic: bool = False, allow_int: bool = False) -> Callable:
  """The Jacobian of `fun` with respect to `argnums`, by reverse mode (vmap of vjp); with
  `has_aux`, `fun` returns `(output, aux)` and `(jacobian, aux)` is returned."""
  int_argnums = isinstance(argnums, int)
  argnums_t = _ensure_tuple(argnums)

  @functools.wraps(fun, updated=())
  def jacfun(*args, **kwargs):
    dyn = tuple(args[i] for i in argnums_t)
    dyn_flat, dyn_tree = tree_flatten(dyn)
    for leaf in dyn_flat:
      _check_input_revderiv("jacrev", holomorphic, allow_int, leaf)
    y, f_vjp, *aux = vjp(_partial_argnums(fun, argnums_t, args, kwargs), *dyn, has_aux=has_aux)
    y_flat, y_tree = tree_flatten(y)
    for leaf in y_flat:
      _check_output_revderiv("jacrev", holomorphic, leaf)
    basis, _ = _std_basis(y_flat)
    cts = vmap(lambda *b: f_vjp(tree_unflatten(y_tree, b)))(*basis)
    cts_flat = tree_flatten(cts)[0]  # leaves: (total_out,) + in_shape
    rows, start = [], 0
    for leaf in y_flat:
      out_aval = core.get_aval(leaf)
      pieces = [_cast_like(ct[start:start + out_aval.size].reshape(
          out_aval.shape + core.get_aval(x).shape), x) for ct, x in zip(cts_flat, dyn_flat)]
      tree = tree_unflatten(dyn_tree, pieces)
      rows.append(tree[0] if int_argnums else tree)
      start += out_aval.size
    jac = tree_unflatten(y_tree, rows)
    return (jac, *aux) if has_aux else jac

  return jacfun


jacobian = jacrev


def hessian(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
            holomorphic: bool = False) -> Callable:
  """The Hessian of scalar-valued `fun`: forward over reverse."""
  return jacfwd(jacrev(fun, argnums, has_aux, holomorphic), argnums, has_aux, holomorphic)


# ----------------------------------------------------------------------------------------------
# typeof, linear_transpose

def device_put(x: Any, device: Any = None, *, src: Any = None, donate: Any = False,
               may_alias: Any = None) -> Any:
  """Put `x` (a pytree of arrays) on `device` (a device, a sharding, a PartitionSpec under a
  mesh; None: where it is), as `jax.device_put`. Under a transformation (jit, grad, vmap) it
  stages JAX's `device_put` primitive, the identity on values (the derivative of which is the
  identity)."""
  leaves, tree = tree_flatten(x)
  if not any(isinstance(leaf, core.Tracer) for leaf in leaves):
    return sharding_lib.device_put(x, device)
  n = len(leaves)
  per_leaf = lambda v: (tuple(broadcast_prefix(v, x, is_leaf=lambda y: y is None))
                        if isinstance(v, (tuple, list, dict)) else (v,) * n)
  semantics = tuple(ArrayCopySemantics.DONATE_INPUT if d else
                    ArrayCopySemantics.ALWAYS_COPY if a is False else
                    ArrayCopySemantics.REUSE_INPUT
                    for d, a in zip(per_leaf(donate), per_leaf(may_alias)))
  outs = lax.device_put_p.bind(*leaves, devices=per_leaf(device), srcs=per_leaf(src),
                               copy_semantics=semantics)
  return tree_unflatten(tree, outs)


def typeof(x: Any) -> core.ShapedArray:
  """The abstract value (type) of `x`: its shape, dtype and weak type."""
  return core.get_aval(x)


def _primal_aval(x: Any) -> core.ShapedArray:
  """The type of a primal given to `linear_transpose`: an array, or anything with a shape and
  a dtype (a ShapeDtypeStruct)."""
  if isinstance(x, (core.Tracer, Array, np.ndarray, np.generic, int, float, complex, bool)):
    return core.get_aval(x)
  return core.ShapedArray(tuple(x.shape), np.dtype(x.dtype))


def linear_transpose(fun: Callable, *primals: Any, reduce_axes: Sequence = ()) -> Callable:
  """The transpose of the linear function `fun` at inputs of the types of `primals`: a
  function of an output cotangent returning the tuple of input cotangents."""
  if reduce_axes:
    raise NotImplementedError("reduce_axes argument to transpose is deprecated")
  primals_flat, in_tree = tree_flatten(primals)
  in_avals = [_primal_aval(p) for p in primals_flat]
  inexact = [dtypes.is_inexact(a.dtype) for a in in_avals]
  if any(inexact) and not all(inexact):
    raise TypeError("linear_transpose only supports [float or complex] -> [float or complex], "
                    "and integer -> integer functions, but got "
                    f"{[a.dtype.name for a in in_avals]}.")
  flat_fun, out_tree = flatten_fun(fun, tree_structure((primals, {})))
  closed, closed_over = pipeline.trace(flat_fun, in_avals)
  out_avals = closed.out_avals

  def transposed(out_cotangent: Any) -> tuple:
    cts, tree = tree_flatten(out_cotangent)
    if tree != out_tree():
      raise TypeError(f"cotangent tree does not match function output, expected {out_tree()} "
                      f"but got {tree}")
    got = [core.get_aval(c) for c in cts]
    if [(a.shape, a.dtype) for a in got] != [(a.shape, a.dtype) for a in out_avals]:
      raise TypeError(f"cotangent type does not match function output, expected "
                      f"{[a.str_short() for a in out_avals]} but got "
                      f"{[a.str_short() for a in got]}")
    args = list(closed_over) + [ad.UndefinedPrimal(a) for a in in_avals]
    cts_in = ad.backward_pass(closed.jaxpr, closed.consts, args, cts)[len(closed_over):]
    return tree_unflatten(in_tree, [_as_array(ad.instantiate_zeros(c)) for c in cts_in])

  return transposed


# ----------------------------------------------------------------------------------------------
# fwd_and_bwd

class _VJPResiduals:
  """The residuals of `fwd_and_bwd`'s forward pass: the linearized function's jaxpr and trees
  (static) and its residual values (the pytree's leaves), so they go through `jit`."""

  def __init__(self, jaxpr: Any, trees: tuple, values: Sequence):
    self.jaxpr, self.trees, self.values = jaxpr, trees, list(values)


register_pytree_node(_VJPResiduals, lambda r: (r.values, (r.jaxpr, r.trees)),
                     lambda aux, values: _VJPResiduals(aux[0], aux[1], values))


def fwd_and_bwd(fun: Callable, argnums: int | Sequence[int], has_aux: bool = False,
                jitted: bool = True) -> tuple[Callable, Callable]:
  """`fwd(*args) -> (out, residuals)` (with `aux` third under `has_aux`) and
  `bwd(residuals, out_cotangent)` -> the cotangents of `args[argnums]`: `vjp` split in two
  functions whose residuals are a pytree of arrays, each jitted unless `jitted=False`."""
  argnums_t = _ensure_tuple(argnums)

  def fwd(*args):
    dyn = [args[i] for i in argnums_t]

    def f_of_dyn(*dyn_args):
      full = list(args)
      for i, a in zip(argnums_t, dyn_args):
        full[i] = a
      return fun(*full)

    primals_flat, in_tree = tree_flatten((tuple(dyn), {}))
    flat_f, full_tree = flatten_fun(f_of_dyn, in_tree)
    primals_out, lin = ad.linearize_flat(flat_f, primals_flat)
    out_tree = full_tree().children[0] if has_aux else full_tree()
    n_out = out_tree.num_leaves
    avals = tuple(ad.tangent_aval(core.get_aval(p)) for p in primals_flat)
    out_avals = tuple(ad.tangent_aval(core.get_aval(p)) for p in primals_out)
    res = _VJPResiduals(lin.jaxpr, (in_tree, out_tree, avals, out_avals), lin.consts)
    out = tree_unflatten(out_tree, primals_out[:n_out])
    if has_aux:
      return out, res, tree_unflatten(full_tree().children[1], primals_out[n_out:])
    return out, res

  def bwd(res: _VJPResiduals, outgrad: Any) -> Any:
    in_tree, out_tree, avals, out_avals = res.trees
    cts_flat, tree = tree_flatten(outgrad)
    if tree != out_tree:
      raise TypeError(f"bwd takes a cotangent of structure {out_tree}, got {tree}")
    aux_cts = [ad.Zero(a) for a in out_avals[len(cts_flat):]]
    cts_in = ad.backward_pass(res.jaxpr, res.values, [ad.UndefinedPrimal(a) for a in avals],
                              list(cts_flat) + aux_cts)
    grads = tree_unflatten(in_tree, [_as_array(ad.instantiate_zeros(c)) for c in cts_in])[0]
    return grads[0] if isinstance(argnums, int) else grads

  if jitted:
    return Jitted(fwd, (), ()), Jitted(bwd, (), ())
  return fwd, bwd
