"""A finetuned tagging head as a SavedModel: text in, a tag per word out.

Signatures:
  * `serving_default(text)`: strings [B], split into words as the
    original's CoNLL words (`graph_features`). Outputs: `words` string
    [B, W] (every word of the text, "" as padding), `tags` string [B, W]
    (the BIOES tag of each tagged word; "" for padding and for words that
    finetuning's truncation drops), `tag_ids` int32 [B, W] (-1 there),
    `logits` float32 [B, W, K] (zeros there), `num_words` and `num_tagged`
    int32 [B], and the model inputs `input_ids`, `input_mask` [B, L].
  * `serve_token_ids(input_ids, input_mask, segment_ids, labeled_positions,
    labels_mask)`: the finetuning features, int32 [B, L] and
    `labeled_positions` int32 / `labels_mask` float32 [B, N] (the k-th
    word's first sub-token, and 1 for real words);
  * `serve_examples(examples)`: the same features in finetuning's
    tf.Example spec (`labels` and `eid` may be left out).
  Both return `logits` [B, N, K], `tag_ids` [B, N] and `tags` [B, N]
  (-1 and "" where `labels_mask` is 0).
"""

import tensorflow as tf

from electra_tf.data import features as F
from electra_tf.finetuning.tagging import features as tag_features
from electra_tf.finetuning.tagging import graph_features
from electra_tf.serving import task_module

NO_TAG = -1
TAGGING_INPUTS = (tag_features.LABELED_POSITIONS, tag_features.LABELS_MASK)


def tagging_input_signature():
  """Token-id features plus the tagged positions: names, dtypes, shapes."""
  signature = F.model_input_signature()
  signature[tag_features.LABELED_POSITIONS] = tf.TensorSpec(
      [None, None], tf.int32, name=tag_features.LABELED_POSITIONS)
  signature[tag_features.LABELS_MASK] = tf.TensorSpec(
      [None, None], tf.float32, name=tag_features.LABELS_MASK)
  return signature


class TaggerServingModule(task_module.TaskServingModule):
  """Tagging head of a finetuned model, for export.

  Args: as `TaskServingModule`, plus `labels`: the run's label list (tag
  strings in id order, from its `labels.json`).
  """

  def __init__(self, model, task, config, vocab_file, labels,
               jit_compile=True):
    super().__init__(model, task, config, vocab_file,
                     jit_compile=jit_compile)
    self.tag_names = tf.constant(list(labels))  # [K]
    self.words = graph_features.WordTagFeaturizer(self.featurizer,
                                                    config.max_seq_length)
    self._spec = task_module.example_spec(task, self.settings,
                                          required=TAGGING_INPUTS)
    self.serve_text = tf.function(
        self._text, input_signature=[task_module.named_text("text")])
    self.serve_token_ids = tf.function(
        self._predict, input_signature=[tagging_input_signature()])
    self.serve_examples = tf.function(
        self._examples, input_signature=[task_module.EXAMPLES])

  def _tags(self, logits, tagged):
    """Tag ids and strings of `logits` [B, N, K] where `tagged` [B, N]."""
    ids = tf.where(tagged, tf.argmax(logits, -1, output_type=tf.int32),
                   NO_TAG)
    names = tf.gather(self.tag_names, tf.maximum(ids, 0))
    return ids, tf.where(tagged, names, "")

  def _predict(self, features):
    logits = self.head_outputs(features)["logits"]  # [B, N, K]
    ids, tags = self._tags(logits, features[tag_features.LABELS_MASK] > 0)
    return {"logits": logits, "tag_ids": ids, "tags": tags}

  def _examples(self, examples):
    return self._predict(task_module.model_inputs(
        tf.io.parse_example(examples, self._spec)))

  def _text(self, text):
    words, features = self.words(text)
    logits = self.head_outputs(features)["logits"]  # [B, N, K]
    padded_words = words.to_tensor()  # [B, W]
    num_words, num_tagged = tf.shape(padded_words)[1], tf.shape(logits)[1]
    # Word j < num_tagged[b] is the head's j-th prediction.
    logits = tf.pad(logits, [[0, 0], [0, tf.maximum(
        num_words - num_tagged, 0)], [0, 0]])[:, :num_words]  # [B, W, K]
    tagged_per_text = tf.cast(tf.reduce_sum(
        features[tag_features.LABELS_MASK], 1), tf.int32)  # [B]
    tagged = tf.range(num_words)[None, :] < tagged_per_text[:, None]
    ids, tags = self._tags(logits, tagged)
    return {"words": padded_words, "tags": tags, "tag_ids": ids,
            "logits": tf.where(tagged[:, :, None], logits, 0.0),
            "num_words": tf.cast(words.row_lengths(), tf.int32),
            "num_tagged": tagged_per_text,
            F.INPUT_IDS: features[F.INPUT_IDS],
            F.INPUT_MASK: features[F.INPUT_MASK]}

  def signatures(self):
    return {"serving_default": self.serve_text,
            "serve_token_ids": self.serve_token_ids,
            "serve_examples": self.serve_examples}
