"""Pytrees: nested tuples, lists, dicts, None, namedtuples, OrderedDicts, defaultdicts and
registered node types; their structures (`PyTreeDef`), key paths, and the functions of
`jax.tree_util`."""
from __future__ import annotations

import collections
import dataclasses
import functools
import operator
from typing import (Any, Callable, Hashable, Iterable, Iterator, NamedTuple, Sequence, TypeVar)

KeyEntry = TypeVar("KeyEntry", bound=Any)
KeyPath = tuple[KeyEntry, ...]


# ----------------------------------------------------------------------------------------------
# Key paths: where a child sits in its node


@dataclasses.dataclass(frozen=True)
class SequenceKey:
  """The index of a child of a tuple or list, printed `[0]`."""
  idx: int

  def __str__(self) -> str:
    return f"[{self.idx!r}]"


@dataclasses.dataclass(frozen=True)
class DictKey:
  """The key of a child of a dict, printed `['a']`."""
  key: Hashable

  def __str__(self) -> str:
    return f"[{self.key!r}]"


@dataclasses.dataclass(frozen=True)
class GetAttrKey:
  """The attribute of a child (a namedtuple's or a dataclass's field), printed `.x`."""
  name: str

  def __str__(self) -> str:
    return f".{self.name}"


@dataclasses.dataclass(frozen=True)
class FlattenedIndexKey:
  """The position of a child of a node registered without keys."""
  key: int

  def __str__(self) -> str:
    return f"[<flat index {self.key}>]"


_KEY_FIELDS = {SequenceKey: "idx", DictKey: "key", GetAttrKey: "name", FlattenedIndexKey: "key"}


def keystr(keys: KeyPath, *, simple: bool = False, separator: str = "") -> str:
  """A key path as text: `['a'][0].x`, or with `simple` only the keys (`a`, `0`, `x`), joined
  by `separator`."""
  if simple:
    return separator.join(str(getattr(k, _KEY_FIELDS[type(k)])) if type(k) in _KEY_FIELDS
                          else str(k) for k in keys)
  return separator.join(map(str, keys))


# ----------------------------------------------------------------------------------------------
# The registry of node types


class _NodeType(NamedTuple):
  flatten: Callable[[Any], tuple[Iterable, Any]]
  unflatten: Callable[[Any, list], Any]
  flatten_with_keys: Callable[[Any], tuple[Iterable, Any]] | None = None


_registry: dict[type, _NodeType] = {}


def register_pytree_node(nodetype: type, flatten_func: Callable, unflatten_func: Callable,
                         flatten_with_keys_func: Callable | None = None) -> None:
  """Register `nodetype` with `flatten(x) -> (children, aux)`, `unflatten(aux, children) -> x`
  and optionally `flatten_with_keys(x) -> ([(key, child), ...], aux)` for key paths."""
  if nodetype in _registry:
    raise ValueError(f"Duplicate custom PyTreeDef type registration for {nodetype}.")
  _registry[nodetype] = _NodeType(flatten_func, unflatten_func, flatten_with_keys_func)


def _sorted_keys(d: dict) -> list:
  try:
    return sorted(d)
  except TypeError as e:
    raise ValueError("Comparator raised exception while sorting pytree dictionary keys.") from e


def _flatten_dict(d: dict) -> tuple[list, tuple]:
  keys = _sorted_keys(d)
  return [d[k] for k in keys], tuple(keys)


def _sequence_with_keys(s: Sequence) -> tuple[list, None]:
  return [(SequenceKey(i), c) for i, c in enumerate(s)], None


def _dict_with_keys(d: dict) -> tuple[list, tuple]:
  keys = _sorted_keys(d)
  return [(DictKey(k), d[k]) for k in keys], tuple(keys)


def _ordered_dict_with_keys(d: collections.OrderedDict) -> tuple[list, tuple]:
  return [(DictKey(k), v) for k, v in d.items()], tuple(d)


def _defaultdict_with_keys(d: collections.defaultdict) -> tuple[list, tuple]:
  pairs, keys = _dict_with_keys(d)
  return pairs, (d.default_factory, keys)


def _with_keys_only(flatten_with_keys: Callable) -> Callable:
  """The flatten function of a node registered by its `flatten_with_keys` alone."""
  def flatten(x):
    pairs, aux = flatten_with_keys(x)
    return [c for _, c in pairs], aux
  return flatten


