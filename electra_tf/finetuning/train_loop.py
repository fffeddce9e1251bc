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
from electra_tf.training import loss_scale as loss_scale_lib
from electra_tf.training import optimization
from electra_tf.training import precision
from electra_tf.training import pretrain_step
from electra_tf.training import progress as progress_lib


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
    with tf.GradientTape() as tape:
      outputs = self.model(features, training=True)
      loss = self.model.task_loss(outputs, features)
      scaled = loss if self.loss_scale is None else self.loss_scale.scale(loss)
    grads = tape.gradient(scaled, variables)
    grads = [tf.zeros_like(v) if g is None else tf.convert_to_tensor(g)
             for g, v in zip(grads, variables)]
    grads = pretrain_step.all_reduce_sum(grads)
    if self.loss_scale is not None:
      grads = self.loss_scale.unscale(grads)
    grads, norm = optimization.clip_by_global_norm(grads)
    if self.loss_scale is None:
      self.optimizer.apply(grads, variables)
    else:
      self.loss_scale.apply_if_finite(self.optimizer, grads, norm, variables)
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
    warmup = num_train_steps * config.warmup_proportion

    def schedule(step):
      return optimization.learning_rate_at(step, config.learning_rate,
                                           num_train_steps, warmup)

    optimizer = optimization.AdamWeightDecay(
        schedule, weight_decay_rate=config.weight_decay_rate,
        lr_multipliers=layerwise_lr.lr_multipliers(
            model, config.layerwise_lr_decay, config.layerwise_lr_decay_mode))
    optimizer.build(model.trainable_variables)
    loss_scale = (loss_scale_lib.DynamicLossScale()
                  if config.precision == "mixed_float16" else None)
  run_checkpoints = checkpointing.RunCheckpoints(
      model_dir, model, optimizer, keep=1,
      every_steps=config.save_checkpoints_steps, loss_scale=loss_scale,
      is_chief=distribute.is_chief(strategy))
  origin = run_checkpoints.restore()
  if not run_checkpoints.latest and config.init_checkpoint:
    origin = checkpoints.load_encoder(model.electra_encoder,
                                      config.init_checkpoint)
  logging.info("%s: %s", model_dir, origin)
  return Trainee(model, optimizer, loss_scale, run_checkpoints, origin)


def _loop_function(strategy, step, jit_compile):
  """A tf.function running `num_steps` replicated steps; returns sums."""
  compiled = tf.function(step, jit_compile=True) if jit_compile else step

  @tf.function
  def run(iterator, num_steps):
    sums = {"loss": tf.zeros([]), "examples": tf.zeros([]),
            "nonfinite_steps": tf.zeros([])}
    for _ in tf.range(num_steps):
      per_replica = strategy.run(compiled, args=(next(iterator),))
      loss = strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica["loss"],
                             axis=None)
      examples = strategy.reduce(tf.distribute.ReduceOp.SUM,
                                 per_replica["examples"], axis=None)
      sums = {"loss": sums["loss"] + loss,
              "examples": sums["examples"] + examples,
              "nonfinite_steps": sums["nonfinite_steps"] + tf.cast(
                  ~tf.math.is_finite(loss), tf.float32)}
    return sums

  return run


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
  run = _loop_function(
      strategy, FinetuneStep(trainee.model, optimizer, trainee.loss_scale),
      config.jit_compile and distribute.uses_xla_everywhere(strategy))
  tracker = progress_lib.Progress(step, num_train_steps, batch_size)
  writer = distribute.summary_writer(
      strategy, os.path.join(trainee.checkpoints.model_dir, "train"))
  every = config.log_every_steps or config.iterations_per_loop
  while step < num_train_steps:
    to_save = config.save_checkpoints_steps - step % (
        config.save_checkpoints_steps)
    chunk = max(1, min(every, num_train_steps - step, to_save))
    sums = {k: float(v) for k, v in run(iterator, tf.constant(chunk)).items()}
    if sums["nonfinite_steps"]:
      raise errors.ElectraError(
          f"non-finite loss in steps {step + 1}-{step + chunk}; stopped "
          "without saving")
    step = int(optimizer.iterations.numpy())
    _log(step, sums, tracker, writer, optimizer)
    trainee.checkpoints.save(force=step >= num_train_steps)
  writer.flush()


def _log(step, sums, tracker, writer, optimizer):
  values = {"loss": sums["loss"] / max(sums["examples"], 1.0),
            "learning_rate": float(optimizer.current_learning_rate())}
  values.update(tracker.update(step))
  with writer.as_default(step=step):
    for key, value in values.items():
      if key != "eta_seconds":
        tf.summary.scalar(key, value)
  logging.info("step %d/%d | loss/example %.4f | lr %.3g | %.1f seq/s | "
               "ETA %s", step, tracker.total_steps, values["loss"],
               values["learning_rate"], values["sequences_per_second"],
               progress_lib.format_duration(values["eta_seconds"]))
