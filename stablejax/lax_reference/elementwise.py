"""Reference implementations of the elementwise primitives."""
from __future__ import annotations

import numpy as np

from stablejax.lax_reference import reference

reference("add")(np.add)
reference("add_any")(np.add)
reference("mul")(np.multiply)
reference("neg")(np.negative)
reference("sin")(np.sin)
reference("cos")(np.cos)
