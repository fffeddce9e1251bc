"""Where finetuning starts from, and the finetuned model export loads.

Each trial t trains in `<model_dir>_<t>` (the original's layout) and starts:
  1. from the latest checkpoint there (a resumed run; a finished trial is
     not trained again);
  2. else from `init_checkpoint`, a checkpoint prefix or a directory
     holding one, encoder weights only:
     * ours (object-based): a pretraining run's `ElectraPretrainer` or a
       finetuning run's model, both of which hold the encoder as
       `model/electra_encoder`;
     * the original's (TF1 names): the discriminator's `electra/...`
       variables; the generator, the pretraining heads, task heads and
       optimizer slots are ignored;
  3. else from scratch.
A trial dir holds `ckpt-<step>` (model, optimizer and dropout states),
`finetuning_config.json` and `labels.json` (label lists of tagging tasks);
`load_finetuned_model` rebuilds the model from them for export.
"""

import os

import tensorflow as tf

from electra_tf import errors
from electra_tf.checkpoints import object_format
from electra_tf.checkpoints import original_format
from electra_tf.checkpoints import run_records
from electra_tf.checkpoints import tf1_names
from electra_tf.finetuning import config as config_lib
from electra_tf.finetuning import model as model_lib

CONFIG_FILE = "finetuning_config.json"
LABELS_FILE = "labels.json"
TRIAL_FILE = "trial_settings.json"
# Keys that do not change what a trial trains (how it is evaluated, logged,
# placed or how many other trials run).
NOT_TRAINING_KEYS = (
    "do_eval", "num_trials", "keep_all_models", "log_examples",
    "write_test_outputs", "n_writes_test", "eval_batch_size",
    "predict_batch_size", "results_txt", "results_pkl", "qa_eval_file",
    "qa_preds_file", "qa_na_file", "test_predictions", "model_dir",
    "preprocessed_data_dir", "use_tfrecords_if_existing", "log_every_steps",
    "iterations_per_loop", "eval_test", "n_best_size", "max_answer_length",
    "qa_na_threshold", "tpu_name", "tpu_zone", "gcp_project", "data_dir",
    "raw_data_dir")
def load_encoder(encoder, path):
  """Loads encoder weights from one of our checkpoints or an original one.

  Returns a description for the log. Raises `CheckpointError` when the
  checkpoint lacks an encoder variable or holds it with another shape.
  """
  prefix = object_format.resolve(path)
  if object_format.is_object_checkpoint(prefix):
    object_format.read_model_parts(
        prefix, f"checkpoint {prefix} holds no encoder of this config",
        electra_encoder=encoder)
    return f"encoder from {prefix}"
  table = tf1_names.encoder_variables(encoder, model_lib.TF1_ENCODER_SCOPE)
  original_format.load_by_table(prefix, table, "the encoder config",
                                allow_unexpected=True)
  return f"{len(table)} original encoder variables from {prefix}"


def trial_settings(config, seed, data_fingerprint):
  """What a trial's model depends on: the config's training keys, its seed
  and the training data's fingerprint."""
  settings = {k: v for k, v in config.to_dict().items()
              if k not in NOT_TRAINING_KEYS}
  settings.update(trial_seed=seed, data=data_fingerprint)
  return run_records.normalised(settings)


def claim_trial(model_dir, settings, overwrite=False):
  """Checks a trial dir against the settings it was trained with.

  A new dir records `settings`; a dir of the same settings resumes (or is
  reused when finished); a dir of other settings is refused naming the
  keys that differ, unless `overwrite`, which wipes it first (as the
  original always did).
  """
  run_records.claim(model_dir, TRIAL_FILE, settings, "a trial",
                    "pass --overwrite to retrain it, or use another "
                    "model_dir", overwrite)


def record_run(model_dir, config, label_lists):
  """Writes config and labels; refuses a dir made for another model."""
  current = config.to_dict()
  run_records.refuse_other_model(model_dir, CONFIG_FILE, current,
                                 config_lib.ARCHITECTURE_KEYS)
  run_records.write_json(os.path.join(model_dir, CONFIG_FILE), current)
  run_records.write_json(os.path.join(model_dir, LABELS_FILE),
                         {k: list(v) for k, v in label_lists.items()})


def load_finetuned_model(path, task_name=None, dtype=None):
  """Rebuilds a finetuned model and loads its weights (for export).

  Args:
    path: a trial's model dir (its latest checkpoint is used) or a
      checkpoint prefix inside one.
    task_name: the task to return; may be omitted for single-task runs.
    dtype: Keras dtype policy of the rebuilt model (float32 by default).

  Returns:
    (model, config, task): the `FinetuningModel` (all heads of the run),
    its `FinetuningConfig` and the `Task` named `task_name`.
  """
  prefix = object_format.resolve(path)
  model_dir = os.path.dirname(prefix)
  saved = {}
  for name in (CONFIG_FILE, LABELS_FILE):
    saved[name] = run_records.read_json(os.path.join(model_dir, name))
    if saved[name] is None:
      raise errors.CheckpointError(
          f"{os.path.join(model_dir, name)} not found next to {prefix}")
  config = config_lib.FinetuningConfig.from_hparams(saved[CONFIG_FILE])
  if task_name is None:
    if len(config.task_names) != 1:
      raise errors.ConfigError(f"{prefix} was finetuned on "
                               f"{list(config.task_names)}; name a task")
    task_name = config.task_names[0]
  if task_name not in config.task_names:
    raise errors.ConfigError(f"{prefix} has no head for {task_name!r}; it "
                             f"has {list(config.task_names)}")
  model = model_lib.build_finetuning_model(config, saved[LABELS_FILE], dtype)
  object_format.read_strictly(tf.train.Checkpoint(model=model), prefix,
                              f"cannot restore {prefix}")
  return model, config, config.task(task_name)
