"""The original's sentence-level head: classes or one score from [CLS].

Shape legend: B batch, H hidden size, K classes.

Dense layers use the default (Glorot) initializer, as the original's
`tf.layers.dense`; `tf1_layers` lists them under the TF1 names the original
gave them inside `task_specific/<task>/`.
"""

import keras
import tensorflow as tf

from electra_tf.finetuning import losses
from electra_tf.finetuning.classification import features as sentence_features

# The original drops out 10% of the [CLS] vector (keep_prob 0.9), whatever
# hidden_dropout_prob is.
SENTENCE_DROPOUT = 0.1


class SentenceHead(keras.layers.Layer):
  """dropout(0.1) -> dense on the [CLS] vector: classes or one score.

  Args:
    num_outputs: number of classes; 1 with `regression`.
    hidden_size: width of the encoder output.
    regression: predict one score, trained with the squared error (STS).
  """

  def __init__(self, num_outputs, hidden_size, regression=False, **kwargs):
    super().__init__(**kwargs)
    self.regression = regression
    self.hidden_size = hidden_size
    self.dropout = keras.layers.Dropout(SENTENCE_DROPOUT,
                                        dtype=self.dtype_policy)
    self.dense = keras.layers.Dense(num_outputs, name="dense",
                                    dtype=self.dtype_policy)

  def build(self, input_shape=None):
    self.dense.build([None, self.hidden_size])
    self.built = True

  def tf1_layers(self):
    return {"dense": self.dense}

  def call(self, encoder_outputs, features, training=False):
    del features  # reads only the encoder
    cls = self.dropout(encoder_outputs["pooled_output"], training=training)
    logits = tf.cast(self.dense(cls), tf.float32)  # [B, K]
    if self.regression:
      return {"predictions": tf.squeeze(logits, -1)}  # [B]
    return {"logits": logits,
            "predictions": tf.argmax(logits, -1, output_type=tf.int32)}

  def per_example_loss(self, outputs, features):
    if self.regression:
      return losses.squared_error(outputs["predictions"],
                                  features[sentence_features.TARGETS])
    return losses.softmax_cross_entropy(outputs["logits"],
                                        features[sentence_features.LABEL_IDS])
