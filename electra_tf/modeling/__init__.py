"""The Transformer encoder and the small heads ELECTRA puts on it."""
