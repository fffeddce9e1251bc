"""FinetuningConfig: the original finetuning hparams, derived as the original.

Every key of the original `configure_finetuning.FinetuningConfig` is
accepted under its name. Values are derived in the original's order:

  1. defaults; 2. paths under `data_dir` (see `_data_dir_paths`);
  3. the passed hparams; 4. single-task defaults (epochs 10 for RTE/STS,
  length 512 and 2 epochs for SQuAD and the MRQA tasks but `naturalqs`,
  length 256 for chunking, else 3 epochs; from the task registry);
  5. model-size defaults (large: lr 5e-5, layer-wise decay 0.9; small:
  embedding size 128); 6. debug settings;
  7. the passed hparams again, so a passed value always wins.

Known quirks of the original's order, and what happens here:

  * Paths were derived before the hparams were applied, so a `data_dir`,
    `model_name` or `debug` inside the hparams did not move them, and
    `init_checkpoint` was the pretrained model dir even with `debug`
    (whose different model then could not load it). Here paths are derived
    from the final values and `debug` starts from scratch unless
    `init_checkpoint` is passed.
  * Per-task defaults apply to single-task runs only: a multi-task run
    including SQuAD keeps `max_seq_length` 128 and 3 epochs (reproduced).
  * Setting `write_distill_outputs` for SQuAD made that key look valid
    although passing it failed; it is not a key here.

Path keys that were format functions (`raw_data_dir`, `qa_*_file`,
`test_predictions`) are strings with `{:}` placeholders.
"""

import dataclasses
import os
from typing import Any, Mapping, Optional

import tensorflow as tf

from electra_tf import config as config_lib
from electra_tf import errors
from electra_tf import hparams as hparams_lib
from electra_tf.finetuning import layerwise_lr
from electra_tf.finetuning import own_tasks
from electra_tf.finetuning import registry
from electra_tf.finetuning import task_spec
from electra_tf.finetuning import tasks as tasks_lib
from electra_tf.training import checkpointing

LARGE_LEARNING_RATE = 5e-5
LARGE_LAYERWISE_LR_DECAY = 0.9
DEBUG_DEFAULTS = {"save_checkpoints_steps": 1000000,
                  "use_tfrecords_if_existing": False, "num_trials": 1,
                  "iterations_per_loop": 1, "train_batch_size": 32,
                  "num_train_epochs": 3.0, "log_examples": True}
LAYERWISE_LR_DECAY_MODES = tuple(layerwise_lr.HEAD_DEPTH_OFFSET)
RAW_DATA_FOLDER = "finetuning_data"
# Keys that change the model's variables: a model dir is tied to them.
ARCHITECTURE_KEYS = config_lib.ENCODER_KEYS + (
    "task_names", "task_specs", "answerable_classifier",
    "answerable_uses_start_logits", "joint_prediction")


