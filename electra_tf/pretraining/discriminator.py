"""ElectraDiscriminator: the encoder kept after pretraining, with its RTD head.

Shape legend: B batch, L sequence length, H hidden size.
"""

import keras

from electra_tf.data import features as F
from electra_tf.modeling import encoder as encoder_lib
from electra_tf.modeling import heads


class ElectraDiscriminator(keras.Model):
  """Encoder + `DiscriminatorHead`: is each token original or replaced?

  Call with a dict of `input_ids`, `input_mask`, `segment_ids` (int32
  [B, L]); returns the encoder's outputs (`sequence_output` [B, L, H],
  `pooled_output` [B, H], ...) plus float32 `logits` [B, L] (> 0: replaced).

  >>> from electra_tf.config import EncoderConfig
  >>> disc = ElectraDiscriminator(EncoderConfig(
  ...     vocab_size=30, hidden_size=16, embedding_size=16,
  ...     num_hidden_layers=1, num_attention_heads=2, intermediate_size=32))
  >>> ids = keras.ops.ones([2, 5], "int32")
  >>> out = disc({"input_ids": ids, "input_mask": ids, "segment_ids": ids * 0})
  >>> tuple(out["logits"].shape)
  (2, 5)
  """

  def __init__(self, config, encoder=None, **kwargs):
    kwargs.setdefault("name", "discriminator")
    super().__init__(**kwargs)
    self.config = config
    self.encoder = encoder or encoder_lib.ElectraEncoder(
        config, name="electra", dtype=self.dtype_policy)
    self.head = heads.DiscriminatorHead(config, dtype=self.dtype_policy)

  def build(self, input_shape=None):
    if not self.encoder.built:
      self.encoder.build()
    self.head.build()
    self.built = True

  def call(self, features, training=False):
    out = dict(self.encoder(features[F.INPUT_IDS], features[F.INPUT_MASK],
                            features[F.SEGMENT_IDS], training=training))
    out["logits"] = self.head(out["sequence_output"])
    return out
