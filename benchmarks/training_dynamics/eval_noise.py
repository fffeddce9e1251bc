"""How much the two evaluations differ on the same weights, with the eval
draws' noise averaged out.

  python benchmarks/training_dynamics/eval_noise.py \\
      --electra_dir=$HOME/electra_compare/electra \\
      --original_python=$HOME/electra_compare/origenv/bin/python \\
      --work_dir=$HOME/electra_compare/work --config=tiny_shared --draws=64

An evaluation draws its own masks and generator samples (the original's from
its graph seed, ours' from the config's seed), so two evaluations of the same
weights differ by the noise of those draws as well as by any real difference
in how they evaluate. `cross_evaluate.py` has one draw per seed, 3 in all;
here the original's final checkpoint of one run of `run_comparison.py` is
evaluated by the original's `metric_fn` (its driver, in its environment) and
by ours' `train_loop.evaluate` with eval seeds 1..`--draws`, on the same
held-out batches. The difference of the two means, with its standard error,
is the difference between the evaluations themselves. Resumable. Writes
`results/eval_noise.json`.
"""

import json
import os
import subprocess
import sys

from absl import app
from absl import flags

from electra_tf.data import tfrecords
import run_comparison  # --electra_dir, --original_python, --work_dir, ...
import run_files
import spread

FLAGS = flags.FLAGS
HERE = os.path.dirname(os.path.abspath(__file__))
flags.DEFINE_string("config", "tiny_shared", "The configuration whose run "
                    "gives the checkpoint.")
flags.DEFINE_integer("run_seed", 1, "The seed of that run.")
flags.DEFINE_integer("draws", 64, "Evaluations per side (eval seeds 1..N).")
flags.DEFINE_string("output", os.path.join(HERE, "results",
                                           "eval_noise.json"),
                    "Where the JSON goes.")

METRICS = ("masked_lm_loss", "masked_lm_accuracy",
           "sampled_masked_lm_accuracy", "disc_loss", "disc_auc",
           "disc_accuracy", "disc_precision", "disc_recall")


def _driver_command(implementation, run_dir, checkpoint, eval_files):
  """One side's driver, evaluating `checkpoint` once per draw, with the
  hparams of that side's run of `--config`."""
  hparams = os.path.join(run_comparison.run_folder(
      FLAGS.work_dir, FLAGS.config, implementation, FLAGS.run_seed),
                         "hparams.json")
  if implementation == "original":
    command = [FLAGS.original_python,
               os.path.join(HERE, "original_driver.py"),
               f"--electra_dir={FLAGS.electra_dir}"]
  else:
    command = [sys.executable, os.path.join(HERE, "ours_driver.py")]
  seeds = ",".join(str(s) for s in range(1, FLAGS.draws + 1))
  return ["nice", "-n", str(FLAGS.niceness)] + command + [
      f"--hparams={hparams}", f"--train_data={eval_files[0]}",
      f"--eval_data={','.join(eval_files)}", f"--run_dir={run_dir}",
      f"--eval_batches={FLAGS.eval_batches}",
      f"--noise_checkpoint={checkpoint}", f"--noise_seeds={seeds}"]


def compare(original, ours):
  """metric -> each side's mean and standard deviation over the draws, and
  the difference of the means (ours - original) with its standard error."""
  rows = {}
  for metric in METRICS:
    a = [draw[metric] for draw in original.values()]
    b = [draw[metric] for draw in ours.values()]
    rows[metric] = dict(
        original_mean=spread.mean(a), original_sd=spread.stdev(a),
        ours_mean=spread.mean(b), ours_sd=spread.stdev(b),
        **spread.difference_of_means(a, b))
  return rows


def main(argv):
  del argv
  if not (FLAGS.electra_dir and FLAGS.original_python):
    raise app.UsageError("--electra_dir and --original_python are needed")
  original_run = run_comparison.run_folder(FLAGS.work_dir, FLAGS.config,
                                          "original", FLAGS.run_seed)
  with open(os.path.join(original_run, run_files.EVAL_FILE)) as f:
    step = max(json.load(f), key=int)
  checkpoint = os.path.join(original_run, "model", f"model.ckpt-{step}")
  eval_files = tfrecords.finished_shards(
      os.path.join(FLAGS.work_dir, "data", "eval"))
  base = os.path.join(FLAGS.work_dir, "eval_noise", FLAGS.config,
                      f"seed{FLAGS.run_seed}-step{step}-"
                      f"{FLAGS.eval_batches}batches")
  processes, logs = {}, {}
  for implementation in run_comparison.IMPLEMENTATIONS:
    run_dir = os.path.join(base, implementation)
    os.makedirs(run_dir, exist_ok=True)
    log = logs[implementation] = open(  # pylint: disable=consider-using-with
        os.path.join(run_dir, "log.txt"), "a")
    processes[implementation] = subprocess.Popen(
        _driver_command(implementation, run_dir, checkpoint, eval_files),
        env=run_comparison.driver_environment(implementation),
        stdout=log, stderr=subprocess.STDOUT)
    print(f"{implementation}: {FLAGS.draws} evaluations, log in "
          f"{run_dir}/log.txt", flush=True)
  draws = {}
  for implementation, process in processes.items():
    run_dir = os.path.join(base, implementation)
    if process.wait():
      raise RuntimeError(f"{implementation} failed; see {run_dir}/log.txt")
    with open(os.path.join(run_dir, run_files.NOISE_FILE)) as f:
      draws[implementation] = {seed: metrics for seed, metrics
                               in json.load(f).items()
                               if int(seed) <= FLAGS.draws}
    logs[implementation].close()
  rows = compare(draws["original"], draws["ours"])
  run_files.write_json(FLAGS.output, {
      "config": FLAGS.config, "run_seed": FLAGS.run_seed, "step": step,
      "checkpoint": "the original's", "draws": FLAGS.draws,
      "eval_batches": FLAGS.eval_batches, "metrics": rows})
  for metric, row in rows.items():
    print(f"{metric:28s} original {row['original_mean']:.5f} ours "
          f"{row['ours_mean']:.5f} difference {row['difference']:+.5f} "
          f"+- {row['standard_error']:.5f} (z {row['z']:+.1f})")
  print(f"wrote {FLAGS.output}")


if __name__ == "__main__":
  flags.mark_flag_as_required("work_dir")
  app.run(main)
