"""Pretraining health: signs that a run is learning nothing it can transfer.

A known failure of ELECTRA pretraining: the discriminator settles on
"nothing was replaced", its loss sits at the entropy of the replacement
rate, its representations stop depending on the input, and every model
finetuned from it predicts the majority class. The signals here, computed on
eval batches (never in the train step), show it while the run trains:

* `disc_loss_gain`: how far the discriminator's per-token loss is below the
  entropy H(r) of the replacement rate r, as a share of H(r) (0: it only
  knows the base rate; 1: perfect);
* `cls_cosine`, `token_cosine`: mean pairwise cosine of the [CLS] vectors
  of an eval batch, and of all its token vectors (near 1: the encoder
  gives every input the same representation);
* the generator's accuracy and its samples' accuracy (a generator too
  strong leaves nothing to detect; too weak, nothing worth detecting).

`verdict` turns them into "healthy" or named symptoms with what usually
helps. Thresholds (see `THRESHOLDS`) come from runs of this package on the
study data (4 layers, hidden 128, 1,000-1,500 steps): a run collapsed by
too high a learning rate (3e-3) had `disc_loss_gain` 0.00 and `cls_cosine`
1.0000; runs stuck near the base rate with plausible replacements
(sampling temperature 1) had gains of 0.016-0.029 and AUCs near 0.6; a run
learning to detect (temperature 2) had a gain of 0.19 and an AUC of 0.83
by step 500. [CLS] cosines of healthy tiny models sat at 0.98-0.995, so
only a cosine above 0.999 (collapsed runs: 0.9999 and more) is a symptom.

Shape legend: B batch, L sequence length, H hidden size.
"""

import dataclasses
import math

import numpy as np
import tensorflow as tf

THRESHOLDS = {
    "min_disc_loss_gain": 0.05,
    "max_cls_cosine": 0.999,
    "max_sampled_accuracy": 0.6,
    "min_generator_accuracy": 0.05,
}
ADVICE = {
    "base_rate_only": "lower the learning rate or lengthen the warmup",
    "uniform_representations": "lower the learning rate or lengthen the "
                               "warmup; a smaller generator also helps",
    "generator_too_strong": "make the generator smaller "
                            "(generator_hidden_size)",
    "generator_too_weak": "make the generator larger, or train longer "
                          "before judging",
}


def _mean_pairwise_cosine_sums(vectors, weights):
  """Sum over ordered pairs i != j of cos(v_i, v_j), and the pair count.

  Uses |sum of unit vectors|^2 = n + sum_{i != j} cos(v_i, v_j).
  vectors: [N, H]; weights: [N] in {0, 1} (which vectors count).
  """
  unit = tf.math.l2_normalize(tf.cast(vectors, tf.float32), axis=-1)  # [N, H]
  unit *= weights[:, None]
  total = tf.reduce_sum(unit, axis=0)  # [H]
  count = tf.reduce_sum(weights)
  return tf.reduce_sum(total * total) - count, count * (count - 1.0)


def health_sums(outputs, input_mask):
  """Sums of one eval batch that add across batches and replicas.

  Args:
    outputs: the `ElectraPretrainer`'s outputs on the batch.
    input_mask: [B, L] the batch's input mask.
  """
  if "discriminator_sequence_output" in outputs:
    hidden = outputs["discriminator_sequence_output"]  # [B, L, H]
  else:
    hidden = outputs["generator_sequence_output"]  # MLM: the kept model
  mask = tf.cast(input_mask, tf.float32)  # [B, L]
  cls_sum, cls_pairs = _mean_pairwise_cosine_sums(
      hidden[:, 0], tf.ones_like(mask[:, 0]))
  width = tf.shape(hidden)[-1]
  token_sum, token_pairs = _mean_pairwise_cosine_sums(
      tf.reshape(hidden, [-1, width]), tf.reshape(mask, [-1]))
  sums = {"cls_cosine_sum": cls_sum, "cls_pairs": cls_pairs,
          "token_cosine_sum": token_sum, "token_pairs": token_pairs}
  if "disc_logits" in outputs:
    weights = tf.cast(outputs["disc_weights"], tf.float32)
    token_loss = tf.nn.sigmoid_cross_entropy_with_logits(
        labels=tf.cast(outputs["is_fake"], tf.float32),
        logits=tf.cast(outputs["disc_logits"], tf.float32))  # [B, L]
    sums["disc_token_loss"] = tf.reduce_sum(weights * token_loss)
  return sums


def binary_entropy(rate):
  """H(r) in nats; 0 at r = 0 or 1."""
  if rate <= 0.0 or rate >= 1.0:
    return 0.0
  return -(rate * math.log(rate) + (1.0 - rate) * math.log(1.0 - rate))


def signals(sums):
  """Health signals from accumulated `health_sums` and metric sums."""
  sums = {k: np.asarray(v, np.float64) for k, v in sums.items()}
  ratio = lambda a, b: float(sums[a] / sums[b]) if sums.get(b) else 0.0
  result = {"cls_cosine": ratio("cls_cosine_sum", "cls_pairs"),
            "token_cosine": ratio("token_cosine_sum", "token_pairs")}
  if "disc_token_loss" in sums and sums.get("disc_tokens"):
    rate = float(sums["disc_positive"] / sums["disc_tokens"])
    entropy = binary_entropy(rate)
    loss = float(sums["disc_token_loss"] / sums["disc_tokens"])
    result.update({"replaced_rate": rate, "replaced_entropy": entropy,
                   "disc_token_loss": loss,
                   "disc_loss_gain": ((entropy - loss) / entropy
                                      if entropy else 0.0)})
  return result


@dataclasses.dataclass(frozen=True)
class Verdict:
  """"healthy", or the symptoms seen (name -> one-line explanation)."""
  symptoms: dict

  @property
  def healthy(self):
    return not self.symptoms

  def message(self):
    if self.healthy:
      return "pretraining health: healthy"
    return "pretraining health: " + "; ".join(
        f"{text} ({ADVICE[name]})" for name, text in self.symptoms.items())


def verdict(metrics, thresholds=None):
  """The `Verdict` of eval metrics (`metrics.finalize` plus `signals`)."""
  limits = {**THRESHOLDS, **(thresholds or {})}
  symptoms = {}
  gain = metrics.get("disc_loss_gain")
  if gain is not None and gain < limits["min_disc_loss_gain"]:
    symptoms["base_rate_only"] = (
        f"the discriminator's loss {metrics['disc_token_loss']:.3f} is only "
        f"{100 * max(gain, 0.0):.1f}% below the replacement-rate entropy "
        f"{metrics['replaced_entropy']:.3f}: it predicts little beyond the "
        "base rate")
  if metrics.get("cls_cosine", 0.0) > limits["max_cls_cosine"]:
    symptoms["uniform_representations"] = (
        f"[CLS] vectors of different inputs have mean cosine "
        f"{metrics['cls_cosine']:.4f}: representations ignore the input")
  sampled = metrics.get("sampled_masked_lm_accuracy")
  if sampled is not None and sampled > limits["max_sampled_accuracy"]:
    symptoms["generator_too_strong"] = (
        f"{100 * sampled:.0f}% of the generator's samples are the original "
        "token")
  accuracy = metrics.get("masked_lm_accuracy")
  if accuracy is not None and accuracy < limits["min_generator_accuracy"]:
    symptoms["generator_too_weak"] = (
        f"the generator predicts {100 * accuracy:.1f}% of masked tokens")
  return Verdict(symptoms)
