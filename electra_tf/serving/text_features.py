"""Raw text -> model features, in-graph (for exported SavedModels).

Tokens equal `FullTokenizer`'s (see `tokenization/tf_tokenizer.py`). Pairs are
truncated as the original's finetuning does: the longer segment loses a
token until both fit, which is what round-robin trimming keeps; a pair
whose second text has no tokens is framed as a single text.

Shape legend: B batch, L sequence length (the longest in the batch, at most
max_seq_length).
"""

import tensorflow as tf
import tensorflow_text as tf_text

from electra_tf.data import features as F
from electra_tf.serving import input_checks
from electra_tf.tokenization import special_tokens
from electra_tf.tokenization import tf_tokenizer
from electra_tf.tokenization import vocab_files


class TextFeaturizer(tf.Module):
  """[CLS] a [SEP] (b [SEP]) ids, mask and segments, padded to the batch.

  Args:
    vocab_file: the WordPiece vocab the model was trained with.
    max_seq_length: longest sequence, special tokens included.
    do_lower_case: as the tokenizer the model was trained with.
  """

  def __init__(self, vocab_file, max_seq_length, do_lower_case=True,
               name=None):
    super().__init__(name=name)
    self.tokenizer = tf_tokenizer.TFWordpieceTokenizer(
        vocab_file, do_lower_case=do_lower_case)
    ids = special_tokens.SpecialTokenIds.from_vocab(
        vocab_files.load_vocab(vocab_file), vocab_file)
    self.cls_id, self.sep_id = ids.cls, ids.sep
    self.max_seq_length = max_seq_length

  def __call__(self, text_a, text_b=None):
    """Features of a batch of texts (or text pairs): int32 [B, L] each."""
    segments = [self.tokenizer.tokenize(text_a)]  # [B, (T)]
    if text_b is not None:
      text_b = input_checks.check_pair(text_a, text_b)
      segments.append(self.tokenizer.tokenize(text_b))
    budget = self.max_seq_length - len(segments) - 1  # [CLS] + [SEP]s
    trimmed = tf_text.RoundRobinTrimmer(budget).trim(segments)
    if text_b is not None:
      trimmed = self._single_when_b_is_empty(segments[0], trimmed)
    ids, segment_ids = tf_text.combine_segments(
        trimmed, start_of_sequence_id=self.cls_id,
        end_of_segment_id=self.sep_id)  # [B, (L)]
    if text_b is not None:  # no [SEP] after an empty second segment
      kept = ids.row_lengths() - tf.cast(trimmed[1].row_lengths() == 0,
                                         tf.int64)
      ids, segment_ids = (prefixes(ids, kept), prefixes(segment_ids, kept))
    # At least [CLS] [SEP] wide, so an empty batch still has a [CLS] column.
    shape = tf.stack([ids.nrows(), tf.maximum(ids.bounding_shape(1), 2)])
    return {
        F.INPUT_IDS: tf.cast(ids.to_tensor(shape=shape), tf.int32),  # [B, L]
        F.INPUT_MASK: tf.cast(tf.ones_like(ids).to_tensor(shape=shape),
                              tf.int32),
        F.SEGMENT_IDS: tf.cast(segment_ids.to_tensor(shape=shape), tf.int32),
    }

  def _single_when_b_is_empty(self, tokens_a, trimmed):
    """As finetuning frames a pair whose b has no tokens: `[CLS] a [SEP]`,
    a cut to max_seq_length - 2."""
    a, b = trimmed
    single = b.row_lengths() == 0  # [B]
    kept = tf.where(single, tf.minimum(tokens_a.row_lengths(),
                                       self.max_seq_length - 2),
                    a.row_lengths())
    return [prefixes(tokens_a, kept), b]

  def tokens(self, input_ids):
    """Word-piece strings of `input_ids` [B, L] ("" at padding)."""
    pieces = self.tokenizer.ids_to_tokens(input_ids)
    return tf.where(input_ids > 0, pieces, "")


def prefixes(rows, lengths):
  """The first `lengths[b]` items of each row of `rows` [B, (T)]."""
  positions = tf.ragged.range(rows.row_lengths())  # [B, (T)]
  keep = positions.flat_values < tf.repeat(tf.cast(lengths, tf.int64),
                                           rows.row_lengths())
  return tf.ragged.boolean_mask(rows, positions.with_flat_values(keep))
