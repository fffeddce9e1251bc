"""Trains and evaluates electra-tf for the training-dynamics comparison.

  python ours_driver.py --hparams=run/hparams.json --train_data=a,b \\
      --eval_data=c --run_dir=run --eval_batches=20

The counterpart of `original_driver.py`, with the same outputs in
`--run_dir` (`model/`, `train.jsonl`, `eval.json`, `config.json`; with
`--noise_checkpoint`, `eval_noise.json` alone), through
the library calls `electra-pretrain` makes: `train_loop.pretrain` (which resumes
from `model/`), then `train_loop.evaluate` on each checkpoint. `--hparams` is an
original-style JSON object over the `preset` it names; its `seed` seeds
initial weights, dropout, masking, sampling and the data order (with
`--shared_order`, the order is the file's: see `run_files`).
"""

import json
import os

from absl import app
from absl import flags
from absl import logging
import tensorflow as tf

from electra_tf import config as config_lib
from electra_tf.data import dataset_checks
from electra_tf.pretraining import train_loop
from electra_tf.training import distribute

import run_files

FLAGS = flags.FLAGS
run_files.define_run_flags(flags, "JSON file: a `preset` name and "
                           "original-style hparams over it.")

TRAIN_LOSSES = ("total_loss", "mlm_loss", "disc_loss")


def load_config(path):
  with open(path) as f:
    hparams = json.load(f)
  preset = hparams.pop("preset")
  return config_lib.load_pretraining_config(preset, hparams)


def train_log(model_dir):
  """The losses `train_loop.pretrain` wrote to TensorBoard, one row per host
  loop."""
  rows = {}
  for path in sorted(tf.io.gfile.glob(os.path.join(model_dir, "train",
                                                   "events.*"))):
    for event in tf.compat.v1.train.summary_iterator(path):
      for value in event.summary.value:
        if value.tag in TRAIN_LOSSES:
          row = rows.setdefault(int(event.step), {"step": int(event.step)})
          row[value.tag] = float(tf.make_ndarray(value.tensor))
  return [rows[step] for step in sorted(rows)]


def checkpoints(model_dir):
  """step -> path of every checkpoint `train_loop.pretrain` kept."""
  state = tf.train.get_checkpoint_state(model_dir)
  paths = state.all_model_checkpoint_paths if state else []
  return {path.rsplit("-", 1)[-1]: path for path in paths}


def evaluate_checkpoint(config, strategy, run_dir, step, checkpoint,
                        eval_files, num_batches):
  """The original's eval metrics of one checkpoint (`train_loop.evaluate`)."""
  # A model dir without checkpoints, so `evaluate` restores `checkpoint`.
  scratch = os.path.join(run_dir, "eval_dirs", step)
  if tf.io.gfile.exists(scratch):
    tf.io.gfile.rmtree(scratch)
  metrics = train_loop.evaluate(
      config, strategy, scratch, eval_files,
      dataset_checks.special_token_ids(config), num_steps=num_batches,
      init_checkpoint=checkpoint)
  if metrics["eval_batches"] != num_batches:
    raise ValueError(f"{eval_files} holds fewer than {num_batches} batches")
  return metrics


def main(argv):
  del argv
  logging.set_verbosity(logging.WARNING)
  config = load_config(FLAGS.hparams)
  if FLAGS.shared_order:
    # One file, one interleave slot, and a shuffle buffer of one record:
    # the file front to back, repeated, as the original's driver reads it.
    if len(FLAGS.train_data) != 1:
      raise app.UsageError("--shared_order reads exactly one --train_data file")
    config = config.override(input_shuffle_buffer=1)
  os.makedirs(FLAGS.run_dir, exist_ok=True)
  run_files.write_json(os.path.join(FLAGS.run_dir, "config.json"),
                       {"config": config.to_dict()})
  strategy = distribute.build_strategy("default")
  if FLAGS.noise_checkpoint:
    # The config's seed draws ours' eval masks and samples.
    run_files.evaluate_seeds(
        FLAGS.run_dir, FLAGS.noise_seeds,
        lambda seed: evaluate_checkpoint(
            config.override(seed=seed), strategy, FLAGS.run_dir,
            f"seed{seed}", FLAGS.noise_checkpoint, FLAGS.eval_data,
            FLAGS.eval_batches))
    return
  model_dir = os.path.join(FLAGS.run_dir, "model")
  special_ids = dataset_checks.special_token_ids(config)
  train_loop.pretrain(config, strategy, model_dir, FLAGS.train_data,
                      special_ids)
  with open(os.path.join(FLAGS.run_dir, "train.jsonl"), "w") as f:
    f.writelines(json.dumps(row) + "\n" for row in train_log(model_dir))
  run_files.evaluate_each(
      FLAGS.run_dir, checkpoints(model_dir),
      lambda step, path: evaluate_checkpoint(
          config, strategy, FLAGS.run_dir, step, path, FLAGS.eval_data,
          FLAGS.eval_batches))


if __name__ == "__main__":
  flags.mark_flags_as_required(run_files.REQUIRED_FLAGS)
  app.run(main)
