"""A Flax transformer block's training step, lowered by stablejax: the Flax model is ordinary
`import jax` code, run on stablejax through `install_as_jax()`. Prints the StableHLO of one
optax step with debug locations: each op carries the source line of the model that made it and
JAX's name stack (`jit(train_step)/jvp()/...`, `transpose(jvp())` for the backward pass)."""
import stablejax

stablejax.install_as_jax()  # from here on `import jax` is stablejax

import flax.linen as nn  # noqa: E402
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import optax  # noqa: E402


class Block(nn.Module):
  """Pre-norm self-attention and MLP, with dropout."""
  heads: int = 2

  @nn.compact
  def __call__(self, x, train: bool = True):
    h = nn.SelfAttention(num_heads=self.heads, deterministic=True)(nn.LayerNorm()(x))
    x = x + nn.Dropout(0.1, deterministic=not train)(h)
    h = nn.Dense(4 * x.shape[-1])(nn.LayerNorm()(x))
    return x + nn.Dense(x.shape[-1])(nn.gelu(h))


model = Block()
tx = optax.adamw(1e-3)


def train_step(params, opt_state, x, key):
  def loss_fn(p):
    y = model.apply(p, x, rngs={"dropout": key})
    return jnp.mean(y ** 2)
  loss, grads = jax.value_and_grad(loss_fn)(params)
  updates, opt_state = tx.update(grads, opt_state, params)
  return optax.apply_updates(params, updates), opt_state, loss


if __name__ == "__main__":
  key = jax.random.PRNGKey(0)
  x = jnp.ones((2, 4, 8))
  params = model.init({"params": key, "dropout": key}, x)
  lowered = jax.jit(train_step).lower(params, tx.init(params), x, key)
  print(lowered.as_text(debug_info=True))
