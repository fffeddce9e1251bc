"""Raw text -> model features, in-graph (for exported SavedModels).

Tokens equal `FullTokenizer`'s (see `data/tf_tokenizer.py`). Pairs are
truncated as the original's finetuning does: the longer segment loses a
token until both fit, which is what round-robin trimming keeps.

Shape legend: B batch, L sequence length (the longest in the batch, at most
max_seq_length).
"""

import tensorflow as tf
import tensorflow_text as tf_text

from electra_tf.data import features as F
from electra_tf.data import special_tokens
from electra_tf.data import tf_tokenizer
from electra_tf import tokenization


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
        tokenization.load_vocab(vocab_file), vocab_file)
    self.cls_id, self.sep_id = ids.cls, ids.sep
    self.max_seq_length = max_seq_length

  def __call__(self, text_a, text_b=None):
    """Features of a batch of texts (or text pairs): int32 [B, L] each."""
    segments = [self.tokenizer.tokenize(text_a)]  # [B, (T)]
    if text_b is not None:
      segments.append(self.tokenizer.tokenize(text_b))
    budget = self.max_seq_length - len(segments) - 1  # [CLS] + [SEP]s
    segments = tf_text.RoundRobinTrimmer(budget).trim(segments)
    ids, segment_ids = tf_text.combine_segments(
        segments, start_of_sequence_id=self.cls_id,
        end_of_segment_id=self.sep_id)  # [B, (L)]
    # At least [CLS] [SEP] wide, so an empty batch still has a [CLS] column.
    shape = tf.stack([ids.nrows(), tf.maximum(ids.bounding_shape(1), 2)])
    return {
        F.INPUT_IDS: tf.cast(ids.to_tensor(shape=shape), tf.int32),  # [B, L]
        F.INPUT_MASK: tf.cast(tf.ones_like(ids).to_tensor(shape=shape),
                              tf.int32),
        F.SEGMENT_IDS: tf.cast(segment_ids.to_tensor(shape=shape), tf.int32),
    }

  def tokens(self, input_ids):
    """Word-piece strings of `input_ids` [B, L] ("" at padding)."""
    pieces = self.tokenizer.ids_to_tokens(input_ids)
    return tf.where(input_ids > 0, pieces, "")
