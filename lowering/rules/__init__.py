"""Lowering rules, one module per primitive family."""
