"""The pretrained discriminator as a SavedModel: text in, vectors out.

Signatures (outputs of all three: `sequence_output` [B, L, H], `pooled_output`
([CLS] vector) [B, H], `rtd_logits` and `rtd_probs` [B, L] (replaced-token
detection), `input_ids` and `input_mask` [B, L]):
  * `serving_default(text)`: raw strings, tokenized in the graph; also
    returns the word pieces as `tokens` [B, L];
  * `serve_text_pair(text_a, text_b)`: two segments per example;
  * `serve_token_ids(input_ids, input_mask, segment_ids)`: int32 [B, L];
  * `serve_examples(examples)`: serialized `tf.Example`s in the pretraining
    TFRecord format.
"""

import tensorflow as tf

from electra_tf import errors
from electra_tf.data import features as F
from electra_tf.serving import export
from electra_tf.serving import input_checks
from electra_tf.serving import text_features
from electra_tf.serving import xla_batches

TEXT = tf.TensorSpec([None], tf.string)


class EncoderServingModule(tf.Module):
  """Wraps an `ElectraDiscriminator` and a `TextFeaturizer` for export.

  `jit_compile`: run the discriminator as one XLA computation (see
  `TaskServingModule`); False exports the plain graph.
  """

  def __init__(self, discriminator, vocab_file, max_seq_length,
               do_lower_case=True, jit_compile=True):
    super().__init__(name="electra_encoder")
    self.discriminator = discriminator
    # The tf.Variables behind the Keras ones, tracked directly: without
    # this, loaders that restore by graph (TF Serving, saved_model_cli run)
    # find the variables uninitialised.
    self.model_variables = [v.value for v in discriminator.weights]
    self.featurizer = text_features.TextFeaturizer(
        vocab_file, max_seq_length, do_lower_case)
    self.max_seq_length = max_seq_length
    self.vocab_size = discriminator.config.vocab_size
    self._discriminate = (
        xla_batches.compiled_in_batch_buckets(self._run_discriminator)
        if jit_compile else self._run_discriminator)

  def _run_discriminator(self, features):
    return self.discriminator(features, training=False)

  def _encode(self, features):
    features = input_checks.check_token_features(features, self.vocab_size)
    out = self._discriminate(features)
    logits = tf.cast(out["logits"], tf.float32)
    return {
        "sequence_output": tf.cast(out["sequence_output"], tf.float32),
        "pooled_output": tf.cast(out["pooled_output"], tf.float32),
        "rtd_logits": logits,
        "rtd_probs": tf.sigmoid(logits),
        "input_ids": features[F.INPUT_IDS],
        "input_mask": features[F.INPUT_MASK],
    }

  @tf.function(input_signature=[TEXT])
  def serve_text(self, text):
    features = self.featurizer(text)
    out = self._encode(features)
    out["tokens"] = self.featurizer.tokens(features[F.INPUT_IDS])
    return out

  @tf.function(input_signature=[TEXT, TEXT])
  def serve_text_pair(self, text_a, text_b):
    features = self.featurizer(text_a, text_b)
    out = self._encode(features)
    out["tokens"] = self.featurizer.tokens(features[F.INPUT_IDS])
    return out

  @tf.function(input_signature=[F.model_input_signature()])
  def serve_token_ids(self, features):
    return self._encode(features)

  @tf.function(input_signature=[tf.TensorSpec([None], tf.string,
                                              name="examples")])
  def serve_examples(self, examples):
    parsed = tf.io.parse_example(
        examples, F.pretraining_feature_spec(self.max_seq_length))
    return self._encode({k: tf.cast(v, tf.int32) for k, v in parsed.items()})

  def signatures(self):
    return {
        "serving_default": self.serve_text,
        "serve_text_pair": self.serve_text_pair,
        "serve_token_ids": self.serve_token_ids.get_concrete_function(),
        "serve_examples": self.serve_examples,
    }


def export_encoder(pretrainer, vocab_file, export_dir, version=None,
                   jit_compile=True):
  """Exports `pretrainer.discriminator` with the signatures above."""
  config = pretrainer.config
  if pretrainer.discriminator is None:
    raise errors.ConfigError(
        "this model has no discriminator (objective 'mlm'); nothing to export")
  module = EncoderServingModule(pretrainer.discriminator, vocab_file,
                                config.max_seq_length, config.do_lower_case,
                                jit_compile)
  return export.write_saved_model(
      module, export_dir, module.signatures(),
      {"kind": "electra_encoder", "jit_compile": jit_compile,
       "pretraining_config": config.to_dict()},
      vocab_file=vocab_file, version=version)
