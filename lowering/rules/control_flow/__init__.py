"""Lowering of the control-flow primitives (`stablejax.lax.control_flow`): one module per
primitive, as there."""
