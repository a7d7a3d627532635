"""keras 3 (KERAS_BACKEND=jax): a GRU under an LSTM for a sequence regression (the running sum of
a noisy signal) through compile / fit / evaluate / predict; prints the losses, weights and
predictions as JSON and writes the lowered training step (keras's own stateless `train_step`, as
`fit` jits it) to the path given as the first argument."""
import json
import sys

import jax
import keras
import numpy as np

keras.utils.set_random_seed(0)
rng = np.random.default_rng(0)
x = rng.normal(size=(32, 6, 2)).astype("float32")
y = np.tanh(x[:, :, 0].sum(axis=1, keepdims=True) - x[:, -1, 1:]).astype("float32")

model = keras.Sequential([keras.Input((6, 2)), keras.layers.GRU(8, return_sequences=True),
                          keras.layers.LSTM(8), keras.layers.Dense(1)])
model.compile(optimizer=keras.optimizers.RMSprop(1e-2), loss="mse", metrics=["mae"])
history = model.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
evaluation = model.evaluate(x, y, batch_size=16, verbose=0)
predictions = model.predict(x[:8], verbose=0)

state = ([v.value for v in model.trainable_variables],
         [v.value for v in model.non_trainable_variables],
         [v.value for v in model.optimizer.variables],
         [v.value for v in model.metrics_variables])
with open(sys.argv[1], "w") as f:
  f.write(jax.jit(model.train_step).lower(state, (x[:8], y[:8])).as_text())
print(json.dumps({
    "losses": history.history["loss"], "mae": history.history["mae"], "evaluate": evaluation,
    "weights": [w.tolist() for w in model.get_weights()], "predictions": predictions.tolist(),
}))
