"""Packing token sequences into the fixed-length inputs the model reads."""

import numpy as np

from electra_tf.data import features
from electra_tf.tokenization import special_tokens

# The original pads every sequence with id 0 ([PAD] in BERT's vocabulary).
PADDING_ID = 0


def truncate_pair(tokens_a, tokens_b, max_length):
  """Cuts a token pair in place to `max_length` tokens in total.

  As the original: one token at a time is popped from the end of the longer
  list (of `tokens_b` when both are as long).
  """
  while len(tokens_a) + len(tokens_b) > max_length:
    if len(tokens_a) > len(tokens_b):
      tokens_a.pop()
    else:
      tokens_b.pop()


def frame_pair(tokens_a, tokens_b=None):
  """`[CLS] a [SEP]` or `[CLS] a [SEP] b [SEP]`, and its segment ids."""
  tokens = [special_tokens.CLS, *tokens_a, special_tokens.SEP]
  segment_ids = [0] * len(tokens)
  if tokens_b:
    tokens += [*tokens_b, special_tokens.SEP]
    segment_ids += [1] * (len(tokens_b) + 1)
  return tokens, segment_ids


def padded_inputs(input_ids, segment_ids, max_seq_length):
  """`input_ids`, `input_mask` and `segment_ids`, zero-padded, int32.

  The mask is 1 on the given ids and 0 on the padding.
  """
  if len(input_ids) > max_seq_length:
    raise ValueError(f"{len(input_ids)} ids do not fit in {max_seq_length}")
  return {
      features.INPUT_IDS: pad_to(input_ids, max_seq_length),
      features.INPUT_MASK: pad_to([1] * len(input_ids), max_seq_length),
      features.SEGMENT_IDS: pad_to(segment_ids, max_seq_length),
  }


def pad_to(values, length, dtype=np.int32):
  """`values` followed by `PADDING_ID`s up to `length`, as a NumPy array."""
  return np.asarray(list(values) + [PADDING_ID] * (length - len(values)),
                    dtype)
