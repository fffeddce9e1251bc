"""Sampling replacement tokens from the generator and labelling them.

Two samplers draw from the same distribution, softmax(logits / temperature):
the original's Gumbel-max (one uniform per vocabulary entry of each slot) and
inverse-CDF sampling (one uniform per slot), which does a fraction of the
work. Which one runs follows the noise given (see `noise.pretraining_noise`).

Shape legend: B batch, L sequence length, N prediction slots, V vocab size,
K vocabulary entries per block.
"""

import dataclasses

import tensorflow as tf

from electra_tf.pretraining import sequence_ops

# Subtracted from the logit of the original token under `disallow_correct`.
DISALLOW_PENALTY = 1000.0
# Keeps log() finite in the Gumbel transform, as in the original.
GUMBEL_EPS = 1e-9
# The inverse-CDF sampler sums probabilities in blocks of this many
# vocabulary entries, then accumulates inside the one block holding the draw.
CDF_BLOCK = 128


@dataclasses.dataclass(frozen=True)
class FakeInputs:
  """The discriminator's input and its replaced-token labels."""
  sampled_tokids: tf.Tensor  # [B, N] int32
  fake_input_ids: tf.Tensor  # [B, L] int32
  replaced_mask: tf.Tensor  # [B, L] int32: positions written by a sample
  is_fake: tf.Tensor  # [B, L] int32: written AND different from the original


def uniform_to_gumbel(u):
  """The original's transform of U(0,1) noise into Gumbel noise."""
  return -tf.math.log(-tf.math.log(u + GUMBEL_EPS) + GUMBEL_EPS)


def sample_tokens(mlm_logits, masked_lm_ids, temperature, disallow_correct,
                  sample_uniform):
  """Gumbel-max sampling from softmax(logits / temperature), no gradient.

  Args:
    mlm_logits: float32 [B, N, V].
    masked_lm_ids: int32 [B, N], the original tokens.
    temperature: float; logits are divided by it before sampling.
    disallow_correct: if True the original token gets a -1000 logit penalty.
    sample_uniform: float32 [B, N, V] U(0,1) noise.

  Returns:
    int32 [B, N] sampled token ids.
  """
  logits = tf.stop_gradient(mlm_logits) / temperature
  if disallow_correct:
    # Subtract at the original id only; no [B, N, V] one-hot is built.
    indices = tf.stack([
        tf.broadcast_to(tf.range(tf.shape(logits)[0])[:, None],
                        tf.shape(masked_lm_ids)),
        tf.broadcast_to(tf.range(tf.shape(logits)[1])[None, :],
                        tf.shape(masked_lm_ids)),
        masked_lm_ids], axis=-1)  # [B, N, 3]
    logits = tf.tensor_scatter_nd_sub(
        logits, indices, tf.fill(tf.shape(masked_lm_ids), DISALLOW_PENALTY))
  # argmax over the softmax (not the raw scores), as the original, so ties
  # created by rounding resolve identically.
  probs = tf.nn.softmax(logits + uniform_to_gumbel(sample_uniform))
  return sequence_ops.first_argmax(probs)  # [B, N]


