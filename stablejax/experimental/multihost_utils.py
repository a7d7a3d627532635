"""jax.experimental.multihost_utils for one process (stablejax runs one): the collectives over
processes are the identity on this process's values, as JAX's are when `process_count() == 1`.
With several processes they raise: stablejax has no cross-process transfer."""
from __future__ import annotations

import zlib
from typing import Any

import numpy as np

from stablejax.runtime.pjrt import process_count
from stablejax.tree_util import tree_map

__all__ = ["assert_equal", "broadcast_one_to_all", "process_allgather", "sync_global_devices"]


def _one_process(name: str) -> None:
  if process_count() != 1:
    raise NotImplementedError(f"multihost_utils.{name}: stablejax runs on one process, this "
                              f"one is one of {process_count()}")


def broadcast_one_to_all(in_tree: Any, is_source: bool | None = None) -> Any:
  """The source process's values on every process: here, this one's, as numpy arrays."""
  _one_process("broadcast_one_to_all")
  return tree_map(np.asarray, in_tree)


def process_allgather(in_tree: Any, tiled: bool = False) -> Any:
  """Every process's values, stacked on a new leading axis (concatenated if `tiled`)."""
  _one_process("process_allgather")

  def gather(x: Any) -> np.ndarray:
    x = np.asarray(x)
    return x if tiled else np.expand_dims(x, 0)
  return tree_map(gather, in_tree)


def assert_equal(in_tree: Any, fail_message: str = "") -> None:
  """That every process has the same values: trivially true on one."""
  _one_process("assert_equal")
  tree_map(np.asarray, in_tree)


def sync_global_devices(name: str) -> None:
  """A barrier across processes (named for the error when names differ)."""
  assert_equal(np.uint32(zlib.crc32(name.encode())),
               f"sync_global_devices name mismatch ('{name}')")
