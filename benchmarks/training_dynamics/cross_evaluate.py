"""Tells a training gap from an evaluation gap: each side's checkpoints
through ours' evaluation, on the same eval masks.

  python benchmarks/training_dynamics/cross_evaluate.py \\
      --work_dir=$HOME/electra_compare/work --configs=tiny_shared --steps=600

`run_comparison.py` evaluates each side with its own code, so a gap in a
metric can come from training (different weights) or from evaluation
(different eval masks and samples: each side draws its own). Here ours'
`train_loop.evaluate` scores, for every seed, the original's checkpoint and
ours' checkpoint of that step with the eval noise of ours' run of that seed:
the difference between the two is the training gap alone, paired by seed.
Writes `results/cross_eval.json` (per seed: the original's own evaluation of
its checkpoint, ours' evaluation of it, ours' evaluation of ours').
Needs the finished runs of `run_comparison.py` in `--work_dir`.
"""

import glob
import json
import os
import statistics

from absl import app
from absl import flags
from absl import logging

import ours_driver  # defines --eval_batches (run_comparison.py's 40)
import run_files

FLAGS = flags.FLAGS
HERE = os.path.dirname(os.path.abspath(__file__))
flags.DEFINE_string("work_dir", None, "run_comparison.py's --work_dir.")
flags.DEFINE_list("configs", ["tiny_shared", "variant_shared"],
                  "Configurations to cross-evaluate.")
flags.DEFINE_list("steps", None, "Checkpoint steps of every configuration "
                  "(default: each one's last).")
flags.DEFINE_list("metrics", ["masked_lm_loss", "disc_loss", "disc_auc",
                              "disc_accuracy"], "Metrics to report.")
flags.DEFINE_string("output", os.path.join(HERE, "results",
                                           "cross_eval.json"),
                    "Where the JSON goes.")


def _seed_dirs(work_dir, name, implementation):
  """seed -> run dir of the finished runs of one side."""
  pattern = os.path.join(work_dir, "runs", name, implementation, "seed*")
  return {int(os.path.basename(d)[4:]): d for d in sorted(glob.glob(pattern))
          if os.path.exists(os.path.join(d, "DONE.json"))}


def _load_eval(run_dir):
  with open(os.path.join(run_dir, run_files.EVAL_FILE)) as f:
    return json.load(f)


def cross_evaluate(work_dir, name, step, strategy, eval_files):
  """Per seed: {metric: {original_by_original, original_by_ours,
  ours_by_ours}} of one configuration at one step."""
  originals = _seed_dirs(work_dir, name, "original")
  ours = _seed_dirs(work_dir, name, "ours")
  seeds = sorted(set(originals) & set(ours))
  if not seeds:
    raise app.UsageError(f"no seed of {name!r} finished on both sides in "
                         f"{work_dir}")
  rows = {}
  for seed in seeds:
    config = ours_driver.load_config(os.path.join(ours[seed], "hparams.json"))
    scratch = os.path.join(work_dir, "cross_eval", name, f"seed{seed}")
    checkpoint = os.path.join(originals[seed], "model", f"model.ckpt-{step}")
    by_ours = ours_driver.evaluate_checkpoint(
        config, strategy, scratch, step, checkpoint, eval_files,
        FLAGS.eval_batches)
    own = _load_eval(originals[seed])[step]
    ours_own = _load_eval(ours[seed])[step]
    rows[str(seed)] = {
        metric: {"original_by_original": own[metric],
                 "original_by_ours": float(by_ours[metric]),
                 "ours_by_ours": ours_own[metric]}
        for metric in FLAGS.metrics}
  return rows


def summarize(rows, metric):
  """Mean over seeds of the training gap (ours' weights - the original's,
  both evaluated by ours) and of the evaluation gap (ours' evaluation - the
  original's, both of the original's weights)."""
  values = [row[metric] for row in rows.values()]
  return {
      "training_gap": statistics.mean(
          v["ours_by_ours"] - v["original_by_ours"] for v in values),
      "evaluation_gap": statistics.mean(
          v["original_by_ours"] - v["original_by_original"] for v in values),
  }


def main(argv):
  del argv
  logging.set_verbosity(logging.WARNING)
  from electra_tf.training import distribute  # pylint: disable=g-import-not-at-top
  strategy = distribute.build_strategy("default")
  eval_files = sorted(glob.glob(os.path.join(
      FLAGS.work_dir, "data", "eval", "*.tfrecord*")))
  results = {}
  for name in FLAGS.configs:
    originals = _seed_dirs(FLAGS.work_dir, name, "original")
    if not originals:
      raise app.UsageError(f"no finished original run of {name!r} in "
                           f"{FLAGS.work_dir}")
    last = max(_load_eval(next(iter(originals.values()))), key=int)
    for step in FLAGS.steps or [last]:
      rows = cross_evaluate(FLAGS.work_dir, name, step, strategy, eval_files)
      results.setdefault(name, {})[step] = {
          "seeds": rows,
          "summary": {m: summarize(rows, m) for m in FLAGS.metrics}}
      for metric in FLAGS.metrics:
        gaps = results[name][step]["summary"][metric]
        print(f"{name} step {step} {metric}: training gap "
              f"{gaps['training_gap']:+.4f}, evaluation gap "
              f"{gaps['evaluation_gap']:+.4f}", flush=True)
  run_files.write_json(FLAGS.output, results)
  print(f"wrote {FLAGS.output}")


if __name__ == "__main__":
  flags.mark_flag_as_required("work_dir")
  app.run(main)
