"""jax.scipy.stats.gaussian_kde: a Gaussian kernel density estimate over a (weighted) dataset,
with Scott's or Silverman's bandwidth (or a given factor): densities and log densities,
Gaussian and 1-d box integrals, the overlap with another estimate, and resampling. A pytree,
so estimates pass through jit and vmap."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from stablejax import dtypes, random
from stablejax import numpy as jnp
from stablejax.api import vmap
from stablejax.jit import jit
from stablejax.numpy._promotion import ensure_arraylike, promote_dtypes_inexact
from stablejax.scipy import linalg, special
from stablejax.tree_util import register_pytree_node_class

__all__ = ["gaussian_kde"]


def _bandwidth_factor(kde: gaussian_kde, bw_method: Any, d: int) -> Any:
  if bw_method is None or (isinstance(bw_method, str) and bw_method == "scott"):
    return jnp.power(kde.neff, -1. / (d + 4))
  if isinstance(bw_method, str) and bw_method == "silverman":
    return jnp.power(kde.neff * (d + 2) / 4.0, -1. / (d + 4))
  if jnp.isscalar(bw_method) and not isinstance(bw_method, str):
    return bw_method
  if callable(bw_method):
    return bw_method(kde)
  raise ValueError("`bw_method` should be 'scott', 'silverman', a scalar, or a callable.")


def _weights(dataset: Any, weights: Any, n: int) -> tuple[Any, Any]:
  """The dataset in an inexact dtype and the weights normalized to sum to one."""
  if weights is None:
    dataset, = promote_dtypes_inexact(dataset)
    return dataset, jnp.full(n, 1.0 / n, dtype=dataset.dtype)
  ensure_arraylike("gaussian_kde", weights)
  dataset, weights = promote_dtypes_inexact(dataset, weights)
  weights = jnp.atleast_1d(weights)
  weights = weights / jnp.sum(weights)
  if weights.ndim != 1:
    raise ValueError("`weights` input should be one-dimensional.")
  if len(weights) != n:
    raise ValueError("`weights` input should be of length n")
  return dataset, weights


@register_pytree_node_class
class gaussian_kde:  # noqa: N801 (JAX's name)
  """A Gaussian kernel density estimate of `dataset` (d, n), as scipy.stats.gaussian_kde."""

  def __init__(self, dataset: Any, bw_method: Any = None, weights: Any = None):
    ensure_arraylike("gaussian_kde", dataset)
    dataset = jnp.atleast_2d(dataset)
    if dtypes.issubdtype(dataset.dtype, np.complexfloating):
      raise NotImplementedError("gaussian_kde does not support complex data")
    if not dataset.size > 1:
      raise ValueError("`dataset` input should have multiple elements.")
    d, n = dataset.shape
    self.dataset, self.weights = _weights(dataset, weights, n)
    self.neff = 1 / jnp.sum(self.weights ** 2)
    factor = _bandwidth_factor(self, bw_method, d)
    data_covariance = jnp.atleast_2d(jnp.cov(self.dataset, rowvar=1, bias=False,
                                             aweights=self.weights))
    self.covariance = data_covariance * factor ** 2
    self.inv_cov = jnp.linalg.inv(data_covariance) / factor ** 2

  def tree_flatten(self):
    return (self.neff, self.dataset, self.weights, self.covariance, self.inv_cov), None

  @classmethod
  def tree_unflatten(cls, aux: Any, children: Any) -> gaussian_kde:
    kde = object.__new__(cls)
    kde.neff, kde.dataset, kde.weights, kde.covariance, kde.inv_cov = children
    return kde

  d = property(lambda self: self.dataset.shape[0])
  n = property(lambda self: self.dataset.shape[1])

  def evaluate(self, points: Any) -> Any:
    """The estimated density at `points` (d, m)."""
    ensure_arraylike("evaluate", points)
    return _kernel_eval(False, self.dataset.T, self.weights[:, None],
                        self._reshape_points(points).T, self.inv_cov)[:, 0]

  __call__ = pdf = evaluate

  def logpdf(self, x: Any) -> Any:
    """The log of the estimated density at `x` (d, m), without underflow."""
    ensure_arraylike("logpdf", x)
    return _kernel_eval(True, self.dataset.T, self.weights[:, None],
                        self._reshape_points(x).T, self.inv_cov)[:, 0]

  def _norm_chol(self, cov: Any) -> tuple[Any, Any]:
    chol = linalg.cho_factor(self.covariance + cov)
    return chol, 1.0 / (jnp.sqrt(2 * np.pi) ** self.d * jnp.prod(jnp.diag(chol[0])))

  def integrate_gaussian(self, mean: Any, cov: Any) -> Any:
    """The integral of the estimate times a Gaussian of `mean` and `cov`."""
    mean, cov = jnp.atleast_1d(jnp.squeeze(mean)), jnp.atleast_2d(cov)
    if mean.shape != (self.d,):
      raise ValueError(f"mean does not have dimension {self.d}")
    if cov.shape != (self.d, self.d):
      raise ValueError(f"covariance does not have dimension {self.d}")
    chol, norm = self._norm_chol(cov)
    return _kernel_convolve(chol, norm, self.dataset, self.weights, mean)

  def integrate_box_1d(self, low: Any, high: Any) -> Any:
    """The estimate's mass between `low` and `high` (1-d estimates)."""
    if self.d != 1:
      raise ValueError("integrate_box_1d() only handles 1D pdfs")
    if np.ndim(low) != 0 or np.ndim(high) != 0:
      raise ValueError("the limits of integration in integrate_box_1d must be scalars")
    return _box_1d(self, low, high)

  def integrate_kde(self, other: gaussian_kde) -> Any:
    """The integral of the product of two estimates."""
    if other.d != self.d:
      raise ValueError("KDEs are not the same dimensionality")
    chol, norm = self._norm_chol(other.covariance)
    small, large = (self, other) if self.n < other.n else (other, self)
    per_point = vmap(lambda m: _kernel_convolve(chol, norm, large.dataset, large.weights, m),
                     in_axes=1)(small.dataset)
    return jnp.sum(per_point * small.weights)

  def resample(self, key: Any, shape: tuple = ()) -> Any:
    """Draws from the estimate: dataset points (by weight) plus Gaussian noise."""
    return _resample(self, key, shape)

  def integrate_box(self, low_bounds: Any, high_bounds: Any, maxpts: Any = None) -> Any:
    raise NotImplementedError("only 1D box integrations are supported; use `integrate_box_1d`")

  def set_bandwidth(self, bw_method: Any = None) -> None:
    raise NotImplementedError("dynamically changing the bandwidth method is not supported")

  def _reshape_points(self, points: Any) -> Any:
    if dtypes.issubdtype(jnp.result_type(points), np.complexfloating):
      raise NotImplementedError("gaussian_kde does not support complex coordinates")
    points = jnp.atleast_2d(points)
    d, m = points.shape
    if d != self.d:
      if d == 1 and m == self.d:
        return jnp.reshape(points, (self.d, 1))
      raise ValueError(f"points have dimension {d}, dataset has dimension {self.d}")
    return points


