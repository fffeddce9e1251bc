"""StudyConfig: what a pretraining study compares, read from one JSON file.

A study pretrains one or more objectives at equal pretraining FLOPs and
finetunes checkpoints along the budget on a set of tasks. Keys:

  description       free text
  data_dir          base folder of relative corpus and task paths
                    (default: the working directory; `--data_dir` wins)
  corpus            text files, folders or globs (one sentence per line, a
                    blank line between documents); local or gs://
  tfds_name, tfds_text_key   a TFDS corpus instead of `corpus`
  docstring_corpus_bytes   instead of `corpus`: the demo's text, this
                    Python's docstrings up to this many bytes (written
                    once into `<output_dir>/corpus/`; nothing to fetch)
  vocab_file        a WordPiece vocab; default: learn one of `vocab_size`
  vocab_size        size of the learned vocab
  vocab_sample_per_mille  share of the training documents the vocab is
                    learned from (the learner's time grows with the
                    number of distinct words; 1000: all)
  held_out_per_mille  documents held out for pretraining evaluation
  pretrain_preset, pretrain_hparams   the shared pretraining recipe
  objectives        {label: hparams}: each label an objective name
                    (electra, mlm, electra_15, replace_mlm,
                    all_tokens_mlm), or any label whose hparams set
                    "objective"; hparams apply over the shared recipe
  reference_objective   the label whose `budget_steps` define the budget
  budget_steps      steps of the reference objective; the others get the
                    same FLOPs (`budget.equal_flops_steps`)
  num_checkpoints   points along the budget that are finetuned
  pretrain_seeds, finetune_seeds   lists of seeds
  tasks             finetuning tasks: built-in names or own-data specs
  finetune_preset, finetune_hparams   the shared finetuning recipe
  references        any of "random_init" (the same model finetuned from
                    random weights) and "tfidf" (TF-IDF + logistic
                    regression, needs scikit-learn)
  headline_split    "test" (default) or "dev": the split the tables report
  profiles          {name: {key: value}}: overrides picked by `--profile`

Unknown keys, wrong types and bad values are `ConfigError`s naming the key.
"""

import dataclasses
import os
import typing
from typing import Any, Mapping, Optional

from electra_tf import config as config_lib
from electra_tf import errors
from electra_tf import hparams as hparams_lib

REFERENCES = ("random_init", "tfidf")
HEADLINE_SPLITS = ("test", "dev")
# Keys that only label or place things: changing them redoes nothing.
NON_SETTINGS = ("description", "profiles")


@dataclasses.dataclass(frozen=True)
class StudyConfig:
  """The validated keys of a study file (see the module docstring)."""
  corpus: tuple = ()
  tasks: tuple = ()
  description: str = ""
  data_dir: Optional[str] = None
  tfds_name: Optional[str] = None
  tfds_text_key: str = "text"
  docstring_corpus_bytes: Optional[int] = None
  vocab_file: Optional[str] = None
  vocab_size: int = 16384
  vocab_sample_per_mille: int = 200
  held_out_per_mille: int = 10
  pretrain_preset: str = "tiny"
  pretrain_hparams: Mapping[str, Any] = dataclasses.field(default_factory=dict)
  objectives: Mapping[str, Any] = dataclasses.field(
      default_factory=lambda: {"electra": {}, "mlm": {}})
  reference_objective: str = "electra"
  budget_steps: int = 1000
  num_checkpoints: int = 3
  pretrain_seeds: tuple = (0,)
  finetune_seeds: tuple = (0, 1, 2)
  finetune_preset: str = "tiny"
  finetune_hparams: Mapping[str, Any] = dataclasses.field(default_factory=dict)
  references: tuple = REFERENCES
  headline_split: str = "test"
  profiles: Mapping[str, Any] = dataclasses.field(default_factory=dict)

  @classmethod
  def from_json(cls, source, profile=None, **overrides):
    """A config from a JSON file or dict, a profile and key overrides."""
    values = dict(hparams_lib.as_mapping(source, "study config"))
    profiles = values.get("profiles", {})
    if profile is not None:
      if not isinstance(profiles, dict) or profile not in profiles:
        raise errors.ConfigError(
            f"study config has no profile {profile!r}; it has "
            f"{sorted(profiles) if isinstance(profiles, dict) else []}")
      values.update(profiles[profile])
    values.update({k: v for k, v in overrides.items() if v is not None})
    return cls(**_checked(values))

  def path(self, value):
    """`value` made absolute against `data_dir` (gs:// kept)."""
    if "://" in value or os.path.isabs(value):
      return value
    return os.path.abspath(os.path.join(self.data_dir or "", value))

  def objective_hparams(self, label):
    """The pretraining hparams an objective label adds to the recipe."""
    hparams = dict(self.objectives[label])
    hparams.setdefault("objective", label)
    return hparams

  def to_dict(self):
    d = dataclasses.asdict(self)
    for key in ("corpus", "tasks", "pretrain_seeds", "finetune_seeds",
                "references"):
      d[key] = list(d[key])
    return d


