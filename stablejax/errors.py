"""JAX's public exception classes (`jax.errors`), with JAX's hierarchy: the errors of using a
traced value where a concrete one is needed, of a tracer that escaped, and of a bad jaxpr.

This module imports nothing of stablejax, so that the core can raise these."""
from __future__ import annotations

from jaxlib import _jax

_ERRORS_PAGE = "https://docs.jax.dev/en/latest/errors.html"

# The error of a failed computation on a device (jaxlib's class: the runtime raises it as is).
JaxRuntimeError = _jax.JaxRuntimeError


class _JAXErrorMixin:
  """Appends to the message the page of JAX's documentation that explains the error."""

  def __init__(self, message: str):
    name = type(self).__name__
    super().__init__(f"{message}\nSee {_ERRORS_PAGE}#jax.errors.{name}")


class JAXTypeError(_JAXErrorMixin, TypeError):
  """A TypeError specific to JAX's programming model."""


class JAXIndexError(_JAXErrorMixin, IndexError):
  """An IndexError specific to JAX's programming model."""


class ConcretizationTypeError(JAXTypeError):
  """A concrete Python value was needed from an abstract (traced) one."""


class TracerBoolConversionError(ConcretizationTypeError):
  """`bool()` of a traced value: Python control flow on a value known only at run time."""


class TracerIntegerConversionError(JAXTypeError):
  """A traced value used as a Python integer (`__index__`, `hex`, `oct`): a list index,
  `range`, a shape."""


class TracerArrayConversionError(JAXTypeError):
  """A traced value converted to a numpy array (`np.asarray`, a numpy function)."""


class NonConcreteBooleanIndexError(JAXIndexError):
  """A boolean mask index whose value is not known while tracing: the result's shape would
  depend on it."""


class UnexpectedTracerError(JAXTypeError):
  """A tracer escaped the transformation that created it (a leak)."""


class KeyReuseError(JAXTypeError):
  """A PRNG key used twice where key reuse checking is on."""


class JaxprTypeError(TypeError):
  """A jaxpr is not well typed."""


class InconclusiveDimensionOperation(Exception):
  """A comparison of symbolic dimensions whose answer depends on their values."""
