"""Finetuning tasks on the user's own files, built from a task spec.

Each family reuses the built-in task of the same family for everything but
reading: featurization, heads, scoring and serving are GLUE's (text or
pair classification, regression), chunking's (tagging) and SQuAD's (QA).
See `task_spec` for the keys.

Bad input is a one-line `DataError` naming `file:line`: a missing field, a
dev/test label outside the label list, an empty label, a regression target
that is not a number, a tag of a type the train file does not have. Rows
whose text is empty are skipped and counted, as GLUE's short rows.
"""

import functools
import hashlib
import json
import os

import tensorflow as tf

from electra_tf import errors
from electra_tf.finetuning.tagging import chunking
from electra_tf.finetuning.classification import glue
from electra_tf.finetuning.qa import squad
from electra_tf.finetuning import table_files
from electra_tf.finetuning.tagging import tag_spans
from electra_tf.finetuning import task_spec
from electra_tf.finetuning import tasks

TRAIN = tasks.TRAIN


class SpecFiles:
  """Where an own-data task's files are, and their content fingerprint."""

  def _set_spec(self, spec):
    self.spec = spec
    self.data_subdir = None

  def raw_data_dir(self, data_dir):
    del data_dir  # own-data files are named by the spec
    return os.path.dirname(self.spec["files"][TRAIN])

  def split_path(self, data_dir, split):
    del data_dir  # own-data files are named by the spec
    if split not in self.spec["files"]:
      raise errors.DataError(f"task {self.name} has no {split} file; its "
                             f"spec names {sorted(self.spec['files'])}")
    return self.spec["files"][split]

  def has_split(self, data_dir, split):
    return split in self.spec["files"] and tf.io.gfile.exists(
        self.spec["files"][split])

  def is_labeled(self, data_dir, split):
    del data_dir, split  # CoNLL tag columns and SQuAD answers: every split
    return True

  def check_data(self, data_dir):
    path = self.split_path(data_dir, TRAIN)
    if not tf.io.gfile.exists(path):
      raise errors.DataError(f"no {self.name} data: {path} does not exist")

  def data_fingerprint(self, data_dir):
    """The spec and the SHA-256 of every split file's content."""
    del data_dir  # own-data files are named by the spec
    digests = {split: _file_sha256(path)
               for split, path in sorted(self.spec["files"].items())
               if tf.io.gfile.exists(path)}
    return {"spec": self.spec, "files": digests}


def _file_sha256(path):
  digest = hashlib.sha256()
  with tf.io.gfile.GFile(path, "rb") as f:
    for block in iter(functools.partial(f.read, 1 << 20), b""):
      digest.update(block)
  return digest.hexdigest()


def _records(spec, path):
  return table_files.read_records(path, spec["format"], spec["has_header"],
                                  spec["quoting"])


def _has_labels(spec, records):
  """Whether a split's records carry the label field (test may not)."""
  label = spec["label"]
  if isinstance(label, int):
    return -len(records[0].fields) <= label < len(records[0].fields)
  return label in records[0].fields


class _SentenceReading(SpecFiles):
  """Reads texts and labels of CSV/TSV/JSONL rows into GLUE's examples."""

  def is_labeled(self, data_dir, split):
    return _has_labels(self.spec, _records(self.spec,
                                           self.split_path(data_dir, split)))

  def read_examples(self, data_dir, split, settings=None):
    settings = settings or self.settings()
    path = self.split_path(data_dir, split)
    records = _records(self.spec, path)
    labeled = _has_labels(self.spec, records)
    if not labeled and split in (TRAIN, tasks.DEV):
      raise errors.DataError(f"{path}:{records[0].line}: no label field "
                             f"{self.spec['label']!r}; it has "
                             f"{sorted(records[0].fields)}")
    result = tasks.ReadResult()
    for record in records:
      location = f"{path}:{record.line}"
      texts = [_text(record, self.spec[key], path)
               for key in ("text", "text_b") if self.spec[key] is not None]
      if not all(texts):
        result.skip(location, "empty text")
        continue
      label = self.dummy_label()
      if labeled:
        label = self.parse_label(
            str(table_files.field(record, self.spec["label"], path)).strip(),
            location)
      result.examples.append(glue.SentenceExample(
          eid=len(result.examples), text_a=texts[0],
          text_b=texts[1] if len(texts) > 1 else None, label=label))
    return self._maybe_double(result, split, settings)

  @property
  def is_pair(self):
    return self.spec["text_b"] is not None


