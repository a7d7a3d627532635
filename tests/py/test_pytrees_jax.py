"""The pytree functions of `sj.tree_util` against `jax.tree_util` on the same inputs: the
registration helpers (dataclasses, static nodes, keyed nodes), key paths, treedef helpers,
OrderedDict / defaultdict / namedtuple nodes, tree_map over prefixes and its errors, Partial,
and custom nodes with unhashable aux data through jit, grad and vmap."""
import collections
import dataclasses
import functools
from typing import Any

import jax
import jax.numpy as jjnp
import numpy as np
import pytest

import stablejax as sj
import stablejax.numpy as jnp
from stablejax import tree_util as tu
from jax import tree_util as jtu

Point = collections.namedtuple("Point", "x y")


def _trees(mod) -> list:
  """The same trees, built with `mod`'s registrations where that matters."""
  return [
      {"b": 1, "a": [2, None, (3,)]},
      Point(1, (2, 3)),
      collections.OrderedDict([("b", 1), ("a", [2, 3])]),
      collections.defaultdict(list, {"y": 1, "x": (2,)}),
      [Point(1, 2), collections.OrderedDict(z=3)],
      mod.Partial(max, 1, 2),
      None,
      (),
      7,
  ]


def _paths(mod, tree, **kw) -> list[tuple[str, str, Any]]:
  return [(mod.keystr(p), repr(p), x) for p, x in mod.tree_leaves_with_path(tree, **kw)]


@pytest.mark.parametrize("i", range(len(_trees(tu))))
def test_flatten_structure_and_paths_match_jax(i):
  ours, theirs = _trees(tu)[i], _trees(jtu)[i]
  leaves, treedef = tu.tree_flatten(ours)
  jleaves, jtreedef = jtu.tree_flatten(theirs)
  assert leaves == jleaves
  assert str(treedef).replace("stablejax", "") == str(jtreedef).replace("jax", "")
  assert treedef.num_leaves == jtreedef.num_leaves and treedef.num_nodes == jtreedef.num_nodes
  assert _paths(tu, ours) == _paths(jtu, theirs)
  rebuilt = tu.tree_unflatten(treedef, leaves)
  assert type(rebuilt) is type(ours)
  if tu.is_tree_node(type(ours)) and not isinstance(ours, functools.partial):
    jrebuilt = jtu.tree_unflatten(jtreedef, jleaves)
    assert rebuilt == ours and list(rebuilt or ()) == list(jrebuilt or ())  # (key order)
  assert [str(c) for c in tu.treedef_children(treedef)] == [
      str(c) for c in jtu.treedef_children(jtreedef)]
  assert tu.treedef_is_leaf(treedef) == jtu.treedef_is_leaf(jtreedef)
  assert tu.is_tree_node(type(ours)) == jtu.is_tree_node(type(theirs))


def test_ordered_dict_order_and_defaultdict_aux():
  od_ba = collections.OrderedDict([("b", 1), ("a", 2)])
  od_ab = collections.OrderedDict([("a", 1), ("b", 2)])
  assert (tu.tree_structure(od_ba) == tu.tree_structure(od_ab)) == (
      jtu.tree_structure(od_ba) == jtu.tree_structure(od_ab)) == False  # noqa: E712
  dd = collections.defaultdict(list, {"b": 1, "a": 2})
  out = tu.tree_map(lambda x: x * 10, dd)
  assert type(out) is collections.defaultdict and out.default_factory is list
  assert out == jtu.tree_map(lambda x: x * 10, dd) and list(out) == ["a", "b"]
  assert tu.tree_structure(dd).node_data() == jtu.tree_structure(dd).node_data()
  assert tu.tree_structure(dd) != tu.tree_structure(collections.defaultdict(dict, dd))


