"""Tagging tasks on the user's CoNLL-style files (WNUT-16, NER, ...).

A spec (see `task_spec`) names the files, the token and tag columns and the
tag scheme. Bad input is a one-line `DataError` naming `file:line`: a line
without the columns, a malformed tag, a tag of a type the train file does
not have.
"""

from electra_tf import errors
from electra_tf.finetuning import spec_files
from electra_tf.finetuning import table_files
from electra_tf.finetuning import tasks
from electra_tf.finetuning.tagging import chunking
from electra_tf.finetuning.tagging import features
from electra_tf.finetuning.tagging import tag_spans
from electra_tf.finetuning.tagging import task as family


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


class FileTaggingTask(spec_files.SpecFiles, family.TaggingTask):
  """Per-word tags (BIO/BIOES chunks or entities), from CoNLL-style files."""

  spec_formats = ("conll",)
  spec_metrics = ("f1", "precision", "recall")
  default_metrics = ("f1", "precision", "recall")
  reads_pairs = False
  filled_from_train = ("labels",)

  def __init__(self, spec):
    super().__init__(
        spec["name"], spec["metrics"], labels=spec["labels"],
        num_train_epochs=float(spec["num_train_epochs"]
                               or tasks.DEFAULT_NUM_TRAIN_EPOCHS),
        default_max_seq_length=(spec["max_seq_length"]
                                or family.TAGGING_MAX_SEQ_LENGTH))
    self._set_spec(spec)

  @classmethod
  def labels_from_files(cls, spec):
    """(labels, score range) read from a spec's train file: `O` and each
    tag type of the train file with the scheme's positions."""
    sentences = read_conll(spec["files"][tasks.TRAIN], spec)
    types = {tag_spans.split_tag(t)[1] for _, tags, _ in sentences
             for t in tags if t != tag_spans.OUTSIDE}
    letters = (tag_spans.POSITIONS if spec["tag_scheme"] == "bioes" else
               sorted({tag_spans.split_tag(t)[0] for _, tags, _ in sentences
                       for t in tags if t != tag_spans.OUTSIDE}))
    labels = [tag_spans.OUTSIDE] + [f"{p}-{t}" for t in sorted(types)
                                    for p in letters]
    return sorted(labels), None

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
      result.examples.append(features.TaggingExample(
          len(result.examples), words, tuple(converted),
          tuple(label_ids[t] for t in converted)))
    return result