@dataclasses.dataclass(frozen=True)
class FinetuningConfig(hparams_lib.HparamsConfig):
  """Finetuning hyperparameters under the original ELECTRA names.

  Build it with `from_hparams` (`task_names` may also be a comma-separated
  string). Fields after `test_predictions` are this
  project's additions: `layerwise_lr_decay_mode` (see
  `LAYERWISE_LR_DECAY_MODES`), the seed of trial 1 (trial t uses
  `seed + t - 1`), the compute precision, XLA, the logging interval and
  reading GLUE from TFDS instead of the TSV files.

  >>> config = FinetuningConfig.from_hparams({"task_names": ["rte"]})
  >>> config.num_train_epochs, config.embedding_size, config.learning_rate
  (10.0, 128, 0.0001)
  >>> FinetuningConfig.from_hparams({"model_size": "large",
  ...                                "task_names": ["squad"]}).max_seq_length
  512
  """
  model_name: str = "electra"
  debug: bool = False
  log_examples: bool = False
  num_trials: int = 1
  do_train: bool = True
  do_eval: bool = True
  keep_all_models: bool = True
  model_size: str = "small"
  task_names: tuple = ("chunk",)
  model_hparam_overrides: Mapping[str, Any] = dataclasses.field(
      default_factory=dict)
  embedding_size: Optional[int] = None
  vocab_size: int = 30522
  do_lower_case: bool = True
  learning_rate: float = 1e-4
  weight_decay_rate: float = 0.01
  layerwise_lr_decay: float = 0.8
  num_train_epochs: float = 3.0
  warmup_proportion: float = 0.1
  save_checkpoints_steps: int = 1000000
  iterations_per_loop: int = 1000
  use_tfrecords_if_existing: bool = True
  write_test_outputs: bool = False
  n_writes_test: int = 5
  max_seq_length: int = 128
  train_batch_size: int = 32
  eval_batch_size: int = 32
  predict_batch_size: int = 32
  double_unordered: bool = True
  max_query_length: int = 64
  doc_stride: int = 128
  n_best_size: int = 20
  max_answer_length: int = 30
  answerable_classifier: bool = True
  answerable_uses_start_logits: bool = True
  answerable_weight: float = 0.5
  joint_prediction: bool = True
  beam_size: int = 20
  qa_na_threshold: float = -2.75
  use_tpu: bool = False
  num_tpu_cores: int = 1
  tpu_job_name: Optional[str] = None
  tpu_name: Optional[str] = None
  tpu_zone: Optional[str] = None
  gcp_project: Optional[str] = None
  data_dir: Optional[str] = None
  raw_data_dir: Optional[str] = None
  vocab_file: Optional[str] = None
  init_checkpoint: Optional[str] = None
  model_dir: Optional[str] = None
  results_txt: Optional[str] = None
  results_pkl: Optional[str] = None
  qa_eval_file: Optional[str] = None
  qa_preds_file: Optional[str] = None
  qa_na_file: Optional[str] = None
  preprocessed_data_dir: Optional[str] = None
  test_predictions: Optional[str] = None
  # ---- additions of this project ----
  layerwise_lr_decay_mode: str = "original"
  seed: int = 0
  precision: str = "float32"  # one of config.PRECISIONS
  jit_compile: bool = True
  # False (with jit_compile): XLA compiles all but the matmuls, as the
  # pretraining config's key of the same name.
  jit_compile_matmuls: bool = True
  log_every_steps: int = 0  # 0: once per host loop (iterations_per_loop)
  use_tfds: bool = False
  # Own-data tasks: name -> resolved task spec (see finetuning/task_spec.py);
  # filled from the specs given in `task_names`.
  task_specs: Mapping[str, Any] = dataclasses.field(default_factory=dict)
  # Also score each task's labelled test split (own-data tasks), reported
  # as the task "<name>:test".
  eval_test: bool = False
  hparams_passed: Mapping[str, Any] = dataclasses.field(
      default_factory=dict, compare=False, repr=False)

  def __post_init__(self):
    # Derived once here so a bad model_hparam_overrides fails at once.
    self.encoder_config  # pylint: disable=pointless-statement

  @classmethod
  def _resolve(cls, passed):
    return _resolve(passed)

  @property
  def encoder_config(self):
    """The encoder's `EncoderConfig`, derived as for pretraining."""
    return config_lib.encoder_config(
        **{key: getattr(self, key) for key in config_lib.ENCODER_KEYS})

  @property
  def data_settings(self):
    """The reading and featurization settings, as a `DataSettings`."""
    return tasks_lib.DataSettings(
        max_seq_length=self.max_seq_length,
        double_unordered=self.double_unordered,
        max_query_length=self.max_query_length, doc_stride=self.doc_stride)

  @property
  def raw_data_root(self):
    """The folder holding `finetuning_data/` (what the task readers take);
    None when every task is an own-data task (their specs name files)."""
    if self.raw_data_dir is None and set(self.task_names) <= set(
        self.task_specs):
      return None
    if self.raw_data_dir is None:
      raise errors.ConfigError("no data: set data_dir (or raw_data_dir)")
    return os.path.dirname(os.path.dirname(self.raw_data_dir))

  @property
  def tasks(self):
    return tuple(self.task(name) for name in self.task_names)

  def task(self, name):
    """The task named `name`: one of the run's own-data specs, or built in."""
    return registry.get_task(name, self.task_specs)

  def trial_model_dir(self, trial):
    """Where trial `trial` (from 1) keeps its checkpoints, as the original."""
    return f"{self.model_dir}_{trial}"


def _data_dir_paths(data_dir, model_name, task_names):
  """The original's file locations under `data_dir`."""
  pretrained = os.path.join(data_dir, "models", model_name)
  vocab = os.path.join(pretrained, "vocab.txt")
  if not tf.io.gfile.exists(vocab):
    vocab = os.path.join(data_dir, "vocab.txt")
  joined = ",".join(task_names)
  results = os.path.join(pretrained, "results")
  qa_dir = os.path.join(results, joined + "_qa")
  return {
      "raw_data_dir": os.path.join(data_dir, RAW_DATA_FOLDER, "{:}"),
      "vocab_file": vocab,
      "init_checkpoint": pretrained,
      "model_dir": os.path.join(pretrained, "finetuning_models",
                                joined + "_model"),
      "results_txt": os.path.join(results, joined + "_results.txt"),
      "results_pkl": os.path.join(results, joined + "_results.pkl"),
      "qa_eval_file": os.path.join(qa_dir, "{:}_eval.json"),
      "qa_preds_file": os.path.join(qa_dir, "{:}_preds.json"),
      "qa_na_file": os.path.join(qa_dir, "{:}_null_odds.json"),
      "preprocessed_data_dir": os.path.join(
          pretrained, "finetuning_tfrecords", joined + "_tfrecords"),
      "test_predictions": os.path.join(pretrained, "test_predictions",
                                       "{:}_{:}_{:}_predictions.pkl"),
  }


