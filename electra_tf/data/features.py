"""Feature names and specs: the one place they are defined.

The names match the original ELECTRA TFRecords (`input_ids`, `input_mask`,
`segment_ids`, int64 of length max_seq_length), so files written by the
original builder and by ours are interchangeable.
"""

import tensorflow as tf

INPUT_IDS = "input_ids"
INPUT_MASK = "input_mask"
SEGMENT_IDS = "segment_ids"

# The three features of a pretraining example, in the order they are written.
PRETRAINING_FEATURES = (INPUT_IDS, INPUT_MASK, SEGMENT_IDS)

# Outputs of masking (computed on the fly inside the train step).
MASKED_LM_POSITIONS = "masked_lm_positions"
MASKED_LM_IDS = "masked_lm_ids"
MASKED_LM_WEIGHTS = "masked_lm_weights"


def pretraining_feature_spec(max_seq_length):
  """`tf.io.parse_example` spec of a pretraining TFRecord."""
  return {name: tf.io.FixedLenFeature([max_seq_length], tf.int64)
          for name in PRETRAINING_FEATURES}


def model_input_signature(batch_size=None, seq_length=None):
  """`tf.TensorSpec`s of the model's token-id inputs (int32 [B, L])."""
  return {name: tf.TensorSpec([batch_size, seq_length], tf.int32, name=name)
          for name in PRETRAINING_FEATURES}
