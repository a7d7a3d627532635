"""Interpreters: forward-mode AD (`ad`), batching (`batching`), jaxpr building and partial
evaluation (`partial_eval`)."""
