"""numpy's functional programming routines: apply_along_axis, apply_over_axes, vectorize and
piecewise."""
from __future__ import annotations

from typing import Any, Callable, Sequence

from stablejax import api, lax
from stablejax.numpy._creation import asarray
from stablejax.numpy._elementwise import where
from stablejax.numpy._manipulation_shape import expand_dims
from stablejax.numpy._promotion import (broadcast_shapes, convert, dtype as dtype_of,
                                        ensure_arraylike, shape)
from stablejax.util import canonicalize_axis


def piecewise(x: Any, condlist: Any, funclist: list, *args: Any, **kw: Any) -> Any:
  """funclist[i](x) (or the constant funclist[i]) where condlist[i]; the extra function, if
  given, where no condition holds (else 0)."""
  (x,) = ensure_arraylike("piecewise", x)
  nc, nf = len(condlist), len(funclist)
  if nf == nc + 1:
    funclist = list(funclist[-1:]) + list(funclist[:-1])
  elif nf == nc:
    funclist = [0] + list(funclist)
  else:
    raise ValueError(f"with {nc} condition(s), either {nc} or {nc + 1} functions are expected; "
                     f"got {nf}")
  conds = asarray(condlist, dtype=bool)
  if not shape(conds) or shape(conds)[1:] != shape(x):
    conds = lax.broadcast_in_dim(conds, (nc,) + shape(x), (0,) if shape(conds) else ())
  out = lax.full_like(x, 0)
  dt = dtype_of(x)
  for i, f in enumerate(funclist):
    value = f(x, *args, **kw) if callable(f) else f
    value = convert(asarray(value), dt)
    value = lax.broadcast_in_dim(value, shape(x), tuple(range(len(shape(x)) - len(shape(value)),
                                                              len(shape(x)))))
    out = value if i == 0 else where(conds[i - 1], value, out)
  return out


def _parse_signature(signature: str) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]:
  def parse(part: str) -> list[tuple[str, ...]]:
    part = part.strip()
    if not part.startswith("("):
      raise ValueError(f"not a valid gufunc signature: {signature}")
    groups = part[1:-1].split("),(") if part != "()" else [""]
    return [tuple(d.strip() for d in g.replace("(", "").replace(")", "").split(",") if d.strip())
            for g in groups]
  try:
    ins, outs = signature.split("->")
  except ValueError as e:
    raise ValueError(f"not a valid gufunc signature: {signature}") from e
  return parse(ins.replace(" ", "")), parse(outs.replace(" ", ""))


class vectorize:  # noqa: N801  (numpy's name)
  """`pyfunc` mapped over the leading (broadcast) axes of its arguments with vmap; `signature`
  names the core dimensions a generalized ufunc keeps."""

  def __init__(self, pyfunc: Callable, *, excluded: frozenset = frozenset(),
               signature: str | None = None) -> None:
    self.pyfunc, self.excluded, self.signature = pyfunc, frozenset(excluded), signature
    self.__wrapped__ = pyfunc
    self.__name__ = getattr(pyfunc, "__name__", "vectorize")
    self.__doc__ = getattr(pyfunc, "__doc__", None)

  def __call__(self, *args: Any, **kwargs: Any) -> Any:
    excluded = {i for i in self.excluded if isinstance(i, int)}
    static_kw = {k: v for k, v in kwargs.items() if k in self.excluded}
    dyn_kw = {k: v for k, v in kwargs.items() if k not in self.excluded}
    keys = list(dyn_kw)
    dyn = [asarray(a) for i, a in enumerate(args) if i not in excluded] + [
        asarray(dyn_kw[k]) for k in keys]

    def call(*vals: Any) -> Any:
      it = iter(vals[:len(vals) - len(keys)])
      full = [a if i in excluded else next(it) for i, a in enumerate(args)]
      return self.pyfunc(*full, **static_kw, **dict(zip(keys, vals[len(vals) - len(keys):])))

    core_dims = [()] * len(dyn)
    if self.signature is not None:
      ins, _ = _parse_signature(self.signature)
      if len(ins) != len(dyn):
        raise TypeError(f"wrong number of positional arguments: expected {len(ins)}, got "
                        f"{len(dyn)}")
      core_dims = ins
    loop_shapes = []
    for a, dims in zip(dyn, core_dims):
      nd = len(shape(a)) - len(dims)
      if nd < 0:
        raise ValueError(f"input with shape {shape(a)} does not have enough dimensions for its "
                         f"core dimensions {dims} in signature {self.signature}")
      loop_shapes.append(shape(a)[:nd])
    loop = broadcast_shapes("vectorize", *loop_shapes) if loop_shapes else ()
    dyn = [_broadcast_leading(a, loop, len(d)) for a, d in zip(dyn, core_dims)]
    fn = call
    for _ in loop:
      fn = api.vmap(fn)
    return fn(*dyn)


def _broadcast_leading(a: Any, loop: tuple[int, ...], ncore: int) -> Any:
  core_shape = shape(a)[len(shape(a)) - ncore:]
  target = tuple(loop) + core_shape
  if shape(a) == target:
    return a
  nd = len(shape(a))
  return lax.broadcast_in_dim(a, target, tuple(range(len(target) - nd, len(target))))


def apply_along_axis(func1d: Callable, axis: int, arr: Any, *args: Any, **kwargs: Any) -> Any:
  """func1d applied to each 1-D slice of `arr` along `axis` (by vmap)."""
  (arr,) = ensure_arraylike("apply_along_axis", arr)
  ndim = len(shape(arr))
  axis = canonicalize_axis(axis, ndim)
  fn = lambda x: func1d(x, *args, **kwargs)
  for i in range(1, ndim - axis):
    fn = api.vmap(fn, in_axes=i, out_axes=-1)
  for _ in range(axis):
    fn = api.vmap(fn, in_axes=0, out_axes=0)
  return fn(arr)


def apply_over_axes(func: Callable, a: Any, axes: Sequence[int]) -> Any:
  """func(a, axis) applied for each axis in turn, keeping the number of dimensions."""
  (a,) = ensure_arraylike("apply_over_axes", a)
  for axis in axes:
    b = func(a, axis)
    a = b if len(shape(b)) == len(shape(a)) else expand_dims(b, axis)
  return a
