"""Pretraining health: each signal on constructed outputs, the verdict, and
finetuning's one-class warning."""

import math

import numpy as np
import pytest
import tensorflow as tf
from absl import logging

from electra_tf.finetuning import registry
from electra_tf.finetuning.classification import evaluation as sentence_evaluation
from electra_tf.finetuning.classification import features as sentence_features
from electra_tf.pretraining import health

B, L, H = 4, 6, 8


def outputs(hidden, logits=None, is_fake=None):
  out = {"discriminator_sequence_output": tf.constant(hidden, tf.float32)}
  if logits is not None:
    out.update(disc_logits=tf.constant(logits, tf.float32),
               is_fake=tf.constant(is_fake, tf.int32),
               disc_weights=tf.ones([B, L]))
  return out


def sums_of(out, mask=None):
  mask = np.ones([B, L]) if mask is None else mask
  sums = {k: v.numpy() for k, v in health.health_sums(out, mask).items()}
  if "disc_logits" in out:
    sums.update(disc_tokens=float(B * L),
                disc_positive=float(np.sum(out["is_fake"].numpy())))
  return sums


def test_cosines_equal_numpy_on_real_tokens():
  rng = np.random.default_rng(0)
  hidden = rng.normal(size=[B, L, H])
  mask = np.ones([B, L])
  mask[1, 4:] = 0
  signals = health.signals(sums_of(outputs(hidden), mask))
  unit = hidden / np.linalg.norm(hidden, axis=-1, keepdims=True)
  cls = unit[:, 0] @ unit[:, 0].T
  assert signals["cls_cosine"] == pytest.approx(
      (cls.sum() - B) / (B * (B - 1)), abs=1e-5)
  tokens = unit[mask > 0]
  pairwise = tokens @ tokens.T
  n = len(tokens)
  assert signals["token_cosine"] == pytest.approx(
      (pairwise.sum() - n) / (n * (n - 1)), abs=1e-5)


def test_identical_representations_are_uniform():
  hidden = np.tile(np.arange(1.0, H + 1), [B, L, 1])
  values = health.signals(sums_of(outputs(hidden)))
  assert values["cls_cosine"] == pytest.approx(1.0, abs=1e-5)
  assert "uniform_representations" in health.verdict(values).symptoms


def test_a_discriminator_that_predicts_the_base_rate_has_no_gain():
  is_fake = np.zeros([B, L], np.int32)
  is_fake[:, 1] = 1  # a replacement rate of 1/6
  rate = 1 / L
  constant = np.full([B, L], math.log(rate / (1 - rate)))  # p = rate
  rng = np.random.default_rng(1)
  hidden = rng.normal(size=[B, L, H])
  values = health.signals(sums_of(outputs(hidden, constant, is_fake)))
  assert values["replaced_rate"] == pytest.approx(rate)
  assert values["disc_token_loss"] == pytest.approx(
      health.binary_entropy(rate), rel=1e-5)
  assert abs(values["disc_loss_gain"]) < 1e-4
  verdict = health.verdict(values)
  assert list(verdict.symptoms) == ["base_rate_only"]
  assert "lower the learning rate" in verdict.message()
  # A discriminator that knows the answer gains nearly everything.
  sure = np.where(is_fake == 1, 9.0, -9.0)
  values = health.signals(sums_of(outputs(hidden, sure, is_fake)))
  assert values["disc_loss_gain"] > 0.99
  assert health.verdict(values).healthy


def test_generator_strength_limits():
  perfect = {"masked_lm_accuracy": 1.0, "sampled_masked_lm_accuracy": 0.95}
  assert list(health.verdict(perfect).symptoms) == ["generator_too_strong"]
  clueless = {"masked_lm_accuracy": 0.01, "sampled_masked_lm_accuracy": 0.0}
  assert list(health.verdict(clueless).symptoms) == ["generator_too_weak"]
  fine = {"masked_lm_accuracy": 0.4, "sampled_masked_lm_accuracy": 0.3,
          "cls_cosine": 0.5, "disc_loss_gain": 0.3}
  assert health.verdict(fine).healthy
  assert health.verdict(fine).message() == "pretraining health: healthy"


def test_finetuning_warns_when_every_prediction_is_one_class():
  sst = registry.get_task("sst")
  warnings = []
  logging.get_absl_logger().addFilter(
      lambda record: warnings.append(record.getMessage()) or True)
  one_class = {"predictions": np.zeros(5, np.int32),
               sentence_features.LABEL_IDS: np.array([0, 1, 0, 1, 1])}
  assert sentence_evaluation.warn_if_one_class(sst, one_class, "dev")
  assert any("every one of the 5 predictions is '0'" in w for w in warnings)
  mixed = {"predictions": np.array([0, 1, 0, 0, 1]),
           sentence_features.LABEL_IDS: np.array([0, 1, 0, 1, 1])}
  assert not sentence_evaluation.warn_if_one_class(sst, mixed, "dev")
  sts = registry.get_task("sts")
  assert not sentence_evaluation.warn_if_one_class(sts, one_class, "dev")
