"""Inverse-CDF replacement sampling: the generator's distribution, from one
uniform per prediction slot."""

import numpy as np
import pytest
import tensorflow as tf

import electra_tf
from electra_tf.pretraining import noise
from electra_tf.pretraining import sampling

COMPILED = tf.function(sampling.sample_tokens_inverse_cdf, jit_compile=True)


def probabilities(logits, originals, temperature, disallow_correct):
  """softmax(logits / temperature) in float64, the penalty included."""
  scores = logits.astype(np.float64) / temperature
  if disallow_correct:
    rows, slots = np.indices(originals.shape)
    scores[rows, slots, originals] -= sampling.DISALLOW_PENALTY
  scores -= scores.max(-1, keepdims=True)
  probs = np.exp(scores)
  return probs / probs.sum(-1, keepdims=True)


@pytest.mark.parametrize("vocab_size", [100, 128, 300, 1000])
@pytest.mark.parametrize("disallow_correct", [False, True])
def test_the_sample_is_where_the_uniform_falls_in_the_cdf(vocab_size,
                                                          disallow_correct):
  rng = np.random.RandomState(vocab_size)
  logits = (rng.randn(16, 4, vocab_size) * 3).astype(np.float32)
  originals = rng.randint(0, vocab_size, (16, 4)).astype(np.int32)
  uniform = noise.uniform(1, 2, tf.range(16), noise.SAMPLE_STREAM, [4])
  cdf = np.cumsum(probabilities(logits, originals, 2.0, disallow_correct), -1)
  u = uniform.numpy().astype(np.float64)
  expected = (cdf <= u[..., None]).sum(-1)
  got = sampling.sample_tokens_inverse_cdf(logits, originals, 2.0,
                                           disallow_correct, uniform).numpy()
  np.testing.assert_array_equal(
      COMPILED(logits, originals, 2.0, disallow_correct, uniform).numpy(),
      got)
  # float32 sums may move a draw only where it lies on a boundary.
  rows, slots = np.nonzero(got != expected)
  for b, n in zip(rows, slots):
    assert np.abs(cdf[b, n] - u[b, n]).min() < 1e-5
  assert (got == expected).mean() > 0.95


def chi_square(samples, probs):
  """Pearson's statistic and degrees of freedom, sparse cells pooled."""
  counts = np.bincount(samples, minlength=probs.size).astype(np.float64)
  expected = probs * samples.size
  sparse = expected < 5
  observed = np.append(counts[~sparse], counts[sparse].sum())
  expected = np.append(expected[~sparse], expected[sparse].sum())
  keep = expected > 0
  observed, expected = observed[keep], expected[keep]
  return ((observed - expected) ** 2 / expected).sum(), keep.sum() - 1


@pytest.mark.parametrize("sampler", ["gumbel_max", "inverse_cdf"])
def test_both_samplers_draw_the_generator_distribution(sampler):
  draws, vocab_size, temperature = 20000, 40, 2.0
  rng = np.random.RandomState(0)
  row_logits = np.stack([rng.randn(vocab_size) * 2,  # spread
                         np.where(np.arange(vocab_size) < 3, 6.0, 0.0)])
  logits = np.broadcast_to(row_logits[None].astype(np.float32),
                           [draws, 2, vocab_size])
  originals = np.broadcast_to(np.array([[5, 0]], np.int32), [draws, 2])
  drawn = noise.pretraining_noise(4, 0, tf.range(draws), 2, 8, vocab_size,
                                  sampler)
  samples = sampling.sample_from_noise(logits, originals, temperature, True,
                                       drawn).numpy()
  right = probabilities(logits[:1], originals[:1], temperature, True)[0]
  wrong = probabilities(logits[:1], originals[:1], 1.0, True)[0]
  for slot in range(2):
    assert not (samples[:, slot] == originals[0, slot]).any()
    stat, dof = chi_square(samples[:, slot], right[slot])
    threshold = dof + 6 * np.sqrt(2 * dof)  # p ~ 1e-6 or less
    assert stat < threshold, (slot, stat, dof)
    # The check can fail: the distribution at temperature 1 is rejected.
    assert chi_square(samples[:, slot], wrong[slot])[0] > 10 * threshold


def test_zero_probability_entries_are_never_drawn():
  vocab_size = 300
  logits = np.zeros([3, 3, vocab_size], np.float32)
  logits[..., 250:] = -np.inf  # the last block's end, and past it
  logits[..., 7] = 60.0  # the original: overwhelming, then penalised away
  originals = np.full([3, 3], 7, np.int32)
  # The smallest, a middle and the largest float32 below 1.
  uniform = np.array([[1e-7, 0.5, np.nextafter(np.float32(1), 0)]] * 3,
                     np.float32)
  for fn in (sampling.sample_tokens_inverse_cdf, COMPILED):
    got = fn(logits, originals, 1.0, True, uniform).numpy()
    assert ((got != 7) & (got < 250)).all(), got
    assert (got[:, 2] == 249).all()  # the last entry with mass
    assert (got[:, 0] == 0).all()
    free = fn(logits, originals, 1.0, False, uniform).numpy()
    assert (free == 7).all()


def test_a_pretrainer_draws_per_example_as_replicas_do():
  config = electra_tf.PretrainingConfig.from_hparams({
      "vocab_size": 500, "embedding_size": 16, "max_seq_length": 16,
      "replacement_sampling": "inverse_cdf", "temperature": 2.0,
      "mask_prob": 0.25,
      "model_hparam_overrides": {"hidden_size": 32, "num_hidden_layers": 1,
                                 "num_attention_heads": 2,
                                 "intermediate_size": 64}})
  model = electra_tf.ElectraPretrainer(config)
  ids = np.random.RandomState(0).randint(110, 500, (4, 16)).astype(np.int32)
  ids[:, 0], ids[:, -1] = 101, 102
  features = {"input_ids": ids, "input_mask": np.ones_like(ids),
              "segment_ids": np.zeros_like(ids)}
  noise_drawn = model.draw_noise(4, 16, seed=5, step=2)
  assert set(noise_drawn) == {"position_gumbel", "mask_uniform",
                              "slot_uniform"}
  assert noise_drawn["slot_uniform"].shape == (
      4, config.max_predictions_per_seq)
  whole = model(features, seed=5, step=2)
  halves = [model({k: v[i:i + 2] for k, v in features.items()}, seed=5,
                  step=2, example_offset=i) for i in (0, 2)]
  for key in ("sampled_tokids", "fake_input_ids", "is_fake"):
    np.testing.assert_array_equal(
        np.concatenate([h[key].numpy() for h in halves]), whole[key].numpy())
  compiled = tf.function(lambda f: model(f, seed=5, step=2),
                         jit_compile=True)(features)
  np.testing.assert_array_equal(compiled["sampled_tokids"].numpy(),
                                whole["sampled_tokids"].numpy())
  assert whole["is_fake"].numpy().sum() > 0


def test_a_draw_past_the_rounded_total_takes_the_last_entry_with_mass():
  cdf = tf.constant([[[0.1, 0.5, 0.5, 0.5], [0.2, 0.3, 0.9, 1.0]]])
  mass = tf.constant([[[0.1, 0.4, 0.0, 0.0], [0.2, 0.1, 0.6, 0.1]]])
  # Row 0: float sums left nothing above the target; row 1: a plain draw.
  picked = sampling._first_past(cdf, mass, tf.constant([[0.5, 0.25]]))
  assert picked.numpy().tolist() == [[1, 1]]
