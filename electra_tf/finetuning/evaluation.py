"""Running a finetuned model over a split, for its task to score.

Each task family turns the outputs into metrics (`Task.evaluate`), in
percent as the original reports them.
"""

import numpy as np
import tensorflow as tf

from electra_tf.data import features as F
from electra_tf.finetuning import input_pipeline
from electra_tf.finetuning import model as model_lib


class Predictor:
  """Runs a model's heads over cached features under a strategy.

  One compiled function per task, reused across splits.
  """

  def __init__(self, model, strategy):
    self.model = model
    self.strategy = strategy
    self._functions = {}

  def _function(self, task_name, kept):
    key = (task_name, tuple(kept))
    if key not in self._functions:
      def replica_fn(batch):
        outputs = dict(self.model(batch, training=False,
                                  task_names=[task_name])[task_name])
        outputs.update({name: batch[name] for name in kept})
        return outputs

      self._functions[key] = tf.function(
          lambda batch: self.strategy.run(replica_fn, args=(batch,)),
          autograph=False)  # plain TensorFlow: no conversion needed
    return self._functions[key]

  def predict(self, feature_set, task_name, batch_size):
    """The head outputs and the non-input features of every real example.

    Returns:
      {name: NumPy array over examples, in file order}: the head's outputs
      (`logits`, `predictions`, span scores, ...) and the features (`eid`,
      gold labels, ...); {} for an empty split.
    """
    padding_id = len(self.model.task_names)
    dataset = self.strategy.experimental_distribute_dataset(
        input_pipeline.eval_dataset(feature_set, batch_size, padding_id))
    kept = [n for n in feature_set.shapes if n not in F.PRETRAINING_FEATURES]
    run = self._function(task_name, kept)
    chunks = {}
    for batch in dataset:
      for name, value in run(batch).items():
        parts = self.strategy.experimental_local_results(value)
        chunks.setdefault(name, []).append(
            np.concatenate([part.numpy() for part in parts]))
    if not chunks:
      return {}
    arrays = {name: np.concatenate(parts) for name, parts in chunks.items()}
    real = arrays[model_lib.TASK_ID] != padding_id
    return {name: values[real] for name, values in arrays.items()}
