"""SQuAD decoding in the graph: each question's best answer and null odds.

The result equals the first n-best entry of
`squad_postprocessing.decode_example` (and, for SQuAD 2.0, its null odds):
  * every window proposes start/end candidates (the head's beam with joint
    prediction, else the top `n_best_size` start x end logits);
  * a candidate is valid if both ends lie in the window's context, the
    start is at its max-context window and the span has at most
    `max_answer_length` tokens;
  * the best valid candidate by start + end score (float64, as Python) wins,
    ties going to the earlier window and candidate, as the stable sort;
  * its text is `final_text` of its word pieces, computed with the same
    character mapping (see `_final_text_span`); no valid candidate gives
    the original's nonce text "empty".
The n-best deduplication by text never changes the first entry, so only
the best candidate is decoded.

Shape legend: B examples, N windows, L window length, K candidates per
window.
"""

import tensorflow as tf

from electra_tf.finetuning.qa import squad_postprocessing as post
from electra_tf.finetuning.qa import graph_features

UTF8 = graph_features.UTF8
SPACE = ord(" ")
NO_OFFSET = -1


def _candidates(outputs, settings):
  """start, end [N, K] int64; start and end scores [N, K] float64."""
  if settings.joint_prediction:
    k = tf.shape(outputs["start_top_index"])[1]
    start = tf.repeat(outputs["start_top_index"], k, axis=1)  # [N, K*K]
    end = tf.reshape(outputs["end_top_index"], [-1, k * k])
    start_score = tf.repeat(outputs["start_top_log_probs"], k, axis=1)
    end_score = tf.reshape(outputs["end_top_log_probs"], [-1, k * k])
  else:
    k = tf.minimum(settings.n_best_size, tf.shape(outputs["start_logits"])[1])
    start_values, start_index = tf.math.top_k(outputs["start_logits"], k)
    end_values, end_index = tf.math.top_k(outputs["end_logits"], k)
    start = tf.repeat(start_index, k, axis=1)  # [N, K*K]
    end = tf.tile(end_index, [1, k])
    start_score = tf.repeat(start_values, k, axis=1)
    end_score = tf.tile(end_values, [1, k])
  return (tf.cast(start, tf.int64), tf.cast(end, tf.int64),
          tf.cast(start_score, tf.float64), tf.cast(end_score, tf.float64))


def _with_dummy_row(values):
  """`values` [N, ...] with a zero row N, for examples without a window."""
  shape = tf.concat([[1], tf.shape(values)[1:]], 0)
  return tf.concat([values, tf.zeros(shape, values.dtype)], 0)


def best_spans(windows, outputs, settings):
  """Each example's best valid candidate.

  Returns a dict of [B] tensors: `found` (bool), `window` (N when not
  found), `start` and `end` (positions in the window), `start_score` and
  `end_score` (float64, 0 when not found).
  """
  start, end, start_score, end_score = _candidates(outputs, settings)
  word_of = lambda positions: tf.gather(windows.context_word, positions,
                                        batch_dims=1)
  valid = ((word_of(start) != graph_features.NOT_IN_CONTEXT) &
           (word_of(end) != graph_features.NOT_IN_CONTEXT) & (start <= end) &
           tf.gather(windows.max_context, start, batch_dims=1) &
           (end - start + 1 <= settings.max_answer_length))  # [N, K]
  score = tf.where(valid, start_score + end_score, -float("inf"))
  window_best = tf.reduce_max(score, axis=1)  # [N]
  candidates = tf.shape(score, out_type=tf.int64)[1]
  first = tf.reduce_min(tf.where(score == window_best[:, None], tf.range(
      candidates), candidates), axis=1)  # [N]
  num_examples = tf.size(windows.num_windows)
  example_best = tf.math.unsorted_segment_max(window_best, windows.example,
                                              num_examples)
  n = tf.size(windows.example, out_type=tf.int64)
  is_best = window_best == tf.gather(example_best, windows.example)
  window = tf.math.unsorted_segment_min(
      tf.where(is_best, tf.range(n), n), windows.example, num_examples)
  found = (windows.num_windows > 0) & (example_best > -float("inf"))
  window = tf.where(found, window, n)
  row = tf.gather(_with_dummy_row(first), window)  # [B]
  def take(values):
    picked = tf.gather_nd(_with_dummy_row(values), tf.stack([window, row], 1))
    return tf.where(found, picked, tf.zeros([], values.dtype))
  return {"found": found, "window": window, "start": take(start),
          "end": take(end), "start_score": take(start_score),
          "end_score": take(end_score)}


