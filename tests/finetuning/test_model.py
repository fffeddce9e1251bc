"""Finetuning model: variables and layer-wise multipliers equal the original's."""

import json
import os

import numpy as np
import pytest
import tensorflow as tf

from electra_tf.finetuning import layerwise_lr
from electra_tf.finetuning import model as model_lib
from electra_tf.finetuning.config import FinetuningConfig
from tests.conftest import load_golden

GOLDEN_TASKS = ["mnli", "sts", "squad", "chunk"]
NUM_CHUNK_LABELS = 5  # what the golden's chunk data held
GOLDEN = load_golden("tiny_proj")


def golden_vars(variant):
  with open(os.path.join(GOLDEN.path, "finetune_vars.json")) as f:
    return {v["name"]: v for v in json.load(f)[variant]}


def golden_model(**overrides):
  passed = GOLDEN.info["pretraining_hparams_passed"]
  finetune = GOLDEN.info["finetune"]
  hparams = {
      "task_names": GOLDEN_TASKS, "vocab_size": passed["vocab_size"],
      "embedding_size": finetune["embedding_size"],
      "learning_rate": finetune["learning_rate"],
      "layerwise_lr_decay": finetune["layerwise_lr_decay"],
      "model_hparam_overrides": passed["model_hparam_overrides"]}
  hparams.update(overrides)
  config = FinetuningConfig.from_hparams(hparams)
  labels = {"chunk": [f"tag{i}" for i in range(NUM_CHUNK_LABELS)]}
  return config, model_lib.build_finetuning_model(config, labels)


def multipliers_by_name(config, model, mode="original"):
  factors = layerwise_lr.lr_multipliers(model, config.layerwise_lr_decay, mode)
  return {name: factors[variable.value.ref()]
          for name, variable in model_lib.tf1_variables(model).items()}


@pytest.mark.parametrize("variant", ["is_training=True", "is_training=False"])
def test_variables_and_multipliers_equal_the_golden(variant):
  expected = golden_vars(variant)
  config, model = golden_model()
  table = model_lib.tf1_variables(model)
  assert sorted(table) == sorted(expected)
  # Every trainable variable has exactly one original name, and back.
  assert sorted(id(v) for v in table.values()) == sorted(
      id(v) for v in model.trainable_variables)
  factors = multipliers_by_name(config, model)
  for name, variable in table.items():
    assert list(variable.shape) == expected[name]["shape"], name
    assert [factors[name]] == expected[name]["lr_multiplier"], name


def test_corrected_mode_gives_the_textbook_multipliers():
  config, model = golden_model(layerwise_lr_decay_mode="corrected")
  factors = multipliers_by_name(config, model, "corrected")
  by_part = {}
  for name, factor in factors.items():
    part = ("head" if name.startswith("task_specific/") else
            name.split("/")[2] if "/encoder/" in name else "embeddings")
    by_part.setdefault(part, set()).add(factor)
  assert by_part == {"head": {1.0}, "layer_1": {0.8}, "layer_0": {0.8 ** 2},
                     "embeddings": {0.8 ** 3}}


def test_no_layerwise_decay_when_the_factor_is_zero():
  _, model = golden_model()
  assert layerwise_lr.lr_multipliers(model, 0.0) == {}


def features(batch, length, seed=0):
  rng = np.random.RandomState(seed)
  ids = rng.randint(5, 100, size=(batch, length)).astype(np.int32)
  segment = np.zeros_like(ids)
  segment[:, length // 2:] = 1
  return {"input_ids": ids, "input_mask": np.ones_like(ids),
          "segment_ids": segment, "task_id": np.array([0, 1, 2, 3][:batch]),
          "label_ids": np.zeros(batch, np.int32),
          "targets": np.full(batch, 0.5, np.float32),
          "start_positions": np.full(batch, length // 2, np.int32),
          "end_positions": np.full(batch, length // 2 + 1, np.int32),
          "is_impossible": np.zeros(batch, np.int32),
          "labels": np.zeros((batch, length), np.int32),
          "labels_mask": np.ones((batch, length), np.float32),
          "labeled_positions": np.tile(np.arange(length, dtype=np.int32),
                                       (batch, 1))}


def test_outputs_of_each_head_in_training_and_inference():
  config, model = golden_model(beam_size=4)
  batch = features(4, 32)
  train = model(batch, training=True)
  assert train["mnli"]["logits"].shape == (4, 3)
  assert train["sts"]["predictions"].shape == (4,)
  assert train["chunk"]["logits"].shape == (4, 32, NUM_CHUNK_LABELS)
  assert train["squad"]["end_logits"].shape == (4, 32)
  loss = model.task_loss(train, batch)
  assert loss.shape == () and np.isfinite(loss.numpy())
  infer = model(batch, training=False, task_names=["squad"])
  squad = infer["squad"]
  assert list(infer) == ["squad"]
  assert squad["start_top_index"].shape == (4, config.beam_size)
  assert squad["end_top_index"].shape == (4, config.beam_size,
                                          config.beam_size)
  # Starts are never proposed in the question (segment 0) except [CLS].
  question = np.arange(1, 16)
  assert not np.isin(squad["start_top_index"].numpy()[:, 0], question).any()
  assert squad["answerable_logit"].shape == (4,)


def test_padding_examples_add_no_loss():
  _, model = golden_model()
  batch = features(4, 32)
  outputs = model(batch, training=False)
  padded = dict(batch, task_id=np.full(4, len(GOLDEN_TASKS)))
  assert float(model.task_loss(outputs, padded)) == 0.0
  only_first = dict(batch, task_id=np.array([0, 4, 4, 4]))
  expected = -tf.nn.log_softmax(outputs["mnli"]["logits"][0])[0]
  np.testing.assert_allclose(float(model.task_loss(outputs, only_first)),
                             float(expected), rtol=1e-6)


def test_mixed_precision_heads_return_float32():
  config, _ = golden_model(beam_size=4)
  labels = {"chunk": [f"tag{i}" for i in range(NUM_CHUNK_LABELS)]}
  model = model_lib.build_finetuning_model(config, labels, "mixed_bfloat16")
  batch = features(4, 32)
  for training in (True, False):
    outputs = model(batch, training=training)
    for task, values in outputs.items():
      for name, value in values.items():
        if value.dtype.is_floating:
          assert value.dtype == tf.float32, (task, name)
    assert np.isfinite(model.task_loss(outputs, batch).numpy())
  assert model.electra_encoder.embeddings.word_embeddings.dtype == "float32"