def _text(record, key, path):
  value = table_files.field(record, key, path)
  return "" if value is None else str(value).strip()


def _task_kwargs(spec):
  kwargs = {"metric_names": spec["metrics"], "symmetric": spec["symmetric"],
            "labeled_columns": None, "unlabeled_columns": None, "tfds": None}
  if spec["num_train_epochs"] is not None:
    kwargs["num_train_epochs"] = float(spec["num_train_epochs"])
  if spec["max_seq_length"] is not None:
    kwargs["default_max_seq_length"] = spec["max_seq_length"]
  return kwargs


class FileClassificationTask(_SentenceReading, glue.GlueClassificationTask):
  """Classification of a text or a text pair, from the user's files."""

  def __init__(self, spec):
    if not spec["labels"]:
      raise errors.ConfigError(f"task {spec['name']}: no labels resolved")
    super().__init__(spec["name"], spec["labels"], **_task_kwargs(spec))
    self._set_spec(spec)

  def parse_label(self, text, location):
    if not text:
      raise errors.DataError(f"{location}: empty {self.name} label")
    if text not in self.labels:
      raise errors.DataError(
          f"{location}: label {text!r} is not in {self.name}'s label list "
          f"{list(self.labels)}")
    return text


class FileRegressionTask(_SentenceReading, glue.GlueRegressionTask):
  """A real-valued score of a text or a text pair, from the user's files."""

  def __init__(self, spec):
    low, high = spec["score_range"] or (0.0, 1.0)
    super().__init__(spec["name"], float(low), float(high),
                     **_task_kwargs(spec))
    self._set_spec(spec)

  def parse_label(self, text, location):
    try:
      score = float(text)
    except ValueError:
      raise errors.DataError(f"{location}: {self.name} target {text!r} is "
                             "not a number") from None
    if score != score or score in (float("inf"), float("-inf")):
      raise errors.DataError(f"{location}: {self.name} target {text!r} is "
                             "not finite")
    return score  # scores outside the train range are kept, not refused


def read_conll(path, spec):
  """(words, tags, first line) per sentence of a token/tag column file."""
  text = table_files.read_text(path)
  sentences, words, tags, start = [], [], [], None
  lines = text.splitlines()
  for number, line in enumerate(lines + [""], start=1):
    fields = line.split("\t") if "\t" in line else line.split()
    fields = [f.strip() for f in fields]
    if not any(fields):
      if words:
        sentences.append((tuple(words), tuple(tags), start))
        words, tags = [], []
      continue
    if fields[0] == chunking.DOCUMENT_START:
      continue
    try:
      word, tag = fields[spec["token_column"]], fields[spec["tag_column"]]
    except IndexError:
      raise errors.DataError(
          f"{path}:{number}: {len(fields)} column(s); token_column "
          f"{spec['token_column']} and tag_column {spec['tag_column']} do "
          "not fit") from None
    try:
      tag_spans.split_tag(tag)
    except errors.DataError as error:
      raise errors.DataError(f"{path}:{number}: {error}") from None
    start = start if words else number
    words.append(word)
    tags.append(tag)
  if not sentences:
    raise errors.DataError(f"{path} holds no sentences")
  return sentences


def scheme_tags(spec, tags):
  return (list(tags) if spec["tag_scheme"] == "as_given"
          else tag_spans.convert(tags, tag_spans.BIOES))


