"""Trains and evaluates the original ELECTRA from a plain tf.compat.v1 session.

Runs in the original's environment (TF 2.21 + tf-keras, see
`setup_original_env.sh`), never in ours:

  TF_USE_LEGACY_KERAS=1 python original_driver.py --electra_dir=electra \\
      --hparams=run/hparams.json --train_data=a,b --eval_data=c \\
      --run_dir=run --seed=1 --eval_batches=20

TF 2.21 has no TPUEstimator, so this file stands in for it: it builds the
original's `PretrainingModel`, `optimization.create_optimizer` and input
function exactly as its `model_fn_builder` and `train_or_eval` do, and
drives them with a session loop. With `--shared_order` the input function
is this file's instead: the training file read in order (see `run_files`). The original's files are imported
unchanged. Two names they use at import time are gone from TF 2.21 and are
registered below: `tensorflow.contrib.layers.layer_norm` (written after TF
1.15's) and `tf.estimator.SessionRunHook`, the base class of a logging hook
(`tf.train.SessionRunHook`, the class it aliased).

Writes into `--run_dir`:
  model/        a checkpoint at every `save_checkpoints_steps`; a rerun
                resumes from the newest one;
  train.jsonl   one line per `iterations_per_loop` steps: the mean losses;
  eval.json     the original's eval metrics of each checkpoint on the first
                `--eval_batches` batches of `--eval_data` (in file order);
  eval_noise.json  with `--noise_checkpoint` (and no training): that
                checkpoint's metrics under each of `--noise_seeds`;
  config.json   the original's resolved config.
"""

import json
import os
import sys
import time
import types

from absl import app
from absl import flags

import tensorflow.compat.v1 as tf

import run_files

FLAGS = flags.FLAGS
flags.DEFINE_string("electra_dir", None, "A checkout of "
                    "google-research/electra.")
flags.DEFINE_integer("seed", 0, "Graph-level seed (tf.set_random_seed).")
run_files.define_run_flags(flags, "JSON file of the original's hparams "
                           "(keys it does not know are left out).")

LAYER_NORM_EPSILON = 1e-12  # tf.contrib.layers.layer_norm's


def _contrib_layer_norm(inputs, begin_norm_axis=-1, begin_params_axis=-1,
                        scope=None):
  """tf.contrib.layers.layer_norm for the last axis, as in TF 1.15."""
  if begin_norm_axis != -1 or begin_params_axis != -1:
    raise NotImplementedError("only the last axis is normalised here")
  with tf.variable_scope(scope, default_name="LayerNorm"):
    depth = inputs.shape[-1:]
    beta = tf.get_variable("beta", shape=depth, dtype=inputs.dtype,
                           initializer=tf.zeros_initializer())
    gamma = tf.get_variable("gamma", shape=depth, dtype=inputs.dtype,
                            initializer=tf.ones_initializer())
    mean, variance = tf.nn.moments(inputs, [inputs.shape.rank - 1],
                                   keep_dims=True)
    return tf.nn.batch_normalization(inputs, mean, variance, offset=beta,
                                     scale=gamma,
                                     variance_epsilon=LAYER_NORM_EPSILON)


def import_original(electra_dir):
  """The original's modules, imported from its checkout."""
  contrib = types.ModuleType("tensorflow.contrib")
  contrib.layers = types.SimpleNamespace(layer_norm=_contrib_layer_norm)
  sys.modules["tensorflow.contrib"] = contrib
  if not hasattr(tf, "estimator"):
    tf.estimator = types.SimpleNamespace(
        SessionRunHook=tf.train.SessionRunHook)
  sys.path.insert(0, os.path.abspath(electra_dir))
  # pylint: disable=g-import-not-at-top,import-outside-toplevel
  import configure_pretraining
  import run_pretraining
  from model import optimization
  from pretrain import pretrain_data
  return types.SimpleNamespace(
      configure_pretraining=configure_pretraining,
      run_pretraining=run_pretraining, optimization=optimization,
      pretrain_data=pretrain_data)


