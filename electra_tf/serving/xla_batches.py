"""Running an exported model with XLA at a few batch sizes only.

XLA compiles a computation once per input shape. A server sees every batch
size from 1 up, so the compiled function is called on the batch padded with
zero rows to the next power of two (1, 2, 4, ..., 32, 64, ...), and the
padding's outputs are dropped: a model served with batches of up to 64
compiles at most 7 times. Each example's outputs do not depend on the other
rows of its batch (padding rows have an all-zero input mask).

Shape legend: B batch, P padded batch (the power of two >= B).
"""

import tensorflow as tf


def padded_batch_size(batch_size):
  """The power of two >= `batch_size` (1 for an empty batch)."""
  batch_size = tf.maximum(tf.cast(batch_size, tf.int32), 1)
  exponent = tf.math.ceil(tf.math.log(tf.cast(batch_size, tf.float64)) /
                          tf.math.log(tf.constant(2.0, tf.float64)))
  padded = tf.bitwise.left_shift(1, tf.cast(exponent, tf.int32))
  # log() may be off by a rounding error at a power of two: correct by one.
  padded = tf.where(padded // 2 >= batch_size, padded // 2, padded)
  return tf.where(padded < batch_size, padded * 2, padded)


def _pad_rows(tensor, padded):
  rows = padded - tf.shape(tensor)[0]
  paddings = tf.concat([[[0, rows]], tf.zeros([tf.rank(tensor) - 1, 2],
                                              tf.int32)], axis=0)
  return tf.pad(tensor, paddings)  # [P, ...]


def compiled_in_batch_buckets(function):
  """XLA-compiles `function(features) -> outputs`, features {name: [B, ...]},
  every output [B, ...]; it runs on the batch padded to the next power of
  two."""
  compiled = tf.function(function, jit_compile=True)

  def run(features):
    batch_size = tf.shape(tf.nest.flatten(features)[0])[0]
    padded = padded_batch_size(batch_size)
    outputs = compiled(tf.nest.map_structure(
        lambda t: _pad_rows(t, padded), features))
    return tf.nest.map_structure(lambda t: t[:batch_size], outputs)

  return run
