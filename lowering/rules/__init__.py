"""Lowering rules, one module per primitive family, named and placed as the family's file under
`stablejax/lax/`; importing a module registers its rules, keyed by primitive object."""