register_pytree_node(tuple, lambda t: (t, None), lambda _, xs: tuple(xs), _sequence_with_keys)
register_pytree_node(list, lambda l: (l, None), lambda _, xs: list(xs), _sequence_with_keys)
register_pytree_node(dict, _flatten_dict, lambda keys, xs: dict(zip(keys, xs)), _dict_with_keys)
register_pytree_node(type(None), lambda _: ((), None), lambda _, __: None,
                     lambda _: ((), None))
register_pytree_node(collections.OrderedDict, _with_keys_only(_ordered_dict_with_keys),
                     lambda keys, xs: collections.OrderedDict(zip(keys, xs)),
                     _ordered_dict_with_keys)
register_pytree_node(collections.defaultdict, _with_keys_only(_defaultdict_with_keys),
                     lambda aux, xs: collections.defaultdict(aux[0], zip(aux[1], xs)),
                     _defaultdict_with_keys)


def _is_namedtuple(x: Any) -> bool:
  return isinstance(x, tuple) and hasattr(type(x), "_fields")


def _namedtuple_node(cls: type) -> _NodeType:
  return _NodeType(lambda t: (tuple(t), None), lambda _, xs: cls(*xs),
                   lambda t: ([(GetAttrKey(f), c) for f, c in zip(cls._fields, t)], None))


def _node_of(x: Any) -> tuple[type, _NodeType | None]:
  node = _registry.get(type(x))
  if node is None and _is_namedtuple(x):
    return type(x), _namedtuple_node(type(x))
  return type(x), node


def is_tree_node(typ: type) -> bool:
  """Whether `typ` is a pytree node type (registered, built in, or a namedtuple)."""
  return typ in _registry or (isinstance(typ, type) and issubclass(typ, tuple) and
                              hasattr(typ, "_fields"))


class _Children(tuple):
  """A node's child structures (`PyTreeDef.children`): a tuple, which called gives them as a
  list, as JAX's `PyTreeDef.children()` method does (so both spellings work)."""
  __slots__ = ()

  def __call__(self) -> list[PyTreeDef]:
    return list(self)


class PyTreeDef:
  """The structure of a pytree: a node type, its auxiliary data and child structures."""
  __slots__ = ("node_type", "aux", "_kids", "num_leaves", "_hash")

  def __init__(self, node_type, aux, children: Iterable[PyTreeDef]):
    self.node_type = node_type
    self.aux = aux
    self._kids = children if type(children) is tuple else tuple(children)
    if node_type is None:
      self.num_leaves = 1
    else:
      self.num_leaves = 0
      for c in self._kids:
        self.num_leaves += c.num_leaves
    self._hash = None

  @property
  def children(self) -> _Children:
    """The child structures of the root."""
    return _Children(self._kids)

  def __eq__(self, other) -> bool:
    return (self is other or isinstance(other, PyTreeDef) and
            self.node_type is other.node_type and self.num_leaves == other.num_leaves and
            (self._hash is None or other._hash is None or self._hash == other._hash) and
            self.aux == other.aux and self._kids == other._kids)

  def __hash__(self) -> int:
    if self._hash is None:
      # A custom node's aux data need not be hashable: as JAX's, it is left out of the hash and
      # compared by equality only (jit's cache keys hold trees of such nodes).
      aux = self.aux if self.node_type is dict else None
      self._hash = hash((self.node_type, aux, self._kids))
    return self._hash

  @property
  def num_nodes(self) -> int:
    return 1 + sum(c.num_nodes for c in self._kids)

  def node_data(self) -> tuple[type, Any] | None:
    """(node type, aux data) of the root node; None for a leaf."""
    return None if self.node_type is None else (self.node_type, self.aux)

  @staticmethod
  def from_node_data_and_children(registry: Any, node_data: tuple[type, Any] | None,
                                  children: Iterable[PyTreeDef]) -> PyTreeDef:
    """The structure with root `node_data` (from `node_data()`) over `children`."""
    if node_data is None:
      return LEAF
    return PyTreeDef(node_data[0], node_data[1], tuple(children))

  def unflatten(self, leaves: Iterable) -> Any:
    return tree_unflatten(self, leaves)

  def unflattener(self) -> Callable[[Sequence], Any]:
    """`tree_unflatten(self, ·)` as a function built once: for rebuilding many trees of this
    structure (jit's results), without looking up node types per call. A leaf and a tuple of
    leaves (the common results) take their leaves as they are, so the caller passes exactly
    `num_leaves`."""
    if self.node_type is None:
      return operator.itemgetter(0)
    if self.node_type is tuple and all(c.node_type is None for c in self._kids):
      return tuple
    build = _builder(self)
    n = self.num_leaves

    def unflatten(leaves: Sequence) -> Any:
      if len(leaves) != n:
        raise ValueError(f"tree structure {self} has {n} leaves, but {len(leaves)} were given")
      return build(iter(leaves))
    return unflatten

  def leaves_if_match(self, tree: Any) -> list | None:
    """The leaves of `tree` if it has exactly this structure, else None: a check that builds
    no structure (jit's dispatch fast path compares the arguments with its last call's)."""
    if self.node_type is None:
      return None if type(tree) in _registry or isinstance(tree, tuple) else [tree]
    leaves: list = []
    return leaves if _match(self, tree, leaves) else None

  def flatten_up_to(self, tree: Any) -> list:
    """The subtrees of `tree` at the leaves of this structure (a prefix of `tree`'s)."""
    return _flatten_up_to(self, tree)

  def compose(self, inner: PyTreeDef) -> PyTreeDef:
    """This structure with every leaf replaced by `inner`."""
    if self.node_type is None:
      return inner
    return PyTreeDef(self.node_type, self.aux, tuple(c.compose(inner) for c in self._kids))

  def __repr__(self) -> str:
    return f"PyTreeDef({self._str()})"

  def _str(self) -> str:
    if self.node_type is None:
      return "*"
    kids = [c._str() for c in self._kids]
    if self.node_type is tuple:
      return "(" + ", ".join(kids) + ("," if len(kids) == 1 else "") + ")"
    if self.node_type is list:
      return "[" + ", ".join(kids) + "]"
    if self.node_type is dict:
      return "{" + ", ".join(f"{k!r}: {c}" for k, c in zip(self.aux, kids)) + "}"
    if self.node_type is type(None):
      return "None"
    if self.node_type not in _registry:
      return f"CustomNode(namedtuple[{self.node_type.__name__}], [{', '.join(kids)}])"
    return f"CustomNode({self.node_type.__name__}[{self.aux}], [{', '.join(kids)}])"


