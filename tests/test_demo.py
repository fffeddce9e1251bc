"""The newcomer's demo: resumable, and its export serves text."""

import glob
import gzip
import json
import logging
import os
import subprocess
import sys

from electra_tf.cli import demo
from electra_tf.cli import pretrain
from tests.conftest import TESTDATA
from tests.conftest import folder_bytes

HPARAMS = {"num_train_steps": 20, "iterations_per_loop": 5,
           "save_checkpoints_steps": 5, "train_batch_size": 8,
           "eval_batch_size": 8, "max_seq_length": 32, "num_warmup_steps": 2,
           "jit_compile": False}
SCORE = """
import sys, tensorflow as tf, tensorflow_text
model = tf.saved_model.load(sys.argv[1])
out = model.signatures["serving_default"](
    text=tf.constant(["The quick brown fox.", "Another sentence here."]))
print(out["rtd_probs"].shape[0], float(tf.reduce_max(out["rtd_probs"])))
"""


def _text_files(folder):
  with gzip.open(os.path.join(TESTDATA, "data_builder", "text.txt.gz"),
                 "rt") as f:
    lines = f.read().splitlines()
  paths = []
  for i in range(3):
    path = os.path.join(folder, f"part{i}.txt")
    with open(path, "w") as f:
      f.write("\n".join(lines[i::3]) + "\n")
    paths.append(path)
  return os.path.join(folder, "part*.txt")


def _run(demo_dir, text, *extra):
  return pretrain.main(["pretrain.py", "--demo", "--demo_dir", demo_dir,
                        "--text", text, "--hparams", json.dumps(HPARAMS),
                        *extra])


def test_demo_resumes_and_exports_a_model_that_scores_text(
    tmp_path, caplog, capsys):
  text = _text_files(str(tmp_path))
  demo_dir = str(tmp_path / "demo")
  assert _run(demo_dir, text, "--max_seconds", "0") == 0  # an interruption
  assert "stopped early" in capsys.readouterr().out
  assert os.path.exists(os.path.join(demo_dir, "model", "ckpt-5.index"))
  with caplog.at_level(logging.INFO):
    assert _run(demo_dir, text) == 0
  assert any("resumed from" in r.getMessage() and "ckpt-5" in r.getMessage()
             for r in caplog.records)
  report = capsys.readouterr().out
  assert "ELECTRA demo: step 20" in report and "SavedModel:" in report
  assert "pretraining health:" in report
  assert "replaced-word check: the model ranks the swapped word first in" in (
      report)
  export = os.path.join(demo_dir, "export", "1")
  scored = subprocess.run([sys.executable, "-c", SCORE, export], check=True,
                          capture_output=True, text=True,
                          env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"})
  count, top = scored.stdout.split()
  assert int(count) == 2 and 0.0 < float(top) < 1.0
  # A third run reuses everything and exports nothing new.
  assert _run(demo_dir, text) == 0
  assert sorted(os.listdir(os.path.join(demo_dir, "export")))[0] == "1"
  assert not os.path.exists(os.path.join(demo_dir, "export", "2"))


def test_the_demo_data_is_the_same_on_any_core_count(tmp_path, monkeypatch):
  files = sorted(glob.glob(_text_files(str(tmp_path))))
  vocab = os.path.join(TESTDATA, "bert_uncased_vocab.txt")
  built = []
  for cores in (1, 2, 8):
    monkeypatch.setattr(os, "cpu_count", lambda cores=cores: cores)
    folder = str(tmp_path / f"data{cores}")
    assert len(demo._dataset(folder, files, vocab, 64)) == 3  # pylint: disable=protected-access
    built.append(folder_bytes(folder))
  assert built[0] == built[1] == built[2]


def test_the_report_gives_the_health_verdict():
  summary = {"step": 2000, "vocab": "v", "train_data": "t", "model_dir": "m",
             "checkpoint": "m/ckpt-2000", "export": "e/1", "probe": []}
  healthy = {"disc_auc": 0.9, "disc_loss_gain": 0.3, "cls_cosine": 0.98,
             "masked_lm_accuracy": 0.2, "sampled_masked_lm_accuracy": 0.1}
  lines = demo.report({**summary, "eval": healthy})
  assert "  pretraining health: healthy" in lines
  collapsed = dict(healthy, disc_loss_gain=0.01, disc_token_loss=0.366,
                   replaced_entropy=0.370, cls_cosine=0.9999)
  line = next(l for l in demo.report({**summary, "eval": collapsed})
              if "pretraining health" in l)
  assert "only 1.0% below the replacement-rate entropy 0.370" in line
  assert "mean cosine 0.9999" in line


def test_an_objective_without_a_detector_is_refused_before_training(
    tmp_path, capsys):
  text = _text_files(str(tmp_path))
  demo_dir = str(tmp_path / "demo")
  code = pretrain.main(["pretrain.py", "--demo", "--demo_dir", demo_dir,
                        "--text", text, "--hparams",
                        json.dumps({**HPARAMS, "objective": "mlm"})])
  err = capsys.readouterr().err.strip().splitlines()
  assert code == 2 and len(err) == 1, err
  assert "objective 'mlm' trains none" in err[0]
  assert not os.path.exists(os.path.join(demo_dir, "model"))
