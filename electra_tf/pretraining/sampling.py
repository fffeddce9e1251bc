"""Sampling replacement tokens from the generator and labelling them.

Shape legend: B batch, L sequence length, N prediction slots, V vocab size.
"""

import dataclasses

import tensorflow as tf

from electra_tf.pretraining import sequence_ops

# Subtracted from the logit of the original token under `disallow_correct`.
DISALLOW_PENALTY = 1000.0
# Keeps log() finite in the Gumbel transform, as in the original.
GUMBEL_EPS = 1e-9


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
