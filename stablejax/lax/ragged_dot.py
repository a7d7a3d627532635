"""Ragged dots (`ragged_dot`, `ragged_dot_general` and `RaggedDotDimensionNumbers`, JAX's names):
the rows of lhs come in consecutive groups of `group_sizes`, each multiplied by its own rhs
matrix. Written with dot_general over every group and a select of each row's group (JAX has a
`ragged_dot_general` primitive; stablejax computes the same values without one)."""
from __future__ import annotations

import dataclasses
from typing import Any, Sequence

from stablejax import core, dtypes
from stablejax.lax.dot import dot_general
from stablejax.lax.elementwise import bitwise_and, convert_element_type, ge, lt, select_n, sub
from stablejax.lax.reductions import cumsum, reduce_sum
from stablejax.lax.structural import broadcast_in_dim, broadcasted_iota, full_like

__all__ = ["RaggedDotDimensionNumbers", "ragged_dot", "ragged_dot_general"]


@dataclasses.dataclass(frozen=True)
class RaggedDotDimensionNumbers:
  """The dot dimension numbers of a ragged dot with the lhs' ragged dimensions and the rhs'
  group dimensions."""
  dot_dimension_numbers: tuple
  lhs_ragged_dimensions: tuple
  rhs_group_dimensions: tuple

  def __init__(self, dot_dimension_numbers: Any, lhs_ragged_dimensions: Sequence[int],
               rhs_group_dimensions: Sequence[int]):
    object.__setattr__(self, "dot_dimension_numbers",
                       tuple(tuple(map(tuple, t)) for t in dot_dimension_numbers))
    object.__setattr__(self, "lhs_ragged_dimensions", tuple(lhs_ragged_dimensions))
    object.__setattr__(self, "rhs_group_dimensions", tuple(rhs_group_dimensions))


_BASIC = RaggedDotDimensionNumbers((((1,), (1,)), ((), ())), (0,), (0,))


def ragged_dot(lhs: Any, rhs: Any, group_sizes: Any, precision: Any = None,
               preferred_element_type: Any = None, group_offset: Any = None,
               out_sharding: Any = None) -> Any:
  """lhs[m, k] times rhs[g, k, n]: row r of the result is lhs[r] @ rhs[i] for the group i
  holding row r (groups are consecutive rows, `group_sizes[g]` of them); rows after the last
  group are zeros."""
  return ragged_dot_general(lhs, rhs, group_sizes, _BASIC, precision, preferred_element_type,
                            group_offset, out_sharding)


def ragged_dot_general(lhs: Any, rhs: Any, group_sizes: Any,
                       ragged_dot_dimension_numbers: RaggedDotDimensionNumbers,
                       precision: Any = None, preferred_element_type: Any = None,
                       group_offset: Any = None, out_sharding: Any = None) -> Any:
  """A ragged dot with explicit dimension numbers (those of `ragged_dot`: the lhs' rows ragged
  and the rhs' leading axis its groups; other modes are refused)."""
  if ragged_dot_dimension_numbers != _BASIC:
    raise NotImplementedError(f"ragged_dot_general: stablejax supports the dimension numbers "
                              f"of ragged_dot only ({_BASIC}), got "
                              f"{ragged_dot_dimension_numbers}")
  if group_offset is not None or out_sharding is not None:
    raise NotImplementedError("ragged_dot_general: group_offset and out_sharding are not "
                              "supported by stablejax")
  (m, k), (g, k2, n) = core.get_aval(lhs).shape, core.get_aval(rhs).shape
  if k != k2 or core.get_aval(group_sizes).shape != (g,):
    raise TypeError(f"ragged_dot: lhs[m, k], rhs[g, k, n] and group_sizes[g] expected, got "
                    f"{core.get_aval(lhs).str_short()}, {core.get_aval(rhs).str_short()} and "
                    f"{core.get_aval(group_sizes).str_short()}")
  every = dot_general(lhs, rhs, (((1,), (1,)), ((), ())), precision,
                      preferred_element_type)  # [m, g, n]
  sizes = convert_element_type(group_sizes, dtypes.int32)
  ends = broadcast_in_dim(cumsum(sizes), (m, g), (1,))
  starts = sub(ends, broadcast_in_dim(sizes, (m, g), (1,)))
  rows = broadcasted_iota(dtypes.int32, (m, g), 0)
  member = bitwise_and(ge(rows, starts), lt(rows, ends))
  member = broadcast_in_dim(member, (m, g, n), (0, 1))
  return reduce_sum(select_n(member, full_like(every, 0), every), (1,))
