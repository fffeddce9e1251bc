"""Classification and regression tasks on the user's CSV/TSV/JSONL files.

A spec (see `task_spec`) names the files and the fields of the text(s) and
label. Bad input is a one-line `DataError` naming `file:line`: a missing
field, a dev/test label outside the label list, an empty label, a
regression target that is not a number. Rows whose text is empty are
skipped and counted, as GLUE's short rows.
"""

from electra_tf import errors
from electra_tf.finetuning import spec_files
from electra_tf.finetuning import table_files
from electra_tf.finetuning import tasks
from electra_tf.finetuning.classification import features
from electra_tf.finetuning.classification import task as family

TRAIN = tasks.TRAIN


def _records(spec, path):
  return table_files.read_records(path, spec["format"], spec["has_header"],
                                  spec["quoting"])


def _has_labels(spec, records):
  """Whether a split's records carry the label field (test may not)."""
  label = spec["label"]
  if isinstance(label, int):
    return -len(records[0].fields) <= label < len(records[0].fields)
  return label in records[0].fields


def _text(record, key, path):
  value = table_files.field(record, key, path)
  return "" if value is None else str(value).strip()


def train_label_values(spec):
  """(label field strings, records) of a spec's train file."""
  path = spec["files"][TRAIN]
  records = _records(spec, path)
  values = []
  for record in records:
    value = str(table_files.field(record, spec["label"], path)).strip()
    if not value:
      raise errors.DataError(f"{path}:{record.line}: empty label")
    values.append(value)
  return values, records


class _SentenceReading(spec_files.SpecFiles):
  """Reads texts and labels of CSV/TSV/JSONL rows into sentence examples."""

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
      result.examples.append(features.SentenceExample(
          eid=len(result.examples), text_a=texts[0],
          text_b=texts[1] if len(texts) > 1 else None, label=label))
    return self.maybe_double(result, split, settings)

  @property
  def is_pair(self):
    return self.spec["text_b"] is not None


def _task_kwargs(spec):
  kwargs = {"metric_names": spec["metrics"], "symmetric": spec["symmetric"]}
  if spec["num_train_epochs"] is not None:
    kwargs["num_train_epochs"] = float(spec["num_train_epochs"])
  if spec["max_seq_length"] is not None:
    kwargs["default_max_seq_length"] = spec["max_seq_length"]
  return kwargs


class FileClassificationTask(_SentenceReading, family.ClassificationTask):
  """Classification of a text or a text pair, from the user's files."""

  spec_formats = table_files.FORMATS
  spec_metrics = ("accuracy", "macro_f1", "micro_f1", "mcc")
  default_metrics = ("accuracy", "macro_f1")
  reads_pairs = True
  filled_from_train = ("labels",)

  def __init__(self, spec):
    if not spec["labels"]:
      raise errors.ConfigError(f"task {spec['name']}: no labels resolved")
    super().__init__(spec["name"], spec["labels"], **_task_kwargs(spec))
    self._set_spec(spec)

  @classmethod
  def labels_from_files(cls, spec):
    """(labels, score range) read from a spec's train file."""
    values, _ = train_label_values(spec)
    return sorted(set(values)), None

  def parse_label(self, text, location):
    if not text:
      raise errors.DataError(f"{location}: empty {self.name} label")
    if text not in self.labels:
      raise errors.DataError(
          f"{location}: label {text!r} is not in {self.name}'s label list "
          f"{list(self.labels)}")
    return text


class FileRegressionTask(_SentenceReading, family.RegressionTask):
  """A real-valued score of a text or a text pair, from the user's files."""

  spec_formats = table_files.FORMATS
  spec_metrics = ("pearson", "spearman")
  default_metrics = ("pearson", "spearman")
  reads_pairs = True
  filled_from_train = ("score_range",)

  def __init__(self, spec):
    low, high = spec["score_range"] or (0.0, 1.0)
    super().__init__(spec["name"], float(low), float(high),
                     **_task_kwargs(spec))
    self._set_spec(spec)

  @classmethod
  def labels_from_files(cls, spec):
    """(labels, score range) read from a spec's train file."""
    path = spec["files"][TRAIN]
    values, records = train_label_values(spec)
    task = cls({**spec, "score_range": None})
    scores = [task.parse_label(v, f"{path}:{r.line}")
              for v, r in zip(values, records)]
    if min(scores) == max(scores):
      raise errors.DataError(f"{path}: every target is {scores[0]}; a "
                             "regression task needs different scores")
    return None, [min(scores), max(scores)]

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
