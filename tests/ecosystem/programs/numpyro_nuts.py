"""numpyro: NUTS on a Bayesian logistic regression (a Normal prior on the weights and bias, a
Bernoulli likelihood of synthetic data), one chain of 200 warmup and 200 samples; prints the
samples, the potential energies and the divergence count as JSON, and writes the lowered
potential function (the log density and its gradient, what each leapfrog step evaluates) to the
path given as the first argument."""
import json
import sys

import jax
import jax.numpy as jnp
import numpyro
import numpyro.distributions as dist
from numpyro.infer import MCMC, NUTS
from numpyro.infer.util import initialize_model


def model(x, y=None):
  w = numpyro.sample("w", dist.Normal(0.0, 1.0).expand([x.shape[1]]).to_event(1))
  b = numpyro.sample("b", dist.Normal(0.0, 2.0))
  numpyro.sample("y", dist.Bernoulli(logits=x @ w + b), obs=y)


kx, kn, kmcmc, kinit = jax.random.split(jax.random.PRNGKey(0), 4)
x = jax.random.normal(kx, (50, 3))
true_w = jnp.array([1.5, -1.0, 0.5])
y = (x @ true_w + 0.3 + 0.5 * jax.random.normal(kn, (50,)) > 0).astype(jnp.float32)

mcmc = MCMC(NUTS(model), num_warmup=200, num_samples=200, num_chains=1, progress_bar=False)
mcmc.run(kmcmc, x, y, extra_fields=("potential_energy", "diverging", "num_steps"))
samples = mcmc.get_samples()
extra = mcmc.get_extra_fields()

init_params, potential_fn, _, _ = initialize_model(kinit, model, model_args=(x, y))
text = jax.jit(jax.value_and_grad(potential_fn)).lower(init_params.z).as_text()
with open(sys.argv[1], "w") as f:
  f.write(text)
print(json.dumps({
    "w": samples["w"].tolist(), "b": samples["b"].tolist(),
    "potential_energy": extra["potential_energy"].tolist(),
    "num_steps": extra["num_steps"].tolist(),
    "divergences": int(extra["diverging"].sum()),
}))
