"""Rewrites (installed as stablejax.passes): jaxpr passes run before lowering."""
from stablejax.passes.dce import dce_closed_jaxpr, dce_jaxpr
from stablejax.passes.inline import inline_calls

__all__ = ["dce_closed_jaxpr", "dce_jaxpr", "inline_calls"]