def build_config(original, hparams, run_dir, train_files):
  """The original's PretrainingConfig over `hparams` and our file paths.

  Keys the original does not know (this project's additions) are left out
  and returned, so the caller can show them.
  """
  known = original.configure_pretraining.PretrainingConfig(
      "dynamics", run_dir).__dict__
  unknown = sorted(set(hparams) - set(known))
  hparams = {k: v for k, v in hparams.items() if k in known}
  hparams.update(model_dir=os.path.join(run_dir, "model"),
                 pretrain_tfrecords=",".join(train_files))
  return original.configure_pretraining.PretrainingConfig(
      "dynamics", run_dir, **hparams), unknown


def _read_train_log(path, upto_step):
  """Lines of an earlier run's log up to the step it resumes from."""
  if not os.path.exists(path):
    return []
  with open(path) as f:
    rows = [json.loads(line) for line in f if line.strip()]
  return [r for r in rows if r["step"] <= upto_step]


def _decoded(original, config, dataset):
  """Records decoded by the original's `_decode_record` (int64 -> int32)."""
  names = {k: tf.io.FixedLenFeature([config.max_seq_length], tf.int64)
           for k in ("input_ids", "input_mask", "segment_ids")}
  # pylint: disable=protected-access
  return dataset.map(lambda r: original.pretrain_data._decode_record(r, names))


def _shared_order_dataset(original, config, train_files):
  """`--shared_order`: the files front to back, repeated, no shuffle; a
  resumed run skips the batches its checkpoint has seen."""
  latest = tf.train.latest_checkpoint(config.model_dir)
  seen = int(latest.rsplit("-", 1)[-1]) if latest else 0
  dataset = tf.data.TFRecordDataset(train_files).repeat()
  dataset = dataset.skip(seen * config.train_batch_size)
  return _decoded(original, config, dataset).batch(
      config.train_batch_size, drop_remainder=True)


def train(original, config, run_dir, seed, train_files):
  """Trains to `config.num_train_steps`, resuming from the newest checkpoint."""
  graph = tf.Graph()
  with graph.as_default():
    tf.set_random_seed(seed)
    if FLAGS.shared_order:
      dataset = _shared_order_dataset(original, config, train_files)
    else:
      input_fn = original.pretrain_data.get_input_fn(config, True)
      dataset = input_fn({"batch_size": config.train_batch_size})
    features = tf.data.make_one_shot_iterator(dataset).get_next()
    # The original's model_fn in TRAIN mode, without the TPUEstimatorSpec.
    model = original.run_pretraining.PretrainingModel(config, features, True)
    train_op = original.optimization.create_optimizer(
        model.total_loss, config.learning_rate, config.num_train_steps,
        weight_decay_rate=config.weight_decay_rate, use_tpu=config.use_tpu,
        warmup_steps=config.num_warmup_steps,
        lr_decay_power=config.lr_decay_power)
    global_step = tf.train.get_or_create_global_step()
    saver = tf.train.Saver(max_to_keep=None)
    with tf.Session(graph=graph) as sess:
      latest = tf.train.latest_checkpoint(config.model_dir)
      if latest:
        saver.restore(sess, latest)
      else:
        sess.run(tf.global_variables_initializer())
      step = int(sess.run(global_step))
      log_path = os.path.join(run_dir, "train.jsonl")
      rows = _read_train_log(log_path, step)
      with open(log_path, "w") as f:
        f.writelines(json.dumps(r) + "\n" for r in rows)
      fetches = [train_op, model.total_loss, model.mlm_output.loss]
      started = time.time()
      while step < config.num_train_steps:
        chunk = min(config.iterations_per_loop,
                    config.num_train_steps - step,
                    config.save_checkpoints_steps
                    - step % config.save_checkpoints_steps)
        totals, mlms = [], []
        for _ in range(chunk):
          _, total, mlm = sess.run(fetches)
          totals.append(float(total))
          mlms.append(float(mlm))
        step = int(sess.run(global_step))
        mean_total = sum(totals) / chunk
        mean_mlm = sum(mlms) / chunk
        row = {"step": step, "total_loss": mean_total, "mlm_loss": mean_mlm,
               "disc_loss": (mean_total - config.gen_weight * mean_mlm)
                            / config.disc_weight,
               "seconds": time.time() - started}
        with open(log_path, "a") as f:
          f.write(json.dumps(row) + "\n")
        print(f"original step {step}: loss {mean_total:.4f} mlm "
              f"{mean_mlm:.4f} disc {row['disc_loss']:.4f}", flush=True)
        if step % config.save_checkpoints_steps == 0 or (
            step >= config.num_train_steps):
          saver.save(sess, os.path.join(config.model_dir, "model.ckpt"),
                     global_step=step)