def test_flatten_one_level_matches_jax():
  for tree in [{"b": [1], "a": 2}, (1, 2), Point(1, 2), collections.OrderedDict(b=1, a=2)]:
    kids, aux = tu.flatten_one_level(tree)
    jkids, jaux = jtu.flatten_one_level(tree)
    assert list(kids) == list(jkids) and aux == jaux
    pairs, aux = tu.flatten_one_level_with_keys(tree)
    assert [c for _, c in pairs] == list(jkids) and aux == jaux
  assert [repr(k) for k, _ in tu.flatten_one_level_with_keys({"b": 1, "a": 2})[0]] == [
      repr(k) for k, _ in jtu.flatten_one_level_with_keys({"b": 1, "a": 2})[0]] == [
      "DictKey(key='a')", "DictKey(key='b')"]
  for mod in (tu, jtu):
    with pytest.raises(ValueError, match="can't tree-flatten type"):
      mod.flatten_one_level(1)
  assert tu.default_registry.flatten_one_level(1) is None
  assert tu.default_registry.flatten({"a": [1, 2]})[0] == jtu.default_registry.flatten(
      {"a": [1, 2]})[0]


def test_treedef_helpers_match_jax():
  parts = [1, None, {"a": (1, 2)}]
  ours = tu.treedef_tuple([tu.tree_structure(p) for p in parts])
  theirs = jtu.treedef_tuple([jtu.tree_structure(p) for p in parts])
  assert str(ours) == str(theirs) and ours == tu.tree_structure(tuple(parts))
  for tree in [1, None, (), [1], {"a": None}]:
    assert tu.treedef_is_leaf(tu.tree_structure(tree)) == jtu.treedef_is_leaf(
        jtu.tree_structure(tree))
  treedef = tu.tree_structure([(1, 2), 3])
  assert treedef.children() == tu.treedef_children(treedef)  # JAX's method spelling too
  for items, kw in [([1, 2.], {}), ([None], {}), ([[1]], {}),
                    ([(1,)], {"is_leaf": lambda x: isinstance(x, tuple)})]:
    assert tu.all_leaves(items, **kw) == jtu.all_leaves(items, **kw)


@pytest.mark.parametrize("trees", [
    ((1, None), ([2, 3], None)),
    ({"a": 1, "b": 2}, {"a": {"x": 1}, "b": [2, 3]}),
    (Point(1, 2), Point((1, 2), 3)),
    ([1, 2], [[3, 4], {"k": 5}]),
])
def test_tree_map_rest_with_tree_as_prefix(trees):
  f = lambda a, b: (a, b)
  assert tu.tree_map(f, *trees) == jtu.tree_map(f, *trees)
  g = lambda p, a, b: (tu.keystr(p), a, b)
  jg = lambda p, a, b: (jtu.keystr(p), a, b)
  assert tu.tree_map_with_path(g, *trees) == jtu.tree_map_with_path(jg, *trees)


@pytest.mark.parametrize("trees", [
    ((1, 2), [1, 2]),                      # another type
    ({"a": 1}, {"b": 1}),                 # other keys
    ((1, (2, 3)), (1, (2,))),              # another length, below the root
    ((1, 2), 3),                           # a leaf where a node was
    ((1, None), ([2, 3], 4)),              # None is a node, not a leaf
    (collections.OrderedDict(b=1, a=2), collections.OrderedDict(a=1, b=2)),
    ({"a": 1}, collections.OrderedDict(a=1)),
])
def test_tree_map_structure_errors_match_jax(trees):
  with pytest.raises(ValueError) as theirs:
    jtu.tree_map(lambda *xs: 0, *trees)
  with pytest.raises(ValueError) as ours:
    tu.tree_map(lambda *xs: 0, *trees)
  first_two = lambda e: str(e.value).splitlines()[:2]
  assert first_two(ours) == first_two(theirs)
  with pytest.raises(ValueError, match="tree_map_with_path tree"):
    tu.tree_map_with_path(lambda *xs: 0, *trees)


def test_tree_broadcast_and_reduce_associative_match_jax():
  args = ((1, 2), ([3, 4], {"a": 5}))
  assert tu.tree_broadcast(*args) == jtu.tree_broadcast(*args) == sj.tree.broadcast(*args)
  for mod in (tu, jtu):
    with pytest.raises(ValueError, match="broadcast_prefix prefix_tree"):
      mod.tree_broadcast((1, 2), ([3, 4],))
    with pytest.raises(ValueError):
      mod.tree_broadcast((None, 1), (2, 3))  # None is a node without children
    with pytest.raises(TypeError, match="Must specify identity"):
      mod.tree_reduce_associative(lambda a, b: a + b, [])
  tree = [1, (2, 3), {"a": 4}]
  assert tu.tree_reduce_associative(lambda a, b: [a, b], tree) == \
      jtu.tree_reduce_associative(lambda a, b: [a, b], tree)