LEAF = PyTreeDef(None, None, ())


def _flatten_up_to(treedef: PyTreeDef, tree: Any) -> list:
  if treedef.node_type is None:
    return [tree]
  node_type, node = _node_of(tree)
  if node_type is not treedef.node_type:
    raise ValueError(f"expected a tree of structure {treedef}, got a {type(tree).__name__}")
  children, aux = node.flatten(tree)
  children = list(children)
  if aux != treedef.aux or len(children) != len(treedef._kids):
    raise ValueError(f"expected a tree of structure {treedef}, got {tree_structure(tree)}")
  return [x for c, t in zip(treedef._kids, children) for x in _flatten_up_to(c, t)]


def _match(treedef: PyTreeDef, tree: Any, leaves: list) -> bool:
  """Whether `tree` has the structure `treedef` (a node), collecting its leaves."""
  node_type = treedef.node_type
  if type(tree) is not node_type:
    return False
  if node_type is tuple or node_type is list:
    children = tree
  elif node_type is dict:  # (jit's kwargs, usually empty: no sorting of keys)
    keys = treedef.aux
    if len(tree) != len(keys) or any(k not in tree for k in keys):
      return False
    children = [tree[k] for k in keys]
  else:
    children, aux = _node_of(tree)[1].flatten(tree)
    if aux != treedef.aux:
      return False
    children = list(children)
  if len(children) != len(treedef._kids):
    return False
  for child_def, child in zip(treedef._kids, children):
    if child_def.node_type is None:
      if type(child) in _registry or isinstance(child, tuple):  # a node where a leaf was
        return False
      leaves.append(child)
    elif not _match(child_def, child, leaves):
      return False
  return True


def _builder(treedef: PyTreeDef) -> Callable[[Iterator], Any]:
  """A function building a tree of structure `treedef` from an iterator of its leaves."""
  node_type = treedef.node_type
  if node_type is None:
    return next
  kids = [_builder(c) for c in treedef._kids]
  if node_type is tuple:
    return lambda it: tuple([k(it) for k in kids])
  if node_type is list:
    return lambda it: [k(it) for k in kids]
  node = _registry.get(node_type)
  if node is None:  # a namedtuple
    return lambda it: node_type(*[k(it) for k in kids])
  aux = treedef.aux
  return lambda it: node.unflatten(aux, [k(it) for k in kids])


def _flatten(x: Any, leaves: list, is_leaf) -> PyTreeDef:
  if is_leaf is not None and is_leaf(x):
    leaves.append(x)
    return LEAF
  node_type = type(x)
  if node_type is tuple or node_type is list:  # the common containers, without the registry
    return PyTreeDef(node_type, None, tuple([_flatten(c, leaves, is_leaf) for c in x]))
  node = _registry.get(node_type)
  if node is None and isinstance(x, tuple):
    node_type, node = _node_of(x)  # a namedtuple
  if node is None:
    leaves.append(x)
    return LEAF
  children, aux = node.flatten(x)
  return PyTreeDef(node_type, aux, tuple([_flatten(c, leaves, is_leaf) for c in children]))


