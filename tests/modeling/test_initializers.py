"""Initial weights follow the original's initializers, variable by variable.

The goldens start from given checkpoints, so they never see how a fresh
model is initialised; a different initializer changes every training run.
The original draws kernels and embedding tables from a normal truncated at
2 stddev (0.02), except two dense layers that name no initializer and get
TF1's default, Glorot uniform: `embeddings_project` and the discriminator
head's second dense. Biases are 0, LayerNorm gamma 1 and beta 0.
"""

import numpy as np
import tensorflow as tf

import electra_tf
from electra_tf.checkpoints import tf1_names

GLOROT = ("electra/embeddings_project/kernel",
          "generator/embeddings_project/kernel",
          "discriminator_predictions/dense_1/kernel")


def _initial_weights():
  tf.keras.utils.set_random_seed(0)
  model = electra_tf.ElectraPretrainer(electra_tf.PretrainingConfig.from_hparams(
      {"vocab_size": 300, "embedding_size": 32, "max_seq_length": 16,
       "generator_hidden_size": 1.0,  # its own embeddings_project
       "model_hparam_overrides": {"hidden_size": 64, "num_hidden_layers": 1,
                                  "num_attention_heads": 2}}))
  model.build()
  return {name: np.asarray(variable) for name, variable in
          tf1_names.pretrainer_variables(model).items()}


def test_each_variable_starts_as_the_originals():
  weights = _initial_weights()
  assert set(GLOROT) <= set(weights)
  for name, value in weights.items():
    if name in GLOROT:
      fan_in, fan_out = value.shape
      limit = np.sqrt(6.0 / (fan_in + fan_out))
      assert np.abs(value).max() <= limit, name
      assert abs(value.std() - limit / np.sqrt(3.0)) < 0.15 * limit, name
    elif name.endswith(("/bias", "/beta", "output_bias")):
      assert not value.any(), name
    elif name.endswith("/gamma"):
      assert (value == 1).all(), name
    else:  # kernels and embedding tables: truncated normal, stddev 0.02
      assert np.abs(value).max() <= 0.04, name
      assert 0.015 < value.std() < 0.02, name
