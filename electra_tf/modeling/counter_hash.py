"""Counter-based random bits: a 32-bit integer hash of (key, element index).

A few vectorisable integer ops per element, which XLA fuses into the op that
consumes the bits. XLA's CPU lowering of the Philox generator behind
`tf.random.stateless_*` costs tens of times more per element.
"""

import tensorflow as tf


def mix32(x):
  """A 32-bit integer finaliser with good avalanche (uint32 -> uint32)."""
  x = tf.bitwise.bitwise_xor(x, tf.bitwise.right_shift(x, 16))
  x = x * tf.constant(0x7FEB352D, tf.uint32)
  x = tf.bitwise.bitwise_xor(x, tf.bitwise.right_shift(x, 15))
  x = x * tf.constant(0x846CA68B, tf.uint32)
  return tf.bitwise.bitwise_xor(x, tf.bitwise.right_shift(x, 16))


def to_uint32(x):
  """Any integer tensor, reduced modulo 2**32, as uint32."""
  return tf.cast(tf.cast(x, tf.int64) % (1 << 32), tf.uint32)


def random_bits(key, shape):
  """uint32 bits of `shape`: element i is `mix32(key ^ mix32(i))`.

  Args:
    key: a uint32 scalar.
    shape: the output shape (a list or a 1-D int32 tensor).
  """
  size = tf.reduce_prod(shape)
  counters = tf.cast(tf.range(size, dtype=tf.int32), tf.uint32)
  return tf.reshape(mix32(key ^ mix32(counters)), shape)
