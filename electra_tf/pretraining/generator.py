"""ElectraGenerator: a small masked language model that proposes tokens.

Shape legend: B batch, L sequence length, N prediction slots, H hidden size,
V vocab size.
"""

import keras

from electra_tf.data import features as F
from electra_tf.modeling import encoder as encoder_lib
from electra_tf.modeling import heads
from electra_tf.pretraining import sequence_ops


class ElectraGenerator(keras.Model):
  """Encoder + `MaskedLMHead` predicting tokens at given positions.

  Args:
    config: the generator's `EncoderConfig`.
    encoder: an `ElectraEncoder` to use (shared with the discriminator when
      all weights are tied); a new one is built when None.
    embeddings: an `ElectraEmbeddings` to share when building the encoder.

  Call with the feature dict and `masked_lm_positions` [B, N]; returns
  `sequence_output` [B, L, H] and float32 `mlm_logits` [B, N, V].
  """

  def __init__(self, config, encoder=None, embeddings=None, **kwargs):
    kwargs.setdefault("name", "generator")
    super().__init__(**kwargs)
    self.config = config
    self.encoder = encoder or encoder_lib.ElectraEncoder(
        config, embeddings=embeddings, name="generator", dtype=self.dtype_policy)
    table_width = self.encoder.embeddings.config.embedding_size
    self.mlm_head = heads.MaskedLMHead(config, table_width,
                                       dtype=self.dtype_policy)

  def build(self, input_shape=None):
    if not self.encoder.built:
      self.encoder.build()
    self.mlm_head.build()
    self.built = True

  def call(self, features, masked_lm_positions, training=False):
    out = self.encoder(features[F.INPUT_IDS], features[F.INPUT_MASK],
                       features[F.SEGMENT_IDS], training=training)
    hidden = sequence_ops.gather_positions(out["sequence_output"],
                                           masked_lm_positions)  # [B, N, H]
    logits = self.mlm_head(hidden, self.encoder.embedding_table)
    return {"sequence_output": out["sequence_output"], "mlm_logits": logits}
