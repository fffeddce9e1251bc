"""benchmarks/step_breakdown.py times prefixes of the real train step: the
discriminator prefix's loss, the backward prefix's and the whole step's are
one and the same number on one batch."""

import os
import sys

import numpy as np
import pytest

from electra_tf import config as config_lib
from electra_tf.modeling import sizes

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "benchmarks"))
import pretrain_throughput  # pylint: disable=g-import-not-at-top,wrong-import-position
import step_breakdown  # pylint: disable=g-import-not-at-top,wrong-import-position

# Dropout off: its masks advance with every call, and each prefix is a call.
TINY = {"train_batch_size": 4, "max_seq_length": 32, "vocab_size": 1100,
        "jit_compile": False,
        "model_hparam_overrides": {
            "num_hidden_layers": 2, "hidden_size": 64,
            "num_attention_heads": 2, "intermediate_size": 256,
            "hidden_dropout_prob": 0.0, "attention_probs_dropout_prob": 0.0}}


@pytest.mark.parametrize("sampler", ["gumbel_max", "inverse_cdf"])
def test_the_prefixes_compute_the_train_steps_loss(sampler):
  config = config_lib.load_pretraining_config(
      "tiny", {**TINY, "replacement_sampling": sampler})
  special_ids, words = pretrain_throughput.vocab_ids(None, 1100)
  batch = pretrain_throughput.make_batch(4, 32, special_ids, words[:50])
  prefixes = step_breakdown.Prefixes(config, special_ids, batch)
  outputs = prefixes.model(prefixes.features, training=True,
                           seed=config.seed, step=0)
  values = {name: float(getattr(prefixes, name)())
            for name in step_breakdown.PHASES}
  assert all(np.isfinite(v) for v in values.values())
  # The generator prefix's MLM loss is the model's, from its own masking.
  assert values["generator"] == pytest.approx(float(outputs["mlm_loss"]),
                                              rel=1e-6)
  # Loss of the whole model, of its gradients' pass and of the real step
  # (before its update lands) agree; the step then advanced the optimizer.
  assert values["backward"] == pytest.approx(values["discriminator"],
                                             rel=1e-6)
  assert values["update"] == pytest.approx(values["discriminator"], rel=1e-6)
  assert int(prefixes.step.optimizer.iterations) == 1


def test_phase_flops_split_the_step_count():
  config = config_lib.load_pretraining_config("electra_small")
  flops = step_breakdown.phase_flops(config, 32)
  total = sizes.pretraining_flops_per_sequence(config) * 32
  assert sum(flops.values()) == pytest.approx(total)
  assert flops["backward"] == pytest.approx(2 * (flops["generator"]
                                                 + flops["discriminator"]))