_FIELDS = {f.name: f for f in dataclasses.fields(StudyConfig)}
_LIST_KEYS = ("corpus", "tasks", "pretrain_seeds", "finetune_seeds",
              "references")


def _checked(values):
  """Keys known, types right, values in range; lists as tuples."""
  hints = typing.get_type_hints(StudyConfig)
  for key, value in values.items():
    hparams_lib.check_key(key, _FIELDS, "study key")
    if key in _LIST_KEYS:
      if isinstance(value, str) and key == "corpus":
        value = [value]
      if not isinstance(value, (list, tuple)):
        raise errors.ConfigError(f"study key {key!r} must be a list, got "
                                 f"{value!r}")
      values[key] = tuple(value)
    else:
      _check_type(key, value, hints[key])
  _check_values(values)
  return values


def _check_type(key, value, annotation):
  try:
    hparams_lib.check_type(key, value, annotation)
  except errors.ConfigError:
    raise errors.ConfigError(f"study key {key!r} has the wrong type: "
                             f"{value!r}") from None


def _check_values(values):
  study = {**{k: f.default if f.default is not dataclasses.MISSING
              else f.default_factory() for k, f in _FIELDS.items()},
           **values}
  sources = [key for key in ("corpus", "tfds_name", "docstring_corpus_bytes")
             if study[key]]
  if not sources:
    raise errors.ConfigError("study config names no corpus (\"corpus\", "
                             "\"tfds_name\" or \"docstring_corpus_bytes\")")
  if len(sources) > 1:
    raise errors.ConfigError(f"study config names {' and '.join(sources)}; "
                             "give one corpus")
  if not study["tasks"]:
    raise errors.ConfigError("study config names no finetuning \"tasks\"")
  if study["docstring_corpus_bytes"] is not None and (
      study["docstring_corpus_bytes"] < 1):
    raise errors.ConfigError("study key 'docstring_corpus_bytes' must be at "
                             f"least 1, got {study['docstring_corpus_bytes']}")
  for key in ("budget_steps", "num_checkpoints", "vocab_size"):
    if study[key] < 1:
      raise errors.ConfigError(f"study key {key!r} must be at least 1, got "
                               f"{study[key]}")
  if not 0 < study["held_out_per_mille"] < 1000:
    raise errors.ConfigError("study key 'held_out_per_mille' must be in "
                             f"1..999, got {study['held_out_per_mille']}")
  if not 0 < study["vocab_sample_per_mille"] <= 1000:
    raise errors.ConfigError("study key 'vocab_sample_per_mille' must be in "
                             f"1..1000, got {study['vocab_sample_per_mille']}")
  for key in ("pretrain_seeds", "finetune_seeds"):
    seeds = study[key]
    if not seeds or not all(isinstance(s, int) and not isinstance(s, bool)
                            for s in seeds) or len(set(seeds)) != len(seeds):
      raise errors.ConfigError(f"study key {key!r} must be a list of distinct"
                               f" integers, got {list(seeds)}")
  unknown = [r for r in study["references"] if r not in REFERENCES]
  if unknown:
    raise errors.ConfigError(f"unknown study reference(s) {unknown}; choose "
                             f"from {', '.join(REFERENCES)}")
  if study["headline_split"] not in HEADLINE_SPLITS:
    raise errors.ConfigError(f"headline_split {study['headline_split']!r} is "
                             f"not one of {', '.join(HEADLINE_SPLITS)}")
  _check_objectives(study)


def _check_objectives(study):
  objectives = study["objectives"]
  if not objectives:
    raise errors.ConfigError("study config has no objectives")
  for label, hparams in objectives.items():
    if not isinstance(hparams, Mapping):
      raise errors.ConfigError(f"objective {label!r} must map to hparams, "
                               f"got {hparams!r}")
    objective = hparams.get("objective", label)
    if objective not in config_lib.OBJECTIVES:
      raise errors.ConfigError(
          f"objective {label!r}: {objective!r} is not one of "
          f"{', '.join(config_lib.OBJECTIVES)} (set \"objective\" in its "
          "hparams to use another label)")
  if study["reference_objective"] not in objectives:
    raise errors.ConfigError(
        f"reference_objective {study['reference_objective']!r} is not one of "
        f"the objectives {sorted(objectives)}")
