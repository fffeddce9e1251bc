"""The full pretraining forward pass equals the original's, noise injected."""

import numpy as np

from electra_tf.pretraining import metrics

EXACT = {
    "masked_lm_positions": "masked_lm_positions",
    "masked_lm_ids": "masked_lm_ids",
    "masked_lm_weights": "masked_lm_weights",
    "masked_input_ids": "masked_input_ids",
    "sampled_tokids": "sampled_tokids",
    "fake_input_ids": "fake_input_ids",
    "is_fake": "is_fake_labels",
    "mlm_preds": "mlm_preds",
    "disc_preds": "disc_preds",
}
CLOSE = {
    "mlm_logits": "mlm_logits",
    "generator_sequence_output": "generator_sequence_output",
    "discriminator_sequence_output": "discriminator_sequence_output",
    "disc_logits": "disc_logits",
    "disc_probs": "disc_probs",
    "mlm_per_example_loss": "mlm_per_example_loss",
    "disc_per_example_loss": "disc_per_example_loss",
    "mlm_loss": "mlm_loss",
    "disc_loss": "disc_loss",
    "total_loss": "total_loss",
}
ATOL = 1e-4


def test_pretraining_forward_matches_the_original(golden):
  model = golden.loaded_pretrainer()
  out = model(golden.features(), training=False, noise=golden.noise())
  for ours, theirs in EXACT.items():
    np.testing.assert_array_equal(np.asarray(out[ours]),
                                  golden.arrays[f"pretrain/{theirs}"],
                                  err_msg=ours)
  for ours, theirs in CLOSE.items():
    np.testing.assert_allclose(np.asarray(out[ours]),
                               golden.arrays[f"pretrain/{theirs}"],
                               rtol=0, atol=ATOL, err_msg=ours)


def test_eval_metrics_match_the_original(golden):
  """The original's eval metrics (tf.metrics over one batch) on the same
  forward pass: accuracies, the discriminator's loss, AUC, precision and
  recall."""
  model = golden.loaded_pretrainer()
  out = model(golden.features(), training=False, noise=golden.noise())
  got = metrics.finalize({k: np.asarray(v)
                          for k, v in metrics.metric_sums(out).items()})
  expected = golden.info["pretrain_eval_metrics"]
  assert set(expected) <= set(got)
  for name, value in expected.items():
    np.testing.assert_allclose(got[name], value, rtol=0, atol=1e-5,
                               err_msg=name)