def _count_below(positions, limit):
  """Per row of ragged `positions` [B, (n)]: how many are < `limit` [B]."""
  below = positions.flat_values < tf.repeat(limit, positions.row_lengths())
  return tf.math.unsorted_segment_sum(tf.cast(below, tf.int64),
                                      positions.value_rowids(),
                                      positions.nrows())


def _row_items(rows, index):
  """`rows[b, index[b]]` of a ragged [B, (n)] (0 where out of range)."""
  flat = tf.concat([rows.flat_values, tf.zeros([1], rows.dtype)], 0)
  inside = (index >= 0) & (index < rows.row_lengths())
  return tf.gather(flat, tf.where(inside, rows.row_starts() + index,
                                  tf.size(rows.flat_values, tf.int64)))


def _first_occurrence(haystack, needle):
  """Code point index of `needle`'s first occurrence in `haystack`, or -1.

  Both [B] valid UTF-8; a byte match of valid UTF-8 starts on a character,
  so searching bytes finds what Python's `str.find` finds.
  """
  def find(pair):
    before = tf.strings.split(pair[0], sep=pair[1], maxsplit=1)
    found = (tf.size(before) == 2) & (tf.strings.length(pair[1]) > 0)
    head = tf.concat([before, [""]], 0)[0]  # "" splits into no parts
    return tf.where(found, tf.cast(tf.strings.length(
        head, unit="UTF8_CHAR"), tf.int64), tf.constant(-1, tf.int64))
  return tf.map_fn(find, (haystack, needle),
                   fn_output_signature=tf.TensorSpec([], tf.int64))


def _non_space_positions(text):
  """Ragged [B, (n)] code point positions of the characters that are not " "."""
  chars = tf.strings.unicode_decode(text, UTF8)
  positions = tf.ragged.range(chars.row_lengths())
  return tf.ragged.boolean_mask(positions, chars != SPACE)


def _final_text_span(pred_text, orig_text, tokenizer):
  """`post.final_text` as first and last code point of `orig_text` [B].

  `pred_text` (the joined word pieces) is found in the basic tokenization
  of `orig_text`; its first and last characters map to `orig_text` by
  their rank among the characters other than " ". Where it is not found,
  or the two texts differ in that count, the whole `orig_text` is kept.
  `pred_text` never starts or ends with " ", so its ends are ranked.
  """
  tokenized = tf.strings.reduce_join(tokenizer.split_words(orig_text),
                                     axis=1, separator=" ")  # [B]
  start = _first_occurrence(tokenized, pred_text)
  end = start + tf.cast(tf.strings.length(pred_text, unit="UTF8_CHAR"),
                        tf.int64) - 1
  orig_chars = _non_space_positions(orig_text)
  tokenized_chars = _non_space_positions(tokenized)
  mapped = (start >= 0) & (orig_chars.row_lengths() ==
                           tokenized_chars.row_lengths())
  first = _row_items(orig_chars, _count_below(tokenized_chars, start))
  last = _row_items(orig_chars, _count_below(tokenized_chars, end))
  orig_length = tf.cast(tf.strings.length(orig_text, unit="UTF8_CHAR"),
                        tf.int64)
  return (tf.where(mapped, first, 0), tf.where(mapped, last,
                                               orig_length - 1))


