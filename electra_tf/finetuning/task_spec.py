"""Task specs: a finetuning task declared on the user's own files.

A spec is a JSON object (inline in `task_names`, or a `.json` file named
there) that says which family the task belongs to and where its files are.
The common case is three lines:

  {"name": "bbc_news",
   "files": "data/bbc_news/{split}.tsv"}

Keys (all but `name` and `files` optional):

  name            the task's name (a spec file's default: its file stem)
  family          classification (default; a text or, with `text_b`, a
                  pair), regression, tagging or qa
  files           {"train": path, "dev": path, "test": path}, or one path
                  with `{split}` (splits whose file is absent are left out;
                  train must exist). Relative paths in a spec file are
                  relative to that file's folder. Local or gs://.
  format          csv, tsv or jsonl (from the extension by default);
                  tagging: conll; qa: squad (a SQuAD-format JSON)
  text, text_b    field (header name, JSON key, or column index) of the
                  text and the optional second text (default "text")
  label           field of the label or score (default "label")
  has_header      CSV/TSV: first row names the fields (default true)
  quoting         CSV/TSV: "minimal" (quoted fields, default) or "none"
  labels          the label list in id order (default: the labels of the
                  train file, sorted); tagging: the tag list
  metrics         reported metrics, the first is the headline; default:
                  accuracy, macro_f1 (classification), pearson, spearman
                  (regression), f1, precision, recall (tagging), exact, f1
                  (qa)
  max_seq_length, num_train_epochs   recipe defaults for this task
  symmetric       pair tasks: add each training pair swapped too
  score_range     regression: [min, max] (default: those of train)
  token_column, tag_column   tagging: CoNLL columns (default 0 and -1)
  tag_scheme      tagging: "bioes" (re-encode, as the original's chunking;
                  default) or "as_given"
  unanswerable    qa: questions may have no answer (SQuAD 2.0 style)

`resolve` validates a spec, makes its paths absolute and fills `labels`
(and `score_range`) from the train file, so a run's recorded config
rebuilds the same task without the data. What a family accepts (formats,
metrics, a second text) and reads from the train file is declared by its
file task class (`<family>/file_tasks.py`).
"""

import json
import os

import tensorflow as tf

from electra_tf import errors
from electra_tf import hparams as hparams_lib
from electra_tf.finetuning import table_files

SPLITS = ("train", "dev", "test")
SPLIT_PLACEHOLDER = "{split}"
TAG_SCHEMES = ("bioes", "as_given")
KEYS = {
    "name": str, "family": str, "files": (dict, str), "format": str,
    "text": (str, int), "text_b": (str, int), "label": (str, int),
    "has_header": bool, "quoting": str, "labels": list, "metrics": list,
    "max_seq_length": int, "num_train_epochs": (int, float),
    "symmetric": bool, "score_range": list, "token_column": int,
    "tag_column": int, "tag_scheme": str, "unanswerable": bool,
}
DEFAULTS = {"family": "classification", "format": None, "text": "text",
            "text_b": None, "label": "label", "has_header": True,
            "quoting": "minimal", "labels": None, "metrics": None,
            "max_seq_length": None, "num_train_epochs": None,
            "symmetric": False, "score_range": None, "token_column": 0,
            "tag_column": -1, "tag_scheme": "bioes", "unanswerable": False}


def is_spec(entry):
  """Whether a `task_names` entry is a spec (a dict or a .json path)."""
  return isinstance(entry, dict) or (
      isinstance(entry, str) and entry.lower().endswith(".json"))


def load(entry):
  """A spec dict from a `task_names` entry (dict, or .json file path)."""
  if isinstance(entry, dict):
    return dict(entry), None
  if not tf.io.gfile.exists(entry):
    raise errors.ConfigError(f"task spec file not found: {entry}")
  with tf.io.gfile.GFile(entry) as f:
    try:
      spec = json.load(f)
    except json.JSONDecodeError as e:
      raise errors.ConfigError(f"task spec {entry}:{e.lineno}: not valid JSON"
                               f" ({e.msg})") from None
  if not isinstance(spec, dict):
    raise errors.ConfigError(f"task spec {entry} must hold a JSON object")
  spec.setdefault("name", os.path.splitext(os.path.basename(entry))[0])
  return spec, os.path.dirname(entry)


