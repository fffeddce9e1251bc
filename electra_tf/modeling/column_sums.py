"""Sums over every leading axis, computed as a matmul with a row of ones.

The gradients of a bias and of LayerNorm's scale and offset are such sums
(`[B, L, C] -> [C]`). XLA's CPU backend turns each reduction into a tree of
reduce-windows that runs far below memory speed; as `ones[1, N] @ t[N, C]`
the same sum runs on the matmul kernels (oneDNN or XLA's dot), with float32
accumulation in bfloat16 as in float32.
"""

import tensorflow as tf


def column_sums(t):
  """`t` `[..., C]` summed over all axes but the last: `[C]`, t's dtype."""
  columns = tf.shape(t)[-1]
  rows = tf.reshape(t, [-1, columns])  # [N, C]
  ones = tf.ones([1, tf.shape(rows)[0]], t.dtype)  # [1, N]
  return tf.reshape(tf.matmul(ones, rows), [columns])
