"""numpy's input and output: load, save and savez, and the text formatting of arrays
(array_repr, array_str, the print options) as numpy's own (files are read on the host)."""
from __future__ import annotations

from typing import Any

import numpy as np

from stablejax.numpy._creation import asarray


get_printoptions, set_printoptions, printoptions = (
    np.get_printoptions, np.set_printoptions, np.printoptions)


array_repr, array_str, save, savez = np.array_repr, np.array_str, np.save, np.savez


def load(file: Any, *args: Any, **kwargs: Any) -> Any:
  """numpy.load, with an array result put on the device (an unsupported dtype stays numpy)."""
  out = np.load(file, *args, **kwargs)
  if isinstance(out, np.ndarray):
    try:
      return asarray(out)
    except TypeError:
      return out
  return out
