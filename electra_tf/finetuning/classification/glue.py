"""GLUE tasks of the original recipe: TSV and TFDS readers, leaderboard files.

Raw files are the original GLUE release, laid out as the original expects:
`<data_dir>/finetuning_data/<task>/{train,dev,test}.tsv` (MNLI: `dev_matched`,
`dev_mismatched`, `test_matched`, `test_mismatched`, `diagnostic`).

Bad input, as the original: a row too short for the columns a task reads is
skipped, logged and counted in `ReadResult.skipped`. Unlike the original
(which fails later with a bare KeyError or assert), a label outside the
task's labels, or a score that is not a number in range, raises `DataError`
naming the file and line.
"""

import abc
import csv
import dataclasses
import os

import tensorflow as tf

from electra_tf import errors
from electra_tf.finetuning import tasks
from electra_tf.finetuning.classification import features
from electra_tf.finetuning.classification import submission
from electra_tf.finetuning.classification import task as family

# A split whose name contains one of these has no labels; its examples get a
# dummy label (the first label, or 0.0), as the original.
UNLABELED_SPLIT_WORDS = ("test", "diagnostic")

# Our split names -> TFDS split names, for all tasks but MNLI.
TFDS_SPLITS = {tasks.TRAIN: "train", tasks.DEV: "validation",
               tasks.TEST: "test"}
TFDS_LABEL_KEY = "label"
TFDS_UNLABELED = -1


@dataclasses.dataclass(frozen=True)
class Columns:
  """Where a TSV row keeps its texts and label (negative: from the end)."""
  text_a: int
  text_b: int | None = None
  label: int | None = None
  has_header: bool = True


@dataclasses.dataclass(frozen=True)
class TfdsSource:
  """Where TFDS keeps a task: `glue/<config>`, text keys, label order."""
  config: str
  text_keys: tuple
  label_names: tuple | None = None  # TFDS class index -> our label
  splits: dict = dataclasses.field(default_factory=lambda: dict(TFDS_SPLITS))


def is_unlabeled(split):
  return any(word in split for word in UNLABELED_SPLIT_WORDS)


def read_tsv(path):
  """Rows of a TSV file as (line number, fields), without quote handling."""
  if not tf.io.gfile.exists(path):
    raise errors.DataError(f"GLUE file not found: {path}")
  with tf.io.gfile.GFile(path, "r") as f:
    reader = csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
    return [(reader.line_num, row) for row in reader]


