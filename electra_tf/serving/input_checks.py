"""Checks on what a client sends a SavedModel, as request errors.

A failed check raises `InvalidArgumentError` for that call alone: the
server answers with the message and keeps serving. Without them, texts and
second texts of different batch sizes abort the whole process inside the
tokenizer's kernels, and a negative or too-large token id is silently
wrapped by the embedding lookup.
"""

import tensorflow as tf

from electra_tf.data import features as F


def check_pair(text_a, text_b):
  """`text_b` as given, once its batch size is checked against `text_a`'s."""
  with tf.control_dependencies([tf.debugging.assert_equal(
      tf.shape(text_a)[0], tf.shape(text_b)[0],
      message="text_a and text_b must have the same batch size")]):
    return tf.identity(text_b)


def check_token_features(features, vocab_size):
  """`features` (int [B, L] ids, mask, segments), checked: same shapes,
  ids in [0, vocab_size), mask and segments in {0, 1}."""
  ids = features[F.INPUT_IDS]
  checks = [
      tf.debugging.assert_equal(
          tf.shape(features[name]), tf.shape(ids),
          message=f"{name} must have the shape of input_ids")
      for name in (F.INPUT_MASK, F.SEGMENT_IDS)]
  outside = (ids < 0) | (ids >= tf.cast(vocab_size, ids.dtype))  # [B, L]
  checks.append(tf.debugging.Assert(
      tf.logical_not(tf.reduce_any(outside)),
      [f"token ids must be in [0, {vocab_size}); got",
       tf.boolean_mask(ids, outside)], summarize=5))
  for name in (F.INPUT_MASK, F.SEGMENT_IDS):
    values = features[name]
    checks.append(tf.debugging.assert_equal(
        tf.reduce_all((values == 0) | (values == 1)), True,
        message=f"{name} values must be 0 or 1"))
  with tf.control_dependencies(checks):
    return {name: tf.identity(value) for name, value in features.items()}
