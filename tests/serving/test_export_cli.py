"""electra-finetune --export_dir and electra-export: what they write, and
one-line errors (exit 2) for bad flags and runs."""

import json
import os

import numpy as np
import pytest
import tensorflow as tf

from electra_tf.cli import export as export_cli
from electra_tf.config import PretrainingConfig
from electra_tf.finetuning import checkpoints as finetuning_checkpoints
from electra_tf.pretraining import model as pretraining_model
from tests.serving import cases
from tests.serving import conftest


def test_finetune_cli_exports_each_trial(sst_run):
  task_dir = os.path.join(sst_run["export_dir"], "sst")
  assert os.listdir(sst_run["export_dir"]) == ["sst"]
  assert os.listdir(task_dir) == ["1"]
  with open(os.path.join(task_dir, "1", "assets.extra", "config.json")) as f:
    config = json.load(f)
  assert config["checkpoint"] == tf.train.latest_checkpoint(
      sst_run["trial_dir"])
  assert config["labels"] == ["0", "1"]
  assert config["jit_compile"] is True  # electra-finetune's default
  assert config["signatures"] == ["serve_examples", "serve_token_ids",
                                  "serving_default"]


@pytest.mark.parametrize("jit_flag", ["--nojit_compile", "--jit_compile"])
def test_electra_export_writes_a_pretraining_runs_encoder(sst_run, tmp_path,
                                                          jit_flag):
  pretrained = sst_run["pretrained"]
  vocab = os.path.join(os.path.dirname(os.path.dirname(pretrained)),
                       "vocab.txt")
  export_dir = str(tmp_path / "encoder")
  assert export_cli.main(["electra-export", "--model_dir", pretrained,
                          "--export_dir", export_dir, "--vocab_file", vocab,
                          "--version", "3", jit_flag]) == 0
  loaded = tf.saved_model.load(os.path.join(export_dir, "3"))
  ids = np.array([[2, 50, 60, 3, 0]], np.int32)
  features = {"input_ids": ids, "input_mask": (ids > 0).astype(np.int32),
              "segment_ids": np.zeros_like(ids)}
  got = loaded.signatures["serve_token_ids"](
      **{k: tf.constant(v) for k, v in features.items()})
  config = PretrainingConfig.from_hparams(
      os.path.join(pretrained, "config.json"))
  model = pretraining_model.ElectraPretrainer(config)
  model.build()
  tf.train.Checkpoint(model=model).read(
      tf.train.latest_checkpoint(pretrained)).expect_partial()
  expected = model.discriminator(features, training=False)["logits"]
  np.testing.assert_allclose(got["rtd_logits"], expected, atol=1e-5)


@pytest.mark.parametrize("name", ["sts", "squad", "chunk"])
def test_plain_graph_export_equals_the_default_xla_one(exports, tmp_path,
                                                       name):
  export = exports[name]
  with open(os.path.join(export.path, "assets.extra", "config.json")) as f:
    assert json.load(f)["jit_compile"] is True
  export_dir = str(tmp_path / "plain")
  assert export_cli.main(["electra-export", "--model_dir", export.trial_dir,
                          "--export_dir", export_dir, "--nojit_compile"]) == 0
  with open(os.path.join(export_dir, "1", "assets.extra",
                         "config.json")) as f:
    assert json.load(f)["jit_compile"] is False
  inputs = {arg: tf.constant(column, tf.string) for arg, column in zip(
      cases.TEXT_ARGS[name], cases.BASIC[name])}
  default = tf.saved_model.load(export.path).signatures["serving_default"]
  plain = tf.saved_model.load(os.path.join(export_dir, "1")).signatures[
      "serving_default"]
  expected, got = default(**inputs), plain(**inputs)
  assert sorted(got) == sorted(expected)
  for key, value in expected.items():
    if value.dtype.is_floating:
      np.testing.assert_allclose(got[key], value, atol=1e-5, rtol=1e-6,
                                 err_msg=key)
    else:
      np.testing.assert_array_equal(got[key], value, err_msg=key)


@pytest.fixture(scope="module")
def multitask_trial(tmp_path_factory):
  return conftest.make_trial(str(tmp_path_factory.mktemp("multitask")),
                             "sst,sts")


def _error(capsys, *args):
  code = export_cli.main(["electra-export", *args])
  err = capsys.readouterr().err.strip()
  assert code == 2 and "\n" not in err, err
  return err


def test_electra_export_errors_are_one_line(capsys, sst_run, tmp_path,
                                            multitask_trial):
  out = str(tmp_path / "out")
  pretrained, trial = sst_run["pretrained"], sst_run["trial_dir"]
  assert "no --export_dir" in _error(capsys, "--model_dir", trial)
  assert "one of --model_dir or --checkpoint" in _error(
      capsys, "--export_dir", out)
  assert "checkpoint not found: /no/such/dir" in _error(
      capsys, "--model_dir", "/no/such/dir", "--export_dir", out)
  assert "name a task" in _error(capsys, "--model_dir", multitask_trial,
                                 "--export_dir", out)
  assert "has no head for 'mnli'" in _error(
      capsys, "--model_dir", multitask_trial, "--export_dir", out, "--task",
      "mnli")
  assert "is a pretraining run" in _error(
      capsys, "--model_dir", pretrained, "--export_dir", out, "--task", "sst")
  assert "no vocab file" in _error(capsys, "--model_dir", pretrained,
                                   "--export_dir", out)
  assert "has 30522 ids but vocab_size is 128; the model embeds no more" in _error(
      capsys, "--model_dir", trial, "--export_dir", out, "--vocab_file",
      conftest.cases.VOCAB)
  assert "--version" in _error(capsys, "--model_dir", trial, "--export_dir",
                               out, "--version", "0")
  # The same tokens in another order: as large as the run's, still wrong.
  with open(os.path.join(trial, finetuning_checkpoints.CONFIG_FILE)) as f:
    trained = json.load(f)["vocab_file"]
  with open(trained) as f:
    tokens = f.read().splitlines()
  tokens[20], tokens[21] = tokens[21], tokens[20]
  shuffled = tmp_path / "shuffled_vocab.txt"
  shuffled.write_text("\n".join(tokens) + "\n")
  assert (f"is not the vocab the model was trained with ({trained}, named in "
          f"the run's config): id 20 is {tokens[20]!r} there") in _error(
              capsys, "--model_dir", trial, "--export_dir", out,
              "--vocab_file", str(shuffled))
  assert not os.path.exists(out)
