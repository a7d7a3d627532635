"""`jax.extend.source_info_util`: where equations come from, over `stablejax.core`'s source
locations and name stack."""
from stablejax.core import (
    SourceInfo, extend_name_stack, register_exclusion)
from stablejax.core import current_source_info as current

__all__ = ["SourceInfo", "current", "extend_name_stack", "register_exclusion"]
