"""`keras.layers.LayerNormalization` (last axis); in 16-bit compute, with its
moments and its gradient written out.

In float32 it is Keras' layer. For bfloat16 or float16 inputs it computes
Keras' formula in float32 (then the compute dtype; see `_forward`), with
the row means taken by `row_means` (matmuls with ones, at memory speed
under XLA on CPUs; the values differ from Keras' by float32 rounding), and
its backward pass is the closed form, for normalised
`x_hat = (x - mean) * r`, `r = 1 / sqrt(var + eps)`, and `g = dy * gamma`:

  dx     = r * (g - mean(g) - x_hat * mean(g * x_hat))   (over the last axis)
  dgamma = column_sums(dy * x_hat),  dbeta = column_sums(dy)

which XLA compiles to a few fused passes, where the differentiated moments
give it many, and whose parameter sums run on the matmul kernels. It made
ELECTRA-Small's bfloat16 step faster on CPUs, and its float32 step under
full XLA slower.
"""

import keras
from keras import ops
import tensorflow as tf

from electra_tf.modeling.matmul_sums import column_sums
from electra_tf.modeling.matmul_sums import row_means


def normalize(epsilon):
  """(x, gamma, beta) -> layer-normalised x over its last axis."""

  @tf.custom_gradient
  def normalize(x, gamma, beta):

    def grad(upstream, variables=None):
      # From -x, whose centred values are exactly minus x's: the forward's
      # float32 cast of x would otherwise be merged with this one by the
      # graph optimizer and kept, in float32, until the backward pass.
      minus_x32 = tf.cast(-x, tf.float32)
      minus_centered = minus_x32 - row_means(minus_x32)
      inv_std = tf.math.rsqrt(row_means(tf.square(minus_centered)) +
                              epsilon)
      x_hat = -minus_centered * inv_std  # [..., C]
      dy = tf.cast(upstream, tf.float32)
      g = dy * gamma
      dx = inv_std * (g - row_means(g) - x_hat * row_means(g * x_hat))
      inputs = (tf.cast(dx, x.dtype), column_sums(dy * x_hat),
                column_sums(dy))
      # Eager tapes may also list gamma and beta as variables read here;
      # their gradients already flow through the inputs.
      return (inputs, [None] * len(variables)) if variables else inputs

    return _forward(x, gamma, beta, epsilon), grad

  return normalize


def _forward(x, gamma, beta, epsilon):
  """Keras' `layer_normalization` (last axis) in the same float32 ops and
  order but for the moments' sums (`row_means`), with its offset
  `-mean * inv + beta` written as `beta - mean * inv`: an add of an add is
  what grappler's arithmetic optimizer regroups into new nodes, which fall
  outside the XLA clusters of the XLA-but-matmuls step (two kernels per
  layer norm)."""
  x32 = tf.cast(x, tf.float32)
  mean = row_means(x32)  # [..., 1]
  variance = row_means(tf.square(x32 - mean))  # Keras' moments' formula
  inv = tf.math.rsqrt(variance + epsilon) * tf.cast(gamma, tf.float32)
  offset = tf.cast(beta, tf.float32) - mean * inv  # [..., C]
  return tf.cast(x32 * inv + offset, x.dtype)


class LayerNorm(keras.layers.LayerNormalization):
  """Drop-in `keras.layers.LayerNormalization` over the last axis with
  scale and offset (see the module docstring)."""

  def __init__(self, **kwargs):
    super().__init__(**kwargs)
    if (self.axis not in (-1, [-1]) or self.rms_scaling
        or not (self.center and self.scale)):
      raise ValueError("LayerNorm normalises the last axis, with scale and "
                       f"offset; got axis={self.axis}, center={self.center}, "
                       f"scale={self.scale}, rms_scaling={self.rms_scaling}")

  def call(self, inputs):
    if inputs.dtype == tf.float32:
      return super().call(inputs)
    outputs = normalize(self.epsilon)(
        inputs, tf.convert_to_tensor(self.gamma),
        ops.convert_to_tensor(self.beta))
    return ops.cast(outputs, self.compute_dtype)