def tree_flatten(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> tuple[list, PyTreeDef]:
  """Flatten a pytree into its leaves (in a fixed order) and its structure."""
  leaves: list = []
  return leaves, _flatten(tree, leaves, is_leaf)


def _unflatten(treedef: PyTreeDef, it) -> Any:
  if treedef.node_type is None:
    return next(it)
  children = [_unflatten(c, it) for c in treedef._kids]
  node = _registry.get(treedef.node_type)
  if node is None:  # a namedtuple
    return treedef.node_type(*children)
  return node.unflatten(treedef.aux, children)


def tree_unflatten(treedef: PyTreeDef, leaves: Iterable) -> Any:
  """Rebuild a pytree of structure `treedef` from its leaves."""
  leaves = list(leaves)
  if len(leaves) != treedef.num_leaves:
    raise ValueError(f"tree structure {treedef} has {treedef.num_leaves} leaves, "
                     f"but {len(leaves)} were given")
  return _unflatten(treedef, iter(leaves))


def tree_leaves(tree: Any, is_leaf=None) -> list:
  """The leaves of `tree`, in `tree_flatten`'s order (without building its structure)."""
  if is_leaf is not None:
    return tree_flatten(tree, is_leaf)[0]
  leaves: list = []
  _collect_leaves(tree, leaves)
  return leaves


def _collect_leaves(x: Any, leaves: list) -> None:
  node_type = type(x)
  if node_type is tuple or node_type is list:
    for c in x:
      _collect_leaves(c, leaves)
    return
  node = _registry.get(node_type)
  if node is None and isinstance(x, tuple):
    node = _node_of(x)[1]  # a namedtuple
  if node is None:
    leaves.append(x)
    return
  for c in node.flatten(x)[0]:
    _collect_leaves(c, leaves)


def tree_structure(tree: Any, is_leaf=None) -> PyTreeDef:
  return tree_flatten(tree, is_leaf)[1]


def _up_to(treedef: PyTreeDef, tree: Any, rest: Sequence, is_leaf, name: str) -> list[list]:
  """For each tree of `rest`, its subtrees at the leaves of `treedef` (the structure of
  `tree`, which must be a prefix of each); a mismatch is a ValueError naming where."""
  out = []
  for other in rest:
    try:
      out.append(_flatten_up_to(treedef, other))
    except ValueError as e:
      err = next(_prefix_errors((), tree, other, is_leaf), None)
      raise (e if err is None else err(name)) from None
  return out


def tree_map(f: Callable, tree: Any, *rest: Any, is_leaf: Callable[[Any], bool] | None = None
             ) -> Any:
  """`f` applied leafwise to `tree` and the trees of `rest`, which have `tree`'s structure as
  a prefix (a leaf of `tree` takes the whole subtree of each of `rest` there)."""
  leaves, treedef = tree_flatten(tree, is_leaf)
  if not rest:
    return tree_unflatten(treedef, [f(x) for x in leaves])
  all_leaves = [leaves, *_up_to(treedef, tree, rest, is_leaf, "tree_map tree")]
  return tree_unflatten(treedef, [f(*xs) for xs in zip(*all_leaves)])


def _where(name: str, path: KeyPath) -> str:
  return f"    {name}{keystr(path)}\n"


def _prefix_errors(path: KeyPath, prefix: Any, full: Any, is_leaf=None
                   ) -> Iterator[Callable[[str], ValueError]]:
  """Where `prefix` is not a prefix of `full`: for each place, the error as a function of
  the name of `prefix` (the place's subtrees are not looked into)."""
  if is_leaf is not None and is_leaf(prefix) or _node_of(prefix)[1] is None:
    return  # a leaf is a prefix of anything
  if type(prefix) is not type(full):
    yield lambda name: ValueError(
        f"pytree structure error: different types at key path\n{_where(name, path)}At that "
        f"key path, the prefix pytree {name} has a subtree of type\n    {type(prefix)}\nbut "
        "at the same key path the full pytree has a subtree of different type\n"
        f"    {type(full)}.")
    return
  p_pairs, p_aux = flatten_one_level_with_keys(prefix)
  f_pairs, f_aux = flatten_one_level_with_keys(full)
  if isinstance(prefix, (list, tuple)) and len(p_pairs) != len(f_pairs):
    yield lambda name: ValueError(
        f"pytree structure error: different lengths of {type(prefix).__name__} at key path\n"
        f"{_where(name, path)}At that key path, the prefix pytree {name} has a subtree of type "
        f"{type(prefix).__name__} of length {len(p_pairs)}, but the full pytree has a subtree "
        f"of the same type but of length {len(f_pairs)}.")
    return
  if len(p_pairs) != len(f_pairs):
    yield lambda name: ValueError(
        f"pytree structure error: different numbers of pytree children at key path\n"
        f"{_where(name, path)}At that key path, the prefix pytree {name} has a subtree of "
        f"type\n    {type(prefix)}\nwith {len(p_pairs)} child keys\n"
        f"    {' '.join(keystr((k,), simple=True) for k, _ in p_pairs)}\nbut at the same key "
        f"path the full pytree has a subtree of the same type but with {len(f_pairs)} child "
        f"keys\n    {' '.join(keystr((k,), simple=True) for k, _ in f_pairs)}")
    return
  if p_aux != f_aux:
    yield lambda name: ValueError(
        f"pytree structure error: different pytree metadata at key path\n{_where(name, path)}"
        f"At that key path, the prefix pytree {name} has a subtree of type\n    {type(prefix)}"
        f"\nwith metadata\n    {p_aux}\nbut at the same key path the full pytree has a "
        f"subtree of the same type but with metadata\n    {f_aux}")
    return
  for (key, p_child), (_, f_child) in zip(p_pairs, f_pairs):
    yield from _prefix_errors((*path, key), p_child, f_child)


def broadcast_prefix(prefix: Any, tree: Any, is_leaf=None) -> list:
  """The leaves of `prefix` repeated for every leaf of `tree` below them (vmap's `in_axes`)."""
  out: list = []

  def walk(p, t):
    if p is None or is_leaf is not None and is_leaf(p) or _node_of(p)[1] is None:
      out.extend([p] * len(tree_leaves(t)))
      return
    p_type, p_node = _node_of(p)
    t_type, t_node = _node_of(t)
    if p_type is not t_type:
      raise ValueError(f"prefix node {type(p).__name__} does not match {type(t).__name__}")
    p_kids, p_aux = p_node.flatten(p)
    t_kids, t_aux = t_node.flatten(t)
    p_kids, t_kids = list(p_kids), list(t_kids)
    if p_aux != t_aux or len(p_kids) != len(t_kids):
      raise ValueError(f"prefix structure {tree_structure(p)} does not match "
                       f"{tree_structure(t)}")
    for pc, tc in zip(p_kids, t_kids):
      walk(pc, tc)

  walk(prefix, tree)
  return out


def flatten_fun(f: Callable, in_tree: PyTreeDef) -> tuple[Callable, Callable[[], PyTreeDef]]:
  """Wrap `f` to take flat leaves and return flat leaves; the second result gives the out tree."""
  store: list = []

  def flat_f(*leaves):
    args, kwargs = tree_unflatten(in_tree, leaves)
    out_leaves, out_tree = tree_flatten(f(*args, **kwargs))
    store.append(out_tree)
    return out_leaves

  def out_tree() -> PyTreeDef:
    return store[-1]

  return flat_f, out_tree


_NO_INITIAL = object()


def tree_reduce(function: Callable, tree: Any, initializer: Any = _NO_INITIAL,
                is_leaf=None) -> Any:
  """`functools.reduce` of `function` over the leaves of `tree`."""
  leaves = tree_leaves(tree, is_leaf)
  if initializer is _NO_INITIAL:
    return functools.reduce(function, leaves)
  return functools.reduce(function, leaves, initializer)


def tree_all(tree: Any, *, is_leaf=None) -> bool:
  """Whether every leaf of `tree` is truthy."""
  return all(tree_leaves(tree, is_leaf))


def tree_transpose(outer_treedef: PyTreeDef, inner_treedef: PyTreeDef | None,
                   pytree_to_transpose: Any) -> Any:
  """Turn a tree of structure `outer` of trees of structure `inner` into an `inner` tree of
  `outer` trees."""
  flat, treedef = tree_flatten(pytree_to_transpose)
  if inner_treedef is None:
    inner_treedef = tree_structure(outer_treedef.flatten_up_to(pytree_to_transpose)[0])
  inner, outer = inner_treedef.num_leaves, outer_treedef.num_leaves
  expected = outer_treedef.compose(inner_treedef)
  if treedef != expected:
    raise TypeError(f"tree_transpose: the tree {treedef} does not have the structure "
                    f"{expected} of outer {outer_treedef} composed with inner {inner_treedef}")
  rows = [flat[i * inner:(i + 1) * inner] for i in range(outer)]
  subtrees = [tree_unflatten(outer_treedef, [row[j] for row in rows]) for j in range(inner)]
  return tree_unflatten(inner_treedef, subtrees)


def register_pytree_node_class(cls: type) -> type:
  """Class decorator: register `cls` with its `tree_flatten` method and `tree_unflatten`
  classmethod."""
  register_pytree_node(cls, operator.methodcaller("tree_flatten"), cls.tree_unflatten)
  return cls




def all_leaves(iterable: Iterable, is_leaf: Callable[[Any], bool] | None = None) -> bool:
  """Whether every element of `iterable` is a leaf (with `is_leaf`: is its own only leaf)."""
  if is_leaf is None:
    return all(_node_of(x)[1] is None for x in iterable)
  items = list(iterable)
  leaves = tree_leaves(items, is_leaf)
  return len(leaves) == len(items) and all(a is b for a, b in zip(items, leaves))


def treedef_tuple(treedefs: Iterable[PyTreeDef]) -> PyTreeDef:
  """The structure of a tuple of trees of structures `treedefs`."""
  return PyTreeDef(tuple, None, tuple(treedefs))


def treedef_children(treedef: PyTreeDef) -> list[PyTreeDef]:
  """The structures of the root's children."""
  return list(treedef._kids)


def treedef_is_leaf(treedef: PyTreeDef) -> bool:
  """Whether `treedef` has a single node (a leaf, or a node without children such as None)."""
  return treedef.num_nodes == 1


def tree_broadcast(prefix_tree: Any, full_tree: Any,
                   is_leaf: Callable[[Any], bool] | None = None) -> Any:
  """`full_tree`'s structure with each leaf replaced by the `prefix_tree` leaf above it."""
  prefix_leaves, prefix_def = tree_flatten(prefix_tree, is_leaf)
  subtrees, = _up_to(prefix_def, prefix_tree, [full_tree], is_leaf,
                     "broadcast_prefix prefix_tree")
  leaves = [x for x, sub in zip(prefix_leaves, subtrees)
            for _ in range(tree_structure(sub).num_leaves)]
  return tree_unflatten(tree_structure(full_tree), leaves)


def _halving_reduce(operation: Callable, leaves: list) -> Any:
  if len(leaves) == 1:
    return leaves[0]
  half = len(leaves) // 2
  return operation(_halving_reduce(operation, leaves[:half]),
                   _halving_reduce(operation, leaves[half:]))


def tree_reduce_associative(operation: Callable[[Any, Any], Any], tree: Any, *,
                            identity: Any = _NO_INITIAL,
                            is_leaf: Callable[[Any], bool] | None = None) -> Any:
  """Reduce the leaves of `tree` with the associative `operation` as a balanced tree."""
  leaves = tree_leaves(tree, is_leaf)
  if leaves:
    return _halving_reduce(operation, leaves)
  if identity is _NO_INITIAL:
    raise TypeError("Must specify identity for parallel reduction of empty sequence.")
  return identity


# ----------------------------------------------------------------------------------------------
# Flattening with key paths


def _flatten_keyed(node: _NodeType, x: Any) -> tuple[list[tuple[Any, Any]], Any]:
  """The (key, child) pairs of node `x` and its aux data."""
  if node.flatten_with_keys is not None:
    pairs, aux = node.flatten_with_keys(x)
    return list(pairs), aux
  children, aux = node.flatten(x)
  return [(FlattenedIndexKey(i), c) for i, c in enumerate(children)], aux


def flatten_one_level(tree: Any) -> tuple[Iterable, Hashable]:
  """The children of the node `tree` and its aux data (a namedtuple's: its type)."""
  node_type, node = _node_of(tree)
  if node is None:
    raise ValueError(f"can't tree-flatten type: {type(tree)}")
  children, aux = node.flatten(tree)
  return children, node_type if node_type not in _registry else aux


def flatten_one_level_with_keys(tree: Any) -> tuple[list[tuple[Any, Any]], Hashable]:
  """The (key, child) pairs of the node `tree` and its aux data (a namedtuple's: its type)."""
  node_type, node = _node_of(tree)
  if node is None:
    raise ValueError(f"can't tree-flatten type: {type(tree)}")
  pairs, aux = _flatten_keyed(node, tree)
  return pairs, node_type if node_type not in _registry else aux


def _flatten_with_path(x: Any, path: KeyPath, out: list, is_leaf) -> PyTreeDef:
  if is_leaf is not None and is_leaf(path, x):
    out.append((path, x))
    return LEAF
  node_type, node = _node_of(x)
  if node is None:
    out.append((path, x))
    return LEAF
  pairs, aux = _flatten_keyed(node, x)
  return PyTreeDef(node_type, aux, [_flatten_with_path(c, (*path, k), out, is_leaf)
                                    for k, c in pairs])


def _path_predicate(is_leaf: Callable | None, is_leaf_takes_path: bool) -> Callable | None:
  if is_leaf is None or is_leaf_takes_path:
    return is_leaf
  return lambda _, x: is_leaf(x)


def tree_flatten_with_path(tree: Any, is_leaf: Callable[..., bool] | None = None,
                           is_leaf_takes_path: bool = False
                           ) -> tuple[list[tuple[KeyPath, Any]], PyTreeDef]:
  """The (key path, leaf) pairs of `tree` and its structure. `is_leaf` takes `(path, x)`
  with `is_leaf_takes_path`, else `x`."""
  out: list = []
  treedef = _flatten_with_path(tree, (), out, _path_predicate(is_leaf, is_leaf_takes_path))
  return out, treedef


def tree_leaves_with_path(tree: Any, is_leaf: Callable[..., bool] | None = None,
                          is_leaf_takes_path: bool = False) -> list[tuple[KeyPath, Any]]:
  """The (key path, leaf) pairs of `tree`."""
  return tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)[0]


