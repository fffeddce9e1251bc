"""A study's finetuning tasks and the finetuning config of each sub-run.

Tasks are built-in names or own-data specs; relative paths in specs are
taken against the study's `data_dir`. Every split of every task is read
once when the study starts, so a bad file stops it in seconds rather than
after hours of pretraining.
"""

import dataclasses
import os

from electra_tf import errors
from electra_tf import hparams as hparams_lib
from electra_tf.finetuning import config as finetuning_config
from electra_tf.finetuning import own_tasks
from electra_tf.finetuning import registry
from electra_tf.finetuning import task_spec
from electra_tf.finetuning import tasks as tasks_lib
from electra_tf.modeling import sizes

SPLITS = (tasks_lib.TRAIN, tasks_lib.DEV, tasks_lib.TEST)


@dataclasses.dataclass(frozen=True)
class StudyTask:
  """A task, the `task_names` entry that names it, and its split sizes."""
  entry: object  # a built-in name or a resolved spec dict
  task: tasks_lib.Task
  num_examples: dict  # split -> examples

  @property
  def name(self):
    return self.task.name


def data_root(study):
  """What the built-in tasks' readers take (`<data_dir>` holding
  `finetuning_data/`); own-data tasks ignore it."""
  return os.path.abspath(study.data_dir or ".")


def _absolute_entry(study, entry):
  if isinstance(entry, dict):
    entry = dict(entry)
    files = entry.get("files")
    if isinstance(files, str):
      entry["files"] = study.path(files)
    elif isinstance(files, dict):
      entry["files"] = {k: study.path(v) for k, v in files.items()}
    return entry
  if task_spec.is_spec(entry):
    return study.path(entry)
  return entry


def resolve_tasks(study):
  """{name: StudyTask} of the study's tasks, every split read once."""
  resolved = {}
  for entry in study.tasks:
    if not isinstance(entry, (str, dict)):
      raise errors.ConfigError(f"study task {entry!r} is neither a task name"
                               " nor a task spec")
    entry = _absolute_entry(study, entry)
    if task_spec.is_spec(entry):
      entry = own_tasks.resolve_spec(entry)
      task = own_tasks.task_from_spec(entry)
    else:
      task = registry.get_task(entry)
    if task.name in resolved:
      raise errors.ConfigError(f"study tasks name {task.name!r} twice")
    if study.headline_split == tasks_lib.TEST and not (
        task.has_split(data_root(study), tasks_lib.TEST)
        and task.is_labeled(data_root(study), tasks_lib.TEST)):
      raise errors.ConfigError(
          f"study task {task.name} has no labelled test split to report; "
          "give one, or set \"headline_split\": \"dev\"")
    counts = {split: len(task.read_examples(data_root(study), split).examples)
              for split in SPLITS if task.has_split(data_root(study), split)}
    resolved[task.name] = StudyTask(entry, task, counts)
  return resolved


def finetune_config(study, pretrain_config, study_task, model_dir, seed,
                    init_checkpoint, feature_dir):
  """The `FinetuningConfig` of one sub-run: the study's finetuning recipe
  on the pretrained model's architecture, one task, one seed."""
  hparams = hparams_lib.preset_hparams(study.finetune_preset, "finetune")
  hparams.update(study.finetune_hparams)
  encoder = pretrain_config.discriminator_config
  hparams.update(
      task_names=[study_task.entry], model_size=pretrain_config.model_size,
      model_hparam_overrides=dict(pretrain_config.model_hparam_overrides),
      embedding_size=encoder.embedding_size,
      vocab_size=pretrain_config.vocab_size,
      vocab_file=pretrain_config.vocab_file,
      do_lower_case=pretrain_config.do_lower_case,
      init_checkpoint=init_checkpoint, model_dir=model_dir, num_trials=1,
      seed=seed, eval_test=study.headline_split == tasks_lib.TEST,
      preprocessed_data_dir=feature_dir)
  if study.data_dir and not isinstance(study_task.entry, dict):
    hparams["raw_data_dir"] = os.path.join(
        data_root(study), tasks_lib.RAW_DATA_FOLDER, "{:}")
  config = finetuning_config.FinetuningConfig.from_hparams(hparams)
  if config.encoder_config != encoder:
    raise errors.ConfigError(
        "the finetuning recipe builds another encoder than the pretrained "
        "one; remove architecture keys from finetune_hparams")
  return config


def finetune_cost(study_task, pretrain_config, num_train_epochs=None,
                  max_seq_length=None):
  """Estimated FLOPs of finetuning one seed (train, dev and test passes)."""
  task = study_task.task
  length = max_seq_length or task.default_max_seq_length
  forward = sizes.encoder_forward_flops(pretrain_config.discriminator_config,
                                        length)
  epochs = num_train_epochs or task.num_train_epochs
  counts = study_task.num_examples
  return forward * (3 * epochs * counts.get(tasks_lib.TRAIN, 0)
                    + counts.get(tasks_lib.DEV, 0)
                    + counts.get(tasks_lib.TEST, 0))
