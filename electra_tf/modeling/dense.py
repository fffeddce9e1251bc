"""`keras.layers.Dense` whose bias gradient, in 16-bit compute, is a matmul.

Same weights, names, initializers and forward values as Keras' layer. In
float32 it is Keras' layer; in bfloat16 or float16 the bias gradient is
`column_sums` of the upstream gradient (on the matmul kernels, float32
accumulation), which made ELECTRA-Small's bfloat16 step faster on CPUs.
In float32 under full XLA the same change made the step slower, so it is
not made there.
"""

import keras
from keras import ops
import tensorflow as tf

from electra_tf.modeling.matmul_sums import column_sums


@tf.custom_gradient
def add_bias(x, bias):
  """x `[..., C]` + bias `[C]`; bias gradient by `column_sums`."""

  def grad(upstream):
    return upstream, column_sums(upstream)

  return x + bias, grad


class Dense(keras.layers.Dense):
  """Drop-in `keras.layers.Dense` (see the module docstring).

  >>> layer = Dense(3, kernel_initializer="ones")
  >>> keras.ops.convert_to_numpy(layer(keras.ops.ones([2, 4]))).tolist()
  [[4.0, 4.0, 4.0], [4.0, 4.0, 4.0]]
  """

  def call(self, inputs, training=None):
    x = ops.matmul(inputs, self.kernel)
    if self.bias is not None and x.dtype == tf.float32:
      x = ops.add(x, self.bias)
    elif self.bias is not None:
      x = add_bias(x, tf.cast(self.bias, x.dtype))
    if self.activation is not None:
      x = self.activation(x)
    return x
