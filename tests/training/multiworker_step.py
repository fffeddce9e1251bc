"""A worker of the MultiWorkerMirroredStrategy test (run as a subprocess).

Usage: multiworker_step.py BATCHES_NPZ OUTPUT_NPZ (TF_CONFIG in the env).
Runs the replicated train step on this worker's slice of each global batch
and, on the chief, saves the final weights and per-step losses.
"""

import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # pylint: disable=g-import-not-at-top
import tensorflow as tf

from electra_tf.checkpoints import tf1_names
from electra_tf.pretraining import train_loop
from electra_tf.pretraining import train_step
from tests.training.conftest import tiny_config

FEATURES = ("input_ids", "input_mask", "segment_ids")


def train(strategy, batches, config=None):
  """Steps over `batches` ([S, B, L] arrays); returns weights and losses."""
  # Default dropout: masks follow global examples.
  config = config or tiny_config()
  model, optimizer, _ = train_loop.build_model_and_optimizer(config, strategy,
                                                              None)
  step = train_step.PretrainStep(model, optimizer)
  replicas = strategy.num_replicas_in_sync
  per_replica = batches["input_ids"].shape[1] // replicas

  @tf.function
  def run(features):
    sums = strategy.run(lambda f: step(f, training=True), args=(features,))
    return strategy.reduce(tf.distribute.ReduceOp.SUM, sums["loss"], None)

  losses = []
  for s in range(batches["input_ids"].shape[0]):
    def slice_for(context, s=s):
      start = context.replica_id_in_sync_group * per_replica
      return {k: tf.constant(batches[k][s, start:start + per_replica])
              for k in FEATURES}
    features = strategy.experimental_distribute_values_from_function(
        slice_for)
    losses.append(float(run(features)))
  weights = {n: v.numpy() for n, v in
             tf1_names.pretrainer_variables(model).items()}
  return weights, np.array(losses)


def checkpoint_weights(path, config):
  """The pretrainer weights (original names) in a run's checkpoint."""
  model, _, _ = train_loop.build_model_and_optimizer(
      config, tf.distribute.get_strategy(), None)
  tf.train.Checkpoint(model=model).read(path).expect_partial()
  return {n: v.numpy() for n, v in
          tf1_names.pretrainer_variables(model).items()}


def main(batches_path, output_path):
  strategy = tf.distribute.MultiWorkerMirroredStrategy()
  batches = dict(np.load(batches_path))
  weights, losses = train(strategy, batches)
  task = json.loads(os.environ["TF_CONFIG"])["task"]
  if task["index"] == 0:
    np.savez(output_path, losses=losses, **weights)


if __name__ == "__main__":
  main(*sys.argv[1:3])
