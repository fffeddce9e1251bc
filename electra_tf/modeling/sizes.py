"""Closed-form parameter counts of the encoder and heads.

Used to pin the paper's model sizes in tests and to count model FLOPs.
"""

import dataclasses


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


def encoder_forward_flops(config, seq_length):
  """Matmul FLOPs (2 per multiply-add) of one sequence through the encoder."""
  h, i, n = config.hidden_size, config.intermediate_size, seq_length
  per_layer = 2 * n * (4 * h * h + 2 * h * i) + 2 * 2 * n * n * h
  flops = config.num_hidden_layers * per_layer
  if config.embedding_size != h:
    flops += 2 * n * config.embedding_size * h
  return flops


def _mlm_head_flops(config, table_width, positions):
  """dense(H, E) and the output projection onto the tied table, forward."""
  return 2 * positions * (config.hidden_size * table_width
                          + table_width * config.vocab_size)


def pretraining_flops_per_sequence(pretraining_config):
  """Training FLOPs (forward + backward = 3x forward) of one sequence.

  Counts matmuls of the generator on the masked input, its MLM head at the
  N prediction slots, the main model on every token, and the main model's
  head: the replaced-token detector on every token (`electra`,
  `electra_15`), an MLM head at the N slots (`replace_mlm`), or at every
  token plus the copy gate (`all_tokens_mlm`).
  """
  config = pretraining_config
  disc = config.discriminator_config
  length = config.max_seq_length
  slots = config.max_predictions_per_seq
  forward = 0
  if config.objective == "mlm" or not config.uniform_generator:
    gen = disc if config.objective == "mlm" else config.generator_config
    width = (gen.hidden_size if config.untied_generator_embeddings
             and config.objective != "mlm" else disc.embedding_size)
    forward += encoder_forward_flops(gen, length)
    forward += _mlm_head_flops(
        dataclasses.replace(gen, vocab_size=disc.vocab_size), width, slots)
  if config.objective != "mlm":
    forward += encoder_forward_flops(disc, length)
    detector = 2 * length * (disc.hidden_size * disc.hidden_size
                             + disc.hidden_size)
    if config.objective == "replace_mlm":
      forward += _mlm_head_flops(disc, disc.embedding_size, slots)
    elif config.objective == "all_tokens_mlm":
      forward += detector + _mlm_head_flops(disc, disc.embedding_size, length)
    else:
      forward += detector
  return 3 * forward
