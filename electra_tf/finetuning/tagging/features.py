"""A sentence of words -> the model's features, a label per word.

The finetuning feature names of the tagging family are defined here: the
token ids of `data/features.py`, the example id, and the three below.

Shape legend: L sequence length.
"""

import dataclasses

import numpy as np

from electra_tf.finetuning import encoding
from electra_tf.finetuning import tasks
from electra_tf.tokenization import special_tokens

LABELS = "labels"  # int32 [L]: label id of the k-th word (word order)
LABELS_MASK = "labels_mask"  # float32 [L]: 1 for the words kept
LABELED_POSITIONS = "labeled_positions"  # int32 [L]: k-th word's 1st token

# The original marks all real tokens of a tagging input as segment 1.
TAGGING_SEGMENT_ID = 1


@dataclasses.dataclass(frozen=True)
class TaggingExample:
  """A sentence, its tags and their label ids."""
  eid: int
  words: tuple
  tags: tuple
  label_ids: tuple


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


def sentence_features(example, tokenizer, max_seq_length):
  """Features of one sentence, truncated as the original.

  The original stops adding words once `input ids so far + number of
  words + 3 > max_seq_length` (then closes with [SEP]); this is reproduced,
  so long sentences keep fewer words than would fit. Where the original
  would overflow the length (a word of many pieces), the sentence is cut
  before that word instead, and a word longer than the whole sequence
  keeps its first pieces (see `word_token_ids`).
  """
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
  return features


def decode_tags(predicted_label_ids, labels_mask, label_list):
  """Per-word tags of one sentence's predictions.

  Args:
    predicted_label_ids: [L] label ids, the k-th for the k-th word (the
      model predicts at `LABELED_POSITIONS`).
    labels_mask: [L] the featurized `LABELS_MASK`; its ones count the words
      that fit in the sequence.
    label_list: label strings in id order.
  """
  num_words = int(round(float(np.sum(labels_mask))))
  return [label_list[int(i)] for i in predicted_label_ids[:num_words]]
