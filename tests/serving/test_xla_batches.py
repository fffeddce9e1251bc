"""XLA exports compile once per power-of-two batch size, and padding rows
change no example's outputs."""

import numpy as np
import pytest
import tensorflow as tf

from electra_tf.serving import xla_batches


@pytest.mark.parametrize("batch_size,padded", [
    (0, 1), (1, 1), (2, 2), (3, 4), (4, 4), (5, 8), (31, 32), (32, 32),
    (33, 64), (1023, 1024), (1024, 1024), (1025, 2048),
    (2**20, 2**20), (2**20 + 1, 2**21)])
def test_padded_batch_size_is_the_next_power_of_two(batch_size, padded):
  assert int(xla_batches.padded_batch_size(batch_size)) == padded


def test_compiles_per_bucket_and_returns_the_unpadded_rows():
  traced_batches = []

  def function(features):
    traced_batches.append(int(features["ids"].shape[0]))
    scores = tf.cast(features["ids"], tf.float32) * features["weight"]
    return {"scores": scores, "row_sum": tf.reduce_sum(scores, axis=-1)}

  run = xla_batches.compiled_in_batch_buckets(function)
  rng = np.random.default_rng(0)
  for batch_size in (1, 2, 3, 4, 5, 7, 3):
    ids = rng.integers(0, 9, [batch_size, 6]).astype(np.int32)
    weight = rng.normal(size=[batch_size, 6]).astype(np.float32)
    got = run({"ids": tf.constant(ids), "weight": tf.constant(weight)})
    np.testing.assert_allclose(got["scores"], ids * weight, rtol=1e-6)
    np.testing.assert_allclose(got["row_sum"], (ids * weight).sum(-1),
                               atol=1e-5)
  assert sorted(traced_batches) == [1, 2, 4, 8]