class FileTaggingTask(SpecFiles, chunking.ChunkingTask):
  """Per-word tags (BIO/BIOES chunks or entities), from CoNLL-style files."""

  def __init__(self, spec):
    tasks.Task.__init__(
        self, spec["name"], tasks.TaskType.TAGGING, spec["metrics"],
        labels=spec["labels"],
        num_train_epochs=float(spec["num_train_epochs"]
                               or tasks.DEFAULT_NUM_TRAIN_EPOCHS),
        default_max_seq_length=(spec["max_seq_length"]
                                or chunking.CHUNK_MAX_SEQ_LENGTH))
    self._set_spec(spec)
    self._label_lists = {}

  def label_list(self, data_dir):
    del data_dir  # resolved into the spec
    return tuple(self.spec["labels"])

  def read_examples(self, data_dir, split, settings=None):
    del settings  # nothing to set
    path = self.split_path(data_dir, split)
    label_ids = {label: i for i, label in enumerate(self.spec["labels"])}
    result = tasks.ReadResult()
    for words, tags, line in read_conll(path, self.spec):
      converted = scheme_tags(self.spec, tags)
      unknown = [t for t in converted if t not in label_ids]
      if unknown:
        raise errors.DataError(
            f"{path}:{line}: tag {unknown[0]!r} (in the sentence starting "
            f"here) is not in {self.name}'s tag list")
      result.examples.append(chunking.TaggingExample(
          len(result.examples), words, tuple(converted),
          tuple(label_ids[t] for t in converted)))
    return result


class FileQATask(SpecFiles, squad.SquadTask):
  """Extractive QA from SQuAD-format JSON files."""

  def __init__(self, spec):
    super().__init__(spec["name"], v2=spec["unanswerable"])
    exact = "exact" if self.v2 else "exact_match"
    self.metric_names = tuple(exact if m == "exact" else m
                              for m in spec["metrics"])
    if spec["num_train_epochs"] is not None:
      self.num_train_epochs = float(spec["num_train_epochs"])
    if spec["max_seq_length"] is not None:
      self.default_max_seq_length = spec["max_seq_length"]
    self._set_spec(spec)


FAMILY_TASKS = {"classification": FileClassificationTask,
                "regression": FileRegressionTask,
                "tagging": FileTaggingTask, "qa": FileQATask}


def collect_labels(spec):
  """(labels, score_range) of a spec's train file (see `task_spec`)."""
  path = spec["files"][TRAIN]
  if spec["family"] == "tagging":
    types = set()
    for _, tags, _ in read_conll(path, spec):
      types.update(tag_spans.split_tag(t)[1] for t in tags if t != "O")
    letters = (tag_spans.POSITIONS if spec["tag_scheme"] == "bioes" else
               sorted({tag_spans.split_tag(t)[0] for _, tags, _ in
                       read_conll(path, spec) for t in tags if t != "O"}))
    labels = ["O"] + [f"{p}-{t}" for t in sorted(types) for p in letters]
    return sorted(labels), None
  if spec["family"] not in ("classification", "regression"):
    return None, None
  records = _records(spec, path)
  values = []
  for record in records:
    value = str(table_files.field(record, spec["label"], path)).strip()
    if not value:
      raise errors.DataError(f"{path}:{record.line}: empty label")
    values.append(value)
  if spec["family"] == "classification":
    return sorted(set(values)), None
  task = FileRegressionTask({**spec, "score_range": None})
  scores = [task.parse_label(v, f"{path}:{r.line}")
            for v, r in zip(values, records)]
  if min(scores) == max(scores):
    raise errors.DataError(f"{path}: every target is {scores[0]}; a "
                           "regression task needs different scores")
  return None, [min(scores), max(scores)]


@functools.lru_cache(maxsize=64)
def _task_from_json(spec_json):
  spec = json.loads(spec_json)
  return FAMILY_TASKS[spec["family"]](spec)


def task_from_spec(spec):
  """The task of a resolved spec (one object per distinct spec)."""
  return _task_from_json(json.dumps(spec, sort_keys=True))


def resolve_spec(entry):
  """`task_spec.resolve` with labels read from the train file if needed."""
  return task_spec.resolve(entry, read_labels=collect_labels)
