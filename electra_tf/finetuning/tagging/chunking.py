"""CoNLL-2000 chunking, the original recipe's tagging task.

Raw files: `<data_dir>/finetuning_data/chunk/{train,dev,test}.txt`, one
`word POS chunk-tag` line per word, a blank line after each sentence. As the
original, tags are re-encoded as BIOES, labels are the sorted BIOES tags of
all the split files present, and each word is labelled on its first
sub-token.

Bad input raises `DataError` naming file and line: a line with fewer than
two fields, or a tag that is not `O` or `B-/I-/E-/S-<type>`.
"""

import dataclasses

import numpy as np
import tensorflow as tf

from electra_tf import errors
from electra_tf.data import special_tokens
from electra_tf.finetuning import encoding
from electra_tf.finetuning.tagging import tag_spans
from electra_tf.finetuning import tasks

LABELS = "labels"  # int32 [L]: label id of the k-th word (word order)
LABELS_MASK = "labels_mask"  # float32 [L]: 1 for the words kept
LABELED_POSITIONS = "labeled_positions"  # int32 [L]: k-th word's 1st token

CHUNK_MAX_SEQ_LENGTH = 256  # the original's default for chunking
DOCUMENT_START = "-DOCSTART-"
MIN_FIELDS = 2  # word ... tag
# The original marks all real tokens of a tagging input as segment 1.
TAGGING_SEGMENT_ID = 1
SPLIT_FILES_FOR_LABELS = (tasks.TRAIN, tasks.DEV, tasks.TEST)


@dataclasses.dataclass(frozen=True)
class TaggingExample:
  """A sentence, its BIOES tags and their label ids."""
  eid: int
  words: tuple
  tags: tuple
  label_ids: tuple


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


def word_token_ids(tokenizer, words, max_word_pieces=None):
  """Token ids per word, framed by [CLS] and [SEP] entries.

  A word of more than `max_word_pieces` pieces (a URL, a long hashtag) keeps
  its first ones: it is tagged on its first piece, and the original would
  instead have built an input longer than the model takes.
  """
  framed = [[special_tokens.CLS]]
  framed += [tokenizer.tokenize(word)[:max_word_pieces] for word in words]
  framed.append([special_tokens.SEP])
  return [tokenizer.convert_tokens_to_ids(tokens) for tokens in framed]


def decode_tags(predicted_label_ids, labels_mask, label_list):
  """Per-word BIOES tags of one sentence's predictions.

  Args:
    predicted_label_ids: [L] label ids, the k-th for the k-th word (the
      model predicts at `LABELED_POSITIONS`).
    labels_mask: [L] the featurized `LABELS_MASK`; its ones count the words
      that fit in the sequence.
    label_list: label strings in id order.
  """
  num_words = int(round(float(np.sum(labels_mask))))
  return [label_list[int(i)] for i in predicted_label_ids[:num_words]]


class ChunkingTask(tasks.Task):
  """CoNLL-2000 text chunking (`chunk`), scored by chunk F1."""

  def __init__(self):
    super().__init__("chunk", tasks.TaskType.TAGGING, ("f1",),
                     default_max_seq_length=CHUNK_MAX_SEQ_LENGTH)
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

  def target_shapes(self, settings, is_training):
    del is_training  # the same features for training and eval
    sequence = (settings.max_seq_length,)
    return {LABELS: (sequence, np.int32), LABELS_MASK: (sequence, np.float32),
            LABELED_POSITIONS: (sequence, np.int32)}

  def read_examples(self, data_dir, split, settings=None):
    del settings  # nothing to set
    label_ids = {label: i for i, label in enumerate(self.label_list(data_dir))}
    result = tasks.ReadResult()
    sentences = read_sentences(self.split_path(data_dir, split))
    for eid, (words, tags) in enumerate(sentences):
      bioes = tuple(tag_spans.convert(tags, tag_spans.BIOES))
      result.examples.append(TaggingExample(
          eid, words, bioes, tuple(label_ids[tag] for tag in bioes)))
    return result

  def featurize(self, example, tokenizer, settings, is_training=False):
    """Features of one sentence, truncated as the original.

    The original stops adding words once `input ids so far + number of
    words + 3 > max_seq_length` (then closes with [SEP]); this is reproduced,
    so long sentences keep fewer words than would fit. Where the original
    would overflow the length (a word of many pieces), the sentence is cut
    before that word instead, and a word longer than the whole sequence
    keeps its first pieces (see `word_token_ids`).
    """
    del is_training  # the same features for training and eval
    max_seq_length = settings.max_seq_length
    # [CLS] word [SEP] always fits.
    framed_words = word_token_ids(tokenizer, example.words, max_seq_length - 2)
    sep_id, = tokenizer.convert_tokens_to_ids([special_tokens.SEP])
    input_ids, labeled_positions = [], []
    for index, token_ids in enumerate(framed_words):
      is_word = 0 < index < len(framed_words) - 1
      if (len(framed_words) + len(input_ids) + 1 > max_seq_length
          or is_word and len(input_ids) + len(token_ids) + 1 > max_seq_length):
        input_ids.append(sep_id)
        break
      if is_word:
        labeled_positions.append(len(input_ids))
      input_ids.extend(token_ids)
    features = encoding.padded_inputs(
        input_ids, [TAGGING_SEGMENT_ID] * len(input_ids), max_seq_length)
    features.update({
        tasks.EXAMPLE_ID: example.eid,
        LABELS: encoding.pad_to(example.label_ids[:max_seq_length],
                                max_seq_length),
        LABELS_MASK: encoding.pad_to([1.0] * len(labeled_positions),
                                     max_seq_length, np.float32),
        LABELED_POSITIONS: encoding.pad_to(labeled_positions, max_seq_length),
    })
    return [features]


CHUNK = ChunkingTask()
