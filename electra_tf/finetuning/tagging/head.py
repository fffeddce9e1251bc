"""The original's tagging head: a label per word, read at its first token.

Shape legend: B batch, L sequence length, H hidden size, K labels.

The dense layer uses the default (Glorot) initializer, as the original's
`tf.layers.dense`, under its TF1 name `task_specific/<task>/dense`.
"""

import keras
import tensorflow as tf

from electra_tf.finetuning import losses
from electra_tf.finetuning.tagging import features as tag_features
from electra_tf.pretraining import sequence_ops


class TaggingHead(keras.layers.Layer):
  """dense(num_labels) on each word's first sub-token (chunking)."""

  def __init__(self, num_labels, hidden_size, **kwargs):
    super().__init__(**kwargs)
    self.hidden_size = hidden_size
    self.dense = keras.layers.Dense(num_labels, name="dense",
                                    dtype=self.dtype_policy)

  def build(self, input_shape=None):
    self.dense.build([None, None, self.hidden_size])
    self.built = True

  def tf1_layers(self):
    return {"dense": self.dense}

  def call(self, encoder_outputs, features, training=False):
    del training  # no dropout beyond the encoder's
    words = sequence_ops.gather_positions(
        encoder_outputs["sequence_output"],
        features[tag_features.LABELED_POSITIONS])  # [B, L, H]
    logits = tf.cast(self.dense(words), tf.float32)  # [B, L, K]
    return {"logits": logits,
            "predictions": tf.argmax(logits, -1, output_type=tf.int32)}

  def per_example_loss(self, outputs, features):
    return losses.tagging_loss(outputs["logits"],
                               features[tag_features.LABELS],
                               features[tag_features.LABELS_MASK])
