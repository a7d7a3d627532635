"""keras 3 (KERAS_BACKEND=jax): a small CNN with Conv2D, BatchNormalization, MaxPooling2D and
Dropout classifying 8x8 images, through compile / fit / evaluate / predict; prints the losses,
weights (BatchNorm's moving statistics among them) and predictions as JSON and writes the
lowered training step (keras's own stateless `train_step`, as `fit` jits it) to the path given
as the first argument."""
import json
import sys

import jax
import keras
import numpy as np

keras.utils.set_random_seed(0)
rng = np.random.default_rng(0)
x = rng.normal(size=(48, 8, 8, 1)).astype("float32")
labels = (x[:, :4].mean(axis=(1, 2, 3)) > x[:, 4:].mean(axis=(1, 2, 3))).astype("int32")
labels += (x[:, :, :4].mean(axis=(1, 2, 3)) > 0).astype("int32")

model = keras.Sequential([
    keras.Input((8, 8, 1)),
    keras.layers.Conv2D(4, 3, padding="same", activation="relu"),
    keras.layers.BatchNormalization(),
    keras.layers.MaxPooling2D(2),
    keras.layers.Conv2D(8, 3, strides=2),
    keras.layers.Flatten(),
    keras.layers.Dropout(0.25),
    keras.layers.Dense(3, activation="softmax"),
])
model.compile(optimizer=keras.optimizers.SGD(0.05, momentum=0.9),
              loss="sparse_categorical_crossentropy", metrics=["accuracy"])
history = model.fit(x, labels, batch_size=16, epochs=3, shuffle=False, verbose=0)
evaluation = model.evaluate(x, labels, batch_size=16, verbose=0)
predictions = model.predict(x[:8], verbose=0)

state = ([v.value for v in model.trainable_variables],
         [v.value for v in model.non_trainable_variables],
         [v.value for v in model.optimizer.variables],
         [v.value for v in model.metrics_variables])
with open(sys.argv[1], "w") as f:
  f.write(jax.jit(model.train_step).lower(state, (x[:16], labels[:16])).as_text())
print(json.dumps({
    "losses": history.history["loss"], "accuracy": history.history["accuracy"],
    "evaluate": evaluation, "weights": [w.tolist() for w in model.get_weights()],
    "predictions": predictions.tolist(),
}))
