"""Exporting what a run left behind: finetuned task heads, or the encoder.

* A finetuning trial dir (`finetuning_config.json`, `labels.json`,
  `ckpt-<step>`): one SavedModel per task head (`export_finetuned`), with
  the serving module of the task's family (`Task.serving_module`).
* A pretraining run's model dir (`config.json`, `ckpt-<step>`): the
  discriminator encoder (`export_pretraining_run`, via `export_encoder`).
It sits above `finetuning` and `serving`, the one module that knows both
kinds of run. Each export is a new version `<export_dir>/<n>/` (see
`serving/export.py`), with `assets.extra/config.json` recording what was
exported from where.
"""

import json
import os

import tensorflow as tf

from electra_tf import config as config_lib
from electra_tf import errors
from electra_tf.checkpoints import object_format
from electra_tf.finetuning import checkpoints
from electra_tf.pretraining import model as pretraining_model
from electra_tf.serving import encoder_module
from electra_tf.serving import export
from electra_tf.tokenization import special_tokens
from electra_tf.tokenization import vocab_files
from electra_tf.training import checkpointing

FINETUNED_KIND = "electra_finetuned"


def checked_vocab_file(vocab_file, vocab_size, recorded=None):
  """`vocab_file` if it exists, fits the embedding and (when the run's
  recorded vocab file `recorded` is still there) holds the same tokens;
  else `ConfigError`."""
  vocab_file = vocab_file or recorded
  if not vocab_file:
    raise errors.ConfigError("no vocab file: the run's config names none; "
                             "pass one (--vocab_file)")
  if not tf.io.gfile.exists(vocab_file):
    raise errors.ConfigError(f"vocab file {vocab_file} not found")
  vocab = vocab_files.load_vocab(vocab_file)
  vocab_files.check_fits(vocab, vocab_size, vocab_file,
                         "the model embeds no more; pass its own vocab")
  if recorded and recorded != vocab_file and tf.io.gfile.exists(recorded):
    _check_same_tokens(vocab, vocab_files.load_vocab(recorded), vocab_file,
                       recorded)
  return vocab_file


def _check_same_tokens(vocab, trained, vocab_file, recorded):
  by_id = {i: token for token, i in vocab.items()}
  trained_by_id = {i: token for token, i in trained.items()}
  for i in range(max(len(by_id), len(trained_by_id))):
    if by_id.get(i) != trained_by_id.get(i):
      raise errors.ConfigError(
          f"vocab file {vocab_file} is not the vocab the model was trained "
          f"with ({recorded}, named in the run's config): id {i} is "
          f"{by_id.get(i)!r} there and {trained_by_id.get(i)!r} in the "
          "run's")


def export_task(model, config, task, export_dir, vocab_file=None,
                labels=None, version=None, source=None, jit_compile=True):
  """Exports `task`'s head of an in-memory `FinetuningModel`.

  Args:
    model, config: the model and its `FinetuningConfig`.
    task: the `Task` to serve.
    export_dir: TF Serving model dir; a new version is written in it.
    vocab_file: default `config.vocab_file`.
    labels: the labels the run read from the data (its labels.json).
    version: version number (default: the next one).
    source: the checkpoint exported, recorded in the config asset.
    jit_compile: run encoder and head with XLA (see
      `task_module.TaskServingModule`).

  Returns:
    The path of the new version.
  """
  vocab_file = checked_vocab_file(vocab_file,
                                  config.encoder_config.vocab_size,
                                  recorded=config.vocab_file)
  module = task.serving_module(model, config, vocab_file, labels,
                               jit_compile)
  description = {
      "kind": FINETUNED_KIND, "task": task.name, "jit_compile": jit_compile,
      "task_type": task.task_type.value, "checkpoint": source,
      "labels": list(labels or task.labels or []),
      "signatures": sorted(module.signatures()),
      "finetuning_config": config.to_dict()}
  return export.write_saved_model(module, export_dir, module.signatures(),
                                  description, vocab_file=vocab_file,
                                  version=version)


def export_finetuned(model_path, export_dir, task_name=None, vocab_file=None,
                     version=None, jit_compile=True):
  """Exports one task head of a finetuning trial (dir or checkpoint prefix).

  `task_name` may be omitted for a single-task run. Returns the new
  version's path.
  """
  prefix = object_format.resolve(model_path)
  model, config, task = checkpoints.load_finetuned_model(prefix, task_name)
  with tf.io.gfile.GFile(os.path.join(os.path.dirname(prefix),
                                      checkpoints.LABELS_FILE)) as f:
    labels = json.load(f).get(task.name)
  return export_task(model, config, task, export_dir, vocab_file, labels,
                     version, source=prefix, jit_compile=jit_compile)


def export_finetuning_run(config, export_dir, vocab_file=None,
                          jit_compile=True):
  """Exports every task of every trial left by `run_finetuning(config)`.

  Task t of trial i goes to `<export_dir>/<t>/` as a new version, in trial
  order (trials removed by `keep_all_models=False` are skipped). Returns
  {task name: [version paths]}.
  """
  paths = {name: [] for name in config.task_names}
  for trial in range(1, config.num_trials + 1):
    model_dir = config.trial_model_dir(trial)
    if not tf.train.latest_checkpoint(model_dir):
      continue
    for name in config.task_names:
      paths[name].append(export_finetuned(
          model_dir, os.path.join(export_dir, name), name, vocab_file,
          jit_compile=jit_compile))
  return paths


def export_pretraining_run(model_path, export_dir, vocab_file=None,
                           version=None, jit_compile=True):
  """Exports the discriminator of a pretraining run (dir or checkpoint).

  The run's `config.json` (next to the checkpoint) rebuilds the model.
  """
  prefix = object_format.resolve(model_path)
  config_file = os.path.join(os.path.dirname(prefix),
                             checkpointing.CONFIG_FILE)
  if not tf.io.gfile.exists(config_file):
    raise errors.CheckpointError(f"{config_file} not found next to {prefix}")
  config = config_lib.PretrainingConfig.from_hparams(config_file)
  vocab_file = checked_vocab_file(vocab_file, config.vocab_size,
                                  recorded=config.vocab_file)
  model = pretraining_model.ElectraPretrainer(
      config, special_ids=special_tokens.SpecialTokenIds.from_vocab_file(
          vocab_file))
  model.build()
  object_format.read_strictly(tf.train.Checkpoint(model=model), prefix,
                              f"cannot restore {prefix}")
  return encoder_module.export_encoder(model, vocab_file, export_dir, version,
                                       jit_compile)


def export_model_dir(model_path, export_dir, task_name=None, vocab_file=None,
                     version=None, jit_compile=True):
  """Exports a finetuning trial's task head or a pretraining run's encoder,
  whichever `model_path` (a dir or checkpoint prefix) holds."""
  prefix = object_format.resolve(model_path)
  folder = os.path.dirname(prefix)
  if tf.io.gfile.exists(os.path.join(folder, checkpoints.CONFIG_FILE)):
    return export_finetuned(prefix, export_dir, task_name, vocab_file,
                            version, jit_compile)
  if task_name:
    raise errors.ConfigError(f"{folder} is a pretraining run (no "
                             f"{checkpoints.CONFIG_FILE}); it has no task "
                             f"{task_name!r} to export")
  return export_pretraining_run(prefix, export_dir, vocab_file, version,
                                jit_compile)
