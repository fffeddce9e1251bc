"""Fixtures: one finetuned model per task type, exported once, and one fresh
process that runs every signature of every export (`fresh_process.py`).

* sst (classification): trained on synthetic data by `electra-finetune
  --export_dir` (the CLI export path);
* sts (regression, sentence pairs): exported by `electra-export`;
* squad (2.0, joint prediction, answerable classifier) and chunk (tagging):
  exported by `run_export.export_finetuned`.
The last three are seeded random models in trial dirs laid out as finetuning
leaves them, with BERT's uncased vocab.
"""

import dataclasses
import json
import os
import subprocess
import sys

import keras
import numpy as np
import pytest
import tensorflow as tf

from electra_tf.cli import export as export_cli
from electra_tf.cli import finetune as finetune_cli
from electra_tf.finetuning import checkpoints
from electra_tf.finetuning import model as model_lib
from electra_tf.finetuning.config import FinetuningConfig
from electra_tf import run_export
from tests.finetuning import synthetic_tasks
from tests.serving import cases

ENCODER = {"hidden_size": 32, "num_hidden_layers": 1, "num_attention_heads": 2,
           "intermediate_size": 64}
SEED = 7
TASK_HPARAMS = {
    "sts": {"max_seq_length": 48},
    "squad": {"max_seq_length": 40, "max_query_length": 10, "doc_stride": 12,
              "beam_size": 5, "n_best_size": 7, "max_answer_length": 6},
    "chunk": {"max_seq_length": 64},
}
CHUNK_LABELS = ("B-NP", "B-PP", "B-VP", "E-NP", "O", "S-NP", "S-VP")
ID_ARGS = ("input_ids", "input_mask", "segment_ids")
TAGGING_ID_ARGS = ID_ARGS + ("labeled_positions", "labels_mask")
SIGNATURE_CASES = {"text": "serving_default", "ids": "serve_token_ids",
                   "examples": "serve_examples"}
OUT_OF_VOCAB_ID = 10 ** 6


@dataclasses.dataclass
class Export:
  """An exported task and the in-memory model it came from."""
  path: str
  model: keras.Model
  config: FinetuningConfig
  task: object
  trial_dir: str

  @property
  def settings(self):
    return self.config.data_settings

  @property
  def vocab_file(self):
    return self.config.vocab_file


def make_trial(root, task_name, label_lists=None, **hparams):
  """A seeded random finetuned model saved as a finetuning trial dir.

  `task_name` may list several tasks ("sst,sts").
  """
  config = FinetuningConfig.from_hparams({
      "task_names": task_name, "vocab_size": 30522, "embedding_size": 16,
      "model_hparam_overrides": ENCODER, "vocab_file": cases.VOCAB,
      "model_dir": os.path.join(root, task_name + "_model"), **hparams})
  keras.utils.set_random_seed(SEED)
  model = model_lib.build_finetuning_model(config, label_lists)
  trial = config.trial_model_dir(1)
  checkpoints.record_run(trial, config, label_lists or {})
  tf.train.CheckpointManager(tf.train.Checkpoint(model=model), trial, 1,
                             checkpoint_name="ckpt").save(checkpoint_number=1)
  return trial


@pytest.fixture(scope="session")
def sst_run(tmp_path_factory):
  """Synthetic SST finetuned and exported by the CLI."""
  root = tmp_path_factory.mktemp("sst_run")
  data_dir = str(root / "data")
  synthetic_tasks.write_tasks(data_dir, {"train": 32, "dev": 8},
                              tasks=("sst",))
  synthetic_tasks.save_pretrained_model(data_dir)
  hparams = synthetic_tasks.finetune_hparams(
      task_names=["sst"], learning_rate=2e-3, num_train_epochs=1.0,
      max_seq_length=16, train_batch_size=8)
  export_dir = str(root / "export")
  code = finetune_cli.main([
      "finetune", "--data-dir", data_dir, "--model-name",
      synthetic_tasks.MODEL_NAME, f"--hparams={json.dumps(hparams)}",
      "--export_dir", export_dir])
  assert code == 0
  pretrained = os.path.join(data_dir, "models", synthetic_tasks.MODEL_NAME)
  return {"export_dir": export_dir, "pretrained": pretrained,
          "trial_dir": os.path.join(pretrained, "finetuning_models",
                                    "sst_model_1")}


@pytest.fixture(scope="session")
def exports(tmp_path_factory, sst_run):
  root = str(tmp_path_factory.mktemp("task_exports"))
  trials = {"sst": sst_run["trial_dir"]}
  paths = {"sst": os.path.join(sst_run["export_dir"], "sst", "1")}
  trials["sts"] = make_trial(root, "sts", **TASK_HPARAMS["sts"])
  assert export_cli.main(["electra-export", "--model_dir", trials["sts"],
                          "--export_dir", os.path.join(root, "sts")]) == 0
  paths["sts"] = os.path.join(root, "sts", "1")
  trials["squad"] = make_trial(root, "squad", **TASK_HPARAMS["squad"])
  trials["chunk"] = make_trial(root, "chunk", {"chunk": CHUNK_LABELS},
                               **TASK_HPARAMS["chunk"])
  for name in ("squad", "chunk"):
    paths[name] = run_export.export_finetuned(trials[name],
                                                os.path.join(root, name))
  result = {}
  for name, trial in trials.items():
    model, config, task = checkpoints.load_finetuned_model(trial)
    result[name] = Export(paths[name], model, config, task, trial)
  return result


