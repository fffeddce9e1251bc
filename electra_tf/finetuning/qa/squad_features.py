"""SQuAD featurization: sub-tokens, sliding context windows, span targets.

Each example becomes one `[CLS] question [SEP] context window [SEP]`
sequence per window ("doc span") of the sub-tokenized context, exactly as
the original `qa_tasks.py`.
"""

import dataclasses

from electra_tf import errors
from electra_tf.finetuning import encoding
from electra_tf.finetuning import tasks
from electra_tf.tokenization import special_tokens

START_POSITIONS = "start_positions"  # int: answer start in the sequence
END_POSITIONS = "end_positions"  # int: answer end (inclusive)
IS_IMPOSSIBLE = "is_impossible"  # int: 1 for unanswerable (SQuAD 2.0)
TARGET_FEATURES = (START_POSITIONS, END_POSITIONS, IS_IMPOSSIBLE)

# Feature id = this * example id + doc span index, as the original.
EXAMPLE_ID_STRIDE = 1000
# [CLS] question [SEP] ... [SEP]
NUM_FRAMING_TOKENS = 3
# Tie-break favouring longer windows when choosing a token's best window.
SPAN_LENGTH_WEIGHT = 0.01
# Characters the original treats as whitespace between context words.
WHITESPACE = frozenset(" \t\r\n\u202f")


@dataclasses.dataclass(frozen=True)
class DocSpan:
  """A window of the sub-tokenized context: first token and length."""
  start: int
  length: int

  @property
  def end(self):
    """Last token (inclusive)."""
    return self.start + self.length - 1


@dataclasses.dataclass
class SpanFeature:
  """The model features of one window and what decoding needs of it.

  Attributes:
    features: feature dict (see `tasks.Task.featurize`).
    doc_span_index: index of the window within its example.
    tokens: the sequence's tokens, before padding.
    token_to_orig_map: sequence position -> context word index.
    token_is_max_context: sequence position -> whether this window gives
      the token its most central position among all windows.
  """
  features: dict
  doc_span_index: int
  tokens: list
  token_to_orig_map: dict
  token_is_max_context: dict


def doc_spans(num_tokens, max_tokens_per_span, doc_stride):
  """Windows of at most `max_tokens_per_span` tokens, `doc_stride` apart."""
  spans = []
  start = 0
  while start < num_tokens:
    length = min(num_tokens - start, max_tokens_per_span)
    spans.append(DocSpan(start, length))
    if start + length == num_tokens:
      break
    start += min(length, doc_stride)
  return spans


def is_max_context(spans, span_index, position):
  """Whether `spans[span_index]` gives token `position` the most context.

  A window's score for a token is min(left, right context) plus 0.01 x the
  window length; the first window with the best score wins.
  """
  best_score, best_index = None, None
  for index, span in enumerate(spans):
    if not span.start <= position <= span.end:
      continue
    score = (min(position - span.start, span.end - position) +
             SPAN_LENGTH_WEIGHT * span.length)
    if best_score is None or score > best_score:
      best_score, best_index = score, index
  return span_index == best_index


def improve_answer_span(doc_tokens, start, end, tokenizer, answer_text):
  """The first, then longest, sub-token span inside [start, end] whose
  tokens join to the tokenized answer (e.g. `1895` in `( 1895 - 1943 )`);
  [start, end] if there is none."""
  answer = " ".join(tokenizer.tokenize(answer_text))
  for new_start in range(start, end + 1):
    for new_end in range(end, new_start - 1, -1):
      if " ".join(doc_tokens[new_start:new_end + 1]) == answer:
        return new_start, new_end
  return start, end


def _sub_tokens(words, tokenizer):
  """Sub-tokens of the context words, and the maps between the two."""
  sub_to_word, word_to_first_sub, sub_tokens = [], [], []
  for word_index, word in enumerate(words):
    word_to_first_sub.append(len(sub_tokens))
    for sub_token in tokenizer.tokenize(word):
      sub_to_word.append(word_index)
      sub_tokens.append(sub_token)
  return sub_tokens, sub_to_word, word_to_first_sub


def _answer_sub_span(example, tokenizer, sub_tokens, word_to_first_sub):
  """(start, end) sub-token positions of the training answer."""
  start = word_to_first_sub[example.start_position]
  if example.end_position < len(example.doc_tokens) - 1:
    end = word_to_first_sub[example.end_position + 1] - 1
  else:
    end = len(sub_tokens) - 1
  return improve_answer_span(sub_tokens, start, end, tokenizer,
                             example.orig_answer_text)


def featurize_spans(example, tokenizer, settings, is_training):
  """`SpanFeature`s of a `squad.QAExample`, one per context window.

  Training targets (`is_training`): an answer not wholly inside a window,
  or an unanswerable question, points at [CLS] (position 0).
  """
  query_tokens = tokenizer.tokenize(example.question_text)
  query_tokens = query_tokens[:settings.max_query_length]
  sub_tokens, sub_to_word, word_to_first_sub = _sub_tokens(
      example.doc_tokens, tokenizer)
  max_tokens_per_span = (settings.max_seq_length - len(query_tokens) -
                         NUM_FRAMING_TOKENS)
  if max_tokens_per_span <= 0:
    raise errors.ConfigError(
        f"max_seq_length={settings.max_seq_length} leaves no room for the "
        f"context after a {len(query_tokens)}-token question")
  answer = None
  if is_training and not example.is_impossible:
    answer = _answer_sub_span(example, tokenizer, sub_tokens,
                              word_to_first_sub)
  spans = doc_spans(len(sub_tokens), max_tokens_per_span, settings.doc_stride)
  if len(spans) > EXAMPLE_ID_STRIDE:
    raise errors.DataError(f"question {example.qas_id}: {len(spans)} windows"
                           f" exceed the {EXAMPLE_ID_STRIDE} ids per example")
  context_offset = len(query_tokens) + 2  # after [CLS] question [SEP]
  results = []
  for span_index, span in enumerate(spans):
    tokens, segment_ids = encoding.frame_pair(query_tokens)
    token_to_orig_map, token_is_max_context = {}, {}
    for position in range(span.start, span.end + 1):
      token_to_orig_map[len(tokens)] = sub_to_word[position]
      token_is_max_context[len(tokens)] = is_max_context(spans, span_index,
                                                         position)
      tokens.append(sub_tokens[position])
    tokens.append(special_tokens.SEP)
    segment_ids += [1] * (span.length + 1)
    features = encoding.padded_inputs(tokenizer.convert_tokens_to_ids(tokens),
                                      segment_ids, settings.max_seq_length)
    features[tasks.EXAMPLE_ID] = EXAMPLE_ID_STRIDE * example.eid + span_index
    if is_training:
      start = end = 0
      if answer and span.start <= answer[0] and answer[1] <= span.end:
        start, end = (position - span.start + context_offset
                      for position in answer)
      features.update({START_POSITIONS: start, END_POSITIONS: end,
                       IS_IMPOSSIBLE: int(example.is_impossible)})
    results.append(SpanFeature(features, span_index, tokens,
                               token_to_orig_map, token_is_max_context))
  return results
