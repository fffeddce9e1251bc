"""Mixed precision: the Keras dtype policy a `precision` setting names.

"mixed_bfloat16" (TPU, recent CPUs) and "mixed_float16" (GPU, with dynamic
loss scaling in the step) compute in 16 bits and keep float32 variables;
softmaxes, layer norms, logits and losses stay float32.
"""

import keras


def dtype_policy(precision):
  return keras.DTypePolicy(precision)
