"""One post-LayerNorm Transformer layer, named as the original's `layer_i`.

Shape legend: B batch, L sequence length, H hidden size, I intermediate size.
"""

import keras

from electra_tf.modeling import activations
from electra_tf.modeling import attention
from electra_tf.modeling import dense
from electra_tf.modeling import dropout
from electra_tf.modeling import layer_norm
from electra_tf.modeling.embeddings import LAYER_NORM_EPSILON


class TransformerBlock(keras.layers.Layer):
  """attention -> dense -> dropout -> LN(+x) -> FFN(act) -> dropout -> LN(+).

  Returns the layer output `[B, L, H]` and the attention probabilities.
  """

  def __init__(self, config, **kwargs):
    super().__init__(**kwargs)
    policy = self.dtype_policy
    init = activations.initializer(config)
    self.attention = attention.SelfAttention(config, dtype=policy)
    self.attention_output = dense.Dense(
        config.hidden_size, kernel_initializer=init, name="attention_output",
        dtype=policy)
    self.attention_layer_norm = layer_norm.LayerNorm(
        epsilon=LAYER_NORM_EPSILON, name="attention_LayerNorm", dtype=policy)
    self.intermediate = dense.Dense(
        config.intermediate_size, kernel_initializer=init,
        activation=activations.get_activation(config.hidden_act),
        name="intermediate", dtype=policy)
    self.output_dense = dense.Dense(
        config.hidden_size, kernel_initializer=init, name="output",
        dtype=policy)
    self.output_layer_norm = layer_norm.LayerNorm(
        epsilon=LAYER_NORM_EPSILON, name="output_LayerNorm", dtype=policy)
    self.dropout = dropout.HashDropout(config.hidden_dropout_prob,
                                      dtype=policy)
    self.config = config

  def build(self, input_shape):
    hidden, inner = self.config.hidden_size, self.config.intermediate_size
    self.attention.build(input_shape)
    self.attention_output.build([None, None, hidden])
    self.attention_layer_norm.build([None, None, hidden])
    self.intermediate.build([None, None, hidden])
    self.output_dense.build([None, None, inner])
    self.output_layer_norm.build([None, None, hidden])
    self.built = True

  def call(self, x, input_mask, training=False):
    context, probs = self.attention(x, input_mask, training=training)
    attended = self.dropout(self.attention_output(context), training=training)
    attended = self.attention_layer_norm(attended + x)  # [B, L, H]
    inner = self.intermediate(attended)  # [B, L, I]
    out = self.dropout(self.output_dense(inner), training=training)
    return self.output_layer_norm(out + attended), probs
