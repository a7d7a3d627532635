"""`jax._src.tree_util`: the registry of pytree node types (type -> its flatten/unflatten
entry); libraries test membership in it (`type(x) in _registry`)."""
from stablejax.tree_util import _registry

__all__ = ["_registry"]