def test_unsortable_dict_keys_raise_as_jax():
  tree = {1: 7, "y": 42}
  for fn in ("tree_flatten", "tree_leaves", "tree_structure", "tree_leaves_with_path"):
    with pytest.raises(ValueError) as theirs:
      getattr(jtu, fn)(tree)
    with pytest.raises(ValueError) as ours:
      getattr(tu, fn)(tree)
    assert str(ours.value) == str(theirs.value)
  with pytest.raises(ValueError):
    sj.jit(lambda d: d[1])(tree)
  assert tu.tree_leaves({1: 2, 2.5: 3}) == jtu.tree_leaves({1: 2, 2.5: 3})  # comparable


def test_keystr_matches_jax():
  for mod_keys, jax_keys in [
      ((tu.DictKey("a"), tu.SequenceKey(0), tu.GetAttrKey("x"), tu.FlattenedIndexKey(2)),
       (jtu.DictKey("a"), jtu.SequenceKey(0), jtu.GetAttrKey("x"), jtu.FlattenedIndexKey(2))),
      ((tu.DictKey(1), "custom"), (jtu.DictKey(1), "custom")),
  ]:
    for kw in [{}, {"simple": True, "separator": "/"}, {"separator": "|"}]:
      assert tu.keystr(mod_keys, **kw) == jtu.keystr(jax_keys, **kw)
  assert repr(tu.FlattenedIndexKey(2)) == repr(jtu.FlattenedIndexKey(2))
  assert tu.SequenceKey(1) == tu.SequenceKey(1) and hash(tu.DictKey("a")) == hash(
      tu.DictKey("a"))


def test_flatten_with_path_is_leaf_takes_path():
  tree = {"a": (1, 2), "b": [3]}
  pred = lambda p, x: len(p) == 1
  ours, treedef = tu.tree_flatten_with_path(tree, pred, is_leaf_takes_path=True)
  theirs, jtreedef = jtu.tree_flatten_with_path(tree, pred, is_leaf_takes_path=True)
  assert [(tu.keystr(p), x) for p, x in ours] == [(jtu.keystr(p), x) for p, x in theirs]
  assert str(treedef) == str(jtreedef)
  f = lambda p, x: len(p)
  assert tu.tree_map_with_path(f, tree, is_leaf=pred, is_leaf_takes_path=True) == \
      jtu.tree_map_with_path(f, tree, is_leaf=pred, is_leaf_takes_path=True)


# ----------------------------------------------------------------------------------------------
# Registration


def _make_dataclasses(mod):
  @mod.register_dataclass
  @dataclasses.dataclass
  class Inferred:
    x: Any
    y: Any
    op: str = dataclasses.field(metadata=dict(static=True), default="add")

  class Explicit:
    def __init__(self, a, m):
      self.a, self.m = a, m

  mod.register_dataclass(Explicit, data_fields=["a"], meta_fields=["m"])
  return Inferred, Explicit


OUR_DC, OUR_EXPLICIT = _make_dataclasses(tu)
JAX_DC, JAX_EXPLICIT = _make_dataclasses(jtu)


