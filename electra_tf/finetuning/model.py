"""FinetuningModel: one ELECTRA encoder shared by a head per task.

Shape legend: B batch, L sequence length, H hidden size.
"""

import keras

from electra_tf.checkpoints import tf1_names
from electra_tf.data import features as F
from electra_tf.finetuning import losses
from electra_tf.modeling import encoder as encoder_lib

# Feature naming the task of an example (index in `task_names`); padding
# examples carry len(task_names), which selects no loss.
TASK_ID = "task_id"
TF1_ENCODER_SCOPE = "electra"
TF1_TASK_SCOPE = "task_specific"


class FinetuningModel(keras.Model):
  """The original `FinetuningModel` (Clark et al., 2020): encoder + heads.

  Args:
    encoder_config: the encoder's `EncoderConfig`.
    task_heads: {task name: head layer}, in task-id order.

  Call with a dict of int32 [B, L] `input_ids`, `input_mask`, `segment_ids`
  and the tasks' target features; returns {task name: head outputs}
  (all tasks, or `task_names`). `task_loss` gives the original's training loss.

  >>> from electra_tf.finetuning.config import FinetuningConfig
  >>> config = FinetuningConfig.from_hparams({
  ...     "task_names": ["sst"], "vocab_size": 30, "embedding_size": 8,
  ...     "model_hparam_overrides": {"hidden_size": 16,
  ...                                "num_hidden_layers": 1}})
  >>> model = build_finetuning_model(config)
  >>> ids = keras.ops.ones([2, 5], "int32")
  >>> out = model({"input_ids": ids, "input_mask": ids, "segment_ids": ids})
  >>> tuple(out["sst"]["logits"].shape)
  (2, 2)
  """

  def __init__(self, encoder_config, task_heads, **kwargs):
    kwargs.setdefault("name", "electra_finetuning")
    super().__init__(**kwargs)
    self.encoder_config = encoder_config
    self.electra_encoder = encoder_lib.ElectraEncoder(
        encoder_config, name=TF1_ENCODER_SCOPE, dtype=self.dtype_policy)
    self.task_names = tuple(task_heads)
    self.task_heads = dict(task_heads)
    for name, head in task_heads.items():
      # Named attributes: tf.train.Checkpoint does not look inside dicts.
      setattr(self, "head_" + name.replace("-", "_"), head)

  def build(self, input_shape=None):
    self.electra_encoder.build()
    for head in self.task_heads.values():
      head.build()
    self.built = True

  def call(self, features, training=False, task_names=None):
    encoded = self.electra_encoder(
        features[F.INPUT_IDS], features[F.INPUT_MASK], features[F.SEGMENT_IDS],
        training=training)
    return {name: self.task_heads[name](encoded, features, training=training)
            for name in (task_names or self.task_names)}

  def task_loss(self, outputs, features):
    """The summed loss of each example under its own task (see TASK_ID)."""
    per_task = [self.task_heads[name].per_example_loss(outputs[name], features)
                for name in self.task_names]
    return losses.select_task_losses(per_task, features[TASK_ID])


def build_finetuning_model(config, label_lists=None, dtype=None):
  """A built `FinetuningModel` for `config.task_names`.

  Args:
    config: a `FinetuningConfig`.
    label_lists: {task name: labels} of the tasks whose labels are read
      from the data (`Task.data_labels`).
    dtype: a Keras dtype policy (mixed precision), default float32.
  """
  label_lists = label_lists or {}
  task_heads = {}
  for task in config.tasks:
    labels = label_lists.get(task.name)
    task_heads[task.name] = task.build_head(
        config, None if labels is None else len(labels), dtype)
  model = FinetuningModel(config.encoder_config, task_heads, dtype=dtype)
  model.build()
  return model


def tf1_variables(model):
  """TF1 name -> variable, as the original's finetuning graph names them."""
  table = tf1_names.encoder_variables(model.electra_encoder, TF1_ENCODER_SCOPE)
  for name, head in model.task_heads.items():
    for layer_name, layer in head.tf1_layers().items():
      prefix = f"{TF1_TASK_SCOPE}/{name}/{layer_name}"
      table[f"{prefix}/kernel"] = layer.kernel
      table[f"{prefix}/bias"] = layer.bias
  return table
