"""Faults a careless user makes, against every command: one line, exit 2,
nothing written.

Each row runs a real command-line tool (in process) in a scratch directory
and checks the last line of stderr, the exit code, that no traceback is
printed and that the directory is as it was. A new command joins the table
with its faults; faults that need a trained model or a long run have their
own tests (tests/test_run_lock.py, tests/test_output_files.py,
tests/finetuning/test_cli_and_bad_input.py, tests/serving/).
"""

import dataclasses
import json
import os

import pytest

from electra_tf.cli import build_data
from electra_tf.cli import build_vocab
from electra_tf.cli import export
from electra_tf.cli import finetune
from electra_tf.cli import pretrain
from electra_tf.cli import study
from tests.data.conftest import DATA_BUILDER

VOCAB = os.path.join(DATA_BUILDER, "synthetic_vocab.txt")


@dataclasses.dataclass(frozen=True)
class Fault:
  tool: object  # a module of electra_tf.cli with main(argv)
  argv: tuple
  message: str  # expected in the last line of stderr


FAULTS = {
    "vocab: no input matches": Fault(
        build_vocab, ("--input", "nope/*.txt", "--output", "v.txt"),
        "error: no input files match nope/*.txt"),
    "vocab: output under a file": Fault(
        build_vocab, ("--input", "corpus/a.txt", "--output", "a_file/v.txt",
                      "--vocab_size", "200"),
        "error: cannot create a_file: a_file is not a directory"),
    "vocab: output exists": Fault(
        build_vocab, ("--input", "corpus/a.txt", "--output", "a_file",
                      "--vocab_size", "200"),
        "error: a_file exists; pass --overwrite to replace it"),
    "vocab: size below the reserved tokens": Fault(
        build_vocab, ("--input", "corpus/a.txt", "--output", "v.txt",
                      "--vocab_size", "50"),
        "error: vocab_size=50 leaves no room after the 104 reserved tokens"),
    "data: vocab missing": Fault(
        build_data, ("--input", "corpus/a.txt", "--vocab_file", "nope.txt",
                     "--output_dir", "d"),
        "error: vocab file not found: nope.txt"),
    "data: empty corpus": Fault(
        build_data, ("--input", "empty.txt", "--vocab_file", VOCAB,
                     "--output_dir", "d"),
        "error: empty corpus: empty.txt has no text to build examples from"),
    "data: output under a file": Fault(
        build_data, ("--input", "corpus/a.txt", "--vocab_file", VOCAB,
                     "--output_dir", "a_file/d"),
        "error: cannot create a_file/d: a_file is not a directory"),
    "data: length out of range": Fault(
        build_data, ("--input", "corpus/a.txt", "--vocab_file", VOCAB,
                     "--output_dir", "d", "--max_seq_length", "0"),
        "flag --max_seq_length=0: 0 is not integer >= 5"),
    "pretrain: negative learning rate": Fault(
        pretrain, ("--preset", "tiny", "--model_dir", "m", "--hparams",
                   '{"learning_rate": -1}'),
        "error: learning_rate must be >= 0.0, got -1"),
    "pretrain: mask_prob above 1": Fault(
        pretrain, ("--preset", "tiny", "--model_dir", "m", "--hparams",
                   '{"mask_prob": 1.5}'),
        "error: mask_prob must be in (0.0, 1.0), got 1.5"),
    "pretrain: batch of 0": Fault(
        pretrain, ("--preset", "tiny", "--model_dir", "m", "--hparams",
                   '{"train_batch_size": 0}'),
        "error: train_batch_size must be >= 1, got 0"),
    "pretrain: text given as TFRecords": Fault(
        pretrain, ("--preset", "tiny", "--model_dir", "m", "--train_data",
                   "corpus/a.txt"),
        "error: cannot read TFRecord shard corpus/a.txt: corrupted record at "
        "0 (Is this even a TFRecord file?)"),
    "pretrain: eval without eval data": Fault(
        pretrain, ("--preset", "tiny", "--model_dir", "m", "--mode", "eval"),
        "error: no eval data: give --train_data/--eval_data, --data_dir or "
        "pretrain_tfrecords in --hparams"),
    "finetune: unknown task": Fault(
        finetune, ("--preset", "tiny", "--task_names", "sts2",
                   "--model_dir", "f"),
        "error: unknown finetuning task 'sts2'; known: cola, sst, mrpc, sts"),
    "finetune: task spec file missing": Fault(
        finetune, ("--preset", "tiny", "--task_names", "missing_spec.json",
                   "--model_dir", "f"),
        "error: task spec file not found: missing_spec.json"),
    "finetune: no data dir": Fault(
        finetune, ("--preset", "tiny", "--task_names", "sst",
                   "--model_dir", "f"),
        "error: no raw_data_dir, vocab_file: give a data dir (--data_dir) or "
        "set them in the hparams"),
    "export: model dir without checkpoints": Fault(
        export, ("--model_dir", "empty_model_dir", "--export_dir", "e"),
        "error: no checkpoint in directory empty_model_dir"),
    "export: no export dir": Fault(
        export, ("--model_dir", "empty_model_dir"),
        "error: no --export_dir given"),
    "study: config missing": Fault(
        study, ("--config", "nope.json", "--output_dir", "s"),
        "error: study config file not found: nope.json"),
    "study: misspelt key": Fault(
        study, ("--config", "misspelt_study.json", "--output_dir", "s"),
        "error: unknown study key 'objectivs'; did you mean 'objectives'?"),
}


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
  root = tmp_path_factory.mktemp("faults")
  (root / "corpus").mkdir()
  (root / "corpus" / "a.txt").write_text(
      "the cat sat on the mat.\nthe dog sat too.\n\n" * 50)
  (root / "empty.txt").write_text("")
  (root / "a_file").write_text("not a directory")
  (root / "empty_model_dir").mkdir()
  (root / "misspelt_study.json").write_text(
      json.dumps({"corpus": ["corpus/*.txt"], "objectivs": {}}))
  return root


def _tree(root):
  return sorted((os.path.relpath(os.path.join(folder, name), root),
                 os.path.getsize(os.path.join(folder, name)))
                for folder, dirs, files in os.walk(root)
                for name in files + dirs)


@pytest.mark.parametrize("name", list(FAULTS))
def test_a_fault_is_one_line_and_writes_nothing(name, workdir, monkeypatch,
                                                capsys):
  fault = FAULTS[name]
  monkeypatch.chdir(workdir)
  before = _tree(workdir)
  code = fault.tool.main([fault.tool.NAME, *fault.argv])
  err = [line for line in capsys.readouterr().err.splitlines()
         if line.strip()]
  assert code == 2, err
  assert not any("Traceback" in line for line in err), err
  assert err[-1].startswith(f"{fault.tool.NAME}: "), err[-1]
  assert fault.message in err[-1], err[-1]
  assert _tree(workdir) == before
