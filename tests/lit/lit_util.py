"""The lit tests' helpers, `stablejax.lit_util` (the one users' own lit tests import)."""
from stablejax.lit_util import arg, f32, i32, print_stablehlo, run  # noqa: F401