@jit
def _box_1d(kde: gaussian_kde, low: Any, high: Any) -> Any:
  sigma = jnp.squeeze(jnp.sqrt(kde.covariance))
  low = jnp.squeeze((low - kde.dataset) / sigma)
  high = jnp.squeeze((high - kde.dataset) / sigma)
  return jnp.sum(kde.weights * (special.ndtr(high) - special.ndtr(low)))


def _resample_impl(kde: gaussian_kde, key: Any, shape: tuple) -> Any:
  ind_key, eps_key = random.split(key)
  ind = random.choice(ind_key, kde.n, shape=shape, p=kde.weights)
  eps = random.multivariate_normal(eps_key, jnp.zeros(kde.d, kde.covariance.dtype),
                                   kde.covariance, shape=shape, dtype=kde.dataset.dtype).T
  return kde.dataset[:, ind] + eps


_resample: Callable = jit(_resample_impl, static_argnames=("shape",))


def _kernel_convolve(chol: Any, norm: Any, target: Any, weights: Any, mean: Any) -> Any:
  diff = target - mean[:, None]
  arg = 0.5 * jnp.sum(diff * linalg.cho_solve(chol, diff), axis=0)
  return norm * jnp.sum(jnp.exp(-arg) * weights)


def _kernel_eval_impl(in_log: bool, points: Any, values: Any, xi: Any, precision: Any) -> Any:
  """For each row of `xi`, the (log of the) sum over `points` of value times the Gaussian
  kernel of precision `precision`."""
  points, values, xi, precision = promote_dtypes_inexact(points, values, xi, precision)
  d = points.shape[1]
  if xi.shape[1] != d:
    raise ValueError("points and xi must have same trailing dim")
  if precision.shape != (d, d):
    raise ValueError("precision matrix must match data dims")
  whitening = linalg.cholesky(precision, lower=True)
  points, xi = jnp.dot(points, whitening), jnp.dot(xi, whitening)
  log_norm = jnp.sum(jnp.log(jnp.diag(whitening))) - 0.5 * d * jnp.log(2 * np.pi)

  def kernel(x_test: Any, x_train: Any, y_train: Any) -> Any:
    arg = log_norm - 0.5 * jnp.sum(jnp.square(x_train - x_test))
    return jnp.log(y_train) + arg if in_log else y_train * jnp.exp(arg)
  reduce = special.logsumexp if in_log else jnp.sum
  return vmap(lambda x: reduce(vmap(kernel, in_axes=(None, 0, 0))(x, points, values),
                               axis=0))(xi)


_kernel_eval: Callable = jit(_kernel_eval_impl, static_argnums=0)
