"""The activations the original BertConfig names via `hidden_act`."""

import math

import keras
import tensorflow as tf

from electra_tf import errors

_SQRT_HALF = math.sqrt(0.5)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


def _exact_gelu(x):
  """x * Phi(x), Phi the standard normal CDF: the original's erf form, not
  the tanh approximation. Keras' in float32; `gelu_written_gradient` for
  16-bit inputs."""
  if x.dtype == tf.float32:
    return keras.activations.gelu(x, approximate=False)
  return gelu_written_gradient(x)


def _normal_cdf(x):
  """Phi(x) as the original writes it, 0.5 * (1 + erf(x / sqrt(2))): under
  XLA on CPUs erf is about half the cost of the erfc Keras uses."""
  return 0.5 + 0.5 * tf.math.erf(x * _SQRT_HALF)


@tf.custom_gradient
def gelu_written_gradient(x):
  """Exact GELU computed in float32 and returned in x's dtype, with its
  gradient written out, Phi(x) + x * phi(x), so that XLA compiles each
  direction to one fused pass (it made the bfloat16 step faster on CPUs,
  the float32 one under full XLA slower). In float32 its values are
  `keras.activations.gelu(x, approximate=False)`'s within float32 rounding.
  """
  x32 = tf.cast(x, tf.float32)

  def grad(upstream):
    # Recomputed from x with other ops than the forward's (Phi(x) as
    # 1 - Phi(-x), erf being odd): identical ops would be merged with the
    # forward's by the graph optimizer, which then keeps x and Phi(x) in
    # float32 from the forward to the backward pass (4x the memory of x).
    minus_x32 = tf.cast(-x, tf.float32)
    pdf = _INV_SQRT_2PI * tf.exp(-0.5 * tf.square(minus_x32))
    cdf = 0.5 - 0.5 * tf.math.erf(minus_x32 * _SQRT_HALF)
    return tf.cast(
        tf.cast(upstream, tf.float32) * (cdf - minus_x32 * pdf), x.dtype)

  return tf.cast(x32 * _normal_cdf(x32), x.dtype), grad


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