def tree_map_with_path(f: Callable, tree: Any, *rest: Any,
                       is_leaf: Callable[..., bool] | None = None,
                       is_leaf_takes_path: bool = False) -> Any:
  """`f(path, leaf, *subtrees of rest)` applied leafwise, as `tree_map`."""
  path_leaves, treedef = tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)
  plain_is_leaf = None if is_leaf is None or is_leaf_takes_path else is_leaf
  others = _up_to(treedef, tree, rest, plain_is_leaf, "tree_map_with_path tree")
  return tree_unflatten(treedef, [f(path, leaf, *xs) for (path, leaf), *xs
                                  in zip(path_leaves, *others)])


# ----------------------------------------------------------------------------------------------
# Registering node types


def register_pytree_with_keys(nodetype: type, flatten_with_keys: Callable,
                              unflatten_func: Callable, flatten_func: Callable | None = None
                              ) -> None:
  """Register `nodetype` with `flatten_with_keys(x) -> ([(key, child), ...], aux)`;
  `flatten_func` (optional) is the same without the keys."""
  register_pytree_node(nodetype, flatten_func or _with_keys_only(flatten_with_keys),
                       unflatten_func, flatten_with_keys)


def register_pytree_with_keys_class(cls: type) -> type:
  """Class decorator: register `cls` with its `tree_flatten_with_keys` method (and
  `tree_flatten` where it has one) and its `tree_unflatten` classmethod."""
  flatten = operator.methodcaller("tree_flatten") if hasattr(cls, "tree_flatten") else None
  register_pytree_with_keys(cls, operator.methodcaller("tree_flatten_with_keys"),
                            cls.tree_unflatten, flatten)
  return cls


