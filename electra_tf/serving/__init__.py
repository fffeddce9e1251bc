"""SavedModel export: raw-text, token-id and tf.Example signatures."""
