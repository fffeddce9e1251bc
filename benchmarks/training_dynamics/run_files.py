"""The flags and files of one run, shared by both drivers (absl and the
standard library only: it is imported in the original's environment too)."""

import json
import os

EVAL_FILE = "eval.json"
NOISE_FILE = "eval_noise.json"
REQUIRED_FLAGS = ["hparams", "train_data", "eval_data", "run_dir"]


def define_run_flags(flags, hparams_help):
  """The flags both drivers take, on the `absl.flags` module `flags`."""
  flags.DEFINE_string("hparams", None, hparams_help)
  flags.DEFINE_list("train_data", None, "Training TFRecord files.")
  flags.DEFINE_list("eval_data", None, "Held-out TFRecord files.")
  flags.DEFINE_string("run_dir", None, "Where this run's files go.")
  flags.DEFINE_integer("eval_batches", 40, "Eval batches per checkpoint.")
  flags.DEFINE_boolean("shared_order", False, "Read --train_data front to "
                       "back, repeated, with no shuffle (the same batches in "
                       "the same order on both sides), instead of the side's "
                       "own shuffled stream.")
  flags.DEFINE_string("noise_checkpoint", None, "Instead of training: "
                      "evaluate this checkpoint once per --noise_seeds seed "
                      "(the seed draws the eval masks and samples) into "
                      f"--run_dir/{NOISE_FILE}.")
  flags.DEFINE_list("noise_seeds", [], "Seeds of --noise_checkpoint.")


def write_json(path, value):
  """Writes `value` whole or not at all (a killed run leaves no half file)."""
  with open(path + ".tmp", "w") as f:
    json.dump(value, f, indent=1, sort_keys=True)
  os.replace(path + ".tmp", path)


def evaluate_each(run_dir, checkpoints, evaluate):
  """Calls `evaluate(step, path)` for each of `checkpoints` (step -> path)
  not in `run_dir`'s eval file yet, saving after each; returns them all."""
  path = os.path.join(run_dir, EVAL_FILE)
  results = {}
  if os.path.exists(path):
    with open(path) as f:
      results = json.load(f)
  for step, checkpoint in sorted(checkpoints.items(), key=lambda s: int(s[0])):
    if step not in results:
      results[step] = {k: float(v) for k, v in
                       evaluate(step, checkpoint).items()}
      print(f"eval at step {step}: {results[step]}", flush=True)
      write_json(path, results)
  return results


def evaluate_seeds(run_dir, seeds, evaluate):
  """Calls `evaluate(seed)` for each of `seeds` not in `run_dir`'s noise
  file yet, saving after each; returns them all (seed -> metrics)."""
  path = os.path.join(run_dir, NOISE_FILE)
  results = {}
  if os.path.exists(path):
    with open(path) as f:
      results = json.load(f)
  for seed in seeds:
    if str(seed) not in results:
      results[str(seed)] = {k: float(v) for k, v in
                            evaluate(int(seed)).items()}
      print(f"eval with seed {seed}: {results[str(seed)]}", flush=True)
      write_json(path, results)
  return results