def _dataclass_fields(nodetype: type, data_fields: Sequence[str] | None,
                      meta_fields: Sequence[str] | None, drop_fields: Sequence[str]
                      ) -> tuple[tuple[str, ...], tuple[str, ...]]:
  """The data and meta fields of `register_dataclass`, inferred from a dataclass's fields
  (`static` metadata) where not given, and checked."""
  if data_fields is None or meta_fields is None:
    if (data_fields is None) != (meta_fields is None):
      raise TypeError("register_dataclass: data_fields and meta_fields must both be specified "
                      f"when either is specified. Got {data_fields=} {meta_fields=}.")
    if not dataclasses.is_dataclass(nodetype):
      raise TypeError("register_dataclass: data_fields and meta_fields are required when "
                      f"nodetype is not a dataclass. Got {nodetype=}.")
    fields = dataclasses.fields(nodetype)
    data_fields = [f.name for f in fields if not f.metadata.get("static", False)]
    meta_fields = [f.name for f in fields if f.metadata.get("static", False)]
  data_fields, meta_fields = tuple(data_fields), tuple(meta_fields)
  given = {*data_fields, *meta_fields}
  if dataclasses.is_dataclass(nodetype):
    init_fields = {f.name for f in dataclasses.fields(nodetype) if f.init} - set(drop_fields)
    if given != init_fields:
      msg = ("data_fields and meta_fields must include all dataclass fields with "
             "``init=True`` and only them.")
      if init_fields - given:
        msg += (f" Missing fields: {init_fields - given}. Add them to drop_fields to suppress "
                "this error.")
      if given - init_fields:
        msg += f" Unexpected fields: {given - init_fields}."
      raise ValueError(msg)
  if overlap := set(data_fields) & set(meta_fields):
    raise ValueError(f"data_fields and meta_fields must not overlap. Overlapping fields: "
                     f"{overlap}.")
  return data_fields, meta_fields