def _eval_features(original, config, eval_files):
  """The first eval batches in file order, decoded by the original."""
  dataset = _decoded(original, config, tf.data.TFRecordDataset(eval_files))
  dataset = dataset.batch(config.eval_batch_size, drop_remainder=True)
  return tf.data.make_one_shot_iterator(dataset).get_next()


def evaluate_checkpoint(original, config, checkpoint, eval_files, seed,
                        num_batches):
  """The original's metric_fn over `num_batches` batches, is_training=False."""
  graph = tf.Graph()
  with graph.as_default():
    tf.set_random_seed(seed)  # the same masks at every checkpoint
    features = _eval_features(original, config, eval_files)
    model = original.run_pretraining.PretrainingModel(config, features, False)
    metric_fn, values = model.eval_metrics
    metrics = metric_fn(*values)
    saver = tf.train.Saver(tf.global_variables())
    with tf.Session(graph=graph) as sess:
      saver.restore(sess, checkpoint)
      sess.run(tf.local_variables_initializer())
      updates = [update for _, update in metrics.values()]
      for _ in range(num_batches):
        sess.run(updates)
      return {k: float(v) for k, v in sess.run(
          {k: value for k, (value, _) in metrics.items()}).items()}


def checkpoints(model_dir):
  """step -> path of every checkpoint in `model_dir`."""
  # Saver(max_to_keep=None) keeps every checkpoint but lists only the last.
  found = tf.io.gfile.glob(os.path.join(model_dir, "model.ckpt-*.index"))
  paths = [p[:-len(".index")] for p in found]
  return {p.rsplit("-", 1)[-1]: p for p in paths}


def main(argv):
  del argv
  original = import_original(FLAGS.electra_dir)
  with open(FLAGS.hparams) as f:
    hparams = json.load(f)
  os.makedirs(FLAGS.run_dir, exist_ok=True)
  config, unknown = build_config(original, hparams, FLAGS.run_dir,
                                 FLAGS.train_data)
  run_files.write_json(os.path.join(FLAGS.run_dir, "config.json"),
                       {"config": config.__dict__, "not_in_original": unknown})
  if FLAGS.noise_checkpoint:
    run_files.evaluate_seeds(
        FLAGS.run_dir, FLAGS.noise_seeds,
        lambda seed: evaluate_checkpoint(
            original, config, FLAGS.noise_checkpoint, FLAGS.eval_data, seed,
            FLAGS.eval_batches))
    return
  train(original, config, FLAGS.run_dir, FLAGS.seed, FLAGS.train_data)
  run_files.evaluate_each(
      FLAGS.run_dir, checkpoints(config.model_dir),
      lambda step, path: evaluate_checkpoint(
          original, config, path, FLAGS.eval_data, FLAGS.seed,
          FLAGS.eval_batches))


if __name__ == "__main__":
  flags.mark_flags_as_required(["electra_dir"] + run_files.REQUIRED_FLAGS)
  app.run(main)
