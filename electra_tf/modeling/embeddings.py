"""ElectraEmbeddings: the block the generator and discriminator share.

Shape legend: B batch, L sequence length, E embedding size, V vocab size.
"""

import keras
from keras import ops

from electra_tf import errors
from electra_tf.modeling import activations
from electra_tf.modeling import dropout
from electra_tf.modeling import layer_norm

LAYER_NORM_EPSILON = 1e-12


class ElectraEmbeddings(keras.layers.Layer):
  """Word + position + token-type embeddings -> LayerNorm -> dropout.

  This is the whole original `electra/embeddings` scope. Passing one instance
  to both encoders ties all of it, as the original does by default.

  Args:
    config: an `EncoderConfig`; uses vocab_size, embedding_size,
      max_position_embeddings, type_vocab_size, initializer_range and
      hidden_dropout_prob.

  >>> from electra_tf.config import EncoderConfig
  >>> layer = ElectraEmbeddings(EncoderConfig(vocab_size=30, embedding_size=8))
  >>> ids = keras.ops.ones([2, 5], "int32")
  >>> tuple(layer(ids, keras.ops.zeros([2, 5], "int32")).shape)
  (2, 5, 8)
  """

  def __init__(self, config, **kwargs):
    kwargs.setdefault("name", "embeddings")
    super().__init__(**kwargs)
    self.config = config
    self.layer_norm = layer_norm.LayerNorm(
        epsilon=LAYER_NORM_EPSILON, name="LayerNorm", dtype=self.dtype_policy)
    self.dropout = dropout.HashDropout(config.hidden_dropout_prob,
                                      dtype=self.dtype_policy)

  def build(self, input_shape=None):
    c = self.config
    init = activations.initializer(c)
    self.word_embeddings = self.add_weight(
        name="word_embeddings", shape=[c.vocab_size, c.embedding_size],
        initializer=init)
    self.token_type_embeddings = self.add_weight(
        name="token_type_embeddings",
        shape=[c.type_vocab_size, c.embedding_size], initializer=init)
    self.position_embeddings = self.add_weight(
        name="position_embeddings",
        shape=[c.max_position_embeddings, c.embedding_size], initializer=init)
    self.layer_norm.build([None, None, c.embedding_size])
    self.built = True

  def call(self, input_ids, segment_ids, training=False):
    seq_length = input_ids.shape[1]
    if seq_length is not None and (
        seq_length > self.config.max_position_embeddings):
      raise errors.DataError(
          f"sequence length {seq_length} exceeds max_position_embeddings "
          f"{self.config.max_position_embeddings}")
    words = ops.take(self.word_embeddings, input_ids, axis=0)  # [B, L, E]
    types = ops.take(self.token_type_embeddings, segment_ids, axis=0)
    positions = self.position_embeddings[:ops.shape(input_ids)[1]]  # [L, E]
    x = words + types + positions[None]
    return self.dropout(self.layer_norm(x), training=training)

  def get_config(self):
    return {**super().get_config(), "config": self.config.to_dict()}