def register_dataclass(nodetype: type, data_fields: Sequence[str] | None = None,
                       meta_fields: Sequence[str] | None = None,
                       drop_fields: Sequence[str] = ()) -> type:
  """Register `nodetype` (a dataclass, or any class built by keyword from these fields) with
  `data_fields` as children and `meta_fields` as aux data; usable as a decorator, then inferring
  the fields (static ones marked `field(metadata=dict(static=True))`)."""
  data, meta = _dataclass_fields(nodetype, data_fields, meta_fields, drop_fields)

  def flatten_with_keys(x):
    return ([(GetAttrKey(n), getattr(x, n)) for n in data],
            tuple([getattr(x, n) for n in meta]))

  def flatten(x):
    return [getattr(x, n) for n in data], tuple([getattr(x, n) for n in meta])

  def unflatten(aux, children):
    return nodetype(**dict(zip(meta, aux)), **dict(zip(data, children)))

  register_pytree_node(nodetype, flatten, unflatten, flatten_with_keys)
  return nodetype


def register_static(cls: type) -> type:
  """Register the hashable `cls` as a node without children: its instances are aux data,
  static under `jit`."""
  register_pytree_with_keys(cls, lambda x: ((), x), lambda x, _: x)
  return cls


class PyTreeRegistry:
  """A registry of node types, as JAX's `default_registry` exposes it (stablejax has one)."""

  def flatten(self, tree: Any, leaf_predicate: Callable[[Any], bool] | None = None
              ) -> tuple[list, PyTreeDef]:
    return tree_flatten(tree, leaf_predicate)

  def flatten_with_path(self, tree: Any, leaf_predicate: Callable[[Any, Any], bool] | None = None
                        ) -> tuple[list[tuple[KeyPath, Any]], PyTreeDef]:
    return tree_flatten_with_path(tree, leaf_predicate, is_leaf_takes_path=True)

  def flatten_one_level(self, tree: Any) -> tuple[Iterable, Any] | None:
    return flatten_one_level(tree) if is_tree_node(type(tree)) else None

  def flatten_one_level_with_keys(self, tree: Any) -> tuple[list, Any] | None:
    return flatten_one_level_with_keys(tree) if is_tree_node(type(tree)) else None

  def is_node(self, type: type) -> bool:  # noqa: A002  (JAX's parameter name)
    return is_tree_node(type)

  def register_node(self, type: type, to_iterable: Callable, from_iterable: Callable,  # noqa: A002
                    to_iterable_with_keys: Callable | None = None) -> None:
    register_pytree_node(type, to_iterable, from_iterable, to_iterable_with_keys)

  def register_dataclass_node(self, type: type, data_fields: Sequence[str],  # noqa: A002
                              meta_fields: Sequence[str], /) -> None:
    register_dataclass(type, data_fields, meta_fields)


