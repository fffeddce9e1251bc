"""The pretraining and pretraining-eval loops under a tf.distribute strategy.

The host loop is `host_loop`'s: chunks of up to `iterations_per_loop` steps
per host call, ending at checkpoint boundaries so checkpoints land exactly
every `save_checkpoints_steps` steps. This module adds what is particular
to pretraining: the data, the health checks, stop requests and the eval.
"""

import contextlib
import dataclasses
import itertools
import os
import signal
import time
from typing import Optional

import keras
import tensorflow as tf
from absl import logging

from electra_tf import errors
from electra_tf import output_files
from electra_tf import run_lock
from electra_tf.data import pretrain_pipeline
from electra_tf.modeling import sizes
from electra_tf.pretraining import health
from electra_tf.pretraining import health_monitor
from electra_tf.pretraining import losses
from electra_tf.pretraining import metrics
from electra_tf.pretraining import model as model_lib
from electra_tf.pretraining import train_step
from electra_tf.training import checkpointing
from electra_tf.training import distribute
from electra_tf.training import host_loop
from electra_tf.training import loss_scale as loss_scale_lib
from electra_tf.training import optimization
from electra_tf.training import precision
from electra_tf.training import progress as progress_lib


@dataclasses.dataclass
class RunResult:
  """What a finished (or stopped) run reports."""
  step: int
  checkpoint: Optional[str]
  metrics: dict
  stopped_early: bool = False
  stop_signal: Optional[int] = None  # SIGTERM/SIGINT that stopped the run


def training_losses(loss_weights, sums):
  """Mean loss of each term over a host loop, and the weighted total."""
  parts = {name: (float(sums[f"{name}_loss_numerator"]),
                  float(sums[f"{name}_loss_denominator"]))
           for name in loss_weights}
  out = {f"{name}_loss": losses.mean_of(*parts[name]) for name in parts}
  out["total_loss"] = losses.weighted_total(loss_weights, parts)
  return out


class _StopRequest:
  """Turns SIGTERM (pre-emption) and Ctrl-C into a stop after this loop."""

  def __init__(self):
    self.requested = False
    self.signal = None
    self._previous = {}

  def __enter__(self):
    for sig in (signal.SIGTERM, signal.SIGINT):
      try:
        self._previous[sig] = signal.signal(sig, self._handle)
      except ValueError:  # not the main thread
        pass
    return self

  def _handle(self, signum, frame):
    del frame
    if self.requested:  # a second Ctrl-C stops at once
      raise KeyboardInterrupt
    logging.warning("signal %d: saving a checkpoint and stopping", signum)
    self.requested = True
    self.signal = signum

  def __exit__(self, *exc):
    for sig, handler in self._previous.items():
      signal.signal(sig, handler)


def pretraining_optimizer(config, variables):
  """The optimizer a `PretrainingConfig` asks for, built over `variables`."""
  return optimization.create_optimizer(
      variables, config.learning_rate, config.num_train_steps,
      config.num_warmup_steps, config.weight_decay_rate,
      config.lr_decay_power, lamb=config.optimizer == "lamb")


def build_model_and_optimizer(config, strategy, special_ids):
  """Model, optimizer (built over its variables) and float16 loss scale.

  Initial weights and dropout seeds follow `config.seed`, so two runs of one
  config (on any number of replicas) start from the same point.
  """
  keras.utils.set_random_seed(config.seed)
  with strategy.scope():
    model = model_lib.ElectraPretrainer(
        config, special_ids=special_ids,
        dtype=precision.dtype_policy(config.precision))
    model.build()
    optimizer = pretraining_optimizer(config, model.trainable_variables)
    loss_scale = (loss_scale_lib.DynamicLossScale()
                  if config.precision == "mixed_float16" else None)
  return model, optimizer, loss_scale


def _distributed_dataset(strategy, config, files, start_step, training=True):
  global_batch = (config.train_batch_size if training
                  else config.eval_batch_size)

  def dataset_fn(context):
    per_pipeline = strategy.num_replicas_in_sync // max(
        context.num_input_pipelines, 1)
    return pretrain_pipeline.pretraining_dataset(
        files, context.get_per_replica_batch_size(global_batch),
        config.max_seq_length, training=training, seed=config.seed,
        input_context=context, skip_batches=start_step * per_pipeline,
        files_interleaved=config.input_files_interleaved,
        shuffle_buffer=config.input_shuffle_buffer)

  return strategy.distribute_datasets_from_function(dataset_fn)


