"""Runs exported SavedModels in a fresh process, as a client would.

  python -m tests.serving.fresh_process PLAN.json

The plan names an inputs `.npz`, an outputs `.npz` and a report `.json`,
and lists
  * `calls`: {"id", "dir", "signature", "args": {argument: inputs key}},
    run through `tf.saved_model.load` (after `import tensorflow_text`);
  * `cli`: {"id", "argv", "outdir"}: `electra-saved-model-cli` argument
    lists, run by the console script's own entry point in this process
    (the stock `saved_model_cli`: graph-mode session loading as TF Serving).
Outputs are saved as "<id>:<output name>"; the report holds each failed
call's error message (the process goes on, as a server would) and each CLI run's
stdout.
"""

import contextlib
import io
import json
import os
import sys

import numpy as np
import tensorflow as tf
import tensorflow_text  # pylint: disable=unused-import  (registers the ops)

from electra_tf.cli import saved_model_cli


def _message(error):
  return f"{type(error).__name__}: {error}"


def run_calls(calls, inputs, outputs, errors):
  loaded = {}
  for call in calls:
    if call["dir"] not in loaded:
      loaded[call["dir"]] = tf.saved_model.load(call["dir"])
    signature = loaded[call["dir"]].signatures[call["signature"]]
    try:
      result = signature(**{arg: tf.constant(inputs[key])
                            for arg, key in call["args"].items()})
    except Exception as error:  # pylint: disable=broad-except
      errors[call["id"]] = _message(error)
      continue
    for name, value in result.items():
      outputs[f"{call['id']}:{name}"] = value.numpy()


def run_cli(runs, outputs, stdout):
  for run in runs:
    sys.argv = ["electra-saved-model-cli", *run["argv"]]
    captured = io.StringIO()
    with contextlib.redirect_stdout(captured):
      try:
        saved_model_cli.run()
      except SystemExit as exit_:
        if exit_.code:
          raise
    stdout[run["id"]] = captured.getvalue()
    if run.get("outdir"):
      for name in os.listdir(run["outdir"]):
        outputs[f"{run['id']}:{name[:-len('.npy')]}"] = np.load(
            os.path.join(run["outdir"], name), allow_pickle=True)


def main(plan_path):
  with open(plan_path) as f:
    plan = json.load(f)
  inputs = dict(np.load(plan["inputs"], allow_pickle=True))
  outputs, report = {}, {"errors": {}, "stdout": {}}
  run_calls(plan["calls"], inputs, outputs, report["errors"])
  run_cli(plan["cli"], outputs, report["stdout"])
  np.savez(plan["outputs"], **outputs)
  with open(plan["report"], "w") as f:
    json.dump(report, f)


if __name__ == "__main__":
  main(sys.argv[1])