def _pred_text(input_ids, positions, tokenizer):
  """Word pieces at ragged `positions` of `input_ids` rows, joined as the
  original joins them (no "##", single spaces). [B, L] -> [B]."""
  flat = positions + (tf.range(tf.shape(input_ids, out_type=tf.int64)[0]) *
                      tf.shape(input_ids, out_type=tf.int64)[1])[:, None]
  pieces = tokenizer.ids_to_tokens(tf.gather(tf.reshape(input_ids, [-1]),
                                             flat))  # [B, (P)]
  text = tf.strings.reduce_join(pieces, axis=1, separator=" ")
  text = tf.strings.regex_replace(text, " " + post.WORDPIECE_PREFIX, "")
  text = tf.strings.regex_replace(text, post.WORDPIECE_PREFIX, "")
  return tf.strings.strip(tf.strings.regex_replace(text, " +", " "))


def answer_texts(windows, best, tokenizer):
  """Text of each best span and its context offsets [start, end).

  Returns (text [B] string, start [B], end [B] int64 code points): the
  offsets of the text's first and last character in the context (the text
  joins words with single spaces where the context may have other
  whitespace). Not found: the nonce text "empty" and offsets -1.
  """
  found, window = best["found"], best["window"]
  input_ids = tf.gather(_with_dummy_row(
      tf.cast(windows.features["input_ids"], tf.int64)), window)  # [B, L]
  pred_text = _pred_text(input_ids, tf.ragged.range(
      best["start"], tf.where(found, best["end"] + 1, best["start"])),
                         tokenizer)
  word_at = lambda position: tf.gather_nd(
      _with_dummy_row(windows.context_word), tf.stack([window, position], 1))
  first_word = tf.where(found, word_at(best["start"]), 0)
  span = tf.ragged.range(first_word, tf.where(
      found, word_at(best["end"]) + 1, first_word))  # [B, (words)]
  context = windows.context
  orig_text = tf.strings.reduce_join(
      tf.gather(context.words.flat_values, span), axis=1, separator=" ")
  first, last = _final_text_span(pred_text, orig_text, tokenizer)
  # orig_text character -> context character: each word's characters and
  # one more (the joining space, never an answer end).
  starts = tf.gather(context.starts.flat_values, span)
  lengths = tf.gather(context.lengths.flat_values, span)
  chars = tf.ragged.range(starts.flat_values,
                          starts.flat_values + lengths.flat_values + 1)
  char_map = span.with_flat_values(chars).merge_dims(1, 2)  # [B, (chars)]
  text = tf.strings.substr(orig_text, first, last - first + 1,
                           unit="UTF8_CHAR")
  return (tf.where(found, text, post.NO_VALID_SPAN_TEXT),
          tf.where(found, _row_items(char_map, first), NO_OFFSET),
          tf.where(found, _row_items(char_map, last) + 1, NO_OFFSET))


def null_odds(windows, outputs, best, settings):
  """SQuAD 2.0 null odds [B] float64, as `post.decode_predictions`.

  With the answerable classifier: the lowest answerable logit over the
  windows; else the lowest start_logits[0] + end_logits[0] minus the best
  span's start and end scores. Questions without windows keep
  `post.NULL_SCORE_START`.
  """
  if settings.answerable_classifier:
    window_null = tf.cast(outputs["answerable_logit"], tf.float64)
  else:  # float32 sum, as NumPy adds the two logits
    window_null = tf.cast(outputs["start_logits"][:, 0] +
                          outputs["end_logits"][:, 0], tf.float64)
  score_null = tf.minimum(tf.math.unsorted_segment_min(
      window_null, windows.example, tf.size(windows.num_windows)),
                          post.NULL_SCORE_START)
  if settings.answerable_classifier:
    return score_null
  return score_null - best["start_score"] - best["end_score"]
