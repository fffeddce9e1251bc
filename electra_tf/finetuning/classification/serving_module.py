"""A finetuned sentence head as a SavedModel: texts in, labels or scores out.

Signatures:
  * `serving_default`: raw strings, tokenized and truncated in the graph as
    finetuning does: `text` [B] for single-sentence tasks (CoLA, SST),
    `text_a` and `text_b` [B] for pair tasks (MNLI, STS-B, ...);
  * `serve_token_ids(input_ids, input_mask, segment_ids)`: int32 [B, L];
  * `serve_examples(examples)`: serialized `tf.Example`s in the finetuning
    feature spec (int64 [max_seq_length] ids; `eid` and the gold label may
    be left out).

Outputs of classification tasks: `probabilities` and `logits` float32
[B, C], `label_id` int32 [B] and `label` string [B] (the task's label
names). Of regression (STS-B): `score` float32 [B] on the task's scale,
clipped to its range, as the leaderboard file writes it, and `raw_score`
[B], the head's output on finetuning's target scale (score - min) / max.
The raw-text signature also returns the model inputs `input_ids`,
`input_mask`, `segment_ids` and the word pieces `tokens` [B, L].
"""

import tensorflow as tf

from electra_tf.data import features as F
from electra_tf.serving import task_module


def is_pair_task(task):
  """Whether a sentence task reads two texts per example.

  >>> from electra_tf.finetuning import registry
  >>> is_pair_task(registry.get_task("sst")), is_pair_task(
  ...     registry.get_task("mnli"))
  (False, True)
  """
  return task.is_pair


class SentenceServingModule(task_module.TaskServingModule):
  """Sentence-level head of a finetuned model, for export.

  Args: as `TaskServingModule`; `task` is a `SentenceTask`. Subclasses say
  what the head's outputs become (`_outputs`).
  """

  def __init__(self, model, task, config, vocab_file, jit_compile=True):
    super().__init__(model, task, config, vocab_file,
                     jit_compile=jit_compile)
    self._spec = task_module.example_spec(task, self.settings)
    if is_pair_task(task):
      self.serve_text = tf.function(self._text_pair, input_signature=[
          task_module.named_text("text_a"), task_module.named_text("text_b")])
    else:
      self.serve_text = tf.function(
          self._text, input_signature=[task_module.named_text("text")])
    self.serve_token_ids = tf.function(
        self._predict, input_signature=[F.model_input_signature()])
    self.serve_examples = tf.function(
        self._examples, input_signature=[task_module.EXAMPLES])

  def _outputs(self, head_outputs):
    """The signature outputs of the head's outputs."""
    raise NotImplementedError

  def _predict(self, features):
    return self._outputs(self.head_outputs(features))

  def _with_inputs(self, features):
    out = self._predict(features)
    out.update({F.INPUT_IDS: features[F.INPUT_IDS],
                F.INPUT_MASK: features[F.INPUT_MASK],
                F.SEGMENT_IDS: features[F.SEGMENT_IDS],
                "tokens": self.featurizer.tokens(features[F.INPUT_IDS])})
    return out

  def _text(self, text):
    return self._with_inputs(self.featurizer(text))

  def _text_pair(self, text_a, text_b):
    return self._with_inputs(self.featurizer(text_a, text_b))

  def _examples(self, examples):
    return self._predict(task_module.model_inputs(
        tf.io.parse_example(examples, self._spec)))

  def signatures(self):
    return {"serving_default": self.serve_text,
            "serve_token_ids": self.serve_token_ids,
            "serve_examples": self.serve_examples}


class ClassifierServingModule(SentenceServingModule):
  """A classification head: label ids, names, logits and probabilities."""

  def __init__(self, model, task, config, vocab_file, jit_compile=True):
    super().__init__(model, task, config, vocab_file,
                     jit_compile=jit_compile)
    self.label_names = tf.constant(task.labels)  # [C]

  def _outputs(self, head_outputs):
    logits = head_outputs["logits"]  # [B, C]
    return {"logits": logits, "probabilities": tf.nn.softmax(logits),
            "label_id": head_outputs["predictions"],
            "label": tf.gather(self.label_names, head_outputs["predictions"])}


class ScoreServingModule(SentenceServingModule):
  """A regression head: the score on the task's scale, and the raw one."""

  def __init__(self, model, task, config, vocab_file, jit_compile=True):
    super().__init__(model, task, config, vocab_file,
                     jit_compile=jit_compile)
    self.score_range = (task.min_value, task.max_value)

  def _outputs(self, head_outputs):
    raw = head_outputs["predictions"]  # [B]
    low, high = self.score_range
    # Undoes finetuning's target scaling, as the leaderboard file does.
    return {"score": tf.clip_by_value(raw * high + low, low, high),
            "raw_score": raw}
