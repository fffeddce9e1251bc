"""Multi-head self-attention as in BERT/ELECTRA.

Shape legend: B batch, L sequence length, H hidden size, N heads,
D head size (H / N).
"""

import math

import keras
from keras import ops

from electra_tf.modeling import activations
from electra_tf.modeling import dense
from electra_tf.modeling import dropout
from electra_tf.modeling import softmax

# Added to the scores of padding keys; the original's additive mask value.
MASK_ADDER = -10000.0


class SelfAttention(keras.layers.Layer):
  """Scaled dot-product attention over N heads with an additive key mask.

  Returns the context `[B, L, H]` and the attention probabilities
  `[B, N, L, L]`. Scores and softmax are computed in float32 (in 16-bit
  compute by `softmax.softmax_written_gradient`).
  """

  def __init__(self, config, **kwargs):
    kwargs.setdefault("name", "self")
    super().__init__(**kwargs)
    self.num_heads = config.num_attention_heads
    self.head_size = config.head_size
    self.scale = 1.0 / math.sqrt(float(self.head_size))

    def projection(name):
      return dense.Dense(
          config.hidden_size, kernel_initializer=activations.initializer(config),
          name=name, dtype=self.dtype_policy)

    self.query, self.key, self.value = (
        projection("query"), projection("key"), projection("value"))
    self.dropout = dropout.HashDropout(config.attention_probs_dropout_prob,
                                      dtype=self.dtype_policy)

  def build(self, input_shape):
    for layer in (self.query, self.key, self.value):
      layer.build(input_shape)
    self.built = True

  def _split_heads(self, x):
    batch, length = ops.shape(x)[0], ops.shape(x)[1]
    x = ops.reshape(x, [batch, length, self.num_heads, self.head_size])
    return ops.transpose(x, [0, 2, 1, 3])  # [B, N, L, D]

  def call(self, x, input_mask, training=False):
    q = self._split_heads(self.query(x))  # [B, N, L, D]
    k = self._split_heads(self.key(x))
    v = self._split_heads(self.value(x))
    scores = ops.matmul(q, ops.transpose(k, [0, 1, 3, 2]))  # [B, N, L, L]
    scores = ops.cast(scores, "float32") * self.scale
    key_mask = ops.cast(input_mask, "float32")[:, None, None, :]  # [B,1,1,L]
    scores = scores + (1.0 - key_mask) * MASK_ADDER
    if self.compute_dtype == "float32":
      probs = ops.softmax(scores, axis=-1)  # [B, N, L, L]
    else:
      probs = softmax.softmax_written_gradient(scores)
    dropped = self.dropout(ops.cast(probs, self.compute_dtype),
                           training=training)
    context = ops.matmul(dropped, v)  # [B, N, L, D]
    context = ops.transpose(context, [0, 2, 1, 3])  # [B, L, N, D]
    batch, length = ops.shape(x)[0], ops.shape(x)[1]
    context = ops.reshape(context, [batch, length,
                                    self.num_heads * self.head_size])
    return context, probs
