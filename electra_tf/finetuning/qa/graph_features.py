"""SQuAD featurization in the graph: question + context -> context windows.

The same windows, ids and maps as `squad.split_words` followed by
`squad_features.featurize_spans(..., is_training=False)`, for a batch:
  1. the context is split into words on SQuAD's whitespace, keeping each
     word's character offset;
  2. each word is sub-tokenized (`FullTokenizer`'s tokens);
  3. the question's tokens are cut to `max_query_length`;
  4. the context tokens are cut into windows of at most
     `max_seq_length - |question| - 3` tokens, `doc_stride` apart, each
     framed as `[CLS] question [SEP] window [SEP]`;
  5. each window position knows its word and whether this window gives
     the token its most central position ("max context").
Invalid UTF-8 is decoded with U+FFFD; character offsets count the code
points of that decoding (Python `str` indices of `bytes.decode(errors=
"replace")`). An empty context has no windows, as in finetuning.

Shape legend: B examples, N windows (of all examples), W words, T context
sub-tokens, L window length (the longest in the batch), C candidate windows
of a token.
"""

import dataclasses

import tensorflow as tf

from electra_tf.data import features as F
from electra_tf.finetuning.qa import squad_features

UTF8 = "UTF-8"
SQUAD_WHITESPACE = tuple(sorted(ord(char)
                                for char in squad_features.WHITESPACE))
NOT_IN_CONTEXT = -1


@dataclasses.dataclass
class ContextWords:
  """SQuAD words of each context. Ragged [B, (W)]; offsets in code points."""
  words: tf.RaggedTensor  # string
  starts: tf.RaggedTensor  # int64: first character of each word
  lengths: tf.RaggedTensor  # int64: characters of each word


@dataclasses.dataclass
class Windows:
  """The model inputs of every window and what decoding needs of them."""
  features: dict  # input_ids, input_mask, segment_ids: int32 [N, L]
  example: tf.Tensor  # int64 [N]: the example a window belongs to
  num_windows: tf.Tensor  # int64 [B]
  context_word: tf.Tensor  # int64 [N, L]: word (index into words.flat_values)
                           # of a context position, else NOT_IN_CONTEXT
  max_context: tf.Tensor  # bool [N, L]: the window is the token's best
  context: ContextWords


def split_context(context):
  """`squad.split_words` of a batch of contexts [B] -> `ContextWords`.

  >>> words = split_context(tf.constant(["Hi  there\\n(you)", ""]))
  >>> words.words.to_list(), words.starts.to_list()
  ([[b'Hi', b'there', b'(you)'], []], [[0, 4, 10], []])
  """
  chars = tf.strings.unicode_decode(context, UTF8, errors="replace")
  flat = chars.flat_values  # [sum C]
  is_space = tf.reduce_any(flat[:, None] == SQUAD_WHITESPACE, axis=-1)
  position = tf.ragged.range(chars.row_lengths()).flat_values  # [sum C]
  after_space = tf.concat([[True], is_space], 0)[:-1] | (position == 0)
  starts_word = ~is_space & after_space
  word_of_char = tf.cumsum(tf.cast(starts_word, tf.int64)) - 1
  word_chars = tf.RaggedTensor.from_value_rowids(
      tf.boolean_mask(flat, ~is_space),
      tf.boolean_mask(word_of_char, ~is_space),
      nrows=tf.reduce_sum(tf.cast(starts_word, tf.int64)))  # [sum W, (C)]
  words_per_example = tf.math.unsorted_segment_sum(
      tf.cast(starts_word, tf.int64), chars.value_rowids(), chars.nrows())
  def per_example(values):
    return tf.RaggedTensor.from_row_lengths(values, words_per_example)
  return ContextWords(
      words=per_example(tf.strings.unicode_encode(word_chars, UTF8)),
      starts=per_example(tf.boolean_mask(position, starts_word)),
      lengths=per_example(word_chars.row_lengths()))