def pretrain(config, strategy, model_dir, train_files, special_ids=None,
             init_checkpoint=None, max_seconds=None, peak_flops=None,
             health_files=None):
  """Pretrains to `config.num_train_steps`, resuming from `model_dir`.

  Returns a `RunResult`. `max_seconds` stops early (after saving) once that
  much wall time has passed; rerunning continues. `health_files`: held-out
  TFRecords for the health checks (default: the first training batches).
  The chief holds `model_dir`'s run lock: a second run on it is refused;
  the scratch files of a killed earlier run in it are removed.
  """
  lock = (run_lock.RunLock(model_dir, "pretraining run")
          if distribute.is_chief(strategy) else contextlib.nullcontext())
  with lock:
    if distribute.is_chief(strategy):
      output_files.remove_leftovers(model_dir, (
          output_files.CHECKPOINT_STAGING, output_files.TEMP_FILES))
    return _pretrain(config, strategy, model_dir, train_files, special_ids,
                     init_checkpoint, max_seconds, peak_flops, health_files)


def _pretrain(config, strategy, model_dir, train_files, special_ids,
              init_checkpoint, max_seconds, peak_flops, health_files):
  if config.train_batch_size % strategy.num_replicas_in_sync:
    raise errors.ConfigError(
        f"train_batch_size {config.train_batch_size} is not divisible by the "
        f"{strategy.num_replicas_in_sync} replicas")
  pretrain_pipeline.check_shards(train_files, config.max_seq_length)
  checkpointing.check_config(model_dir, config)
  model, optimizer, loss_scale = build_model_and_optimizer(
      config, strategy, special_ids)
  checkpoints = checkpointing.for_run(
      strategy, model_dir, model, optimizer, keep=config.keep_checkpoint_max,
      every_steps=config.save_checkpoints_steps, loss_scale=loss_scale)
  logging.info("%s", checkpoints.restore(init_checkpoint))
  # Recorded only now: a config refused by the restore must not replace
  # the record of the model the dir holds.
  if distribute.is_chief(strategy):
    checkpointing.record_config(model_dir, config)
  step = int(optimizer.iterations.numpy())
  total = config.num_train_steps
  if step >= total:
    logging.info("already at step %d of %d; nothing to do", step, total)
    return RunResult(step, checkpoints.latest, {})

  iterator = iter(_distributed_dataset(strategy, config, train_files, step))
  step_fn = train_step.PretrainStep(model, optimizer, loss_scale)
  run_steps = host_loop.chunk_function(
      strategy, lambda features: step_fn(features, training=True),
      distribute.compiles_step(strategy, config.jit_compile),
      lambda: train_step.empty_training_sums(
          model.loss_weights, "disc" in model.loss_weights),
      train_step.REPLICATED_SUMS, config.jit_compile_matmuls)
  flops = sizes.pretraining_flops_per_sequence(config) * config.train_batch_size
  tracker = progress_lib.Progress(step, total, config.train_batch_size, flops,
                                  peak_flops)
  writer = distribute.summary_writer(strategy,
                                     os.path.join(model_dir, "train"))
  started = time.time()
  result = RunResult(step, checkpoints.latest, {})
  monitor = health_monitor.HealthMonitor(
      config, strategy, model, itertools.islice(_distributed_dataset(
          strategy, config, health_files or train_files, 0, training=False),
                                                config.health_eval_batches),
      model_dir)
  with _StopRequest() as stop:
    while step < total:
      chunk = host_loop.next_chunk(
          step, total, config.iterations_per_loop, config.log_every_steps,
          config.save_checkpoints_steps)
      sums = host_loop.run_chunk(run_steps, iterator, chunk, step,
                                 checkpoints.latest)
      step = int(optimizer.iterations.numpy())
      values = _log_chunk(model.loss_weights, sums, chunk, step, tracker,
                          writer, optimizer)
      if monitor.due(step, step - chunk):
        monitor.check(step)
      timed_out = (max_seconds is not None
                   and time.time() - started >= max_seconds)
      stopping = (stop.requested or timed_out) and step < total
      checkpoints.save(force=stopping or step >= total
                       or monitor.should_stop(step))
      if monitor.should_stop(step):
        raise health_monitor.UnhealthyRun(
            f"stopped at step {step} (saved): unhealthy since step "
            f"{monitor.unhealthy_since}, over stop_if_unhealthy_steps="
            f"{config.stop_if_unhealthy_steps}; "
            f"{monitor.last[2].message()}")
      result = RunResult(step, checkpoints.latest, values, stopping,
                         stop.signal if stopping else None)
      if stopping:
        logging.info("stopped at step %d; rerun to continue", step)
        break
  writer.flush()
  return result


