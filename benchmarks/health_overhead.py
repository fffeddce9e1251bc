"""What the pretraining health checks cost, and what they say, on the demo.

  python pretrain.py                                  # builds electra_demo/
  python benchmarks/health_overhead.py                # tiny preset, 1,000 steps
  python benchmarks/health_overhead.py --hparams '{"temperature": 1.0}' \
      --settings on --rounds 1 --steps 2000     # verdicts only

Trains the demo's recipe (the `tiny` preset) on the demo's TFRecords
(`--demo_dir`, made by `python pretrain.py`) with the health checks off
(`health_eval_batches` 0) and on (the preset's), in alternating rounds, each
run from scratch in a fresh directory of the same process. Reports:

- training seconds per 100 steps, off and on: the time of the host calls
  that run training steps, the first one (tracing, XLA compile) excluded;
  the checks run between those calls and must leave them unchanged;
- seconds per health check (the first includes tracing) and the whole run's
  wall time, off and on;
- the verdict of every check (`--hparams '{"temperature": 1.0}'` gives the
  demo's recipe before it sampled at temperature 2).
"""

import json
import os
import statistics
import tempfile
import time

from absl import app
from absl import flags
from absl import logging

from electra_tf import config as config_lib
from electra_tf import tokenization
from electra_tf.data import dataset_checks
from electra_tf.data import tfrecords
from electra_tf.pretraining import health_monitor
from electra_tf.pretraining import train_loop
from electra_tf.training import distribute
from electra_tf.training import host_loop

FLAGS = flags.FLAGS
flags.DEFINE_string("demo_dir", "electra_demo",
                    "A demo dir made by `python pretrain.py` (vocab.txt, "
                    "data/train, data/eval).")
flags.DEFINE_integer("steps", 1000, "Training steps per run.")
flags.DEFINE_integer("rounds", 2, "Runs per setting; settings alternate.")
flags.DEFINE_string("hparams", "{}", "JSON merged into the tiny preset.")
flags.DEFINE_list("settings", ["off", "on"], "Health checks off, on, or "
                  "both (alternating).")
flags.DEFINE_string("output_json", None, "Also write the results here.")


class _Timings:
  """Wraps the host loop's chunk runner and the monitor's check with timers."""

  def __init__(self):
    self.chunks = []  # (steps, seconds)
    self.checks = []  # (step, seconds, verdict message)
    self._run_chunk = host_loop.run_chunk
    self._check = health_monitor.HealthMonitor.check

  def __enter__(self):
    timings = self

    def run_chunk(run, iterator, chunk, step, last_checkpoint):
      started = time.perf_counter()
      sums = timings._run_chunk(run, iterator, chunk, step, last_checkpoint)
      timings.chunks.append((chunk, time.perf_counter() - started))
      return sums

    def check(monitor, step):
      started = time.perf_counter()
      verdict = timings._check(monitor, step)
      timings.checks.append((step, time.perf_counter() - started,
                             verdict.message()))
      return verdict

    host_loop.run_chunk = run_chunk
    health_monitor.HealthMonitor.check = check
    return self

  def __exit__(self, *exc):
    host_loop.run_chunk = self._run_chunk
    health_monitor.HealthMonitor.check = self._check


def _one_run(setting, hparams, demo_dir, strategy):
  vocab_file = os.path.join(demo_dir, "vocab.txt")
  hparams = dict(hparams, num_train_steps=FLAGS.steps)
  if setting == "off":
    hparams["health_eval_batches"] = 0
  config = config_lib.load_pretraining_config(
      "tiny", hparams, vocab_size=len(tokenization.load_vocab(vocab_file)),
      vocab_file=vocab_file)
  train = tfrecords.finished_shards(os.path.join(demo_dir, "data", "train"))
  held_out = tfrecords.finished_shards(os.path.join(demo_dir, "data", "eval"))
  with tempfile.TemporaryDirectory() as model_dir, _Timings() as timings:
    started = time.perf_counter()
    train_loop.pretrain(config, strategy, model_dir, train,
                        dataset_checks.special_token_ids(config),
                        health_files=held_out)
    wall = time.perf_counter() - started
  timed = timings.chunks[1:]
  steps = sum(chunk for chunk, _ in timed)
  return {"setting": setting, "wall_seconds": wall,
          "train_seconds_per_100_steps":
              100.0 * sum(seconds for _, seconds in timed) / steps,
          "check_seconds": [seconds for _, seconds, _ in timings.checks],
          "verdicts": [(step, message) for step, _, message in timings.checks]}


def main(argv):
  del argv
  logging.set_verbosity(logging.WARNING)
  if not set(FLAGS.settings) <= {"on", "off"}:
    raise app.UsageError(f"--settings takes on and off, got {FLAGS.settings}")
  if not os.path.isdir(os.path.join(FLAGS.demo_dir, "data", "train")):
    raise app.UsageError(f"{FLAGS.demo_dir}/data/train is missing: run "
                         "`python pretrain.py` first, or pass --demo_dir")
  hparams = json.loads(FLAGS.hparams)
  strategy = distribute.build_strategy("auto")
  runs = []
  for round_index in range(FLAGS.rounds):
    order = (FLAGS.settings if round_index % 2 == 0
             else FLAGS.settings[::-1])
    for setting in order:
      runs.append(_one_run(setting, hparams, FLAGS.demo_dir, strategy))
      print(f"round {round_index + 1} health {setting}: "
            f"{runs[-1]['train_seconds_per_100_steps']:.2f} s / 100 steps, "
            f"wall {runs[-1]['wall_seconds']:.1f} s", flush=True)
  summary = {}
  for setting in FLAGS.settings:
    mine = [run for run in runs if run["setting"] == setting]
    summary[setting] = {
        "train_seconds_per_100_steps": statistics.median(
            run["train_seconds_per_100_steps"] for run in mine),
        "wall_seconds": statistics.median(run["wall_seconds"] for run in mine)}
  checks = [s for run in runs for s in run["check_seconds"][1:]]
  first = [run["check_seconds"][0] for run in runs if run["check_seconds"]]
  ratio = (summary["on"]["train_seconds_per_100_steps"]
           / summary["off"]["train_seconds_per_100_steps"]
           if len(summary) == 2 else None)
  print(f"\ntiny preset, {FLAGS.steps} steps, hparams {hparams}, "
        f"{FLAGS.rounds} runs per setting (medians):")
  print("| health checks | train s / 100 steps | run wall s |")
  print("| --- | ---: | ---: |")
  for setting in FLAGS.settings:
    print(f"| {setting} | {summary[setting]['train_seconds_per_100_steps']:.2f}"
          f" | {summary[setting]['wall_seconds']:.1f} |")
  if ratio is not None:
    print(f"\ntraining time with checks / without: {ratio:.3f}")
  if checks:
    print(f"a check: {statistics.median(checks):.2f} s (median), the first "
          f"with tracing {statistics.median(first):.2f} s")
  on_run = next((run for run in runs if run["setting"] == "on"), None)
  if on_run:
    print("verdicts of the first run with checks:")
    for step, message in on_run["verdicts"]:
      print(f"  step {step}: {message}")
  if FLAGS.output_json:
    with open(FLAGS.output_json, "w") as f:
      json.dump({"hparams": hparams, "steps": FLAGS.steps, "runs": runs,
                 "summary": summary, "ratio": ratio}, f, indent=1)


if __name__ == "__main__":
  app.run(main)