class Plan:
  """Inputs and calls for one run of `fresh_process.py`."""

  def __init__(self, directory):
    self.directory = directory
    self.inputs_file = os.path.join(directory, "inputs.npz")
    self.inputs, self.calls, self.cli = {}, [], []

  def call(self, call_id, export, signature, arrays):
    keys = {}
    for arg, value in arrays.items():
      keys[arg] = f"{call_id}.{arg}"
      self.inputs[keys[arg]] = value
    self.calls.append({"id": call_id, "dir": export.path,
                       "signature": signature, "args": keys})
    return keys

  def cli_run(self, run_id, export, signature, keys):
    outdir = os.path.join(self.directory, run_id.replace(".", "_"))
    inputs = ";".join(f"{arg}={self.inputs_file}[{key}]"
                      for arg, key in keys.items())
    self.cli.append({"id": run_id, "outdir": outdir, "argv": [
        "run", "--dir", export.path, "--tag_set", "serve", "--signature_def",
        signature, "--inputs", inputs, "--outdir", outdir, "--overwrite"]})

  def run(self):
    np.savez(self.inputs_file, **self.inputs)
    plan = {"inputs": self.inputs_file, "calls": self.calls, "cli": self.cli,
            "outputs": os.path.join(self.directory, "outputs.npz"),
            "report": os.path.join(self.directory, "report.json")}
    plan_file = os.path.join(self.directory, "plan.json")
    with open(plan_file, "w") as f:
      json.dump(plan, f)
    subprocess.run([sys.executable, "-m", "tests.serving.fresh_process",
                    plan_file], check=True, cwd=ROOT,
                   env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"})
    with open(plan["report"]) as f:
      report = json.load(f)
    outputs = dict(np.load(plan["outputs"], allow_pickle=True))
    return Served(self.inputs, outputs, report["errors"], report["stdout"])


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


@dataclasses.dataclass
class Served:
  """What the fresh process returned: `outputs(call_id)` per call."""
  inputs: dict
  all_outputs: dict
  errors: dict
  stdout: dict

  def outputs(self, call_id):
    prefix = call_id + ":"
    return {key[len(prefix):]: value for key, value in self.all_outputs.items()
            if key.startswith(prefix)}

  def input(self, call_id, arg):
    return self.inputs[f"{call_id}.{arg}"]


def _add_task_calls(plan, name, export):
  texts = [np.array(column, dtype=object) for column in cases.BASIC[name]]
  arg_names = cases.TEXT_ARGS[name]
  per_example = cases.finetuning_features(export.task, export.settings, texts,
                                          export.vocab_file)
  features = cases.stacked(export.task, export.settings, per_example)
  id_args = TAGGING_ID_ARGS if name == "chunk" else ID_ARGS
  keys = {
      "text": plan.call(f"{name}.text", export, "serving_default",
                        dict(zip(arg_names, texts))),
      "ids": plan.call(f"{name}.ids", export, "serve_token_ids", {
          arg: features[arg].astype(
              np.float32 if arg == "labels_mask" else np.int32)
          for arg in id_args}),
      "examples": plan.call(f"{name}.examples", export, "serve_examples",
                            {"examples": features["examples"]})}
  for case, signature in SIGNATURE_CASES.items():
    plan.cli_run(f"cli.{name}.{case}", export, signature, keys[case])
  plan.cli.append({"id": f"show.{name}",
                   "argv": ["show", "--all", "--dir", export.path]})
  if name != "sst":
    plan.call(f"{name}.golden", export, "serving_default", dict(zip(
        arg_names, [np.array(c, dtype=object)
                    for c in cases.golden_inputs(name)])))
  for case, bad in cases.BAD_TEXTS.items():
    plan.call(f"{name}.bad.{case}", export, "serving_default",
              dict(zip(arg_names, cases.bad_inputs(bad))))
  ids = plan.inputs[keys["ids"]["input_ids"]].copy()
  ids[0, 1] = OUT_OF_VOCAB_ID
  plan.call(f"{name}.bad.out_of_vocab_id", export, "serve_token_ids", {
      arg: ids if arg == "input_ids" else plan.inputs[key]
      for arg, key in keys["ids"].items()})


@pytest.fixture(scope="session")
def served(exports, tmp_path_factory):
  """Every signature of every export, run in one fresh process."""
  plan = Plan(str(tmp_path_factory.mktemp("fresh_process")))
  for name, export in exports.items():
    _add_task_calls(plan, name, export)
  return plan.run()
