"""The heads ELECTRA puts on an encoder for pretraining.

Shape legend: B batch, L sequence length, N predicted positions, E embedding
size, H hidden size, V vocab size.
"""

import keras
from keras import ops

from electra_tf.modeling import activations
from electra_tf.modeling import dense
from electra_tf.modeling import layer_norm
from electra_tf.modeling.embeddings import LAYER_NORM_EPSILON


class MaskedLMHead(keras.layers.Layer):
  """dense(E, act) -> LayerNorm -> matmul with the word embeddings + bias.

  The output projection is the (tied) embedding table passed at call time;
  only `output_bias` [V] is owned here. Logits are float32.
  """

  def __init__(self, config, embedding_size, **kwargs):
    kwargs.setdefault("name", "generator_predictions")
    super().__init__(**kwargs)
    self.vocab_size = config.vocab_size
    self.embedding_size = embedding_size
    self.dense = dense.Dense(
        embedding_size, activation=activations.get_activation(config.hidden_act),
        kernel_initializer=activations.initializer(config), name="dense",
        dtype=self.dtype_policy)
    self.layer_norm = layer_norm.LayerNorm(
        epsilon=LAYER_NORM_EPSILON, name="LayerNorm", dtype=self.dtype_policy)
    self.hidden_size = config.hidden_size

  def build(self, input_shape=None):
    self.dense.build([None, None, self.hidden_size])
    self.layer_norm.build([None, None, self.embedding_size])
    self.output_bias = self.add_weight(
        name="output_bias", shape=[self.vocab_size], initializer="zeros")
    self.built = True

  def call(self, hidden, embedding_table):
    x = self.layer_norm(self.dense(hidden))  # [B, N, E]
    table = ops.cast(embedding_table, x.dtype)  # [V, E]
    logits = ops.matmul(x, ops.transpose(table))  # [B, N, V]
    return ops.cast(logits, "float32") + ops.cast(self.output_bias, "float32")


class DiscriminatorHead(keras.layers.Layer):
  """dense(H, act) -> dense(1): one replaced-token logit per position."""

  def __init__(self, config, **kwargs):
    kwargs.setdefault("name", "discriminator_predictions")
    super().__init__(**kwargs)
    init = activations.initializer(config)
    self.dense = dense.Dense(
        config.hidden_size, activation=activations.get_activation(
            config.hidden_act), kernel_initializer=init, name="dense",
        dtype=self.dtype_policy)
    # The original's second dense used the default (Glorot) initializer.
    self.logit = dense.Dense(1, name="dense_1", dtype=self.dtype_policy)
    self.hidden_size = config.hidden_size

  def build(self, input_shape=None):
    self.dense.build([None, None, self.hidden_size])
    self.logit.build([None, None, self.hidden_size])
    self.built = True

  def call(self, sequence_output):
    logits = self.logit(self.dense(sequence_output))  # [B, L, 1]
    return ops.cast(ops.squeeze(logits, -1), "float32")  # [B, L]