default_registry = PyTreeRegistry()


# ----------------------------------------------------------------------------------------------
# Partial


class _Unmerged:
  """A `functools.partial` held as a Partial's function. Given the partial itself,
  `functools.partial` would merge its arguments into the Partial's, making them leaves; JAX
  keeps them in the function (aux data), and so does this box."""
  __slots__ = ("partial",)

  def __init__(self, partial: functools.partial):
    self.partial = partial

  def __call__(self, *args: Any, **kwargs: Any) -> Any:
    return self.partial(*args, **kwargs)

  def __hash__(self) -> int:
    return hash(self.partial)

  def __eq__(self, other: Any) -> bool:
    return self.partial == (other.partial if isinstance(other, _Unmerged) else other)

  def __repr__(self) -> str:
    return repr(self.partial)

  func = property(lambda self: self.partial.func)
  args = property(lambda self: self.partial.args)
  keywords = property(lambda self: self.partial.keywords)


class Partial(functools.partial):
  """A `functools.partial` that is a pytree: its bound arguments are the leaves and its
  function the aux data, so it can be passed to and returned from transformed functions."""

  def __new__(cls, func: Callable, *args: Any, **kw: Any) -> Partial:
    if isinstance(func, functools.partial):
      func = _Unmerged(func)
    return super().__new__(cls, func, *args, **kw)


register_pytree_node(Partial, lambda p: ((p.args, p.keywords), p.func),
                     lambda func, xs: Partial(func, *xs[0], **xs[1]))
