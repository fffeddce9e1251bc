"""A finetuned SQuAD head as a SavedModel: question + context in, answer out.

Signatures:
  * `serving_default(question, context)`: strings [B]. The context is cut
    into `doc_stride` windows as in finetuning (all windows run, however
    long the context) and decoded in the graph as finetuning decodes
    (`graph_decoding`). Outputs:
      - `answer_text` string [B]: the best span's text, equal to the
        offline decoder's prediction; "empty" when no span is valid;
      - `answer_start`, `answer_end` int32 [B]: its first character and one
        past its last in the context, in code points (-1 for "empty");
      - `answer_score` float32 [B]: its start + end score;
      - `start_logits`, `end_logits` float32 [B, N, L] and the model
        inputs `input_ids`, `input_mask`, `segment_ids` int32 [B, N, L] of
        each question's N windows (zeros beyond its `num_windows` int32
        [B]); with joint prediction the end logits are zeros, as the
        original's;
      - SQuAD 2.0: `null_odds` float32 [B] (finetuning's definition),
        `is_impossible` bool [B] (`null_odds > qa_na_threshold`) and
        `prediction` string [B] ("" when impossible, else `answer_text`:
        what the 2.0 submission file holds).
  * `serve_token_ids(input_ids, input_mask, segment_ids)` int32 [B, L] and
    `serve_examples(examples)` (finetuning's tf.Example spec): one window
    per row, no decoding; the head's outputs `start_logits`,
    `end_logits` [B, L], `answerable_logit` [B] (with the answerable
    classifier) and with joint prediction `start_top_log_probs`,
    `start_top_index` [B, K], `end_top_log_probs`, `end_top_index`
    [B, K, K]. Rows shorter than the beam are zero-padded to K positions.
"""

import tensorflow as tf

from electra_tf import errors
from electra_tf.data import features as F
from electra_tf.finetuning.qa import evaluation
from electra_tf.finetuning.qa import squad_features
from electra_tf.finetuning.qa import graph_decoding
from electra_tf.finetuning.qa import graph_features
from electra_tf.serving import task_module

MIN_WINDOW_LENGTH = 2  # [CLS] [SEP]


def padded_to(features, length):
  """Token features [B, L] zero-padded to at least `length` columns."""
  extra = tf.maximum(length - tf.shape(features[F.INPUT_IDS])[1], 0)
  return {name: tf.pad(features[name], [[0, 0], [0, extra]])
          for name in F.PRETRAINING_FEATURES}


class SpanServingModule(task_module.TaskServingModule):
  """SQuAD 1.1 / 2.0 head of a finetuned model, for export.

  Args: as `TaskServingModule`; `task` is a `squad.SquadTask`.
  """

  def __init__(self, model, task, config, vocab_file, jit_compile=True):
    super().__init__(model, task, config, vocab_file,
                     jit_compile=jit_compile)
    room = (config.max_seq_length - config.max_query_length -
            squad_features.NUM_FRAMING_TOKENS)
    if room < 1:
      raise errors.ConfigError(
          f"max_seq_length={config.max_seq_length} leaves no room for the "
          f"context after a {config.max_query_length}-token question")
    self.v2 = task.v2
    self.decoding = evaluation.decoding_settings(config, task)
    self.null_odds_threshold = config.qa_na_threshold
    self.min_length = (config.beam_size if config.joint_prediction
                       else MIN_WINDOW_LENGTH)
    self.windows = graph_features.QuestionContextFeaturizer(
        self.featurizer, config.max_seq_length, config.max_query_length,
        config.doc_stride, self.min_length)
    self._spec = task_module.example_spec(task, self.settings)
    self.serve_text = tf.function(self._text, input_signature=[
        task_module.named_text("question"), task_module.named_text("context")])
    self.serve_token_ids = tf.function(
        self._token_ids, input_signature=[F.model_input_signature()])
    self.serve_examples = tf.function(
        self._examples, input_signature=[task_module.EXAMPLES])

  def _token_ids(self, features):
    return dict(self.head_outputs(padded_to(features, self.min_length)))

  def _examples(self, examples):
    return self._token_ids(task_module.model_inputs(
        tf.io.parse_example(examples, self._spec)))

  def _text(self, question, context):
    windows = self.windows(question, context)
    outputs = self.head_outputs(windows.features)
    best = graph_decoding.best_spans(windows, outputs, self.decoding)
    text, start, end = graph_decoding.answer_texts(windows, best,
                                                  self.tokenizer)
    def per_question(values):  # [N, L] -> [B, N, L]
      return tf.RaggedTensor.from_row_lengths(
          values, windows.num_windows).to_tensor()
    result = {
        "answer_text": text, "answer_start": tf.cast(start, tf.int32),
        "answer_end": tf.cast(end, tf.int32),
        "answer_score": tf.cast(best["start_score"] + best["end_score"],
                                tf.float32),
        "start_logits": per_question(outputs["start_logits"]),
        "end_logits": per_question(outputs["end_logits"]),
        "num_windows": tf.cast(windows.num_windows, tf.int32)}
    result.update({name: per_question(windows.features[name])
                   for name in F.PRETRAINING_FEATURES})
    if self.v2:
      odds = graph_decoding.null_odds(windows, outputs, best, self.decoding)
      impossible = odds > self.null_odds_threshold
      result.update({"null_odds": tf.cast(odds, tf.float32),
                     "is_impossible": impossible,
                     "prediction": tf.where(impossible, "", text)})
    return result

  def signatures(self):
    return {"serving_default": self.serve_text,
            "serve_token_ids": self.serve_token_ids,
            "serve_examples": self.serve_examples}
