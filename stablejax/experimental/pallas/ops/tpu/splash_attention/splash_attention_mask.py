"""The masks of splash attention (numpy, built when the kernel is made): which (query, key)
positions may attend, as 2-d masks (`Mask[q_slice, kv_slice]` gives a boolean array), their
`|` and `&`, and one per head (`MultiHeadMask`)."""
from __future__ import annotations

import dataclasses
from typing import Any, Callable, Sequence

import numpy as np

__all__ = ["CausalMask", "ChunkedCausalMask", "FullMask", "LocalMask", "LogicalAnd",
           "LogicalOr", "Mask", "MultiHeadMask", "NumpyMask", "make_causal_mask",
           "make_chunk_attention_mask", "make_local_attention_mask", "make_random_mask"]


class Mask:
  """A base class for splash attention masks."""

  @property
  def shape(self) -> tuple[int, ...]:
    raise NotImplementedError

  def __getitem__(self, idx: Any) -> np.ndarray:
    raise NotImplementedError

  def __bool__(self) -> bool:
    raise NotImplementedError("Conversion to bool is unsupported. Could be caused by using "
                              "logical instead of bitwise operations on masks.")

  def _same_shape(self, other: Mask) -> None:
    if self.shape != other.shape:
      raise ValueError(f"Invalid shape for other: {other.shape}, expected: {self.shape}")

  def __or__(self, other: Mask) -> Mask:
    self._same_shape(other)
    return LogicalOr(self, other)

  def __and__(self, other: Mask) -> Mask:
    self._same_shape(other)
    return LogicalAnd(self, other)


