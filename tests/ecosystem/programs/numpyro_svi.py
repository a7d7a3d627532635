"""numpyro: SVI on a hierarchical model (eight schools, non-centred), twice: an AutoNormal guide
with numpyro.optim.Adam, and a handwritten mean-field guide with optax's adam; 300 steps each
with Trace_ELBO. Prints the losses, the fitted variational parameters and posterior samples
from the guide as JSON, and writes the lowered SVI update step to the path given as the first
argument.

Trace_ELBO sums the sites' terms in the order of a set of their names, which depends on Python's
string hashing: the losses differ in the last bit from one process to the next, in JAX too. The
program runs itself again under PYTHONHASHSEED=0 (`sys.orig_argv`: with `-m stablejax run` where
it was given), so that order, and the losses, are the same in every run."""
import json
import os
import sys

if os.environ.get("PYTHONHASHSEED") != "0":
  os.execve(sys.executable, sys.orig_argv, {**os.environ, "PYTHONHASHSEED": "0"})

import jax
import jax.numpy as jnp
import numpyro
import numpyro.distributions as dist
import optax
from numpyro.distributions import constraints
from numpyro.infer import SVI, Predictive, Trace_ELBO
from numpyro.infer.autoguide import AutoNormal

Y = jnp.array([28., 8., -3., 7., -1., 1., 18., 12.])
SIGMA = jnp.array([15., 10., 16., 11., 9., 11., 10., 18.])


def model(sigma, y=None):
  mu = numpyro.sample("mu", dist.Normal(0.0, 5.0))
  tau = numpyro.sample("tau", dist.HalfCauchy(5.0))
  with numpyro.plate("schools", sigma.shape[0]):
    eta = numpyro.sample("eta", dist.Normal(0.0, 1.0))
    numpyro.sample("obs", dist.Normal(mu + tau * eta, sigma), obs=y)


def guide(sigma, y=None):
  mu_loc = numpyro.param("mu_loc", 0.0)
  mu_scale = numpyro.param("mu_scale", 1.0, constraint=constraints.positive)
  numpyro.sample("mu", dist.Normal(mu_loc, mu_scale))
  tau_loc = numpyro.param("tau_loc", 0.0)
  numpyro.sample("tau", dist.LogNormal(tau_loc, 0.5))
  eta_loc = numpyro.param("eta_loc", jnp.zeros(sigma.shape[0]))
  eta_scale = numpyro.param("eta_scale", jnp.ones(sigma.shape[0]),
                            constraint=constraints.positive)
  with numpyro.plate("schools", sigma.shape[0]):
    numpyro.sample("eta", dist.Normal(eta_loc, eta_scale))


def fit(guide, optimizer, key, steps=300):
  svi = SVI(model, guide, optimizer, loss=Trace_ELBO())
  state = svi.init(key, SIGMA, Y)
  update = jax.jit(svi.update)
  losses = []
  for _ in range(steps):
    state, loss = update(state, SIGMA, Y)
    losses.append(float(loss))
  params = svi.get_params(state)
  samples = Predictive(guide, params=params, num_samples=100)(jax.random.PRNGKey(2), SIGMA)
  return losses, params, samples, update.lower(state, SIGMA, Y).as_text()


auto_losses, auto_params, auto_samples, text = fit(
    AutoNormal(model), numpyro.optim.Adam(0.05), jax.random.PRNGKey(0))
hand_losses, hand_params, hand_samples, _ = fit(guide, optax.adam(0.05), jax.random.PRNGKey(1))
with open(sys.argv[1], "w") as f:
  f.write(text)
results = {"auto_losses": auto_losses, "hand_losses": hand_losses}
for prefix, values in [("auto_params", auto_params), ("hand_params", hand_params),
                       ("auto_samples", auto_samples), ("hand_samples", hand_samples)]:
  results.update({f"{prefix}.{name}": v.tolist() for name, v in sorted(values.items())})
print(json.dumps(results))
