"""`keras.layers.Dense` whose bias gradient is a matmul (`column_sums`).

Same weights, names, initializers and forward values as Keras' layer; only
the backward pass of the bias addition differs, by float rounding.
"""

import keras
from keras import ops
import tensorflow as tf

from electra_tf.modeling.column_sums import column_sums


@tf.custom_gradient
def _add_bias(x, bias):
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
    if self.bias is not None:
      x = _add_bias(x, tf.cast(self.bias, x.dtype))
    if self.activation is not None:
      x = self.activation(x)
    return x
