"""GLUE test-set predictions in the format the leaderboard takes.

gluebenchmark.com takes one `<NAME>.tsv` per task with a header
`index<TAB>prediction` and one row per test example, in the test file's
order; predictions are label names (`entailment`, `0`/`1`, ...) or, for
STS-B, a score in [0, 5]. MNLI's matched and mismatched test sets go to
`MNLI-m.tsv` and `MNLI-mm.tsv`, its diagnostic set to `AX.tsv`; a model
finetuned on `mnli` writes all three.
"""

import os

import tensorflow as tf

from electra_tf.finetuning import tasks as tasks_lib

# Our task (and split) -> the GLUE leaderboard's file name.
GLUE_FILE_NAMES = {
    ("cola", "test"): "CoLA", ("sst", "test"): "SST-2",
    ("mrpc", "test"): "MRPC", ("sts", "test"): "STS-B",
    ("qqp", "test"): "QQP", ("mnli", "test"): "MNLI-m",
    ("mnli-mm", "test"): "MNLI-mm", ("mnli", "diagnostic"): "AX",
    # One MNLI model writes all three MNLI files, as the original.
    ("mnli", "test_mismatched"): "MNLI-mm",
    ("qnli", "test"): "QNLI", ("rte", "test"): "RTE", ("wnli", "test"): "WNLI",
}
HEADER = "index\tprediction\n"
# Folder of a trial's leaderboard files, below the test predictions' folder.
GLUE_FOLDER = "glue_trial_{}"


def glue_splits(task):
  """The test splits the leaderboard wants for `task` (maybe none)."""
  return [split for name, split in GLUE_FILE_NAMES if name == task.name]


def prediction_strings(task, outputs):
  """(example id, leaderboard string) of every predicted example."""
  eids = outputs[tasks_lib.EXAMPLE_ID].tolist()
  return list(zip(eids, task.prediction_strings(outputs["predictions"])))


def write_glue_file(directory, task, split, outputs):
  """Writes the leaderboard TSV of one task's test split; returns its path."""
  rows = sorted(prediction_strings(task, outputs))
  path = os.path.join(directory, GLUE_FILE_NAMES[(task.name, split)] + ".tsv")
  tf.io.gfile.makedirs(directory)
  with tf.io.gfile.GFile(path, "w") as f:
    f.write(HEADER + "".join(f"{eid}\t{text}\n" for eid, text in rows))
  return path
