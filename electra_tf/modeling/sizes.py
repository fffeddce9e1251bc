"""Closed-form parameter counts of the encoder and heads.

Used to pin the paper's model sizes in tests and to count model FLOPs.
"""


def embeddings_parameters(config):
  """Word, position and token-type tables plus the LayerNorm."""
  e = config.embedding_size
  return ((config.vocab_size + config.max_position_embeddings
           + config.type_vocab_size) * e + 2 * e)


def layer_parameters(config):
  """One Transformer layer: Q, K, V, output dense, FFN, two LayerNorms."""
  h, i = config.hidden_size, config.intermediate_size
  attention = 4 * (h * h + h)
  ffn = (h * i + i) + (i * h + h)
  return attention + ffn + 2 * (2 * h)


def encoder_parameters(config, include_embeddings=True):
  """The whole encoder (no pooler: the original has none)."""
  total = config.num_hidden_layers * layer_parameters(config)
  if config.embedding_size != config.hidden_size:
    total += config.embedding_size * config.hidden_size + config.hidden_size
  if include_embeddings:
    total += embeddings_parameters(config)
  return total


def discriminator_head_parameters(config):
  """dense(H, H) + dense(H, 1)."""
  h = config.hidden_size
  return (h * h + h) + (h + 1)


def mlm_head_parameters(config, table_width):
  """dense(H, E) + LayerNorm(E) + output bias (the table itself is tied)."""
  e = table_width
  return (config.hidden_size * e + e) + 2 * e + config.vocab_size