def _model_dir_paths(model_dir):
  """Output locations next to `model_dir`, for runs without a data dir."""
  qa_dir = model_dir + "_qa"
  return {
      "results_txt": model_dir + "_results.txt",
      "preprocessed_data_dir": model_dir + "_tfrecords",
      "qa_eval_file": os.path.join(qa_dir, "{:}_eval.json"),
      "qa_preds_file": os.path.join(qa_dir, "{:}_preds.json"),
      "qa_na_file": os.path.join(qa_dir, "{:}_null_odds.json"),
      "test_predictions": os.path.join(model_dir + "_test_predictions",
                                       "{:}_{:}_{:}_predictions.pkl"),
  }


def _resolve(passed):
  """Applies passed hparams over the defaults in the original's order."""
  passed = _checked(passed)
  values = FinetuningConfig.defaults()
  values.update(passed)
  if values["data_dir"]:
    values.update(_data_dir_paths(values["data_dir"], values["model_name"],
                                  values["task_names"]))
    if values["debug"]:
      values["init_checkpoint"] = None
  values.update(passed)
  if values["model_dir"]:
    for key, path in _model_dir_paths(values["model_dir"]).items():
      values[key] = values[key] or path
  tasks = [registry.get_task(name, values["task_specs"])
           for name in values["task_names"]]
  if len(tasks) == 1:
    values["num_train_epochs"] = tasks[0].num_train_epochs
    values["max_seq_length"] = tasks[0].default_max_seq_length
  run_config, run_architecture = _pretrained_architecture(
      values["init_checkpoint"])
  pretrained = {k: v for k, v in run_architecture.items() if k not in passed}
  values.update(pretrained)
  if values["model_size"] == "large":
    values["learning_rate"] = LARGE_LEARNING_RATE
    values["layerwise_lr_decay"] = LARGE_LAYERWISE_LR_DECAY
  elif values["model_size"] == "small":
    values["embedding_size"] = config_lib.SMALL_EMBEDDING_SIZE
  if values["debug"]:
    values.update(DEBUG_DEFAULTS)
  values.update(pretrained)  # the pretrained model's sizes beat the defaults
  values.update(passed)
  _validate(values)
  _check_same_encoder(values, run_config, run_architecture)
  return values


# (low, high, whether the ends are allowed) of the other numeric hparams.
RANGES = {
    "learning_rate": (0.0, None, True), "weight_decay_rate": (0.0, None, True),
    "layerwise_lr_decay": (0.0, 1.0, True),
    "num_train_epochs": (0.0, None, False),
    "warmup_proportion": (0.0, 1.0, True), "n_writes_test": (0, None, True),
    "max_query_length": (1, None, True), "doc_stride": (1, None, True),
    "n_best_size": (1, None, True), "max_answer_length": (1, None, True),
    "answerable_weight": (0.0, None, True), "vocab_size": (1, None, True),
    "num_tpu_cores": (1, None, True), "log_every_steps": (0, None, True),
}
# What a pretraining run's config.json tells finetuning about its encoder.
PRETRAINED_KEYS = ("model_size", "model_hparam_overrides", "embedding_size",
                   "vocab_size", "do_lower_case", "vocab_file")


def _pretrained_architecture(init_checkpoint):
  """(path, keys): the `config.json` of the pretraining run
  `init_checkpoint` is from, and its encoder keys, so finetuning one of our
  models needs no size hparams; (None, {}) for other checkpoints (released
  TF1 ones, finetuning runs)."""
  if not init_checkpoint:
    return None, {}
  folder = (init_checkpoint if tf.io.gfile.isdir(init_checkpoint)
            else os.path.dirname(init_checkpoint))
  path = os.path.join(folder, checkpointing.CONFIG_FILE)
  if not tf.io.gfile.exists(path):
    return None, {}
  pretraining = config_lib.PretrainingConfig.from_hparams(path)
  keys = {key: getattr(pretraining, key) for key in PRETRAINED_KEYS}
  keys["embedding_size"] = pretraining.discriminator_config.embedding_size
  keys["model_hparam_overrides"] = dict(keys["model_hparam_overrides"])
  return path, {k: v for k, v in keys.items() if v is not None}


