"""Watching pretraining health while a run trains (see pretraining/health.py).

Every `health_every_steps` (default: each checkpoint) after warmup, the
monitor runs the model without dropout on a fixed set of held-out batches
(the same batches each time, so successive checks compare), logs the
signals to the console and TensorBoard (`health/`), and warns with the
symptom and what usually helps while the run stays unhealthy. With
`stop_if_unhealthy_steps`, a run unhealthy for that many steps stops with
a `TrainingError` after saving.
"""

import os

from absl import logging
import tensorflow as tf

from electra_tf.pretraining import health
from electra_tf.pretraining import metrics
from electra_tf.pretraining import train_step
from electra_tf.training import distribute
from electra_tf.training import host_loop


class UnhealthyRun(host_loop.TrainingError):
  """The run stayed unhealthy past `stop_if_unhealthy_steps`."""


class HealthMonitor:
  """Checks a pretraining run's health on fixed held-out batches."""

  def __init__(self, config, strategy, model, batches, model_dir):
    """`batches`: distributed eval batches (kept and reused)."""
    self.config = config
    self.every = config.health_every_steps or config.save_checkpoints_steps
    self.unhealthy_since = None
    self.last = None
    self._batches = list(batches)
    self._log_dir = os.path.join(model_dir, "health")
    self._strategy = strategy
    self._writer = None  # created by the first check

    @tf.function(autograph=False)  # plain TensorFlow: no conversion needed
    def batch_sums(features, index):
      per_replica = strategy.run(
          lambda f: train_step.eval_sums(model, f, index), args=(features,))
      return {k: strategy.reduce(tf.distribute.ReduceOp.SUM, v, axis=None)
              for k, v in per_replica.items()}

    self._batch_sums = batch_sums

  def due(self, step, previous_step):
    """Whether a check falls in (previous_step, step] after warmup."""
    if step <= self.config.num_warmup_steps or not self._batches:
      return False
    return step // self.every > previous_step // self.every

  def check(self, step):
    """Measures, logs and judges; returns the `health.Verdict`."""
    totals = None
    for index, features in enumerate(self._batches):
      sums = {k: v.numpy() for k, v in self._batch_sums(
          features, tf.constant(index, tf.int64)).items()}
      totals = sums if totals is None else {
          k: totals[k] + sums[k] for k in sums}
    values = metrics.finalize(totals)
    values.update(health.signals(totals))
    verdict = health.verdict(values)
    if self._writer is None:
      self._writer = distribute.summary_writer(self._strategy,
                                               self._log_dir)
    with self._writer.as_default(step=step):
      for key, value in values.items():
        tf.summary.scalar(key, value)
      tf.summary.scalar("healthy", float(verdict.healthy))
    shown = ", ".join(f"{k} {values[k]:.3f}" for k in (
        "disc_auc", "disc_loss_gain", "cls_cosine", "masked_lm_accuracy",
        "sampled_masked_lm_accuracy") if k in values)
    if verdict.healthy:
      self.unhealthy_since = None
      logging.info("step %d: %s (%s)", step, verdict.message(), shown)
    else:
      self.unhealthy_since = (step if self.unhealthy_since is None
                              else self.unhealthy_since)
      logging.warning("step %d: %s [%s]", step, verdict.message(), shown)
    self.last = (step, values, verdict)
    return verdict

  def should_stop(self, step):
    limit = self.config.stop_if_unhealthy_steps
    return bool(limit and self.unhealthy_since is not None
                and step - self.unhealthy_since >= limit)