def test_register_dataclass_matches_jax():
  ours, theirs = OUR_DC(1., [2.], "mul"), JAX_DC(1., [2.], "mul")
  assert str(tu.tree_structure(ours)) == str(jtu.tree_structure(theirs))
  assert _paths(tu, ours) == _paths(jtu, theirs)
  assert tu.tree_map(lambda v: v * 2, ours) == OUR_DC(2., [4.], "mul")
  assert tu.tree_structure(ours).node_data()[1] == jtu.tree_structure(theirs).node_data()[1]
  e, je = OUR_EXPLICIT(1, 2), JAX_EXPLICIT(1, 2)
  assert str(tu.tree_structure(e)).replace("OUR", "") == str(jtu.tree_structure(je))
  assert _paths(tu, e) == _paths(jtu, je)
  got = sj.jit(lambda s: s.x * s.y[0] if s.op == "mul" else s.x)(ours)
  want = jax.jit(lambda s: s.x * s.y[0] if s.op == "mul" else s.x)(theirs)
  np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("kwargs,error", [
    ({}, TypeError),                                          # not a dataclass
    ({"data_fields": ["x"]}, TypeError),                      # one of the two
])
def test_register_dataclass_errors_on_a_class(kwargs, error):
  for mod in (tu, jtu):
    with pytest.raises(error, match="register_dataclass"):
      mod.register_dataclass(type("NotADataclass", (), {}), **kwargs)


@pytest.mark.parametrize("data,meta,match", [
    (["x"], [], "Missing fields"),
    (["x", "y"], ["x"], "must not overlap|Unexpected"),
])
def test_register_dataclass_field_errors_match_jax(data, meta, match):
  for mod in (tu, jtu):
    cls = dataclasses.make_dataclass("D", ["x", "y"])
    with pytest.raises(ValueError, match=match):
      mod.register_dataclass(cls, data_fields=data, meta_fields=meta)


def test_register_twice_is_jaxs_error():
  for mod in (tu, jtu):
    cls = type("Twice", (), {})
    mod.register_pytree_node(cls, lambda x: ((), None), lambda a, k: cls())
    with pytest.raises(ValueError, match="Duplicate custom PyTreeDef type registration"):
      mod.register_pytree_node(cls, lambda x: ((), None), lambda a, k: cls())


class _StaticBase:
  def __init__(self, v):
    self.v = v

  def __hash__(self):
    return hash(self.v)

  def __eq__(self, other):
    return type(other) is type(self) and other.v == self.v


OurStatic = tu.register_static(type("OurStatic", (_StaticBase,), {}))
JaxStatic = jtu.register_static(type("JaxStatic", (_StaticBase,), {}))


def test_register_static_matches_jax():
  assert tu.tree_leaves(OurStatic(3)) == jtu.tree_leaves(JaxStatic(3)) == []
  got = sj.jit(lambda s, x: x * s.v)(OurStatic(3), 2.)
  want = jax.jit(lambda s, x: x * s.v)(JaxStatic(3), 2.)
  np.testing.assert_array_equal(got, want)
  assert float(sj.jit(lambda s, x: x * s.v)(OurStatic(4), 2.)) == 8.  # a new trace
  assert _paths(tu, [OurStatic(1), 2]) == [("[1]", "(SequenceKey(idx=1),)", 2)]


def _keyed_class(mod):
  @mod.register_pytree_with_keys_class
  class Keyed:
    def __init__(self, a, b):
      self.a, self.b = a, b

    def tree_flatten_with_keys(self):
      return ((mod.GetAttrKey("a"), self.a), (mod.GetAttrKey("b"), self.b)), "meta"

    @classmethod
    def tree_unflatten(cls, aux, kids):
      return cls(*kids)
  return Keyed


def test_register_pytree_with_keys_class_matches_jax():
  ours, theirs = _keyed_class(tu)(1, [2]), _keyed_class(jtu)(1, [2])
  assert _paths(tu, {"k": ours}) == _paths(jtu, {"k": theirs})
  assert tu.tree_leaves(ours) == jtu.tree_leaves(theirs)
  assert tu.tree_map(lambda x: x + 1, ours).b == [3]


# ----------------------------------------------------------------------------------------------
# Custom nodes with unhashable aux data, through the transformations


class ListAux:
  def __init__(self, value, meta):
    self.value, self.meta = value, meta


def _register_list_aux(mod, cls):
  mod.register_pytree_node(cls, lambda n: ((n.value,), [n.meta]),
                           lambda aux, kids: cls(kids[0], aux[0]))


OurListAux = type("OurListAux", (ListAux,), {})
JaxListAux = type("JaxListAux", (ListAux,), {})
_register_list_aux(tu, OurListAux)
_register_list_aux(jtu, JaxListAux)


