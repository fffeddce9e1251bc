"""Training one finetuning trial under a tf.distribute strategy.

The original's recipe: AdamW (weight decay 0.01, not on LayerNorm and
biases) with layer-wise learning rates, linear warmup over
`warmup_proportion` of the steps then linear decay to 0, gradients clipped
to global norm 1.0. The loss is the SUM of the examples' losses (as the
original's), over the global batch: replicas add their gradients and the
sum is clipped once, so N replicas compute what one device computes. (The
original on TPU clipped each core's gradient, then summed them: equal on one
device, a different update on several when clipping acts.)
"""

import dataclasses
import os

import keras
import tensorflow as tf
from absl import logging

from electra_tf import errors
from electra_tf.finetuning import checkpoints
from electra_tf.finetuning import input_pipeline
from electra_tf.finetuning import layerwise_lr
from electra_tf.finetuning import model as model_lib
from electra_tf.training import checkpointing
from electra_tf.training import distribute
from electra_tf.training import host_loop
from electra_tf.training import loss_scale as loss_scale_lib
from electra_tf.training import optimization
from electra_tf.training import precision
from electra_tf.training import progress as progress_lib
from electra_tf.training import replica_step


@dataclasses.dataclass
class Trainee:
  """A model with its optimizer, loss scale and checkpoints."""
  model: model_lib.FinetuningModel
  optimizer: optimization.AdamWeightDecay
  loss_scale: object
  checkpoints: checkpointing.RunCheckpoints
  origin: str = ""


class FinetuneStep:
  """Forward, backward and update of a `FinetuningModel` on one replica."""

  def __init__(self, model, optimizer, loss_scale=None):
    self.model = model
    self.optimizer = optimizer
    self.loss_scale = loss_scale

  def __call__(self, features):
    variables = self.model.trainable_variables

    def loss_fn():
      outputs = self.model(features, training=True)
      return self.model.task_loss(outputs, features), outputs

    grads, loss, _ = replica_step.gradients(loss_fn, variables,
                                            self.loss_scale)
    replica_step.apply_clipped(self.optimizer, grads, variables,
                               self.loss_scale)
    real = features[model_lib.TASK_ID] < len(self.model.task_names)
    return {"loss": loss, "examples": tf.reduce_sum(tf.cast(real, tf.float32))}


def build_trainee(config, strategy, model_dir, label_lists, num_train_steps,
                  seed):
  """Model and optimizer (seeded) with checkpoints in `model_dir`, restored.

  Restores per the order in `checkpoints` (resume, init_checkpoint,
  scratch).
  """
  keras.utils.set_random_seed(seed)
  with strategy.scope():
    model = model_lib.build_finetuning_model(
        config, label_lists, precision.dtype_policy(config.precision))
    optimizer = optimization.create_optimizer(
        model.trainable_variables, config.learning_rate, num_train_steps,
        num_train_steps * config.warmup_proportion, config.weight_decay_rate,
        lr_multipliers=layerwise_lr.lr_multipliers(
            model, config.layerwise_lr_decay, config.layerwise_lr_decay_mode))
    loss_scale = (loss_scale_lib.DynamicLossScale()
                  if config.precision == "mixed_float16" else None)
  run_checkpoints = checkpointing.for_run(
      strategy, model_dir, model, optimizer, keep=1,
      every_steps=config.save_checkpoints_steps, loss_scale=loss_scale)
  origin = run_checkpoints.restore()
  if not run_checkpoints.latest and config.init_checkpoint:
    origin = checkpoints.load_encoder(model.electra_encoder,
                                      config.init_checkpoint)
  logging.info("%s: %s", model_dir, origin)
  return Trainee(model, optimizer, loss_scale, run_checkpoints, origin)


def train(config, strategy, trainee, feature_set, num_train_steps, seed):
  """Trains to `num_train_steps` (resuming), saving the final checkpoint."""
  batch_size = config.train_batch_size
  if batch_size % strategy.num_replicas_in_sync:
    raise errors.ConfigError(
        f"train_batch_size {batch_size} is not divisible by the "
        f"{strategy.num_replicas_in_sync} replicas")
  optimizer = trainee.optimizer
  step = int(optimizer.iterations.numpy())
  if step >= num_train_steps:
    logging.info("already trained %d of %d steps", step, num_train_steps)
    return
  dataset = input_pipeline.train_dataset(feature_set, batch_size, seed)
  iterator = iter(strategy.experimental_distribute_dataset(dataset.skip(step)))
  run = host_loop.chunk_function(
      strategy, FinetuneStep(trainee.model, optimizer, trainee.loss_scale),
      distribute.compiles_step(strategy, config.jit_compile),
      lambda: {"loss": tf.zeros([]), "examples": tf.zeros([])},
      jit_compile_matmuls=config.jit_compile_matmuls)
  tracker = progress_lib.Progress(step, num_train_steps, batch_size)
  writer = distribute.summary_writer(
      strategy, os.path.join(trainee.checkpoints.model_dir, "train"))
  while step < num_train_steps:
    chunk = host_loop.next_chunk(
        step, num_train_steps, config.iterations_per_loop,
        config.log_every_steps, config.save_checkpoints_steps)
    sums = host_loop.run_chunk(run, iterator, chunk, step,
                               trainee.checkpoints.latest)
    step = int(optimizer.iterations.numpy())
    _log(step, sums, tracker, writer, optimizer)
    trainee.checkpoints.save(force=step >= num_train_steps)
  writer.flush()


def _log(step, sums, tracker, writer, optimizer):
  values = {"loss": sums["loss"] / max(sums["examples"], 1.0),
            "learning_rate": float(optimizer.current_learning_rate())}
  values.update(tracker.update(step))
  host_loop.write_scalars(writer, step, values)
  logging.info("step %d/%d | loss/example %.4f | lr %.3g | %.1f seq/s | "
               "ETA %s", step, tracker.total_steps, values["loss"],
               values["learning_rate"], values["sequences_per_second"],
               progress_lib.format_duration(values["eta_seconds"]))