def _log_chunk(loss_weights, sums, chunk, step, tracker, writer, optimizer):
  values = training_losses(loss_weights, sums)
  values.update(metrics.finalize(sums))
  values["learning_rate"] = float(optimizer.current_learning_rate())
  values["grad_norm"] = float(sums["grad_norm"]) / chunk
  values.update(tracker.update(step))
  host_loop.write_scalars(writer, step, values)
  line = (f"step {step}/{tracker.total_steps} "
          f"({100.0 * step / tracker.total_steps:.1f}%) | "
          f"loss {values['total_loss']:.4f}")
  for name in loss_weights:
    line += f" {name} {values[f'{name}_loss']:.4f}"
  line += f" | {values['sequences_per_second']:.1f} seq/s"
  if "mfu" in values:
    line += f" | MFU {100 * values['mfu']:.1f}%"
  line += f" | ETA {progress_lib.format_duration(values['eta_seconds'])}"
  logging.info("%s", line)
  return values


def evaluate(config, strategy, model_dir, eval_files, special_ids=None,
             num_steps=None, init_checkpoint=None):
  """The original eval metrics over held-out TFRecords (one ordered pass).

  Restores the latest checkpoint of `model_dir` (else `init_checkpoint`),
  writes the metrics to TensorBoard (`eval/`) and `config.results_txt`.
  """
  model, optimizer, loss_scale = build_model_and_optimizer(
      config, strategy, special_ids)
  checkpoints = checkpointing.RunCheckpoints(model_dir, model, optimizer,
                                             loss_scale=loss_scale)
  if not checkpoints.latest and not init_checkpoint:
    raise errors.CheckpointError(
        f"nothing to evaluate: no checkpoint in {model_dir} and no "
        "init_checkpoint (metrics of random weights would mean nothing)")
  origin = checkpoints.restore(init_checkpoint)
  pretrain_pipeline.check_shards(eval_files, config.max_seq_length)
  dataset = _distributed_dataset(strategy, config, eval_files, 0,
                                 training=False)

  @tf.function(autograph=False)  # plain TensorFlow: no conversion needed
  def eval_batch(features, index):
    per_replica = strategy.run(
        lambda f: train_step.eval_sums(model, f, index), args=(features,))
    return host_loop.reduce_sums(strategy, per_replica)

  totals, batches = None, 0
  limit = num_steps or config.num_eval_steps
  for features in dataset:
    sums = eval_batch(features, tf.constant(batches, tf.int64))
    sums = {k: v.numpy() for k, v in sums.items()}
    totals = sums if totals is None else {k: totals[k] + sums[k] for k in sums}
    batches += 1
    if limit and batches >= limit:
      break
  if totals is None:
    raise errors.DataError(
        f"eval data {eval_files[0]}... holds fewer than eval_batch_size "
        f"{config.eval_batch_size} examples")
  results = metrics.finalize(totals)
  results.update(health.signals(totals))
  verdict = health.verdict(results)
  results["healthy"] = float(verdict.healthy)
  (logging.info if verdict.healthy else logging.warning)(
      "%s", verdict.message())
  results["eval_batches"] = batches
  step = int(optimizer.iterations.numpy())
  writer = tf.summary.create_file_writer(os.path.join(model_dir, "eval"))
  with writer.as_default(step=step):
    for key, value in results.items():
      tf.summary.scalar(key, value)
  writer.flush()
  _write_results(config, model_dir, step, origin, results)
  return results


def _write_results(config, model_dir, step, origin, results):
  path = config.results_txt or os.path.join(model_dir, "results",
                                            "unsup_results.txt")
  tf.io.gfile.makedirs(os.path.dirname(path))
  lines = [f"step {step} ({origin})"]
  lines += [f"  {k} = {v}" for k, v in sorted(results.items())]
  previous = ""
  if tf.io.gfile.exists(path):  # gfile cannot append on every filesystem
    with tf.io.gfile.GFile(path) as f:
      previous = f.read()
  with tf.io.gfile.GFile(path, "w") as f:
    f.write(previous + "\n".join(lines) + "\n")
  for line in lines:
    logging.info("%s", line)
