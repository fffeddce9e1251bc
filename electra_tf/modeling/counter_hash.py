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


def example_position_bits(key, shape, example_offset):
  """uint32 bits of a `[B, ...]` `shape`, a hash of (key, example, position).

  Element (b, p) (p: flat position inside example b) gets
  `mix32(mix32(key ^ mix32(example_offset + b)) ^ mix32(p))`, so an example
  draws the same bits whatever batch, replica or worker it is in, as long
  as `example_offset` is the global index of the batch's first example.

  Args:
    key: a uint32 scalar.
    shape: the output shape, batch first (a list or a 1-D int32 tensor).
    example_offset: int scalar, the global index of the first example.
  """
  shape = tf.convert_to_tensor(shape, tf.int32)
  batch = shape[0]
  per_example = tf.reduce_prod(shape[1:])
  examples = to_uint32(example_offset) + tf.cast(
      tf.range(batch, dtype=tf.int32), tf.uint32)  # [B]
  example_keys = mix32(key ^ mix32(examples))  # [B]
  positions = mix32(tf.cast(tf.range(per_example, dtype=tf.int32),
                            tf.uint32))  # [P]
  bits = mix32(example_keys[:, None] ^ positions[None, :])  # [B, P]
  return tf.reshape(bits, shape)