def resolve(entry, families):
  """The complete, validated spec of a `task_names` entry.

  Args:
    entry: a dict or a .json path (see `is_spec`); an already resolved
      spec is returned as it is (after validation).
    families: {family name: file task class}. A class declares
      `spec_formats` (the first is the default of a one-format family),
      `spec_metrics`, `default_metrics`, `reads_pairs` (`text_b` allowed),
      `filled_from_train` (the spec keys `labels_from_files(spec)` fills
      when the spec leaves them out).

  Returns:
    A dict with every key of `KEYS`, absolute paths and labels filled in.
  """
  spec, base = load(entry)
  where = f"task spec {spec.get('name', entry if base else '')!r}".rstrip()
  for key, value in spec.items():
    if key not in KEYS:
      raise errors.ConfigError(
          f"{where}: unknown key {key!r}{hparams_lib.did_you_mean(key, KEYS)}"
          f" (known: {', '.join(KEYS)})")
    if value is not None and (isinstance(value, bool) and KEYS[key] is not bool
                              or not isinstance(value, KEYS[key])):
      raise errors.ConfigError(f"{where}: {key} has the wrong type "
                               f"({type(value).__name__}: {value!r})")
  if not spec.get("name"):
    raise errors.ConfigError(f"{where}: needs a \"name\"")
  resolved = {**DEFAULTS, **spec}
  _check_choices(resolved, families, where)
  family = families[resolved["family"]]
  resolved["files"] = _files(resolved["files"] if "files" in spec else None,
                             base, where)
  resolved["format"] = resolved["format"] or _format(resolved, family, where)
  resolved["metrics"] = _metrics(resolved, family, where)
  if resolved["labels"] is not None:
    resolved["labels"] = _labels(resolved["labels"], where)
  missing = [key for key in family.filled_from_train if resolved[key] is None]
  if missing:
    labels, score_range = family.labels_from_files(resolved)
    if "labels" in missing:
      resolved["labels"] = _labels(labels, where)
    if "score_range" in missing:
      resolved["score_range"] = score_range
  _check_range(resolved, where)
  return resolved


def _check_choices(spec, families, where):
  for key, choices in (("family", tuple(families)),
                       ("tag_scheme", TAG_SCHEMES),
                       ("quoting", ("minimal", "none"))):
    if spec[key] not in choices:
      raise errors.ConfigError(f"{where}: {key} {spec[key]!r} is not one of "
                               f"{', '.join(choices)}")
  for key in ("max_seq_length", "num_train_epochs"):
    if spec[key] is not None and spec[key] <= 0:
      raise errors.ConfigError(f"{where}: {key} must be positive, got "
                               f"{spec[key]}")
  if spec["text_b"] is not None and not families[spec["family"]].reads_pairs:
    pair_families = [name for name, family in families.items()
                     if family.reads_pairs]
    raise errors.ConfigError(f"{where}: text_b is for "
                             f"{' and '.join(pair_families)} tasks")


def _files(files, base, where):
  """{split: absolute path} of the splits that have a file."""
  if files is None:
    raise errors.ConfigError(f"{where}: needs \"files\" (a {{split}} pattern "
                             "or {\"train\": ..., \"dev\": ...})")
  if isinstance(files, str):
    if SPLIT_PLACEHOLDER not in files:
      raise errors.ConfigError(f"{where}: files {files!r} has no {{split}}; "
                               "give a dict of split -> file instead")
    candidates = {split: files.replace(SPLIT_PLACEHOLDER, split)
                  for split in SPLITS}
    candidates = {s: _absolute(p, base) for s, p in candidates.items()}
    found = {s: p for s, p in candidates.items() if tf.io.gfile.exists(p)}
    if "train" not in found:
      raise errors.ConfigError(f"{where}: no train file "
                               f"{candidates['train']}")
    return found
  if not files or not all(isinstance(p, str) and p for p in files.values()):
    raise errors.ConfigError(f"{where}: files must map split names to paths, "
                             f"got {files!r}")
  for split in files:
    if not split.replace("_", "").replace("-", "").isalnum():
      raise errors.ConfigError(f"{where}: bad split name {split!r}")
  return {split: _absolute(path, base) for split, path in files.items()}


def _absolute(path, base):
  if "://" in path or os.path.isabs(path):
    return path
  return os.path.abspath(os.path.join(base or "", path))


def _format(spec, family, where):
  if len(family.spec_formats) == 1:
    return family.spec_formats[0]
  formats = {table_files.format_of(p) for p in spec["files"].values()}
  if len(formats) > 1:
    raise errors.ConfigError(f"{where}: the split files have different "
                             f"formats ({sorted(formats)}); set \"format\"")
  return formats.pop()


def _metrics(spec, family, where):
  name = spec["family"]
  if spec["format"] not in family.spec_formats:
    raise errors.ConfigError(
        f"{where}: format {spec['format']!r} does not suit a {name} task; "
        f"use {', '.join(family.spec_formats)}")
  metrics = spec["metrics"] or list(family.default_metrics)
  unknown = [m for m in metrics if m not in family.spec_metrics]
  if unknown or not metrics:
    raise errors.ConfigError(
        f"{where}: metrics {unknown or metrics} are not {name} metrics; "
        f"choose from {', '.join(family.spec_metrics)}")
  return list(metrics)


def _labels(labels, where):
  labels = [str(label).strip() for label in labels]
  if not labels or len(set(labels)) != len(labels) or "" in labels:
    raise errors.ConfigError(f"{where}: labels must be distinct, non-empty "
                             f"strings, got {labels}")
  return labels


def _check_range(spec, where):
  score_range = spec["score_range"]
  if score_range is None:
    return
  if (len(score_range) != 2 or not all(
      isinstance(v, (int, float)) and not isinstance(v, bool)
      for v in score_range) or not score_range[0] < score_range[1]):
    raise errors.ConfigError(f"{where}: score_range must be [min, max] with "
                             f"min < max, got {score_range}")
