"""`jax.ref`: mutable array references (their primitives and rules: stablejax/lax/state.py)."""
from stablejax.lax.state import (AbstractRef, Ref, empty_ref, free_ref, freeze, new_ref,
                                 ref_addupdate as addupdate, ref_get as get, ref_set as set,
                                 ref_swap as swap)

__all__ = ["AbstractRef", "Ref", "addupdate", "free_ref", "freeze", "get", "new_ref",
           "empty_ref", "set", "swap"]
