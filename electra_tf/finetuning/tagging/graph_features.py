"""Tagging featurization in the graph: text -> words -> tagged positions.

The original reads one word per line of a CoNLL file, so a word is what
Python's `str.split()` yields; a raw text is split the same way (on every
character `str.isspace` accepts). Then, as `features.sentence_features`:
each word is sub-tokenized and labelled at its first sub-token, and words
are added while `number of words + ids so far + 3 <= max_seq_length`, so
long sentences keep fewer words than would fit, and a sentence of more
than `max_seq_length - 3` words keeps none (only `[SEP]`). Where finetuning
raises `DataError` (a last kept word whose sub-tokens overflow the
sequence), the sub-tokens are cut at `max_seq_length - 1` instead; every
kept word still starts inside the sequence.

Shape legend: B sentences, W words, L sequence length (the longest in the
batch), N tagged words (the most in the batch).
"""

import functools

import tensorflow as tf

from electra_tf.data import features as F
from electra_tf.finetuning.tagging import features as tag_features
from electra_tf.serving import text_features
from electra_tf.tokenization import char_classes

UTF8 = "UTF-8"
CLS_AND_SEP = 2
# Finetuning's condition: words + ids so far + 1 ([SEP]) + 1 (next entry)
# <= max_seq_length, with the words framed by [CLS] and [SEP] entries.
FRAMING_ENTRIES = 2


@functools.lru_cache(maxsize=None)
def python_whitespace_class():
  """RE2 class of the characters `str.isspace` accepts (`str.split`)."""
  return char_classes.regex_class(char_classes.codepoint_ranges(str.isspace))


def split_on_whitespace(text):
  """`str.split()` of each string (invalid UTF-8 -> U+FFFD). [B] -> [B, (W)].

  >>> split_on_whitespace(tf.constant(["a\\u00a0b  c.", ""])).to_list()
  [[b'a', b'b', b'c.'], []]
  """
  text = tf.strings.unicode_transcode(
      text, UTF8, UTF8, errors="replace",
      replacement_char=char_classes.REPLACEMENT_CHARACTER)
  text = tf.strings.regex_replace(text, python_whitespace_class(), " ")
  return tf.strings.split(text)


def _within_sentence_prefix(counts, sentence):
  """Exclusive running sum of `counts` [sum W] restarting per sentence."""
  before = tf.cumsum(counts, exclusive=True)
  starts = tf.concat([before, [tf.reduce_sum(counts)]], 0)
  return before - tf.gather(tf.gather(starts, sentence.row_starts()),
                            sentence.value_rowids())


class WordTagFeaturizer(tf.Module):
  """Texts [B] -> words and the tagging features (see the module docstring).

  Args:
    featurizer: a `TextFeaturizer` (tokenizer and special ids).
    max_seq_length: finetuning's sequence length.
  """

  def __init__(self, featurizer, max_seq_length, name=None):
    super().__init__(name=name)
    self.featurizer = featurizer
    self.max_seq_length = max_seq_length

  def __call__(self, text):
    """Returns (words [B, (W)] string, features dict of int32/float32)."""
    words = split_on_whitespace(text)  # [B, (W)]
    pieces = self.featurizer.tokenizer.tokenize(words.flat_values)
    num_pieces = pieces.row_lengths()  # [sum W]
    num_words = tf.gather(words.row_lengths(), words.value_rowids())
    before = _within_sentence_prefix(num_pieces, words)  # [sum W]
    framed = words.row_lengths() + FRAMING_ENTRIES + 1 <= self.max_seq_length
    kept = tf.gather(framed, words.value_rowids()) & (
        num_words + FRAMING_ENTRIES + 2 + before <= self.max_seq_length)
    per_sentence = lambda flat, lengths: tf.RaggedTensor.from_row_lengths(
        flat, lengths)
    kept_per_sentence = tf.math.unsorted_segment_sum(
        tf.cast(kept, tf.int64), words.value_rowids(), words.nrows())
    content = per_sentence(
        tf.cast(tf.ragged.boolean_mask(pieces, kept).flat_values, tf.int64),
        tf.math.unsorted_segment_sum(tf.where(kept, num_pieces, 0),
                                     words.value_rowids(), words.nrows()))
    content = text_features.prefixes(
        content, tf.minimum(content.row_lengths(),
                            self.max_seq_length - CLS_AND_SEP))
    cls = per_sentence(tf.fill([tf.reduce_sum(tf.cast(framed, tf.int32))],
                               tf.cast(self.featurizer.cls_id, tf.int64)),
                       tf.cast(framed, tf.int64))
    sep = tf.RaggedTensor.from_tensor(tf.fill(
        tf.stack([words.nrows(), 1]), tf.cast(self.featurizer.sep_id,
                                              tf.int64)))
    ids = tf.concat([cls, content, sep], axis=1)  # [B, (L)]
    positions = per_sentence(tf.boolean_mask(before, kept) + 1,
                             kept_per_sentence)  # [B, (N)]
    return words, self._padded(ids, positions)

  def _padded(self, ids, positions):
    shape = tf.stack([ids.nrows(), tf.maximum(ids.bounding_shape(1),
                                              CLS_AND_SEP)])
    mask = tf.ones_like(ids).to_tensor(shape=shape)
    tagged = tf.stack([positions.nrows(), positions.bounding_shape(1)])
    return {
        F.INPUT_IDS: tf.cast(ids.to_tensor(shape=shape), tf.int32),
        F.INPUT_MASK: tf.cast(mask, tf.int32),
        F.SEGMENT_IDS: tf.cast(mask * tag_features.TAGGING_SEGMENT_ID,
                               tf.int32),
        tag_features.LABELED_POSITIONS: tf.cast(
            positions.to_tensor(shape=tagged), tf.int32),  # [B, N]
        tag_features.LABELS_MASK: tf.ones_like(
            positions, tf.float32).to_tensor(shape=tagged)}
