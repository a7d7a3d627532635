"""keras 3 (KERAS_BACKEND=jax): a Dense regression model through compile / fit / evaluate /
predict; prints the losses, weights and predictions as JSON and writes the lowered training step
(keras's own stateless `train_step`, as `fit` jits it) to the path given as the first argument."""
import json
import sys

import jax
import keras
import numpy as np

keras.utils.set_random_seed(0)
rng = np.random.default_rng(0)
x = rng.normal(size=(64, 4)).astype("float32")
y = np.sin(x.sum(axis=1, keepdims=True)).astype("float32")

model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(16, activation="tanh"),
                          keras.layers.Dense(1)])
model.compile(optimizer=keras.optimizers.Adam(1e-2), loss="mse", metrics=["mae"])
history = model.fit(x, y, batch_size=16, epochs=3, shuffle=False, verbose=0)
evaluation = model.evaluate(x, y, batch_size=32, verbose=0)
predictions = model.predict(x[:8], verbose=0)

state = ([v.value for v in model.trainable_variables],
         [v.value for v in model.non_trainable_variables],
         [v.value for v in model.optimizer.variables],
         [v.value for v in model.metrics_variables])
with open(sys.argv[1], "w") as f:
  f.write(jax.jit(model.train_step).lower(state, (x[:16], y[:16])).as_text())
print(json.dumps({
    "losses": history.history["loss"], "mae": history.history["mae"], "evaluate": evaluation,
    "weights": [w.tolist() for w in model.get_weights()], "predictions": predictions.tolist(),
}))