def _check_same_encoder(values, run_config, run_architecture):
  """Refuses sizes (from a preset or hparams) that build another encoder
  than the pretraining run's, naming each differing size."""
  if not run_architecture:
    return
  ours = config_lib.encoder_config(
      **{k: values[k] for k in config_lib.ENCODER_KEYS})
  run = {**run_architecture, "debug": False}  # a run records no debug model
  theirs = config_lib.encoder_config(
      **{k: run[k] for k in config_lib.ENCODER_KEYS})
  differ = [f"{field.name} {getattr(ours, field.name)} (the run has "
            f"{getattr(theirs, field.name)})"
            for field in dataclasses.fields(ours)
            if getattr(ours, field.name) != getattr(theirs, field.name)]
  if differ:
    raise errors.ConfigError(
        f"the finetuning hparams build another encoder than the pretraining "
        f"run of {run_config}: {', '.join(differ)}; give no size keys, or "
        "give the run's in --hparams over a preset that sets others")


def _checked(passed):
  """Passed hparams with known keys and well-typed values."""
  passed = dict(passed)
  hints = FinetuningConfig.field_types()
  fields = FinetuningConfig.hparam_fields()
  for key, value in passed.items():
    hparams_lib.check_key(key, fields, "finetuning hparam")
    if key not in ("task_names", "task_specs"):
      hparams_lib.check_type(key, value, hints[key])
  specs = _given_specs(passed.get("task_specs", {}))
  if "task_names" in passed:
    passed["task_names"] = _task_names(passed["task_names"], specs)
  if specs:
    passed["task_specs"] = specs
  if "model_hparam_overrides" in passed:
    passed["model_hparam_overrides"] = dict(passed["model_hparam_overrides"])
  return passed


def _given_specs(value):
  """The resolved specs of a `task_specs` hparam (name -> spec, or a list)."""
  if isinstance(value, Mapping):
    value = [{**spec, "name": name} for name, spec in value.items()]
  if not isinstance(value, (list, tuple)) or not all(
      task_spec.is_spec(v) for v in value):
    raise errors.ConfigError(f"task_specs must map task names to task specs,"
                             f" got {value!r}")
  specs = {}
  _add_specs(specs, value)
  return specs


def _add_specs(specs, entries):
  """Adds each entry's resolved spec to `specs`; returns their names."""
  names = []
  for entry in entries:
    spec = own_tasks.resolve_spec(entry)
    name = spec["name"]
    if name in registry.TASKS:
      raise errors.ConfigError(f"task spec name {name!r} is a built-in task;"
                               " choose another name")
    if name in specs and specs[name] != spec:
      raise errors.ConfigError(f"two different task specs are named {name!r}")
    specs[name] = spec
    names.append(name)
  return names


def _task_names(value, specs):
  """A tuple of task names from a list or a comma-separated string.

  Entries that are task specs (dicts, .json files) are resolved into
  `specs` (updated in place) and replaced by their names.
  """
  if isinstance(value, str):
    value = [name.strip() for name in value.split(",") if name.strip()]
  if not isinstance(value, (list, tuple)) or not all(
      isinstance(name, str) or task_spec.is_spec(name) for name in value):
    raise errors.ConfigError(
        f"task_names must be a list of task names or specs, got {value!r}")
  names = []
  for entry in value:
    names += (_add_specs(specs, [entry]) if task_spec.is_spec(entry)
              else [entry])
  value = names
  if not value:
    raise errors.ConfigError("task_names is empty; name at least one task "
                             f"of {', '.join(registry.task_names())}")
  if len(set(value)) != len(value):
    raise errors.ConfigError(f"task_names {list(value)} repeats a task")
  for name in value:
    registry.get_task(name, specs)
  return tuple(value)


def _validate(values):
  """Rejects values the original would only trip over later."""
  for key, choices in (("model_size", config_lib.MODEL_SIZES),
                       ("precision", config_lib.PRECISIONS),
                       ("layerwise_lr_decay_mode", LAYERWISE_LR_DECAY_MODES)):
    hparams_lib.check_choice(values, key, choices)
  for key in ("num_trials", "train_batch_size", "eval_batch_size",
              "predict_batch_size", "max_seq_length", "beam_size",
              "iterations_per_loop", "save_checkpoints_steps"):
    if values[key] < 1:
      raise errors.ConfigError(f"{key} must be at least 1, got {values[key]}")
  hparams_lib.check_ranges(values, RANGES)
  template = values["raw_data_dir"]
  if template is not None and os.path.basename(
      os.path.dirname(template)) != RAW_DATA_FOLDER:
    raise errors.ConfigError(
        f"raw_data_dir {template!r} must be <dir>/{RAW_DATA_FOLDER}/{{:}}, "
        "the layout the task readers use")
