"""Configuration: frozen dataclasses, original hparam names, JSON presets.

`PretrainingConfig` keeps the key names of the original ELECTRA
`configure_pretraining.PretrainingConfig`, so an original `--hparams` JSON loads
unchanged, and derives the same values in the same way (model sizes,
generator width and depth, `max_predictions_per_seq`, debug defaults). One
vocabulary of names is used throughout: the original's.
"""

import dataclasses
import json
import os
from typing import Any, Mapping, Optional

from electra_tf import errors
from electra_tf import hparams as hparams_lib
from electra_tf.data import pretrain_pipeline

MODEL_SIZES = {
    "small": {"hidden_size": 256, "num_hidden_layers": 12},
    "base": {"hidden_size": 768, "num_hidden_layers": 12},
    "large": {"hidden_size": 1024, "num_hidden_layers": 24},
}
# The original's `"debug": true` trains this model, whatever else is set.
DEBUG_MODEL = {"num_hidden_layers": 3, "hidden_size": 144,
               "intermediate_size": 144 * 4, "num_attention_heads": 4}
DEBUG_DEFAULTS = {"train_batch_size": 8, "num_train_steps": 20,
                  "eval_batch_size": 4, "iterations_per_loop": 1,
                  "num_eval_steps": 2}
SMALL_EMBEDDING_SIZE = 128
OBJECTIVES = ("electra", "mlm", "electra_15", "replace_mlm", "all_tokens_mlm")
# Objectives whose model has no per-token replaced-or-not head.
OBJECTIVES_WITHOUT_DETECTOR = ("mlm", "replace_mlm")
OPTIMIZERS = ("adamw", "lamb")
# How replacements are drawn from the generator (pretraining/sampling.py):
# the original's Gumbel-max, or inverse-CDF from one uniform per slot.
REPLACEMENT_SAMPLERS = ("gumbel_max", "inverse_cdf")
# Keys added after runs had recorded their configs, with the value those
# runs ran with: a record without one of them is read as holding that value.
KEYS_ADDED_LATER = {"replacement_sampling": "gumbel_max"}
# (low, high, whether the ends are allowed) of the numeric hparams.
HPARAM_RANGES = {
    "gen_weight": (0.0, None, True), "disc_weight": (0.0, None, True),
    "mask_prob": (0.0, 1.0, False), "learning_rate": (0.0, None, True),
    "lr_decay_power": (0.0, None, True),
    "weight_decay_rate": (0.0, None, True),
    "num_warmup_steps": (0, None, True), "iterations_per_loop": (1, None, True),
    "save_checkpoints_steps": (1, None, True),
    "num_train_steps": (0, None, True), "num_eval_steps": (0, None, True),
    "keep_checkpoint_max": (1, None, True), "vocab_size": (1, None, True),
    "generator_layers": (0.0, 1.0, True),
    "generator_hidden_size": (0.0, 1.0, True),
    "temperature": (0.0, None, False), "max_seq_length": (2, None, True),
    "train_batch_size": (1, None, True), "eval_batch_size": (1, None, True),
    "num_tpu_cores": (1, None, True), "max_predictions_per_seq": (0, None, True),
    "log_every_steps": (0, None, True), "embedding_size": (1, None, True),
    "input_files_interleaved": (1, None, True),
    "input_shuffle_buffer": (1, None, True),
}
PRECISIONS = ("float32", "mixed_bfloat16", "mixed_float16")
# The hparams that decide the encoder's variables (see `encoder_config`).
ENCODER_KEYS = ("model_size", "model_hparam_overrides", "embedding_size",
                "vocab_size", "debug")


