"""`sj.tree` and the tree_util additions against `jax.tree` on nested structures, and a
registered node whose aux data is a list (left out of the structure's hash, as JAX's)."""
import collections

import jax
import numpy as np
import pytest

import stablejax as sj
import stablejax.numpy as jnp
from stablejax import tree_util

Point = collections.namedtuple("Point", "x y")
TREES = [
    {"a": [1., 2.], "b": (3., {"c": 4., "d": None})},
    [Point(1, 2), (3,), []],
    (1.,),
    5.,
]


@pytest.mark.parametrize("tree", TREES, ids=range(len(TREES)))
def test_matches_jax_tree(tree):
  assert sj.tree.leaves(tree) == jax.tree.leaves(tree)
  assert sj.tree.map(lambda x: x * 2, tree) == jax.tree.map(lambda x: x * 2, tree)
  assert sj.tree.reduce(lambda a, b: a + b, tree, 0) == jax.tree.reduce(
      lambda a, b: a + b, tree, 0)
  assert sj.tree.all(tree) == jax.tree.all(tree)
  leaves, treedef = sj.tree.flatten(tree)
  assert sj.tree.unflatten(treedef, leaves) == tree
  assert treedef.num_leaves == jax.tree.structure(tree).num_leaves


def test_transpose_and_all_leaves():
  x = [(1, 2), (3, 4), (5, 6)]
  outer, inner = sj.tree.structure([0, 0, 0]), sj.tree.structure((0, 0))
  want = jax.tree.transpose(jax.tree.structure([0, 0, 0]), jax.tree.structure((0, 0)), x)
  assert sj.tree.transpose(outer, inner, x) == want
  assert sj.tree.transpose(outer, None, x) == want
  with pytest.raises(TypeError):
    sj.tree.transpose(outer, sj.tree.structure((0, 0, 0)), x)
  assert tree_util.all_leaves([1, 2.]) and not tree_util.all_leaves([[1]])


def test_is_leaf():
  tree = {"a": (1, 2), "b": [3]}
  assert sj.tree.leaves(tree, is_leaf=lambda x: isinstance(x, tuple)) == jax.tree.leaves(
      tree, is_leaf=lambda x: isinstance(x, tuple))


class ListAux:
  def __init__(self, value, meta):
    self.value, self.meta = value, meta


tree_util.register_pytree_node(ListAux, lambda n: ((n.value,), [n.meta]),
                               lambda aux, kids: ListAux(kids[0], aux[0]))


def test_list_aux_flattens_and_transforms():
  node = ListAux(np.ones(2, np.float32), "m")
  leaves, treedef = sj.tree.flatten(node)
  assert len(leaves) == 1 and treedef == sj.tree.structure(ListAux(0., "m"))
  assert sj.tree.map(lambda x: x + 1, node).meta == "m"
  np.testing.assert_array_equal(sj.vmap(lambda n: n.value * 2)(node), [2., 2.])
  np.testing.assert_array_equal(sj.grad(lambda n: jnp.sum(n.value))(node).value, [1., 1.])
  np.testing.assert_array_equal(sj.jit(lambda n: n.value)(node), node.value)


@tree_util.register_pytree_node_class
class Pair:
  def __init__(self, a, b):
    self.a, self.b = a, b

  def tree_flatten(self):
    return (self.a, self.b), None

  @classmethod
  def tree_unflatten(cls, aux, kids):
    return cls(*kids)


def test_register_pytree_node_class_and_partial():
  assert float(sj.jit(lambda p: p.a * p.b)(Pair(2., 3.))) == 6.
  p = tree_util.Partial(lambda a, b: a + b, 1.)
  assert float(sj.jit(lambda p: p(2.))(p)) == 3.
  assert sj.tree.leaves(p) == [1.]


def _path_strings(mod, tree):
  return [(mod.keystr(p), x) for p, x in mod.tree_leaves_with_path(tree)]


@pytest.mark.parametrize("tree", TREES, ids=range(len(TREES)))
def test_key_paths_match_jax(tree):
  assert _path_strings(tree_util, tree) == _path_strings(jax.tree_util, tree)
  got = sj.tree.map_with_path(lambda p, x: (tree_util.keystr(p), x), tree)
  want = jax.tree.map_with_path(lambda p, x: (jax.tree_util.keystr(p), x), tree)
  assert got == want
  assert [repr(k) for p, _ in sj.tree.flatten_with_path(tree)[0] for k in p] == [
      repr(k) for p, _ in jax.tree.flatten_with_path(tree)[0] for k in p]


class Keyed:
  def __init__(self, a, b):
    self.a, self.b = a, b


tree_util.register_pytree_with_keys(
    Keyed, lambda k: (((tree_util.GetAttrKey("a"), k.a), (tree_util.GetAttrKey("b"), k.b)), None),
    lambda aux, kids: Keyed(*kids))


def test_register_pytree_with_keys():
  tree = {"k": Keyed(1., [2.])}
  assert [tree_util.keystr(p) for p, _ in sj.tree.leaves_with_path(tree)] == [
      "['k'].a", "['k'].b[0]"]
  assert float(sj.jit(lambda t: t["k"].a * t["k"].b[0])(tree)) == 2.
  assert tree_util.keystr((tree_util.DictKey("k"), tree_util.SequenceKey(0)), simple=True,
                          separator="/") == "k/0"
  assert [tree_util.keystr(p) for p, _ in tree_util.tree_leaves_with_path(ListAux(1., "m"))] == \
      ["[<flat index 0>]"]
