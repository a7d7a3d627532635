"""stablejax.scipy: the parts of jax.scipy built so far (`special`, `stats`)."""
from stablejax.scipy import special, stats  # noqa: F401
from stablejax.scipy import signal  # noqa: F401
