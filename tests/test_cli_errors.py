"""Bad input at the command line: one line naming the item, exit code 2."""

import json
import os

import pytest

from electra_tf.cli import pretrain
from tests.conftest import load_golden
from tests.training.conftest import write_records

TINY = {"vocab_size": 1500, "embedding_size": 32, "max_seq_length": 16,
        "num_train_steps": 1, "jit_compile": False,
        "model_hparam_overrides": {"num_hidden_layers": 2, "hidden_size": 64,
                                   "num_attention_heads": 4,
                                   "intermediate_size": 256}}


def _error(capsys, *args):
  code = pretrain.main(["electra-pretrain", *args])
  err = capsys.readouterr().err.strip().splitlines()
  assert code == 2
  return err[-1]


@pytest.mark.parametrize("args,message", [
    (["--hparams", '{"mask_probb": 0.2}', "--model_dir", "m"],
     "unknown pretraining hparam 'mask_probb'; did you mean 'mask_prob'?"),
    (["--preset", "electra_smal", "--model_dir", "m"],
     "no pretrain preset named 'electra_smal'; did you mean 'electra_small'?"),
    (["--hparams", "{not json", "--model_dir", "m"],
     "hparams is not valid JSON"),
    (["--preset", "tiny", "--model_dir", "m", "--train_data",
      "/nonexistent/*.tfrecord"], "no TFRecord files match"),
    # The original's TPU keys are honoured or refused, never ignored.
    (["--preset", "tiny", "--model_dir", "m", "--hparams",
      '{"use_tpu": true}'], "use_tpu is true but no TPU is named"),
    (["--preset", "tiny", "--model_dir", "m", "--hparams",
      '{"num_tpu_cores": 8}'], "num_tpu_cores=8 is set but the run is not "
     "on a TPU"),
    # As the original: a run that neither trains nor evaluates is refused.
    (["--preset", "tiny", "--model_dir", "m", "--hparams",
      '{"do_train": false, "do_eval": false}'],
     "do_train and do_eval are both false: nothing to do"),
])
def test_config_and_data_errors(capsys, args, message):
  line = _error(capsys, *args)
  assert line.startswith("electra-pretrain: error:") and message in line


def test_init_checkpoint_of_another_config(capsys, tmp_path):
  shard = write_records(str(tmp_path / "d.tfrecord"), 20)
  other = load_golden("tiny_noproj_gen1_mask25_T05_disallow").init_checkpoint
  line = _error(capsys, "--hparams", json.dumps(TINY), "--train_data", shard,
                "--model_dir", str(tmp_path / "m"), "--init_checkpoint", other,
                "--peak_tflops", "1")
  assert "does not match the model config" in line
  assert "electra/embeddings/word_embeddings (checkpoint [1500, 48]" in line
  assert not os.path.exists(str(tmp_path / "m" / "checkpoint"))


def test_eval_of_a_model_dir_without_checkpoints_is_refused(capsys,
                                                          tmp_path):
  shard = write_records(str(tmp_path / "d.tfrecord"), 20)
  line = _error(capsys, "--hparams", json.dumps(TINY), "--eval_data", shard,
                "--model_dir", str(tmp_path / "empty"), "--mode", "eval")
  assert "nothing to evaluate: no checkpoint in" in line


def test_help_lists_every_flag(capsys):
  assert pretrain.main(["electra-pretrain", "--help"]) == 0
  out = capsys.readouterr().out
  for flag in ("--preset", "--hparams", "--data_dir", "--model_name",
               "--train_data", "--tpu", "--init_checkpoint", "--demo"):
    assert flag in out
