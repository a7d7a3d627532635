import collections

import pytest

from stablejax import tree_util as tu

Point = collections.namedtuple("Point", "x y")


class Box:
  def __init__(self, a, b):
    self.a, self.b = a, b


tu.register_pytree_node(Box, lambda b: ((b.a, b.b), None), lambda _, kids: Box(*kids))


@pytest.mark.parametrize("tree", [
    1, (1, 2), [1, (2, 3)], {"b": 1, "a": [2, None]}, Point(1, (2, 3)), None, (), [[]],
    {"x": Point(1, 2), "y": (3,)},
])
def test_flatten_roundtrip(tree):
  leaves, treedef = tu.tree_flatten(tree)
  assert tu.tree_unflatten(treedef, leaves) == tree
  assert treedef.num_leaves == len(leaves)


def test_dict_leaves_sorted_by_key():
  assert tu.tree_leaves({"b": 1, "a": 2}) == [2, 1]


def test_none_is_an_empty_node():
  assert tu.tree_leaves([None, 1]) == [1]


def test_registered_node():
  leaves, treedef = tu.tree_flatten(Box(1, [2, 3]))
  assert leaves == [1, 2, 3]
  box = tu.tree_unflatten(treedef, [4, 5, 6])
  assert (box.a, box.b) == (4, [5, 6])


def test_register_twice_is_an_error():
  with pytest.raises(ValueError, match="Duplicate custom PyTreeDef type registration"):
    tu.register_pytree_node(Box, lambda b: ((), None), lambda _, k: Box(0, 0))


def test_tree_map_multiple_trees():
  assert tu.tree_map(lambda a, b: a + b, {"x": 1, "y": (2,)}, {"x": 10, "y": (20,)}) == \
      {"x": 11, "y": (22,)}
  with pytest.raises(ValueError, match="pytree structure error: different types"):
    tu.tree_map(lambda a, b: a, (1, 2), [1, 2])


def test_treedef_equality_and_hash():
  a = tu.tree_structure({"a": (1, 2)})
  b = tu.tree_structure({"a": (3, 4)})
  assert a == b and hash(a) == hash(b)
  assert a != tu.tree_structure({"a": [1, 2]})


def test_unflatten_wrong_leaf_count():
  with pytest.raises(ValueError, match="has 2 leaves"):
    tu.tree_unflatten(tu.tree_structure((1, 2)), [1])


def test_broadcast_prefix():
  assert tu.broadcast_prefix((0, None), ({"a": 1, "b": 2}, [3])) == [0, 0, None]
  with pytest.raises(ValueError):
    tu.broadcast_prefix((0, 0, 0), (1, 2))


@pytest.mark.parametrize("tree,same", [
    (({"b": 1, "a": [2, 3]}, {}), ({"a": [4, 5], "b": 6}, {})),
    ((1, {"x": (2,)}), (7, {"x": (8,)})),
])
def test_leaves_if_match_takes_leaves_in_flattening_order(tree, same):
  treedef = tu.tree_structure(tree)
  assert treedef.leaves_if_match(same) == tu.tree_leaves(same)


@pytest.mark.parametrize("other", [
    ({"b": 1, "c": [2, 3]}, {}),      # another key
    ({"b": 1, "a": [2, 3], "c": 4}, {}),  # one more key
    ({"b": 1, "a": [2, 3]}, {"k": 0}),  # a keyword where there was none
    ({"b": 1, "a": (2, 3)}, {}),      # a tuple where a list was
    (collections.OrderedDict(b=1, a=[2, 3]), {}),  # another dict type
])
def test_leaves_if_match_rejects_another_structure(other):
  treedef = tu.tree_structure(({"b": 1, "a": [2, 3]}, {}))
  assert treedef.leaves_if_match(other) is None
