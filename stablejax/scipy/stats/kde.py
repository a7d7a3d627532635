"""Gaussian kernel density estimation, as jax.scipy.stats.gaussian_kde."""
from __future__ import annotations

import dataclasses
import functools
from typing import Any, Callable

import numpy as np

from stablejax import dtypes, random
from stablejax import numpy as jnp
from stablejax.api import vmap
from stablejax.numpy._promotion import dtype, ensure_arraylike, promote_dtypes_inexact
from stablejax.scipy import linalg, special
from stablejax.tree_util import register_pytree_node_class

BwMethod = None | str | Any | Callable[[Any], Any]


def _bandwidth_factor(kde: gaussian_kde, bw_method: BwMethod) -> Any:
  """The factor scaling the data covariance into the kernel's: Scott's or Silverman's rule,
  a given scalar, or `bw_method(kde)`."""
  d = kde.d
  if bw_method is None or (isinstance(bw_method, str) and bw_method == "scott"):
    return jnp.power(kde.neff, -1. / (d + 4))
  if isinstance(bw_method, str) and bw_method == "silverman":
    return jnp.power(kde.neff * (d + 2) / 4.0, -1. / (d + 4))
  if jnp.isscalar(bw_method) and not isinstance(bw_method, str):
    return bw_method
  if callable(bw_method):
    return bw_method(kde)
  raise ValueError("`bw_method` should be 'scott', 'silverman', a scalar, or a callable.")


@register_pytree_node_class
@dataclasses.dataclass(frozen=True, init=False)
class gaussian_kde:  # noqa: N801 (scipy's name)
  """A Gaussian kernel density estimate of `dataset` (d variables by n points), optionally
  weighted; a pytree of its arrays."""
  neff: Any
  dataset: Any
  weights: Any
  covariance: Any
  inv_cov: Any

  def __init__(self, dataset: Any, bw_method: BwMethod = None, weights: Any = None):
    (dataset,) = ensure_arraylike("gaussian_kde", dataset)
    dataset = jnp.atleast_2d(dataset)
    if dtypes.kind(dtype(dataset)) == "c":
      raise NotImplementedError("gaussian_kde does not support complex data")
    if not dataset.size > 1:
      raise ValueError("`dataset` input should have multiple elements.")
    n = dataset.shape[1]
    if weights is None:
      (dataset,) = promote_dtypes_inexact(dataset)
      weights = jnp.full(n, 1.0 / n, dtype=dtype(dataset))
    else:
      ensure_arraylike("gaussian_kde", weights)
      dataset, weights = promote_dtypes_inexact(dataset, weights)
      weights = jnp.atleast_1d(weights)
      weights = weights / jnp.sum(weights)
      if weights.ndim != 1:
        raise ValueError("`weights` input should be one-dimensional.")
      if len(weights) != n:
        raise ValueError("`weights` input should be of length n")
    self._set(dataset=dataset, weights=weights, neff=1 / jnp.sum(weights ** 2))
    factor = _bandwidth_factor(self, bw_method)
    data_covariance = jnp.atleast_2d(jnp.cov(dataset, rowvar=True, bias=False,
                                             aweights=weights))
    self._set(covariance=data_covariance * factor ** 2,
              inv_cov=jnp.linalg.inv(data_covariance) / factor ** 2)

  def _set(self, **fields: Any) -> None:
    for name, value in fields.items():
      object.__setattr__(self, name, value)

  def tree_flatten(self) -> tuple[tuple, None]:
    return (self.neff, self.dataset, self.weights, self.covariance, self.inv_cov), None

  @classmethod
  def tree_unflatten(cls, aux_data: None, children: tuple) -> gaussian_kde:
    kde = cls.__new__(cls)
    kde._set(**dict(zip(("neff", "dataset", "weights", "covariance", "inv_cov"), children)))
    return kde

  @property
  def d(self) -> int:
    return self.dataset.shape[0]

  @property
  def n(self) -> int:
    return self.dataset.shape[1]

  def evaluate(self, points: Any) -> Any:
    """The estimated density at `points` (d by m, or m points when d == 1)."""
    return _kernel_sum(False, self, self._reshape_points("evaluate", points))

  __call__ = pdf = evaluate

  def logpdf(self, x: Any) -> Any:
    """The log of the estimated density at `x`."""
    return _kernel_sum(True, self, self._reshape_points("logpdf", x))

  def integrate_gaussian(self, mean: Any, cov: Any) -> Any:
    """The integral of the density times the Gaussian of `mean` and `cov`."""
    mean, cov = jnp.atleast_1d(jnp.squeeze(mean)), jnp.atleast_2d(cov)
    if mean.shape != (self.d,):
      raise ValueError(f"mean does not have dimension {self.d}")
    if cov.shape != (self.d, self.d):
      raise ValueError(f"covariance does not have dimension {self.d}")
    chol, norm = _convolution_factor(self.covariance + cov, self.d)
    return _convolve(chol, norm, self.dataset, self.weights, mean)

  def integrate_box_1d(self, low: Any, high: Any) -> Any:
    """The probability mass between the scalars `low` and `high` (one-dimensional data)."""
    if self.d != 1:
      raise ValueError("integrate_box_1d() only handles 1D pdfs")
    if np.ndim(low) != 0 or np.ndim(high) != 0:
      raise ValueError("the limits of integration in integrate_box_1d must be scalars")
    sigma = jnp.squeeze(jnp.sqrt(self.covariance))
    low, high = (jnp.squeeze((v - self.dataset) / sigma) for v in (low, high))
    return jnp.sum(self.weights * (special.ndtr(high) - special.ndtr(low)))

  def integrate_kde(self, other: gaussian_kde) -> Any:
    """The integral of the product of this density and `other`'s."""
    if other.d != self.d:
      raise ValueError("KDEs are not the same dimensionality")
    chol, norm = _convolution_factor(self.covariance + other.covariance, self.d)
    small, large = (self, other) if self.n < other.n else (other, self)
    per_point = vmap(functools.partial(_convolve, chol, norm, large.dataset, large.weights),
                     in_axes=1)(small.dataset)
    return jnp.sum(per_point * small.weights)

  def resample(self, key: Any, shape: tuple[int, ...] = ()) -> Any:
    """Points drawn from the estimated density: a data point (by weight) plus kernel noise."""
    index_key, noise_key = random.split(key)
    index = random.choice(index_key, self.n, shape=shape, p=self.weights)
    noise = random.multivariate_normal(noise_key, jnp.zeros(self.d, dtype(self.covariance)),
                                       self.covariance, shape=shape, dtype=dtype(self.dataset))
    return self.dataset[:, index] + noise.T

  def integrate_box(self, low_bounds: Any, high_bounds: Any, maxpts: Any = None) -> Any:
    """Not implemented: only 1-D boxes are (`integrate_box_1d`)."""
    raise NotImplementedError("only 1D box integrations are supported; use `integrate_box_1d`")

  def set_bandwidth(self, bw_method: BwMethod = None) -> None:
    """Not implemented: the estimate is immutable."""
    raise NotImplementedError("dynamically changing the bandwidth method is not supported")

  def _reshape_points(self, name: str, points: Any) -> Any:
    (points,) = ensure_arraylike(name, points)
    if dtypes.kind(dtype(points)) == "c":
      raise NotImplementedError("gaussian_kde does not support complex coordinates")
    points = jnp.atleast_2d(points)
    d, m = points.shape
    if d != self.d:
      if d != 1 or m != self.d:
        raise ValueError(f"points have dimension {d}, dataset has dimension {self.d}")
      points = jnp.reshape(points, (self.d, 1))
    return points


