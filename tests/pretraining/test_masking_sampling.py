"""Masking, sampling and noise rules on hand-built cases."""

import numpy as np
import pytest
import tensorflow as tf

from electra_tf.pretraining import masking
from electra_tf.pretraining import noise
from electra_tf.pretraining import sampling
from electra_tf.pretraining import sequence_ops
from electra_tf.tokenization.special_tokens import SpecialTokenIds

IDS = SpecialTokenIds()
# [CLS] 7 tokens [SEP] then padding.
ROW = [101, 11, 12, 13, 14, 15, 16, 17, 102, 0, 0, 0]


def forced_gumbel(positions, length):
  """Noise that makes slot n pick positions[b][n]."""
  g = np.zeros([len(positions), len(positions[0]), length], np.float32)
  for b, row in enumerate(positions):
    for n, p in enumerate(row):
      g[b, n, p] = 100.0
  return g


def test_duplicate_positions_and_unused_slots():
  ids = tf.constant([ROW])
  mask = tf.cast(ids > 0, tf.int32)
  out = masking.mask_tokens(
      ids, mask, IDS, mask_prob=0.5, max_predictions=6,
      position_gumbel=forced_gumbel([[3, 3, 5, 1, 2, 2]], 12),
      mask_uniform=tf.constant([[0.9, 0.1, 0.5, 0.99, 0.2, 0.3]]))
  # round(9 * 0.5) = 4 slots used; the rest point at 0 with weight 0.
  assert out.masked_lm_weights.numpy().tolist() == [[1, 1, 1, 1, 0, 0]]
  assert out.masked_lm_positions.numpy().tolist() == [[3, 3, 5, 1, 0, 0]]
  assert out.masked_lm_ids.numpy().tolist() == [[13, 13, 15, 11, 0, 0]]
  # Position 3 is masked by its second draw; 1 keeps its token (u >= 0.85).
  expected = list(ROW)
  expected[3] = expected[5] = 103
  assert out.masked_input_ids.numpy().tolist() == [expected]


def test_never_masks_special_tokens_or_padding_and_no_random_tokens():
  batch = np.array([ROW] * 64, np.int32)
  mask = (batch > 0).astype(np.int32)
  example_ids = tf.range(64)
  n = 4
  out = masking.mask_tokens(
      batch, mask, IDS, 0.5, n,
      noise.gumbel(1, 2, example_ids, noise.POSITION_STREAM, [n, 12]),
      noise.uniform(1, 2, example_ids, noise.MASK_STREAM, [n]))
  positions = out.masked_lm_positions.numpy()
  assert set(positions.ravel()) <= set(range(1, 8))
  changed = out.masked_input_ids.numpy() != batch
  assert (out.masked_input_ids.numpy()[changed] == IDS.mask).all()
  # With replacement: some rows draw a position twice.
  assert any(len(set(r)) < n for r in positions)


def test_mask_share_is_85_percent():
  u = noise.uniform(3, 0, tf.range(2000), noise.MASK_STREAM, [10]).numpy()
  assert abs((u < masking.MASK_TOKEN_RATE).mean() - 0.85) < 0.01


@pytest.mark.parametrize("num_tokens,prob,n,expected", [
    (9, 0.15, 19, 1),  # round(1.35) = 1
    (30, 0.15, 19, 4),  # round(4.5) = 4: half to even, as tf.round
    (2, 0.15, 19, 1),  # never fewer than one
    (128, 0.5, 19, 19),  # never more than N
])
def test_num_to_predict(num_tokens, prob, n, expected):
  mask = tf.constant([[1] * num_tokens])
  assert masking.num_to_predict(mask, prob, n).numpy().tolist() == [expected]


def test_row_without_candidates_predicts_nothing():
  ids = tf.constant([[101, 102, 0, 0]])
  out = masking.mask_tokens(ids, tf.constant([[1, 1, 0, 0]]), IDS, 0.15, 2,
                            tf.zeros([1, 2, 4]), tf.zeros([1, 2]))
  assert out.masked_lm_weights.numpy().sum() == 0
  assert out.masked_input_ids.numpy().tolist() == ids.numpy().tolist()


def test_duplicate_samples_average_and_correct_samples_are_real():
  ids = tf.constant([[101, 20, 21, 22, 102]])
  fake = sampling.replace_tokens(ids, tf.constant([[1, 1, 2, 3]]),
                                 tf.constant([[30, 41, 21, 50]]))
  # Position 1 written twice: (30 + 41) // 2 = 35, as the original's scatter.
  assert fake.fake_input_ids.numpy().tolist() == [[101, 35, 21, 50, 102]]
  assert fake.replaced_mask.numpy().tolist() == [[0, 1, 1, 1, 0]]
  # Position 2 got its own token back: labelled real.
  assert fake.is_fake.numpy().tolist() == [[0, 1, 0, 1, 0]]


def test_disallow_correct_and_temperature():
  vocab, n = 50, 8
  logits = np.zeros([4, n, vocab], np.float32)
  original = np.tile(np.arange(n, dtype=np.int32), [4, 1])
  logits[np.arange(4)[:, None], np.arange(n)[None], original] = 20.0
  u = noise.uniform(0, 0, tf.range(4), noise.SAMPLE_STREAM, [n, vocab])
  free = sampling.sample_tokens(logits, original, 1.0, False, u).numpy()
  assert (free == original).all()  # a peaked generator is right
  banned = sampling.sample_tokens(logits, original, 1.0, True, u).numpy()
  assert (banned != original).all()
  flat = sampling.sample_tokens(logits, original, 1e4, False, u).numpy()
  assert (flat != original).mean() > 0.5  # high temperature ~ uniform


@pytest.mark.parametrize("sampler,key", [("gumbel_max", "sample_uniform"),
                                         ("inverse_cdf", "slot_uniform")])
def test_noise_is_independent_of_how_the_batch_is_split(sampler, key):
  whole = noise.pretraining_noise(7, 3, tf.range(4), 5, 12, 30, sampler)
  half = noise.pretraining_noise(7, 3, tf.range(2, 4), 5, 12, 30, sampler)
  assert key in whole
  for name in whole:
    np.testing.assert_array_equal(whole[name][2:], half[name])
  other_step = noise.pretraining_noise(7, 4, tf.range(4), 5, 12, 30, sampler)
  assert not np.array_equal(whole[key], other_step[key])


def test_an_unknown_sampler_is_named():
  with pytest.raises(ValueError, match="'gumbel' is not gumbel_max or"):
    noise.pretraining_noise(7, 3, tf.range(4), 5, 12, 30, "gumbel")


def test_noise_is_uniform():
  u = noise.uniform(7, 3, tf.range(1000), noise.SAMPLE_STREAM,
                    [20, 100]).numpy()
  assert 0 < u.min() and u.max() < 1
  counts, _ = np.histogram(u, bins=100, range=(0, 1))
  expected = u.size / 100
  chi2 = ((counts - expected) ** 2 / expected).sum()
  assert chi2 < 150  # 99 degrees of freedom; p < 0.001 above ~149
  neighbours = np.corrcoef(u[:-1].ravel(), u[1:].ravel())[0, 1]
  assert abs(neighbours) < 0.01


def test_gather_positions_rank3():
  seq = tf.reshape(tf.range(24), [2, 3, 4])
  got = sequence_ops.gather_positions(seq, tf.constant([[2], [0]]))
  assert got.numpy().tolist() == [[[8, 9, 10, 11]], [[12, 13, 14, 15]]]