def test_unhashable_aux_through_jit_grad_vmap():
  x = np.arange(3, dtype=np.float32)
  ours, theirs = OurListAux(x, {"scale": 2}), JaxListAux(x, {"scale": 2})
  f = lambda n, np_=jnp: np_.sum(n.value ** 2) * n.meta["scale"]
  jf = lambda n: f(n, jjnp)
  np.testing.assert_allclose(sj.jit(f)(ours), jax.jit(jf)(theirs))
  np.testing.assert_allclose(sj.jit(f)(ours), jax.jit(jf)(theirs))  # the cached trace
  np.testing.assert_allclose(sj.jit(f)(OurListAux(x, {"scale": 3})),
                             jax.jit(jf)(JaxListAux(x, {"scale": 3})))  # another aux: retraced
  np.testing.assert_allclose(sj.grad(f)(ours).value, jax.grad(jf)(theirs).value)
  np.testing.assert_allclose(sj.vmap(lambda n: n.value * n.meta["scale"])(ours),
                             jax.vmap(lambda n: n.value * n.meta["scale"])(theirs))
  out = sj.jit(lambda n: n)(ours)
  assert isinstance(out, OurListAux) and out.meta == {"scale": 2}
  hash(tu.tree_structure(ours))  # no error: the aux data is left out of the hash


# ----------------------------------------------------------------------------------------------
# Partial


def test_nested_partial_keeps_its_arguments_apart_as_jax():
  add3 = lambda a, b, c: a + 10 * b + 100 * c
  ours = tu.Partial(tu.Partial(add3, 1.), 2.)
  theirs = jtu.Partial(jtu.Partial(add3, 1.), 2.)
  assert tu.tree_leaves(ours) == jtu.tree_leaves(theirs) == [2.]
  assert ours(3.) == theirs(3.)
  assert ours.func.func is add3 and ours.func.args == theirs.func.args == (1.,)
  got = sj.jit(lambda p, c: p(c))(ours, 3.)
  np.testing.assert_allclose(got, jax.jit(lambda p, c: p(c))(theirs, 3.))
  plain = tu.Partial(functools.partial(add3, 1.), b=2.)
  assert tu.tree_leaves(plain) == jtu.tree_leaves(
      jtu.Partial(functools.partial(add3, 1.), b=2.)) == [2.]
  assert plain(c=3.) == 321.


def test_partial_through_jit_as_jax():
  add_one = tu.Partial(jnp.add, 1)
  assert int(sj.jit(lambda f, x: f(x))(add_one, 2)) == int(
      jax.jit(lambda f, x: f(x))(jtu.Partial(jjnp.add, 1), 2)) == 3
  assert repr(tu.Partial(print, 0)) == repr(jtu.Partial(print, 0))
  assert str(tu.tree_structure(tu.Partial(print, 0))) == str(
      jtu.tree_structure(jtu.Partial(print, 0)))


def test_every_jax_tree_util_name_exists():
  ours = {n for n in dir(tu) if not n.startswith("_")}
  theirs = {n for n in dir(jtu) if not n.startswith("_")}
  assert theirs - ours == set()
  assert {n for n in dir(jax.tree) if not n.startswith("_")} <= set(dir(sj.tree))


def test_ordered_dict_through_vmap_grad_jit_as_jax():
  od = collections.OrderedDict([("b", np.ones((2, 3), np.float32)),
                                ("a", np.arange(3, dtype=np.float32))])
  axes = (collections.OrderedDict([("b", 0), ("a", None)]),)
  f = lambda d: d["b"] * d["a"]
  np.testing.assert_array_equal(sj.vmap(f, in_axes=axes)(od), jax.vmap(f, in_axes=axes)(od))
  loss = lambda d: (d["b"].sum() * d["a"]).sum()
  got, want = sj.grad(loss)(od), jax.grad(loss)(od)
  assert list(got) == list(want) == ["b", "a"]
  np.testing.assert_array_equal(got["a"], want["a"])
  assert type(sj.jit(lambda d: d)(od)) is collections.OrderedDict
