"""ElectraEncoder: embeddings -> optional projection -> N Transformer layers.

Shape legend: B batch, L sequence length, E embedding size, H hidden size.
"""

import keras

from electra_tf.modeling import dense
from electra_tf.modeling import embeddings as embeddings_lib
from electra_tf.modeling import transformer_block


class ElectraEncoder(keras.layers.Layer):
  """The original `BertModel` without a pooler: the [CLS] vector is pooled.

  Args:
    config: an `EncoderConfig`.
    embeddings: an `ElectraEmbeddings` to share (the generator receives the
      discriminator's); a new one is built when None.

  Calling it with `input_ids`, `input_mask`, `segment_ids` (int32 [B, L])
  returns a dict: `sequence_output` [B, L, H], `pooled_output` [B, H],
  `embedding_output` [B, L, H] (after any projection), and per layer lists
  `all_layer_outputs` ([B, L, H] each) and `attention_probs` ([B, N, L, L]).

  >>> from electra_tf.config import EncoderConfig
  >>> config = EncoderConfig(vocab_size=30, hidden_size=16, embedding_size=8,
  ...                        num_hidden_layers=2, num_attention_heads=2,
  ...                        intermediate_size=32)
  >>> encoder = ElectraEncoder(config)
  >>> ids = keras.ops.ones([2, 5], "int32")
  >>> out = encoder(ids, keras.ops.ones([2, 5], "int32"), ids * 0)
  >>> tuple(out["sequence_output"].shape), len(out["attention_probs"])
  ((2, 5, 16), 2)
  """

  def __init__(self, config, embeddings=None, **kwargs):
    super().__init__(**kwargs)
    self.config = config
    policy = self.dtype_policy
    self.embeddings = embeddings or embeddings_lib.ElectraEmbeddings(
        config, dtype=policy)
    self.embeddings_project = None
    if config.embedding_size != config.hidden_size:
      # The original's tf.layers.dense here names no initializer, so it
      # gets TF1's default, Glorot uniform (not the truncated normal).
      self.embeddings_project = dense.Dense(
          config.hidden_size, kernel_initializer="glorot_uniform",
          name="embeddings_project", dtype=policy)
    self.blocks = []
    for i in range(config.num_hidden_layers):
      block = transformer_block.TransformerBlock(config, name=f"layer_{i}",
                                                 dtype=policy)
      # A named attribute per layer: tf.train.Checkpoint does not look
      # inside Keras-tracked lists.
      setattr(self, f"layer_{i}", block)
      self.blocks.append(block)

  def build(self, input_shape=None):
    if not self.embeddings.built:
      self.embeddings.build()
    if self.embeddings_project is not None:
      self.embeddings_project.build([None, None, self.config.embedding_size])
    for block in self.blocks:
      block.build([None, None, self.config.hidden_size])
    self.built = True

  @property
  def embedding_table(self):
    """The word embedding matrix [V, E] (used by the tied MLM head)."""
    return self.embeddings.word_embeddings

  def call(self, input_ids, input_mask, segment_ids, training=False):
    x = self.embeddings(input_ids, segment_ids, training=training)  # [B,L,E]
    if self.embeddings_project is not None:
      x = self.embeddings_project(x)  # [B, L, H]
    embedding_output = x
    all_layer_outputs, attention_probs = [], []
    for block in self.blocks:
      x, probs = block(x, input_mask, training=training)
      all_layer_outputs.append(x)
      attention_probs.append(probs)
    return {
        "sequence_output": x,
        "pooled_output": x[:, 0],
        "embedding_output": embedding_output,
        "all_layer_outputs": all_layer_outputs,
        "attention_probs": attention_probs,
    }

  def get_config(self):
    return {**super().get_config(), "config": self.config.to_dict()}
