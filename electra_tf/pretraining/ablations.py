"""The paper's efficiency ablations (Section 3.2, Table 5).

* ELECTRA 15%: the discriminator's loss covers only the masked positions
  (handled in `model.py` by its loss weights).
* Replace MLM: masked positions get generator samples instead of [MASK]; the
  main model is trained as a masked LM on that input.
* All-Tokens MLM: as Replace MLM, but the main model predicts every token,
  with a copy mechanism: a sigmoid gate D puts D on the input token and
  (1 - D) on the MLM softmax.

Shape legend: B batch, L sequence length, V vocab size.
"""

import tensorflow as tf

from electra_tf.pretraining import losses


def copy_mechanism_log_prob(mlm_logits, copy_logits, input_ids, target_ids):
  """log p(target) under D * [input == target] + (1 - D) * softmax(logits).

  Args:
    mlm_logits: float32 [B, L, V].
    copy_logits: float32 [B, L], D = sigmoid(copy_logits).
    input_ids: int32 [B, L], the (corrupted) tokens the model sees.
    target_ids: int32 [B, L], the original tokens.

  Returns:
    float32 [B, L], computed stably in log space.
  """
  log_softmax = tf.nn.log_softmax(tf.cast(mlm_logits, tf.float32))
  log_q = tf.gather(log_softmax, target_ids, batch_dims=2)  # [B, L]
  log_gate = tf.math.log_sigmoid(copy_logits)  # log D
  log_rest = tf.math.log_sigmoid(-copy_logits) + log_q  # log (1-D) q
  copies = tf.equal(input_ids, target_ids)
  return tf.where(copies, tf.math.reduce_logsumexp(
      tf.stack([log_gate, log_rest]), axis=0), log_rest)


def all_tokens_loss(mlm_logits, copy_logits, input_ids, target_ids,
                    input_mask):
  """Mean negative log-likelihood of every real token (a `WeightedLoss`)."""
  nll = -copy_mechanism_log_prob(mlm_logits, copy_logits, input_ids,
                                 target_ids)  # [B, L]
  weights = tf.cast(input_mask, tf.float32)
  return losses.WeightedLoss(per_example=nll,
                             numerator=tf.reduce_sum(weights * nll),
                             denominator=tf.reduce_sum(weights))
