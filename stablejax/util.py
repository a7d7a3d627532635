"""Small helpers used across the library: lists, axes, shapes, a weakly keyed cache, and
pausing the garbage collector."""
from __future__ import annotations

import contextlib
import functools
import gc
import weakref
from typing import Any, Callable, Iterable, Iterator, Sequence, TypeVar

from stablejax.shape_poly import is_symbolic_dim

T = TypeVar("T")


def safe_zip(*args: Sequence) -> list[tuple]:
  n = len(args[0])
  for arg in args[1:]:
    if len(arg) != n:
      raise ValueError(f"length mismatch: {[len(a) for a in args]}")
  return list(zip(*args))


def split_list(lst: Sequence[T], sizes: Sequence[int]) -> list[list[T]]:
  """Split `lst` into consecutive pieces of the given sizes, plus the rest."""
  out, start = [], 0
  for n in sizes:
    out.append(list(lst[start:start + n]))
    start += n
  out.append(list(lst[start:]))
  return out


def partition_list(bs: Sequence[bool], lst: Sequence[T]) -> tuple[list[T], list[T]]:
  """Elements where `bs` is False, then those where it is True."""
  falses, trues = [], []
  for b, x in safe_zip(bs, lst):
    (trues if b else falses).append(x)
  return falses, trues


def merge_lists(bs: Sequence[bool], falses: Sequence[T], trues: Sequence[T]) -> list[T]:
  """Inverse of `partition_list`."""
  it_f, it_t = iter(falses), iter(trues)
  return [next(it_t) if b else next(it_f) for b in bs]


def canonicalize_axis(axis: int, ndim: int) -> int:
  if not -ndim <= axis < max(ndim, 1) or (ndim == 0 and axis not in (0, -1)):
    raise ValueError(f"axis {axis} is out of bounds for an array of rank {ndim}")
  return axis % ndim if ndim else 0


def argsort(xs: Sequence) -> list[int]:
  """The indices that sort `xs`, as numpy's argsort gives them for distinct values (axes, a
  permutation), in Python ints and without making an array of a few numbers."""
  return sorted(range(len(xs)), key=xs.__getitem__)


def prod(xs: Iterable[int]) -> int:
  """The product of dimensions (a symbolic one makes it symbolic)."""
  out = 1
  for x in xs:
    out *= x if is_symbolic_dim(x) else int(x)
  return out


def join_sizes(shapes: Iterable[Sequence[int]]) -> tuple[int, ...] | None:
  """The per-axis broadcast of equal-rank shapes (size-1 axes stretch), or None when two
  shapes disagree on an axis."""
  out = []
  for sizes in zip(*shapes):
    big = {d for d in sizes if d != 1}
    if len(big) > 1:
      return None
    out.append(big.pop() if big else 1)
  return tuple(out)


_cache_clearers: list[Callable[[], None]] = []


def on_clear_caches(clear: Callable[[], None]) -> Callable[[], None]:
  """Register `clear` (which empties one of stablejax's caches) with `clear_caches`."""
  _cache_clearers.append(clear)
  return clear


def bounded(table: dict, limit: int) -> dict:
  """`table`, emptied first if it holds `limit` entries (a cache that must not grow forever)."""
  if len(table) >= limit:
    table.clear()
  return table


def clear_caches() -> None:
  """Drop every trace, jaxpr and executable stablejax caches, as `jax.clear_caches`: each
  program is traced and compiled again at its next use. (A long-running process that makes
  many programs can call it: each XLA CPU executable holds a few to hundreds of memory
  mappings, and the kernel's limit, vm.max_map_count, is 65,530 per process.)"""
  for clear in _cache_clearers:
    clear()


def weak_cache(maxsize: int) -> Callable[[Callable], Callable]:
  """Cache `fn(key, *args)` weakly in `key`: the entries for a key die with it (as JAX's
  weakref_lru_cache), at most `maxsize` of them per key (the oldest is dropped)."""
  def decorator(fn: Callable) -> Callable:
    per_key: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    @functools.wraps(fn)
    def cached(key: Any, *args: Any) -> Any:
      entries = per_key.get(key)
      if entries is None:
        entries = per_key.setdefault(key, {})
      out = entries.get(args, _MISSING)
      if out is _MISSING:
        out = fn(key, *args)
        if len(entries) >= maxsize:
          entries.pop(next(iter(entries)), None)
        entries[args] = out
      return out

    def forget(key: Any, *args: Any) -> None:
      """Drop the entry of `(key, *args)`, if any."""
      entries = per_key.get(key)
      if entries is not None:
        entries.pop(args, None)

    cached.cache_clear = on_clear_caches(per_key.clear)
    cached.forget = forget
    return cached
  return decorator


_MISSING = object()


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
  """Pause Python's cyclic garbage collector for a bulk build (tracing or lowering a program).
  The objects such a build allocates by the hundred thousand are all alive: collecting would
  only traverse them again and again, which makes the time per equation grow with the
  program's size. Garbage without cycles is still freed at once; the collector resumes after."""
  if not gc.isenabled():  # an enclosing build (or the user) paused it
    yield
    return
  gc.disable()
  try:
    yield
  finally:
    gc.enable()

