"""Sums over rows or columns of a tensor, computed as matmuls with ones.

XLA's CPU backend runs a reduction far below memory speed: as a tree of
reduce-windows for a sum over leading axes, and, for a sum over the last
axis, about 5x slower than the same sum of a stored tensor whenever the
reduction reads its input through fused element-wise ops (a bfloat16 to
float32 cast, `x - mean`, ...). As matmuls with a vector of ones the same
sums run at memory speed, with float32 accumulation in bfloat16 as in
float32:

- `column_sums` (`ones[1, N] @ t[N, C]`, the gradients of biases and of
  LayerNorm's scale and offset) runs on TensorFlow's matmul kernels, or
  XLA's dot under full XLA;
- `row_sums` (`t[N, C] @ ones[C, 1]`, LayerNorm's moments, softmax's
  normaliser) names its matmul `ROW_SUMS`, which the XLA-but-matmuls step
  compiles inside its XLA clusters (`training/xla_regions.py`): there XLA's
  dot reads the fused element-wise ops that produce `t` at memory speed.
"""

import tensorflow as tf

# Name of `row_sums`' matmul: XLA's, not TensorFlow's kernels, in the
# XLA-but-matmuls step.
ROW_SUMS = "row_sums"


def column_sums(t):
  """`t` `[..., C]` summed over all axes but the last: `[C]`, t's dtype."""
  columns = tf.shape(t)[-1]
  rows = tf.reshape(t, [-1, columns])  # [N, C]
  ones = tf.ones([1, tf.shape(rows)[0]], t.dtype)  # [1, N]
  return tf.reshape(tf.matmul(ones, rows), [columns])


def row_sums(t):
  """`t` `[..., C]` summed over its last axis, kept: `[..., 1]`."""
  columns = _last_dimension(t)
  rows = tf.reshape(t, [-1, columns])  # [N, C]
  sums = tf.matmul(rows, tf.ones([columns, 1], t.dtype),
                   name=ROW_SUMS)  # [N, 1]
  return tf.reshape(sums, tf.concat([tf.shape(t)[:-1], [1]], 0))


def row_means(t):
  """`t` `[..., C]` averaged over its last axis, kept: `[..., 1]`."""
  return row_sums(t) / tf.cast(_last_dimension(t), t.dtype)


def _last_dimension(t):
  """C of `t` `[..., C]`: static where known, else a scalar tensor."""
  if t.shape[-1] is not None:
    return t.shape[-1]
  return tf.shape(t)[-1]
