"""All finetuning tasks by name."""

from electra_tf import errors
from electra_tf.finetuning.tagging import chunking
from electra_tf.finetuning.classification import glue_tasks
from electra_tf.finetuning import own_tasks
from electra_tf.finetuning.qa import mrqa
from electra_tf.finetuning.qa import squad

TASKS = {task.name: task for task in (*glue_tasks.GLUE_TASKS, squad.SQUAD_V2,
                                      squad.SQUAD_V1, *mrqa.MRQA_TASKS,
                                      chunking.CHUNK)}


def task_names():
  return tuple(TASKS)


def get_task(name, task_specs=None):
  """The task `name`: an own-data task of `task_specs` (name -> resolved
  spec), else a built-in one; `ConfigError` listing the known ones."""
  if task_specs and name in task_specs:
    return own_tasks.task_from_spec(task_specs[name])
  if name not in TASKS:
    own = f"; own-data specs: {', '.join(task_specs)}" if task_specs else ""
    raise errors.ConfigError(
        f"unknown finetuning task {name!r}; known: {', '.join(TASKS)}{own}"
        " (or give a task spec: a JSON object or a .json file)")
  return TASKS[name]
