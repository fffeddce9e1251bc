"""The original's SQuAD head: start, end (given the start), answerable.

Shape legend: B batch, L sequence length, H hidden size, K beam size.

Dense layers use the default (Glorot) initializer, as the original's
`tf.layers.dense`; `tf1_layers` lists them under the TF1 names the original
gave them inside `task_specific/<task>/`.
"""

import keras
import tensorflow as tf

from electra_tf.data import features as F
from electra_tf.finetuning import losses
from electra_tf.finetuning.qa import squad_features
from electra_tf.modeling import activations

QA_HIDDEN_SIZE = 512
# Added (times mask - 1) to the logits of positions that cannot be answers.
ANSWER_MASK_PENALTY = 1000.0


def _dense(units, name, policy, activation=None):
  return keras.layers.Dense(units, activation=activation, name=name,
                            dtype=policy)


class SpanHead(keras.layers.Layer):
  """The original's SQuAD head: start, end (given the start), answerable.

  Args:
    hidden_size: width of the encoder output.
    beam_size: start (and end per start) candidates kept at inference.
    joint_prediction: condition the end on the start; else independent
      start and end logits.
    answerable_classifier: add the "unanswerable" logit (SQuAD 2.0).
    answerable_uses_start_logits: feed the classifier the expected start
      vector too, through a dense(512, gelu).
    answerable_weight: weight of the answerable loss.

  With `joint_prediction`, training conditions the end on the gold start
  (`start_positions`); inference keeps the top `beam_size` starts and, for
  each, the top `beam_size` ends (`*_top_*` outputs; `end_logits` are then
  zeros, as in the original).
  """

  def __init__(self, hidden_size, beam_size=20, joint_prediction=True,
               answerable_classifier=True, answerable_uses_start_logits=True,
               answerable_weight=0.5, **kwargs):
    super().__init__(**kwargs)
    self.hidden_size = hidden_size
    self.beam_size = beam_size
    self.joint_prediction = joint_prediction
    self.answerable_classifier = answerable_classifier
    self.answerable_uses_start_logits = answerable_uses_start_logits
    self.answerable_weight = answerable_weight
    policy, gelu = self.dtype_policy, activations.get_activation("gelu")
    # Created in the original's order, which gave the TF1 names.
    self.start_logit = _dense(1, "dense", policy)
    self.end_hidden = (_dense(QA_HIDDEN_SIZE, "qa_hidden", policy, gelu)
                       if joint_prediction else None)
    self.end_logit = _dense(1, "dense_1", policy)
    self.answerable_hidden = self.answerable_logit = None
    if answerable_classifier and answerable_uses_start_logits:
      self.answerable_hidden = _dense(QA_HIDDEN_SIZE, "dense_2", policy, gelu)
    if answerable_classifier:
      self.answerable_logit = _dense(
          1, f"dense_{2 + int(self.answerable_hidden is not None)}", policy)

  def build(self, input_shape=None):
    h = self.hidden_size
    self.start_logit.build([None, None, h])
    if self.end_hidden is not None:
      self.end_hidden.build([None, None, 2 * h])
      self.end_logit.build([None, None, QA_HIDDEN_SIZE])
    else:
      self.end_logit.build([None, None, h])
    if self.answerable_hidden is not None:
      self.answerable_hidden.build([None, 2 * h])
      self.answerable_logit.build([None, QA_HIDDEN_SIZE])
    elif self.answerable_logit is not None:
      self.answerable_logit.build([None, h])
    self.built = True

  def tf1_layers(self):
    layers = [self.start_logit, self.end_hidden, self.end_logit,
              self.answerable_hidden, self.answerable_logit]
    return {layer.name: layer for layer in layers if layer is not None}

  def call(self, encoder_outputs, features, training=False):
    hidden = encoder_outputs["sequence_output"]  # [B, L, H]
    answer_mask = (tf.cast(features[F.INPUT_MASK], tf.float32) *
                   tf.cast(features[F.SEGMENT_IDS], tf.float32))
    answer_mask += tf.one_hot(0, tf.shape(hidden)[1])  # [CLS] = no answer
    penalty = ANSWER_MASK_PENALTY * (answer_mask - 1.0)  # [B, L]
    start_logits = _squeezed(self.start_logit(hidden)) + penalty  # [B, L]
    out = {"start_logits": start_logits}
    if self.joint_prediction:
      out.update(self._joint_end(hidden, start_logits, penalty, features,
                                 training))
    else:
      out["end_logits"] = _squeezed(self.end_logit(hidden)) + penalty
    if self.answerable_classifier:
      out["answerable_logit"] = self._answerable(hidden, start_logits)  # [B]
    return out

  def _joint_end(self, hidden, start_logits, penalty, features, training):
    """End logits given the gold start (training) or the top starts."""
    k = self.beam_size
    start_log_probs = tf.nn.log_softmax(start_logits)
    start_top_log_probs, start_top_index = tf.math.top_k(start_log_probs, k)
    seq_length = tf.shape(hidden)[1]
    if training:
      start = tf.one_hot(features[squad_features.START_POSITIONS], seq_length,
                         dtype=hidden.dtype)  # [B, L]
      start_vector = tf.einsum("bl,blh->bh", start, hidden)  # [B, H]
      start_vectors = tf.tile(start_vector[:, None], [1, seq_length, 1])
      pairs = tf.concat([start_vectors, hidden], -1)  # [B, L, 2H]
      end_logits = _squeezed(self.end_logit(self.end_hidden(pairs))) + penalty
      return {"end_logits": end_logits}
    starts = tf.one_hot(start_top_index, seq_length,
                        dtype=hidden.dtype)  # [B, K, L]
    start_vectors = tf.einsum("bkl,blh->bkh", starts, hidden)  # [B, K, H]
    start_vectors = tf.tile(start_vectors[:, :, None],
                            [1, 1, seq_length, 1])  # [B, K, L, H]
    ends = tf.tile(hidden[:, None], [1, k, 1, 1])  # [B, K, L, H]
    pairs = tf.concat([start_vectors, ends], -1)  # [B, K, L, 2H]
    end_logits = (_squeezed(self.end_logit(self.end_hidden(pairs))) +
                  penalty[:, None])  # [B, K, L]
    end_top_log_probs, end_top_index = tf.math.top_k(
        tf.nn.log_softmax(end_logits), k)  # [B, K, K]
    return {"end_logits": tf.zeros_like(start_logits),
            "start_top_log_probs": start_top_log_probs,
            "start_top_index": start_top_index,
            "end_top_log_probs": end_top_log_probs,
            "end_top_index": end_top_index}

  def _answerable(self, hidden, start_logits):
    features = hidden[:, 0]  # [B, H]
    if self.answerable_hidden is not None:
      start_p = tf.cast(tf.nn.softmax(start_logits), hidden.dtype)  # [B, L]
      expected_start = tf.einsum("bl,blh->bh", start_p, hidden)  # [B, H]
      features = self.answerable_hidden(
          tf.concat([features, expected_start], -1))  # [B, 512]
    return _squeezed(self.answerable_logit(features))  # [B]

  def per_example_loss(self, outputs, features):
    loss = losses.span_loss(
        outputs["start_logits"], outputs["end_logits"],
        features[squad_features.START_POSITIONS],
        features[squad_features.END_POSITIONS])
    if self.answerable_classifier:
      loss += self.answerable_weight * losses.answerable_loss(
          outputs["answerable_logit"], features[squad_features.IS_IMPOSSIBLE])
    return loss


def _squeezed(logits):
  """float32 logits without the trailing unit axis."""
  return tf.squeeze(tf.cast(logits, tf.float32), -1)