def sample_tokens_inverse_cdf(mlm_logits, masked_lm_ids, temperature,
                              disallow_correct, slot_uniform):
  """Inverse-CDF sampling from softmax(logits / temperature), no gradient.

  The same distribution as `sample_tokens` (the original's penalty under
  `disallow_correct` included) from one uniform per slot: the sample is the
  first vocabulary entry whose cumulative probability exceeds the uniform.
  The cumulative sum is taken per block of `CDF_BLOCK` entries, then inside
  the block the draw falls in, so the [B, N, V] work is one maximum and one
  exponential sum. An entry whose probability is zero in float32 is never
  drawn, whatever the rounding of the sums.

  Args:
    mlm_logits: float [B, N, V].
    masked_lm_ids: int [B, N], the original tokens.
    temperature: float; logits are divided by it before sampling.
    disallow_correct: if True the original token gets a -1000 logit penalty.
    slot_uniform: float32 [B, N] U(0,1) noise.

  Returns:
    int32 [B, N] sampled token ids.
  """
  logits = tf.cast(tf.stop_gradient(mlm_logits), tf.float32)
  original = tf.cast(masked_lm_ids, tf.int32)
  vocab_size = logits.shape[-1]
  num_blocks = -(-vocab_size // CDF_BLOCK)

  def scores(values, vocab_ids):
    values = values / temperature
    if disallow_correct:
      values = tf.where(tf.equal(vocab_ids, original[..., None, None]),
                        values - DISALLOW_PENALTY, values)
    return values

  # Work on a [B, N, nb, K] view, padded with -inf (probability 0), with
  # the row maximum broadcast in that layout: XLA's CPU code keeps it one
  # vectorised pass (broadcast in [B, N, V] before the reshape it took 3x as
  # long on an AMD EPYC).
  batch_shape = tf.shape(logits)[:2]
  padding = tf.fill(
      tf.concat([batch_shape, [num_blocks * CDF_BLOCK - vocab_size]], 0),
      float("-inf"))
  blocks = tf.reshape(tf.concat([logits, padding], -1),
                      tf.concat([batch_shape, [num_blocks, CDF_BLOCK]], 0))
  block_ids = tf.range(num_blocks)[:, None] * CDF_BLOCK + tf.range(CDF_BLOCK)
  full = scores(blocks, block_ids)  # [B, N, nb, K]
  top = tf.reduce_max(full, [-2, -1])[..., None, None]  # [B, N, 1, 1]
  block_mass = tf.reduce_sum(tf.exp(full - top), -1)  # [B, N, nb]
  block_cdf = tf.math.cumsum(block_mass, -1)  # [B, N, nb]
  target = tf.cast(slot_uniform, tf.float32) * block_cdf[..., -1]  # [B, N]
  block = _first_past(block_cdf, block_mass, target)  # [B, N]

  # The chosen block's entries, gathered from the logits again: nothing
  # [B, N, V] is kept.
  ids = tf.gather(block_ids, block)[:, :, None, :]  # [B, N, 1, K]
  in_vocab = ids < vocab_size
  entries = tf.gather(logits, tf.minimum(ids, vocab_size - 1),
                      batch_dims=2)  # [B, N, 1, K]
  mass = tf.where(in_vocab, tf.exp(scores(entries, ids) - top),
                  0.0)[:, :, 0]  # [B, N, K]
  before = tf.gather(
      tf.pad(block_cdf[..., :-1], [[0, 0], [0, 0], [1, 0]]), block,
      batch_dims=2)  # [B, N]
  cdf = before[..., None] + tf.math.cumsum(mass, -1)  # [B, N, K]
  return block * CDF_BLOCK + _first_past(cdf, mass, target)


def _first_past(cdf, mass, target):
  """The first index whose `cdf` exceeds `target` and whose `mass` is
  positive; where rounding leaves none, the last index with positive mass.

  `cdf` and `mass` are [B, N, M], `target` [B, N]; returns int32 [B, N].
  """
  size = cdf.shape[-1]
  index = tf.range(size)
  positive = mass > 0
  first = tf.reduce_min(
      tf.where((cdf > target[..., None]) & positive, index, size), -1)
  last_positive = tf.reduce_max(tf.where(positive, index, 0), -1)
  return tf.where(first < size, first, last_positive)


def sample_from_noise(mlm_logits, masked_lm_ids, temperature,
                      disallow_correct, noise):
  """The sampler the noise is for: inverse-CDF given `slot_uniform` [B, N],
  else Gumbel-max with `sample_uniform` [B, N, V]."""
  if "slot_uniform" in noise:
    return sample_tokens_inverse_cdf(mlm_logits, masked_lm_ids, temperature,
                                     disallow_correct, noise["slot_uniform"])
  return sample_tokens(mlm_logits, masked_lm_ids, temperature,
                       disallow_correct, noise["sample_uniform"])


def replace_tokens(input_ids, masked_lm_positions, sampled_tokids):
  """Writes the samples into the original ids and labels the changes.

  A sample equal to the original token is labelled real (0), as in the
  original. Duplicate positions follow `scatter_update`'s semantics.
  """
  input_ids = tf.cast(input_ids, tf.int32)
  fake_input_ids, replaced = sequence_ops.scatter_update(
      input_ids, sampled_tokids, masked_lm_positions)
  is_fake = replaced * tf.cast(tf.not_equal(fake_input_ids, input_ids),
                               tf.int32)
  return FakeInputs(sampled_tokids=sampled_tokids,
                    fake_input_ids=tf.stop_gradient(fake_input_ids),
                    replaced_mask=replaced, is_fake=is_fake)
