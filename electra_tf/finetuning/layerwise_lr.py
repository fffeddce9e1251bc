"""Layer-wise learning-rate decay from the model's structure.

Depths: the embeddings (and their projection) are 0, Transformer layer i is
i + 1 and the task heads are the top. A variable at depth d learns at
`lr * decay ** (top - d)`.

The original puts the heads at n + 2 for n layers, so nothing is at n + 1
and the top Transformer layer already gets `decay ** 2` ("original", the
default, reproducing its published results). "corrected" puts the heads at
n + 1: head 1, top layer `decay`, ..., embeddings `decay ** (n + 1)`.
"""

from electra_tf import errors
from electra_tf.training import optimization

ORIGINAL = "original"
CORRECTED = "corrected"
# Depth of the task heads above the number of Transformer layers.
HEAD_DEPTH_OFFSET = {ORIGINAL: 2, CORRECTED: 1}


def variable_depths(model, mode=ORIGINAL):
  """[(variable, depth)] for every trainable variable of a FinetuningModel.

  Raises `ConfigError` if a variable belongs to no known part (the
  original raised "No learning rate specified for variable").
  """
  encoder = model.electra_encoder
  num_layers = len(encoder.blocks)
  parts = [(encoder.embeddings, 0)]
  if encoder.embeddings_project is not None:
    parts.append((encoder.embeddings_project, 0))
  parts += [(block, i + 1) for i, block in enumerate(encoder.blocks)]
  head_depth = num_layers + HEAD_DEPTH_OFFSET[mode]
  parts += [(head, head_depth) for head in model.task_heads.values()]
  depths = []
  for part, depth in parts:
    depths += [(variable, depth) for variable in part.trainable_variables]
  claimed = {id(variable) for variable, _ in depths}
  unclaimed = [v.path for v in model.trainable_variables
               if id(v) not in claimed]
  if unclaimed or len(claimed) != len(depths):
    raise errors.ConfigError(
        f"no layer-wise learning rate for {unclaimed or 'a shared variable'}")
  return depths


def lr_multipliers(model, decay, mode=ORIGINAL):
  """{variable key: decay ** (top - depth)} for `AdamWeightDecay`.

  Empty (every multiplier 1) when `decay <= 0`, as the original.

  Args:
    model: a built `FinetuningModel`.
    decay: the `layerwise_lr_decay` factor (0.8 by default).
    mode: "original" or "corrected" (see the module docstring).
  """
  if mode not in HEAD_DEPTH_OFFSET:
    raise errors.ConfigError(f"layerwise_lr_decay_mode {mode!r} is not one "
                             f"of {', '.join(HEAD_DEPTH_OFFSET)}")
  if decay <= 0:
    return {}
  top = len(model.electra_encoder.blocks) + HEAD_DEPTH_OFFSET[mode]
  return {optimization.variable_key(variable): decay ** (top - depth)
          for variable, depth in variable_depths(model, mode)}
