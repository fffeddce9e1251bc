"""Counter-based random noise for masking and sampling.

Every value is a hash of (seed, step, global example index, element index),
so an example's noise does not depend on how a batch is split over replicas:
N replicas draw exactly what one device draws for the same global batch. It is
also cheap: a few integer ops per element, fused by XLA (stateful and Philox
generators are much slower under XLA on CPU).

Shape legend: B batch, N max predictions per sequence, L sequence length,
V vocab size.
"""

import tensorflow as tf

from electra_tf.modeling import counter_hash

# Stream ids keep the three noise tensors of one example independent.
POSITION_STREAM, MASK_STREAM, SAMPLE_STREAM = 1, 2, 3
_GOLDEN = 0x9E3779B9
_mix = counter_hash.mix32
_u32 = counter_hash.to_uint32


def uniform(seed, step, example_ids, stream, shape_per_example):
  """U(0, 1) noise, open interval, float32 [B, *shape_per_example].

  Args:
    seed: int scalar, the run's base seed.
    step: int scalar, the training step.
    example_ids: int [B], global indices of the examples in the batch.
    stream: a small int naming what the noise is for.
    shape_per_example: static shape of one example's noise.
  """
  key = _mix(_u32(seed) ^ _mix(_u32(step) + tf.constant(_GOLDEN, tf.uint32)))
  key = _mix(key ^ tf.constant(stream * 0x85EBCA6B % (1 << 32), tf.uint32))
  example_keys = _mix(key ^ _mix(_u32(example_ids)))  # [B]
  size = 1
  for dim in shape_per_example:
    size *= dim
  counters = tf.range(size, dtype=tf.int32)
  counters = tf.reshape(tf.cast(counters, tf.uint32), shape_per_example)
  expand = [slice(None)] + [None] * len(shape_per_example)
  bits = _mix(example_keys[tuple(expand)] ^ _mix(counters[None]))
  top24 = tf.cast(tf.bitwise.right_shift(bits, 8), tf.float32)
  return (top24 + 0.5) * (1.0 / (1 << 24))


def gumbel(seed, step, example_ids, stream, shape_per_example):
  """Gumbel(0, 1) noise, -log(-log(u)) of `uniform`."""
  return -tf.math.log(-tf.math.log(
      uniform(seed, step, example_ids, stream, shape_per_example)))


def pretraining_noise(seed, step, example_ids, max_predictions, seq_length,
                      vocab_size, replacement_sampling="gumbel_max"):
  """The three noise tensors one pretraining step consumes.

  Returns a dict with `position_gumbel` [B, N, L], `mask_uniform` [B, N] and
  the sampler's noise: `sample_uniform` [B, N, V] for `"gumbel_max"`,
  `slot_uniform` [B, N] for `"inverse_cdf"` (see `sampling.py`); the
  arguments `ElectraPretrainer` takes as `noise`.
  """
  n = max_predictions
  drawn = {
      "position_gumbel": gumbel(seed, step, example_ids, POSITION_STREAM,
                                [n, seq_length]),
      "mask_uniform": uniform(seed, step, example_ids, MASK_STREAM, [n]),
  }
  if replacement_sampling == "inverse_cdf":
    drawn["slot_uniform"] = uniform(seed, step, example_ids, SAMPLE_STREAM,
                                    [n])
  elif replacement_sampling == "gumbel_max":
    drawn["sample_uniform"] = uniform(seed, step, example_ids, SAMPLE_STREAM,
                                      [n, vocab_size])
  else:
    raise ValueError(f"replacement_sampling {replacement_sampling!r} is not "
                     "gumbel_max or inverse_cdf")
  return drawn
