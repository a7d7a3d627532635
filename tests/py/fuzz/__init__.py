"""A differential fuzzer: random straight-line programs run against stablejax and JAX (the oracle).

`program` generates a program (its Python source, run with either library's `jax`, `jnp` and `lax`
bound), `runner` runs it eagerly and under jit, vmap, grad, jvp and their compositions and
compares the results, `shrink` reduces a mismatching program to a minimal reproducer.
tools/fuzz.py runs a campaign; tests/py/test_fuzz.py a few hundred programs.
"""
