"""stablejax.scipy: the parts of jax.scipy built so far (`special`, `stats`, `signal`, `linalg`,
`fft`, `optimize`)."""
from stablejax.scipy import special, stats  # noqa: F401
from stablejax.scipy import fft, linalg, optimize, signal  # noqa: F401
