"""All finetuning tasks by name."""

from electra_tf import errors
from electra_tf.finetuning import chunking
from electra_tf.finetuning import glue_tasks
from electra_tf.finetuning import squad

TASKS = {task.name: task for task in (*glue_tasks.GLUE_TASKS, squad.SQUAD_V2,
                                      squad.SQUAD_V1, chunking.CHUNK)}


def task_names():
  return tuple(TASKS)


def get_task(name):
  """The task registered as `name`; `ConfigError` listing the known ones."""
  if name not in TASKS:
    raise errors.ConfigError(
        f"unknown finetuning task {name!r}; known: {', '.join(TASKS)}")
  return TASKS[name]
