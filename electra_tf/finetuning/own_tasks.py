"""Finetuning tasks on the user's own files, built from a task spec.

A spec's family picks the task class: each family's `file_tasks` module
reads the user's files into the family's examples, and everything else
(featurization, head, scoring, serving) is the family's, as for its
built-in tasks. See `task_spec` for the keys.
"""

import functools
import json

from electra_tf.finetuning import task_spec
from electra_tf.finetuning.classification import file_tasks as sentence_files
from electra_tf.finetuning.qa import file_tasks as qa_files
from electra_tf.finetuning.tagging import file_tasks as tagging_files

FAMILY_TASKS = {"classification": sentence_files.FileClassificationTask,
                "regression": sentence_files.FileRegressionTask,
                "tagging": tagging_files.FileTaggingTask,
                "qa": qa_files.FileQATask}


@functools.lru_cache(maxsize=64)
def _task_from_json(spec_json):
  spec = json.loads(spec_json)
  return FAMILY_TASKS[spec["family"]](spec)


def task_from_spec(spec):
  """The task of a resolved spec (one object per distinct spec)."""
  return _task_from_json(json.dumps(spec, sort_keys=True))


def resolve_spec(entry):
  """`task_spec.resolve` with the families' declarations (labels read
  from the train file if needed)."""
  return task_spec.resolve(entry, FAMILY_TASKS)
