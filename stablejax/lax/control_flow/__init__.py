"""Control-flow primitives: cond/switch, while_loop/fori_loop, scan."""
