"""Sub-runs of a study: each an ordinary run dir plus a record of its settings.

A study is resumable at every level because each pretraining and finetuning
run it starts is an ordinary run dir that resumes by itself. Before starting
(or reusing) one, the study compares the settings it would run with the
record in the dir (`study_settings.json`): identical settings resume or
reuse; different settings are refused naming the keys that differ (a
finished model of other settings must never be reported as this one).
"""

from electra_tf.checkpoints import run_records

RECORD_FILE = "study_settings.json"


def claim(run_dir, settings, added_later=None):
  """Records `settings` in `run_dir`, or checks they equal the record.

  Returns True when the dir already held this sub-run (so it resumes or is
  reused), False when it is new. Raises `ConfigError` naming the differing
  keys when the dir holds a sub-run of other settings. `added_later`: see
  `run_records.claim`.
  """
  return run_records.claim(
      run_dir, RECORD_FILE, settings, "a sub-run",
      "use another --output_dir, or delete that dir to redo it",
      added_later=added_later)
