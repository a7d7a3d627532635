"""stablejax.scipy: the parts of jax.scipy built so far (`special`, `stats`, `signal`, `linalg`)."""
from stablejax.scipy import special, stats  # noqa: F401
from stablejax.scipy import linalg, signal  # noqa: F401