def _convolution_factor(cov: Any, d: int) -> tuple[Any, Any]:
  """The Cholesky factor of `cov` and the Gaussian normalization 1 / sqrt((2 pi)^d |cov|)."""
  chol = linalg.cho_factor(cov)
  return chol, 1.0 / (jnp.sqrt(2 * np.pi) ** d * jnp.prod(jnp.diag(chol[0])))


def _convolve(chol: Any, norm: Any, target: Any, weights: Any, mean: Any) -> Any:
  diff = target - mean[:, None]
  exponent = 0.5 * jnp.sum(diff * linalg.cho_solve(chol, diff), axis=0)
  return norm * jnp.sum(jnp.exp(-exponent) * weights)


def _kernel_sum(in_log: bool, kde: gaussian_kde, points: Any) -> Any:
  """sum_i w_i N(x; data_i, cov) at each column x of `points` (its log if `in_log`), in the
  whitened coordinates of the kernel's precision matrix."""
  data, weights, xs, precision = promote_dtypes_inexact(kde.dataset.T, kde.weights,
                                                        points.T, kde.inv_cov)
  d = data.shape[1]
  whitening = linalg.cholesky(precision, lower=True)
  data, xs = jnp.dot(data, whitening), jnp.dot(xs, whitening)
  log_norm = jnp.sum(jnp.log(jnp.diag(whitening))) - 0.5 * d * jnp.log(2 * np.pi)

  def at(x: Any) -> Any:
    exponent = log_norm - 0.5 * jnp.sum(jnp.square(data - x), axis=1)
    if in_log:
      return special.logsumexp(jnp.log(weights) + exponent, axis=0)
    return jnp.sum(weights * jnp.exp(exponent), axis=0)

  return vmap(at)(xs)
