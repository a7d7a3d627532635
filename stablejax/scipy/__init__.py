"""stablejax.scipy: the parts of jax.scipy built so far (`special`, `stats`, `signal`, `linalg`,
`fft`)."""
from stablejax.scipy import special, stats  # noqa: F401
from stablejax.scipy import fft, linalg, signal  # noqa: F401
