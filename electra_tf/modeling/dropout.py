"""Dropout whose mask is a counter hash of the layer's seed (fast under XLA).

Keras' `Dropout` draws its mask with Philox, which XLA lowers on CPU to code
that cost ELECTRA-Small's train step about a fifth of its time. `HashDropout`
keeps Keras' `SeedGenerator` (so the seed state is saved in checkpoints and a
resumed run repeats the same masks) and only changes how the bits are made:
each element's bit is a hash of (seed, global example index, position in
the example). The global index counts the replicas before this one (inside
`tf.distribute`), so N replicas or workers draw the masks one device draws
for the whole batch.
"""

import keras
import tensorflow as tf

from electra_tf.modeling import counter_hash

_TWO_POW_32 = 1 << 32


def _replica_index():
  """This replica's index among all replicas (0 outside tf.distribute)."""
  context = tf.distribute.get_replica_context()
  if context is None:
    return tf.constant(0, tf.int32)
  return tf.cast(context.replica_id_in_sync_group, tf.int32)


class HashDropout(keras.layers.Dropout):
  """`keras.layers.Dropout` (same rate, scaling and seed state), hash mask.

  Each element is kept with probability `1 - rate` (to 2**-32) and kept
  values are scaled by `1 / (1 - rate)`.

  >>> layer = HashDropout(0.5, seed=1)
  >>> x = keras.ops.ones([1000])
  >>> kept = keras.ops.sum(keras.ops.cast(layer(x, training=True) > 0, "int32"))
  >>> 400 < int(kept) < 600, bool(keras.ops.all(layer(x) == x))
  (True, True)
  """

  def call(self, inputs, training=False):
    if not training or self.rate <= 0:
      return inputs
    if self.rate >= 1:
      return tf.zeros_like(inputs)
    seed = self.seed_generator.next()  # [2], advances the saved state
    key = counter_hash.mix32(counter_hash.to_uint32(seed[0]) ^ (
        counter_hash.mix32(counter_hash.to_uint32(seed[1]))))
    shape = tf.shape(inputs)
    bits = counter_hash.example_position_bits(
        key, shape, _replica_index() * shape[0])
    threshold = tf.constant(min(int(self.rate * _TWO_POW_32), _TWO_POW_32 - 1),
                            tf.uint32)
    scale = tf.cast(1.0 / (1.0 - self.rate), inputs.dtype)
    return tf.where(bits >= threshold, inputs * scale,
                    tf.zeros_like(inputs))
