"""What every finetuned-task serving module shares.

A task module wraps one head of a `FinetuningModel` with the in-graph
tokenizer of its vocab and offers, besides its raw-text signature, the
finetuning features two ways: token ids (`serve_token_ids`) and serialized
`tf.Example`s in the finetuning feature spec (`serve_examples`).

Shape legend: B batch, L sequence length.
"""

import numpy as np
import tensorflow as tf

from electra_tf.data import features as F
from electra_tf.serving import input_checks
from electra_tf.serving import text_features
from electra_tf.serving import xla_batches

TEXT = tf.TensorSpec([None], tf.string)
EXAMPLES = tf.TensorSpec([None], tf.string, name="examples")


def named_text(name):
  """A batch of strings [B] named `name` in the signature."""
  return tf.TensorSpec([None], tf.string, name=name)


def example_spec(task, settings, required=()):
  """`tf.io` spec of the task's finetuning features (as cached TFRecords).

  The token ids and the features named in `required` must be present; the
  others (example id, gold targets) default to zeros, so clients need not
  send what inference does not read.
  """
  spec = {}
  shapes = task.feature_shapes(settings, is_training=False)
  for name, (shape, dtype) in shapes.items():
    dtype = tf.float32 if np.dtype(dtype).kind == "f" else tf.int64
    if name in F.PRETRAINING_FEATURES or name in required:
      spec[name] = tf.io.FixedLenFeature(shape, dtype)
    else:
      spec[name] = tf.io.FixedLenFeature(
          shape, dtype, default_value=np.zeros(shape, dtype.as_numpy_dtype))
  return spec


def model_inputs(parsed):
  """Parsed features with int64 -> int32, as the finetuning pipeline."""
  return {name: tf.cast(value, tf.int32) if value.dtype == tf.int64
          else value for name, value in parsed.items()}


class TaskServingModule(tf.Module):
  """One task head of a finetuned model, ready for `tf.saved_model.save`.

  Args:
    model: a built `FinetuningModel`.
    task: the `Task` whose head is served.
    config: the run's `FinetuningConfig` (lengths, lower-casing).
    vocab_file: the WordPiece vocab the model was finetuned with.
    jit_compile: run the encoder and head as one XLA computation, compiled
      once per power-of-two batch size (`xla_batches`); faster on CPUs at
      batch 1 and 32. TF Serving on CPUs then needs
      `--xla_cpu_compilation_enabled=true`; False exports the plain graph.
  """

  def __init__(self, model, task, config, vocab_file, name=None,
               jit_compile=True):
    super().__init__(name=name or "electra_" + task.name.replace("-", "_"))
    self.model = model
    # The tf.Variables behind the Keras ones, tracked directly: loaders
    # that restore by graph (TF Serving, saved_model_cli run) need them.
    self.model_variables = [v.value for v in model.weights]
    self.task_name = task.name
    self.vocab_size = config.encoder_config.vocab_size
    self.settings = config.data_settings
    self.max_seq_length = config.max_seq_length
    self.featurizer = text_features.TextFeaturizer(
        vocab_file, config.max_seq_length, config.do_lower_case)
    self.tokenizer = self.featurizer.tokenizer  # a TFWordpieceTokenizer
    self._head = (xla_batches.compiled_in_batch_buckets(self._run_head)
                  if jit_compile else self._run_head)

  def _run_head(self, features):
    return self.model(features, training=False,
                      task_names=[self.task_name])[self.task_name]

  def head_outputs(self, features):
    """The head's outputs on int32 [B, L] features (inference mode)."""
    return self._head(input_checks.check_token_features(
        features, self.vocab_size))

  def signatures(self):
    """{signature name: tf.function} to export."""
    raise NotImplementedError
