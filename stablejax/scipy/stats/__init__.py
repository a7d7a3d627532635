"""jax.scipy.stats: distributions as modules of functions."""
from stablejax.scipy.stats import (  # noqa: F401
    bernoulli, beta, betabinom, binom, cauchy, chi2, dirichlet, expon, gamma, gennorm, geom,
    gumbel_l, gumbel_r, laplace, logistic, multinomial, multivariate_normal, nbinom, norm, pareto,
    poisson, t, uniform, vonmises, wrapcauchy)
from stablejax.scipy.stats._core import sem  # noqa: F401
from stablejax.scipy.stats.kde import gaussian_kde  # noqa: F401
