"""The activations the original BertConfig names via `hidden_act`."""

import keras

from electra_tf import errors


def _exact_gelu(x):
  # The original uses the erf form, not the tanh approximation.
  return keras.activations.gelu(x, approximate=False)


ACTIVATIONS = {
    "gelu": _exact_gelu,
    "relu": keras.activations.relu,
    "tanh": keras.activations.tanh,
    "linear": None,
}


def get_activation(name):
  """Maps `hidden_act` to a function (None for linear)."""
  key = (name or "linear").lower()
  if key not in ACTIVATIONS:
    raise errors.ConfigError(
        f"hidden_act {name!r} is not one of {', '.join(ACTIVATIONS)}")
  return ACTIVATIONS[key]


def initializer(config):
  """The original's truncated normal (cut at 2 stddev) weight initializer."""
  return keras.initializers.TruncatedNormal(stddev=config.initializer_range)
