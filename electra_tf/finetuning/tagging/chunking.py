"""CoNLL-2000 chunking, the original recipe's tagging task.

Raw files: `<data_dir>/finetuning_data/chunk/{train,dev,test}.txt`, one
`word POS chunk-tag` line per word, a blank line after each sentence. As the
original, tags are re-encoded as BIOES, labels are the sorted BIOES tags of
all the split files present, and each word is labelled on its first
sub-token.

Bad input raises `DataError` naming file and line: a line with fewer than
two fields, or a tag that is not `O` or `B-/I-/E-/S-<type>`.
"""

import tensorflow as tf

from electra_tf import errors
from electra_tf.finetuning import tasks
from electra_tf.finetuning.tagging import features
from electra_tf.finetuning.tagging import tag_spans
from electra_tf.finetuning.tagging import task as family

DOCUMENT_START = "-DOCSTART-"
MIN_FIELDS = 2  # word ... tag
SPLIT_FILES_FOR_LABELS = (tasks.TRAIN, tasks.DEV, tasks.TEST)


def read_sentences(path):
  """(words, tags) per sentence of a CoNLL file; tag is the last field."""
  if not tf.io.gfile.exists(path):
    raise errors.DataError(f"chunking file not found: {path}")
  sentences, words, tags = [], [], []
  with tf.io.gfile.GFile(path, "r") as f:
    for line_number, line in enumerate(f, start=1):
      fields = line.split()
      if not fields:
        if words:
          sentences.append((tuple(words), tuple(tags)))
          words, tags = [], []
        continue
      if fields[0] == DOCUMENT_START:
        continue
      if len(fields) < MIN_FIELDS:
        raise errors.DataError(f"{path}:{line_number}: expected 'word ... "
                               f"tag', got {line.strip()!r}")
      try:
        tag_spans.split_tag(fields[-1])
      except errors.DataError as error:
        raise errors.DataError(f"{path}:{line_number}: {error}") from None
      words.append(fields[0])
      tags.append(fields[-1])
  if words:  # the original drops a last sentence not followed by a blank line
    sentences.append((tuple(words), tuple(tags)))
  return sentences


class ChunkingTask(family.TaggingTask):
  """CoNLL-2000 text chunking (`chunk`), scored by chunk F1."""

  def __init__(self):
    super().__init__("chunk", ("f1",))
    self._label_lists = {}

  def split_path(self, data_dir, split):
    return tf.io.gfile.join(self.raw_data_dir(data_dir), split + ".txt")

  def label_list(self, data_dir):
    """Sorted BIOES tags of the train, dev and test files present."""
    if data_dir not in self._label_lists:
      all_tags = set()
      for split in SPLIT_FILES_FOR_LABELS:
        path = self.split_path(data_dir, split)
        if tf.io.gfile.exists(path):
          for _, tags in read_sentences(path):
            all_tags.update(tag_spans.convert(tags, tag_spans.BIOES))
      self._label_lists[data_dir] = tuple(sorted(all_tags))
    return self._label_lists[data_dir]

  def read_examples(self, data_dir, split, settings=None):
    del settings  # nothing to set
    label_ids = {label: i for i, label in enumerate(self.label_list(data_dir))}
    result = tasks.ReadResult()
    sentences = read_sentences(self.split_path(data_dir, split))
    for eid, (words, tags) in enumerate(sentences):
      bioes = tuple(tag_spans.convert(tags, tag_spans.BIOES))
      result.examples.append(features.TaggingExample(
          eid, words, bioes, tuple(label_ids[tag] for tag in bioes)))
    return result

  def test_output_splits(self):
    return []  # the original writes no chunking test predictions


CHUNK = ChunkingTask()