def _best_windows(num_tokens, span_length, stride, num_windows, token_example,
                  token_index):
  """Index of each token's max-context window (`is_max_context`).

  A window's score for a token is min(left, right context) + 0.01 x its
  length, in float64 as in Python; the first best window wins. Only the
  windows that can hold token t are scored: those starting at most
  ceil(span_length / stride) strides before the last one starting at or
  before t.
  """
  per_token = lambda values: tf.gather(values, token_example)  # [sum T]
  t, s = token_index[:, None], per_token(stride)[:, None]  # [sum T, 1]
  last = tf.minimum(t // s, per_token(num_windows)[:, None] - 1)
  candidates = tf.reduce_max(tf.concat([(span_length + stride - 1) // stride,
                                        [1]], 0)) + 1
  window = last - tf.range(candidates, dtype=tf.int64)  # [sum T, C]
  start = window * s
  end = tf.minimum(per_token(num_tokens)[:, None],
                   start + per_token(span_length)[:, None]) - 1
  contains = (window >= 0) & (start <= t) & (t <= end)
  score = (tf.cast(tf.minimum(t - start, end - t), tf.float64) +
           squad_features.SPAN_LENGTH_WEIGHT *
           tf.cast(end - start + 1, tf.float64))
  score = tf.where(contains, score, -float("inf"))
  best = tf.reduce_max(score, axis=1, keepdims=True)
  no_window = tf.reduce_max(num_windows) + 1
  return tf.reduce_min(tf.where(score == best, window, no_window), axis=1)


class QuestionContextFeaturizer(tf.Module):
  """Question and context strings -> `Windows` (see the module docstring).

  Args:
    featurizer: a `TextFeaturizer` (tokenizer and special ids).
    max_seq_length, max_query_length, doc_stride: finetuning's settings.
    min_length: pad windows to at least this length (the span head's beam
      needs as many positions).
  """

  def __init__(self, featurizer, max_seq_length, max_query_length,
               doc_stride, min_length=2, name=None):
    super().__init__(name=name)
    self.featurizer = featurizer
    self.max_seq_length = max_seq_length
    self.max_query_length = max_query_length
    self.doc_stride = doc_stride
    self.min_length = min_length

  def __call__(self, question, context):
    tokenizer = self.featurizer.tokenizer
    words = split_context(context)
    pieces = tokenizer.tokenize(words.words.flat_values)  # [sum W, (k)]
    tokens = tf.RaggedTensor.from_row_lengths(
        tf.cast(pieces.flat_values, tf.int64), tf.math.unsorted_segment_sum(
            pieces.row_lengths(), words.words.value_rowids(),
            words.words.nrows()))  # [B, (T)]
    query = tf.cast(tokenizer.tokenize(question)[:, :self.max_query_length],
                    tf.int64)  # [B, (Q)]
    num_tokens = tokens.row_lengths()
    span_length = (self.max_seq_length - query.row_lengths() -
                   squad_features.NUM_FRAMING_TOKENS)  # [B], >= 1 (export)
    stride = tf.minimum(span_length, self.doc_stride)
    num_windows = tf.where(
        num_tokens == 0, tf.zeros_like(num_tokens),
        1 + (tf.maximum(num_tokens - span_length, 0) + stride - 1) // stride)
    windows = tf.ragged.range(num_windows)  # [B, (windows)]
    example, index = windows.value_rowids(), windows.flat_values  # [N]
    start = index * tf.gather(stride, example)  # first context token
    length = tf.minimum(tf.gather(num_tokens, example) - start,
                        tf.gather(span_length, example))  # [N]
    features = self._padded(*self._framed(query, tokens, example, start,
                                          length))
    # Sequence position -> context token (index in tokens.flat_values).
    width = tf.shape(features[F.INPUT_IDS], out_type=tf.int64)[1]
    position = (tf.range(width)[None, :] - 2 -
                tf.gather(query.row_lengths(), example)[:, None])  # [N, L]
    in_context = (position >= 0) & (position < length[:, None])
    token = tf.where(
        in_context, position + (start + tf.gather(tokens.row_starts(),
                                                  example))[:, None],
        tf.size(tokens.flat_values, out_type=tf.int64))  # [N, L]
    best = _best_windows(num_tokens, span_length, stride, num_windows,
                         tokens.value_rowids(),
                         tf.ragged.range(num_tokens).flat_values)
    context_word = tf.gather(
        tf.concat([pieces.value_rowids(), [NOT_IN_CONTEXT]], 0), token)
    max_context = in_context & (tf.gather(
        tf.concat([best, [-1]], 0), token) == index[:, None])
    return Windows(features, example, num_windows, context_word,
                   max_context, words)

  def _padded(self, ids, segments):
    """Model inputs int32 [N, L], L >= `min_length`."""
    width = tf.maximum(ids.bounding_shape(1), self.min_length)
    shape = tf.stack([ids.nrows(), width])
    return {
        F.INPUT_IDS: tf.cast(ids.to_tensor(shape=shape), tf.int32),
        F.INPUT_MASK: tf.cast(tf.ones_like(ids).to_tensor(shape=shape),
                              tf.int32),
        F.SEGMENT_IDS: tf.cast(segments.to_tensor(shape=shape), tf.int32)}

  def _framed(self, query, tokens, example, start, length):
    """`[CLS] question [SEP] window [SEP]` ids and segment ids [N, (L)]."""
    taken = tf.ragged.range(start, start + length)  # [N, (len)]
    taken += tf.gather(tokens.row_starts(), example)[:, None]
    context_ids = tf.gather(tokens.flat_values, taken)  # [N, (len)]
    window_query = tf.gather(query, example)  # [N, (Q)]
    def column(token_id):
      return tf.RaggedTensor.from_tensor(tf.fill(
          tf.stack([tf.size(example), 1]), tf.cast(token_id, tf.int64)))
    cls, sep = column(self.featurizer.cls_id), column(self.featurizer.sep_id)
    ids = tf.concat([cls, window_query, sep, context_ids, sep], axis=1)
    segments = tf.concat([tf.zeros_like(cls), tf.zeros_like(window_query),
                          tf.zeros_like(sep), tf.ones_like(context_ids),
                          tf.ones_like(sep)], axis=1)
    return ids, segments