@dataclasses.dataclass(frozen=True)
class EncoderConfig:
  """Hyperparameters of one Transformer encoder (the original BertConfig).

  `embedding_size` is the width of the token/position/type embeddings; when
  it differs from `hidden_size` the encoder projects up to `hidden_size`.
  """
  vocab_size: int = 30522
  hidden_size: int = 256
  num_hidden_layers: int = 12
  num_attention_heads: int = 4
  intermediate_size: int = 1024
  hidden_act: str = "gelu"
  hidden_dropout_prob: float = 0.1
  attention_probs_dropout_prob: float = 0.1
  max_position_embeddings: int = 512
  type_vocab_size: int = 2
  initializer_range: float = 0.02
  embedding_size: int = 128

  def __post_init__(self):
    if self.hidden_size % self.num_attention_heads:
      raise errors.ConfigError(
          f"hidden_size {self.hidden_size} is not a multiple of "
          f"num_attention_heads {self.num_attention_heads}")

  @property
  def head_size(self):
    return self.hidden_size // self.num_attention_heads

  def to_dict(self):
    return dataclasses.asdict(self)


# Keys of the original BertConfig that `model_hparam_overrides` may set.
BERT_CONFIG_KEYS = tuple(f.name for f in dataclasses.fields(EncoderConfig)
                         if f.name != "embedding_size")