class GlueTask(family.SentenceTask):
  """A GLUE task read from the release's TSVs or TFDS, predicted into the
  leaderboard's files; subclasses are the family's label kinds."""

  def __init__(self, name, *, labeled_columns, unlabeled_columns, tfds,
               split_files=None, split_columns=None, **task_kwargs):
    super().__init__(name, **task_kwargs)
    self.tfds = tfds
    self._labeled_columns = labeled_columns
    self._unlabeled_columns = unlabeled_columns
    self._split_files = split_files or {}
    self._split_columns = split_columns or {}

  def file_stem(self, split):
    """Name of the TSV file (without `.tsv`) holding `split`."""
    return self._split_files.get(split, split)

  def split_path(self, data_dir, split):
    return tf.io.gfile.join(self.raw_data_dir(data_dir),
                            self.file_stem(split) + ".tsv")

  @property
  def is_pair(self):
    """Whether an example holds two texts."""
    return len(self.tfds.text_keys) == 2

  def is_labeled(self, data_dir, split):
    del data_dir  # GLUE's test and diagnostic files have no labels
    return not is_unlabeled(self.file_stem(split))

  def read_examples(self, data_dir, split, settings=None):
    settings = settings or self.settings()
    stem = self.file_stem(split)
    path = self.split_path(data_dir, split)
    columns = self._split_columns.get(stem) or (
        self._unlabeled_columns if is_unlabeled(stem)
        else self._labeled_columns)
    labeled = not is_unlabeled(stem)
    needed = [c for c in (columns.text_a, columns.text_b,
                          columns.label if labeled else None) if c is not None]
    result = tasks.ReadResult()
    for index, (line, row) in enumerate(read_tsv(path)):
      if index == 0 and columns.has_header:
        continue
      location = f"{path}:{line}"
      if not all(-len(row) <= column < len(row) for column in needed):
        result.skip(location, f"row has {len(row)} columns; {self.name} "
                    f"reads columns {needed}")
        continue
      result.examples.append(features.SentenceExample(
          eid=index - int(columns.has_header),
          text_a=row[columns.text_a],
          text_b=None if columns.text_b is None else row[columns.text_b],
          label=(self.parse_label(row[columns.label], location) if labeled
                 else self.dummy_label())))
    return self.maybe_double(result, split, settings)

  def examples_from_tfds(self, records, split, settings=None):
    """Reads TFDS `glue/*` records (dicts of texts, `label`, `idx`).

    Args:
      records: iterable of dicts as `tfds.as_numpy` yields them (texts as
        bytes or str, labels as TFDS class indices or floats).
      split: our split name (`train`, `dev`, `test`).
      settings: `DataSettings`; `double_unordered` applies to `train`.

    Returns:
      A `ReadResult`; example ids count the records from 0.
    """
    settings = settings or self.settings()
    labeled = not is_unlabeled(split)
    result = tasks.ReadResult()
    for index, record in enumerate(records):
      location = f"TFDS {self.tfds.config} {split} record {index}"
      keys = self.tfds.text_keys + ((TFDS_LABEL_KEY,) if labeled else ())
      missing = [key for key in keys if key not in record]
      if missing:
        raise errors.DataError(f"{location} lacks the key(s) {missing}")
      texts = [_as_text(record[key]) for key in self.tfds.text_keys]
      result.examples.append(features.SentenceExample(
          eid=index, text_a=texts[0],
          text_b=texts[1] if len(texts) > 1 else None,
          label=(self.tfds_label(record[TFDS_LABEL_KEY], location) if labeled
                 else self.dummy_label())))
    return self.maybe_double(result, split, settings)

  def load_tfds(self, split, settings=None, tfds_data_dir=None):
    """Downloads (if needed) and reads `split` from TFDS; needs internet."""
    import tensorflow_datasets as tfds  # pylint: disable=g-import-not-at-top
    dataset = tfds.load(self.tfds.config, split=self.tfds.splits[split],
                        data_dir=tfds_data_dir)
    return self.examples_from_tfds(tfds.as_numpy(dataset), split, settings)

  def test_output_splits(self):
    return submission.glue_splits(self)

  def write_test_outputs(self, outputs, run, split, folder, trial):
    del run  # the leaderboard takes the predictions alone
    return submission.write_glue_file(
        os.path.join(folder, submission.GLUE_FOLDER.format(trial)), self,
        split, outputs)

  @abc.abstractmethod
  def tfds_label(self, value, location):
    """The label of a TFDS label value; `DataError` if invalid."""


class GlueClassificationTask(GlueTask, family.ClassificationTask):
  """A GLUE task with categorical labels."""

  def __init__(self, name, labels, **kwargs):
    super().__init__(name, labels=labels, **kwargs)

  def parse_label(self, text, location):
    if text not in self.labels:
      raise errors.DataError(f"{location}: unknown {self.name} label "
                             f"{text!r}; expected one of {list(self.labels)}")
    return text

  def tfds_label(self, value, location):
    index = int(value)
    if not 0 <= index < len(self.tfds.label_names):
      raise errors.DataError(f"{location}: label {index} is not a class of "
                             f"{self.tfds.config}")
    return self.tfds.label_names[index]


class GlueRegressionTask(GlueTask, family.RegressionTask):
  """A GLUE task with a real-valued score in [min_value, max_value]."""

  def __init__(self, name, min_value, max_value, **kwargs):
    super().__init__(name, min_value=min_value, max_value=max_value, **kwargs)

  def parse_label(self, text, location):
    try:
      score = float(text)
    except ValueError:
      raise errors.DataError(
          f"{location}: {self.name} score {text!r} is not a number") from None
    return self.tfds_label(score, location)

  def tfds_label(self, value, location):
    score = float(value)
    if not self.min_value <= score <= self.max_value:
      raise errors.DataError(f"{location}: {self.name} score {score} outside "
                             f"[{self.min_value}, {self.max_value}]")
    return score


def _as_text(value):
  return value.decode("utf-8") if isinstance(value, bytes) else str(value)