def _ids(shape: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
  return (np.arange(shape[0], dtype=np.int32)[:, None],
          np.arange(shape[1], dtype=np.int32)[None, :])


def make_causal_mask(shape: tuple[int, int], offset: int = 0) -> np.ndarray:
  """Query i attends key j where i + offset >= j."""
  q, kv = _ids(shape)
  return q + offset >= kv


def _window(q: np.ndarray, kv: np.ndarray, window_size: tuple[int | None, int | None],
            offset: int) -> np.ndarray:
  left, right = window_size
  mask = np.ones((q.shape[0], kv.shape[1]), np.bool_)
  if left is not None:
    mask &= q + offset - left <= kv
  if right is not None:
    mask &= q + offset + right >= kv
  return mask


def make_local_attention_mask(shape: tuple[int, int],
                              window_size: tuple[int | None, int | None], *,
                              offset: int = 0) -> np.ndarray:
  """Query i attends the keys within `window_size` (left, right; None: unbounded) of i+offset."""
  return _window(*_ids(shape), window_size, offset)


def _chunked(q: np.ndarray, kv: np.ndarray, chunk_size: int) -> np.ndarray:
  return (q // chunk_size == kv // chunk_size) & (q >= kv)


def make_chunk_attention_mask(shape: tuple[int, int], chunk_size: int) -> np.ndarray:
  """Causal attention within chunks of `chunk_size` positions."""
  if chunk_size <= 0:
    raise ValueError("chunk_size must be positive")
  return _chunked(*_ids(shape), chunk_size)


def make_random_mask(shape: tuple[int, int], sparsity: float, seed: int) -> np.ndarray:
  """Each position kept with probability 1 - sparsity (numpy's global generator, seeded)."""
  np.random.seed(seed)
  return np.random.binomial(n=1, p=1.0 - sparsity, size=shape).astype(np.bool_)


@dataclasses.dataclass
class LogicalOr(Mask):
  left: Mask
  right: Mask

  shape = property(lambda self: self.left.shape)

  def __getitem__(self, idx: Any) -> np.ndarray:
    return self.left[idx] | self.right[idx]

  def __hash__(self) -> int:
    return hash((type(self), self.left, self.right))


@dataclasses.dataclass
class LogicalAnd(Mask):
  left: Mask
  right: Mask

  shape = property(lambda self: self.left.shape)

  def __getitem__(self, idx: Any) -> np.ndarray:
    return self.left[idx] & self.right[idx]

  def __hash__(self) -> int:
    return hash((type(self), self.left, self.right))


@dataclasses.dataclass
class MultiHeadMask(Mask):
  """One 2-d mask per head."""
  masks: Sequence[Mask]

  def __post_init__(self):
    if not self.masks:
      raise ValueError("Unsupported empty tuple of masks")
    for mask in self.masks[1:]:
      if mask.shape != self.masks[0].shape:
        raise ValueError(f"Unexpected mask shape, got: {mask.shape}, expected: "
                         f"{self.masks[0].shape}")
    if not all(isinstance(mask, Mask) for mask in self.masks):
      raise ValueError("masks should be of type Mask")
    if any(isinstance(mask, MultiHeadMask) for mask in self.masks):
      raise ValueError("Nesting MultiHeadMasks is not supported")

  shape = property(lambda self: (len(self.masks),) + tuple(self.masks[0].shape))

  def __getitem__(self, idx: Any) -> np.ndarray:
    if len(idx) != 3:
      raise NotImplementedError(f"Unsupported slice: {idx}")
    if isinstance(idx[0], int):
      return self.masks[idx[0]][idx[1:]]
    return np.stack([mask[idx[1:]] for mask in self.masks[idx[0]]])

  def __eq__(self, other: object) -> bool:
    if not isinstance(other, type(self)):
      return NotImplemented
    return tuple(self.masks) == tuple(other.masks)

  def __hash__(self) -> int:
    return hash((type(self),) + tuple(hash(mask) for mask in self.masks))


def _fill_slice(s: slice, size: int) -> slice:
  if s.step not in (None, 1):
    raise NotImplementedError(f"Unsupported slice step: {s}")
  start, stop = (0 if s.start is None else s.start), (size if s.stop is None else s.stop)
  if start < 0 or stop > size:
    raise NotImplementedError(f"Unsupported slice: {s} of a mask axis of size {size}")
  return slice(start, stop)


class _ComputableMask(Mask):
  """A 2-d mask given by a function of the query and key positions."""

  def __init__(self, shape: tuple[int, int], mask_function: Callable[..., np.ndarray],
               shard_count: int = 1):
    self._shape, self.mask_function = tuple(shape), mask_function
    if self._shape[0] % (shard_count * shard_count) != 0:
      raise ValueError(f"Shard count squared ({shard_count * shard_count}) must divide Q "
                       f"seq_len ({self._shape[0]}) evenly.")
    self.q_sequence = np.arange(self._shape[0], dtype=np.int32)

  shape = property(lambda self: self._shape)

  def __getitem__(self, idx: Any) -> np.ndarray:
    if len(idx) != 2 or not all(isinstance(s, slice) for s in idx):
      raise NotImplementedError(f"Unsupported slice: {idx}")
    rows = _fill_slice(idx[0], self._shape[0])
    cols = _fill_slice(idx[1], self._shape[1])
    return self.mask_function(self.q_sequence[rows][:, None],
                              np.arange(cols.start, cols.stop)[None, :])

  def _key(self) -> tuple:
    return self._shape, self.q_sequence.tobytes()

  def __eq__(self, other: object) -> bool:
    if not isinstance(other, type(self)):
      return NotImplemented
    return self._key() == other._key()

  def __hash__(self) -> int:
    return hash((type(self),) + self._key())


class CausalMask(_ComputableMask):
  def __init__(self, shape: tuple[int, int], offset: int = 0, shard_count: int = 1):
    self.offset = offset
    super().__init__(shape, lambda q, kv: q + self.offset >= kv, shard_count)

  def _key(self) -> tuple:
    return super()._key() + (self.offset,)


class ChunkedCausalMask(_ComputableMask):
  def __init__(self, shape: tuple[int, int], chunk_size: int, shard_count: int = 1):
    if chunk_size <= 0:
      raise ValueError("chunk_size must be positive")
    self.chunk_size = chunk_size
    super().__init__(shape, lambda q, kv: _chunked(q, kv, self.chunk_size), shard_count)

  def _key(self) -> tuple:
    return super()._key() + (self.chunk_size,)


class LocalMask(_ComputableMask):
  def __init__(self, shape: tuple[int, int], window_size: tuple[int | None, int | None],
               offset: int, shard_count: int = 1):
    self.window_size, self.offset = window_size, offset
    super().__init__(shape, lambda q, kv: _window(q, kv, self.window_size, self.offset),
                     shard_count)

  def _key(self) -> tuple:
    return super()._key() + (tuple(self.window_size), self.offset)

  def __eq__(self, other: object) -> bool:
    return isinstance(other, LocalMask) and self._key() == other._key()


@dataclasses.dataclass
class NumpyMask(Mask):
  """A 2-d boolean numpy array."""
  array: np.ndarray

  def __post_init__(self):
    if self.array.ndim != 2:
      raise ValueError("Expected a 2-dim array")
    if self.array.dtype != np.bool_:
      raise ValueError("Mask must be a boolean array")

  shape = property(lambda self: self.array.shape)

  def __getitem__(self, idx: Any) -> np.ndarray:
    return self.array[idx]

  def __eq__(self, other: object) -> bool:
    if not isinstance(other, type(self)):
      return NotImplemented
    return np.array_equal(self.array, other.array, equal_nan=True)

  def __hash__(self) -> int:
    return hash((type(self), self.array.tobytes()))


@dataclasses.dataclass(frozen=True)
class FullMask(Mask):
  """Every position attends every key."""
  _shape: tuple[int, int]

  def __post_init__(self):
    if not isinstance(self._shape, tuple):
      raise ValueError(f"Unsupported shape type: {type(self._shape)}")

  shape = property(lambda self: self._shape)

  def __getitem__(self, idx: Any) -> np.ndarray:
    if len(idx) != 2 or not all(isinstance(s, slice) for s in idx):
      raise NotImplementedError(f"Unsupported slice: {idx}")
    rows, cols = _fill_slice(idx[0], self._shape[0]), _fill_slice(idx[1], self._shape[1])
    return np.ones((rows.stop - rows.start, cols.stop - cols.start), np.bool_)
