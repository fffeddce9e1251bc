"""The original's dynamic masking, computed inside the train step.

Shape legend: B batch, L sequence length, N max predictions per sequence.
"""

import dataclasses

import tensorflow as tf

from electra_tf.pretraining import sequence_ops

# Share of the selected positions replaced by [MASK]; the rest keep their
# token. The original never substitutes random tokens (unlike BERT's 10%).
MASK_TOKEN_RATE = 0.85


@dataclasses.dataclass(frozen=True)
class MaskedInputs:
  """Result of masking: the generator's input and what it must predict."""
  masked_input_ids: tf.Tensor  # [B, L] int32
  masked_lm_positions: tf.Tensor  # [B, N] int32; 0 in unused slots
  masked_lm_ids: tf.Tensor  # [B, N] int32; 0 in unused slots
  masked_lm_weights: tf.Tensor  # [B, N] float32; 1 for used slots


def candidates_mask(input_ids, input_mask, special_ids):
  """Positions that may be masked: real tokens other than [CLS]/[SEP]/[MASK]."""
  allowed = tf.cast(input_mask, tf.bool)
  for token_id in (special_ids.sep, special_ids.cls, special_ids.mask,
                   special_ids.pad):
    allowed &= tf.not_equal(input_ids, token_id)
  return allowed  # [B, L]


def num_to_predict(input_mask, mask_prob, max_predictions):
  """max(1, min(N, round(num_tokens * mask_prob))), counting [CLS]/[SEP]."""
  num_tokens = tf.cast(tf.reduce_sum(input_mask, -1), tf.float32)
  return tf.maximum(1, tf.minimum(
      max_predictions, tf.cast(tf.round(num_tokens * mask_prob), tf.int32)))


def mask_tokens(input_ids, input_mask, special_ids, mask_prob, max_predictions,
                position_gumbel, mask_uniform):
  """Selects positions with replacement and masks 85% of them.

  Args:
    input_ids, input_mask: int32 [B, L].
    special_ids: a `SpecialTokenIds`.
    mask_prob: share of tokens to predict.
    max_predictions: N, the number of prediction slots.
    position_gumbel: float32 [B, N, L] Gumbel noise; slot n takes position
      argmax(log p + noise[n]) with p uniform over the candidates, i.e. a
      categorical draw with replacement (duplicates are possible).
    mask_uniform: float32 [B, N] U(0,1); slots below 0.85 become [MASK].

  Returns:
    A `MaskedInputs`. A row without any candidate gets no prediction slots.
  """
  input_ids = tf.cast(input_ids, tf.int32)
  candidates = tf.cast(candidates_mask(input_ids, input_mask, special_ids),
                       tf.float32)  # [B, L]
  num_candidates = tf.reduce_sum(candidates, -1, keepdims=True)  # [B, 1]
  count = num_to_predict(input_mask, mask_prob, max_predictions)
  weights = tf.sequence_mask(count, max_predictions, tf.float32)  # [B, N]
  weights *= tf.cast(num_candidates > 0, tf.float32)
  sample_prob = candidates / tf.maximum(num_candidates, 1.0)
  sample_logits = tf.math.log(sample_prob)  # -inf outside the candidates
  scores = sample_logits[:, None, :] + position_gumbel  # [B, N, L]
  positions = sequence_ops.first_argmax(scores)  # [B, N]
  positions *= tf.cast(weights, tf.int32)
  masked_lm_ids = sequence_ops.gather_positions(input_ids, positions)
  masked_lm_ids *= tf.cast(weights, tf.int32)
  to_mask = positions * tf.cast(mask_uniform < MASK_TOKEN_RATE, tf.int32)
  masked_input_ids, _ = sequence_ops.scatter_update(
      input_ids, tf.fill(tf.shape(to_mask), special_ids.mask), to_mask)
  return MaskedInputs(
      masked_input_ids=tf.stop_gradient(masked_input_ids),
      masked_lm_positions=positions, masked_lm_ids=masked_lm_ids,
      masked_lm_weights=weights)