@dataclasses.dataclass(frozen=True)
class PretrainingConfig(hparams_lib.HparamsConfig):
  """Pretraining hyperparameters under the original ELECTRA names.

  Build it with `from_hparams` (or `load_pretraining_config`), which validates
  keys and derives values exactly as the original. Points to know:

  * `untied_generator=True` (the default) gives the generator its own
    Transformer; False shares every Transformer weight with the
    discriminator. `untied_generator_embeddings=False` (the default) shares
    the whole embedding block (word, position, type, LayerNorm).
  * `generator_hidden_size` and `generator_layers` are fractions of the
    discriminator's width and depth.
  * Fields after `max_predictions_per_seq` are this project's additions.

  >>> config = PretrainingConfig.from_hparams({"model_size": "base"})
  >>> config.discriminator_config.num_attention_heads
  12
  >>> config.generator_config.hidden_size, config.max_predictions_per_seq
  (192, 19)
  """
  model_name: str = "electra"
  debug: bool = False
  do_train: bool = True
  do_eval: bool = False
  electra_objective: bool = True
  electric_objective: bool = False
  gen_weight: float = 1.0
  disc_weight: float = 50.0
  mask_prob: float = 0.15
  learning_rate: float = 5e-4
  lr_decay_power: float = 1.0
  weight_decay_rate: float = 0.01
  num_warmup_steps: int = 10000
  iterations_per_loop: int = 200
  save_checkpoints_steps: int = 1000
  num_train_steps: int = 1000000
  num_eval_steps: int = 100
  keep_checkpoint_max: int = 5
  model_size: str = "small"
  model_hparam_overrides: Mapping[str, Any] = dataclasses.field(
      default_factory=dict)
  embedding_size: Optional[int] = None
  vocab_size: int = 30522
  do_lower_case: bool = True
  uniform_generator: bool = False
  two_tower_generator: bool = False
  untied_generator_embeddings: bool = False
  untied_generator: bool = True
  generator_layers: float = 1.0
  generator_hidden_size: float = 0.25
  disallow_correct: bool = False
  temperature: float = 1.0
  max_seq_length: int = 128
  train_batch_size: int = 128
  eval_batch_size: int = 128
  use_tpu: bool = False
  num_tpu_cores: int = 1
  tpu_job_name: Optional[str] = None
  tpu_name: Optional[str] = None
  tpu_zone: Optional[str] = None
  gcp_project: Optional[str] = None
  pretrain_tfrecords: Optional[str] = None
  vocab_file: Optional[str] = None
  model_dir: Optional[str] = None
  results_txt: Optional[str] = None
  results_pkl: Optional[str] = None
  max_predictions_per_seq: int = 19
  # ---- additions of this project ----
  objective: str = "electra"  # one of OBJECTIVES; "mlm" = electra_objective false
  optimizer: str = "adamw"  # one of OPTIMIZERS
  precision: str = "float32"  # one of PRECISIONS
  seed: int = 0
  eval_tfrecords: Optional[str] = None
  log_every_steps: int = 0  # 0: once per host loop (iterations_per_loop)
  # The training stream (data/pretrain_pipeline.py): shard files read at
  # once, and the record shuffle buffer. The original's input_fn read 4
  # files (one per CPU thread, in nondeterministic order) through a buffer
  # of 100; 4 and 100 here give that mix, seeded and resumable.
  input_files_interleaved: int = pretrain_pipeline.MAX_CYCLE_LENGTH
  input_shuffle_buffer: int = pretrain_pipeline.SHUFFLE_BUFFER
  jit_compile: bool = True
  # False (with jit_compile): XLA compiles the step's element-wise ops only;
  # matmuls run on TensorFlow's kernels (training/xla_regions.py). The
  # fastest bfloat16 mode on CPUs whose oneDNN bf16 matmuls beat XLA's.
  jit_compile_matmuls: bool = True
  # One of REPLACEMENT_SAMPLERS. Both draw from the generator's softmax;
  # "inverse_cdf" needs one random number per prediction slot instead of one
  # per vocabulary entry, and changes which tokens a given seed draws.
  replacement_sampling: str = "gumbel_max"
  # Pretraining health (pretraining/health.py): checked on
  # `health_eval_batches` held-out batches (eval_tfrecords, else training
  # data) every `health_every_steps` (0: at each checkpoint) once warmup is
  # over (0 batches: no checks); `stop_if_unhealthy_steps` > 0 stops a run
  # unhealthy that long.
  health_every_steps: int = 0
  health_eval_batches: int = 4
  stop_if_unhealthy_steps: int = 0
  # What the user passed, so `override` re-derives from intent, not results.
  hparams_passed: Mapping[str, Any] = dataclasses.field(
      default_factory=dict, compare=False, repr=False)

  @classmethod
  def from_hparams(cls, hparams=None, *, data_dir=None, **kwargs):
    """Builds a config from original-style hparams (dict, JSON or JSON file).

    Unknown keys raise `ConfigError` naming the key and the closest valid one.
    With `data_dir`, the data and model paths default to the original's
    layout under it (`pretrain_tfrecords/`, `vocab.txt`, `models/<name>`).
    """
    passed = {**hparams_lib.as_mapping(hparams, "hparams"), **kwargs}
    if data_dir is not None:
      passed = {**_data_dir_paths(data_dir,
                                  passed.get("model_name", "electra")),
                **passed}
    return super().from_hparams(passed)

  @classmethod
  def _resolve(cls, passed):
    return _resolve_pretraining(passed)

  @property
  def discriminator_config(self) -> EncoderConfig:
    """The discriminator's encoder (the model that is kept after pretraining)."""
    return encoder_config(**{key: getattr(self, key) for key in ENCODER_KEYS})

  @property
  def generator_config(self) -> EncoderConfig:
    """The generator's encoder, `generator_hidden_size`/`_layers` of the
    discriminator's, with heads and FFN width re-derived from its width."""
    disc = self.discriminator_config
    if not self.untied_generator or self.objective == "mlm":
      return disc
    hidden = int(round(disc.hidden_size * self.generator_hidden_size))
    layers = int(round(disc.num_hidden_layers * self.generator_layers))
    return dataclasses.replace(
        disc, hidden_size=hidden, num_hidden_layers=layers,
        intermediate_size=4 * hidden, num_attention_heads=max(1, hidden // 64),
        embedding_size=(hidden if self.untied_generator_embeddings
                        else disc.embedding_size))

  def to_json(self):
    return json.dumps(self.to_dict(), indent=2, sort_keys=True)


def _data_dir_paths(data_dir, model_name):
  """The original's default file locations under `data_dir`."""
  model_dir = os.path.join(data_dir, "models", model_name)
  return {
      "pretrain_tfrecords": os.path.join(
          data_dir, "pretrain_tfrecords/pretrain_data.tfrecord*"),
      "vocab_file": os.path.join(data_dir, "vocab.txt"),
      "model_dir": model_dir,
      "results_txt": os.path.join(model_dir, "results", "unsup_results.txt"),
      "results_pkl": os.path.join(model_dir, "results", "unsup_results.pkl"),
  }


def encoder_config(model_size, model_hparam_overrides, embedding_size,
                   vocab_size, debug=False):
  """The encoder of these hparams, as the original `get_bert_config`, plus
  its debug-mode model; pretraining and finetuning both build theirs here."""
  if model_size not in MODEL_SIZES:
    raise errors.ConfigError(f"model_size {model_size!r} is not one of "
                             f"{', '.join(MODEL_SIZES)}")
  for key in model_hparam_overrides:
    hparams_lib.check_key(key, BERT_CONFIG_KEYS, "model_hparam_overrides key")
  args = dict(MODEL_SIZES[model_size])
  args["vocab_size"] = vocab_size
  args.update(model_hparam_overrides)
  args["num_attention_heads"] = max(1, args["hidden_size"] // 64)
  args["intermediate_size"] = 4 * args["hidden_size"]
  args.update(model_hparam_overrides)
  if debug:
    args.update(DEBUG_MODEL)
  args["embedding_size"] = (embedding_size if embedding_size is not None
                            else args["hidden_size"])
  return EncoderConfig(**args)


def _resolve_pretraining(passed):
  """Applies passed hparams over the defaults in the original's order."""
  types = PretrainingConfig.field_types()
  fields = PretrainingConfig.hparam_fields()
  for key, value in passed.items():
    hparams_lib.check_key(key, fields, "pretraining hparam")
    hparams_lib.check_type(key, value, types[key])
  values = PretrainingConfig.defaults()
  values.update(passed)
  values["model_hparam_overrides"] = dict(values["model_hparam_overrides"])
  encoder_config(**{key: values[key] for key in ENCODER_KEYS})  # checks them
  if "max_predictions_per_seq" not in passed:
    values["max_predictions_per_seq"] = int(
        (values["mask_prob"] + 0.005) * values["max_seq_length"])
  if values["debug"]:
    for key, value in DEBUG_DEFAULTS.items():
      if key not in passed:
        values[key] = value
  if values["model_size"] == "small" and "embedding_size" not in passed:
    values["embedding_size"] = SMALL_EMBEDDING_SIZE
  _resolve_objective(values, passed)
  hparams_lib.check_choice(values, "optimizer", OPTIMIZERS)
  hparams_lib.check_choice(values, "precision", PRECISIONS)
  hparams_lib.check_choice(values, "replacement_sampling",
                           REPLACEMENT_SAMPLERS)
  for key in ("health_every_steps", "health_eval_batches",
              "stop_if_unhealthy_steps"):
    if values[key] < 0:
      raise errors.ConfigError(f"{key} must be >= 0, got {values[key]}")
  hparams_lib.check_ranges(values, HPARAM_RANGES)
  for key in ("electric_objective", "two_tower_generator"):
    if values[key]:
      raise errors.ConfigError(
          f"{key}=true (Electric) is not supported; only the ELECTRA recipe")
  return values


def _resolve_objective(values, passed):
  """Keeps `objective` and the original's `electra_objective` consistent."""
  hparams_lib.check_choice(values, "objective", OBJECTIVES)
  if "objective" not in passed and not values["electra_objective"]:
    values["objective"] = "mlm"
  if values["electra_objective"] != (values["objective"] != "mlm"):
    if "electra_objective" in passed:
      raise errors.ConfigError(
          f"electra_objective={values['electra_objective']} contradicts "
          f"objective={values['objective']!r}")
    values["electra_objective"] = values["objective"] != "mlm"


def load_pretraining_config(preset=None, hparams=None, **kwargs):
  """A preset (name or JSON file), then `hparams` (dict/JSON/file) over it."""
  merged = hparams_lib.preset_hparams(preset) if preset else {}
  merged.update(hparams_lib.as_mapping(hparams, "hparams"))
  merged.update(kwargs)
  return PretrainingConfig.from_hparams(merged)
