"""A sentence or sentence pair -> the model's fixed-length features.

The finetuning feature names of the classification family are defined here:
the token ids of `data/features.py`, the example id, and one target.
"""

import dataclasses

from electra_tf.finetuning import encoding
from electra_tf.finetuning import tasks

LABEL_IDS = "label_ids"  # int: index of the label in `task.labels`
TARGETS = "targets"  # float: regression score scaled as the original


@dataclasses.dataclass(frozen=True)
class SentenceExample:
  """One sentence or sentence pair with its label (str) or score (float)."""
  eid: int
  text_a: str
  text_b: str | None
  label: str | float


def with_swapped_pairs(examples):
  """`examples` plus each pair swapped, ids continuing after the last one."""
  offset = len(examples)
  return examples + [
      dataclasses.replace(example, eid=example.eid + offset,
                          text_a=example.text_b, text_b=example.text_a)
      for example in examples]


def sentence_features(example, tokenizer, max_seq_length):
  """`[CLS] a [SEP] (b [SEP])` ids, mask and segments, and the example id.

  As the original: a pair is cut to `max_seq_length - 3` tokens by
  `encoding.truncate_pair`, a single text to `max_seq_length - 2`.
  """
  tokens_a = tokenizer.tokenize(example.text_a)
  tokens_b = tokenizer.tokenize(example.text_b) if example.text_b else None
  if tokens_b:
    encoding.truncate_pair(tokens_a, tokens_b, max_seq_length - 3)
  else:
    tokens_a = tokens_a[:max_seq_length - 2]
  tokens, segment_ids = encoding.frame_pair(tokens_a, tokens_b)
  features = encoding.padded_inputs(tokenizer.convert_tokens_to_ids(tokens),
                                    segment_ids, max_seq_length)
  features[tasks.EXAMPLE_ID] = example.eid
  return features
