"""Softmax over the last axis with its normaliser summed by `row_sums`.

`softmax_written_gradient(x)` is `exp(x - max) / sum(exp(x - max))` with the
sum a matmul with ones (`matmul_sums.row_sums`), and its gradient written
out, `y * (dy - sum(dy * y))`, with the same sum: XLA's CPU code runs the
reductions of its own softmax and of the softmax's gradient about 5x
below memory speed (see `matmul_sums`). Attention uses it for 16-bit
compute; the values are `tf.nn.softmax`'s within float32 rounding.
"""

import tensorflow as tf

from electra_tf.modeling.matmul_sums import row_sums


@tf.custom_gradient
def softmax_written_gradient(x):
  """Softmax of float32 `x` `[..., C]` over its last axis."""
  exps = tf.exp(x - tf.reduce_max(x, -1, keepdims=True))  # [..., C]
  probs = exps / row_sums(exps)

  def grad(upstream):
    return probs * (upstream - row_sums(upstream * probs))

  return probs, grad
