"""The JSON records a run dir keeps next to its checkpoints, and the checks
that a dir holds the run about to continue in it.

Two checks: `refuse_other_model` (a dir trained for another architecture is
never resumed into this one) and `claim` (a dir holds a run of exactly these
settings, or is new; other settings are refused naming the keys that
differ, or, with `overwrite`, wiped first).
"""

import json
import os

import tensorflow as tf
from absl import logging

from electra_tf import errors
from electra_tf import hparams as hparams_lib
from electra_tf import output_files

_KEYS_SHOWN = 6


def read_json(path):
  """The JSON at `path`, or None if there is none."""
  if not tf.io.gfile.exists(path):
    return None
  with tf.io.gfile.GFile(path) as f:
    return json.load(f)


def write_json(path, value):
  """Writes `value` as JSON to `path`, whole or not at all."""
  output_files.write_atomically(
      path, json.dumps(value, indent=1, sort_keys=True) + "\n")


def normalised(value):
  """`value` as JSON gives it back (tuples as lists, keys sorted, ...)."""
  return json.loads(json.dumps(value, sort_keys=True, default=str))


def refuse_other_model(model_dir, record_file, current, keys):
  """`ConfigError` when `model_dir`'s record (if any) differs from
  `current` (a config's `to_dict()`) in one of `keys`, naming each."""
  saved = read_json(os.path.join(model_dir, record_file))
  if saved is None:
    return
  changed = [f"{k}: {saved.get(k)!r} in the model dir, {current[k]!r} now"
             for k in keys if saved.get(k) != current[k]]
  if changed:
    raise errors.ConfigError(
        f"model dir {model_dir} holds a run of another model config ("
        + "; ".join(changed) + "); use a new model dir")


def claim(run_dir, record_file, settings, what, remedy, overwrite=False,
          added_later=None):
  """Checks `run_dir` against the settings of the run about to use it.

  Returns True when the dir holds `what` of these very settings (so it
  resumes, or is reused when finished), False when the dir is new (the
  settings are then recorded). `added_later` maps dotted setting paths
  added since older records were written to the value those runs had; a
  record without such a path is compared as if it held that value.

  Raises:
    ConfigError: the dir holds `what` of other settings (the differing keys
      and `remedy` named), unless `overwrite`, which wipes the dir first.
  """
  settings = normalised(settings)
  path = os.path.join(run_dir, record_file)
  recorded = read_json(path)
  if recorded is not None:
    changed = hparams_lib.differing_keys(
        _with_added(recorded, added_later or {}), settings)
    if not changed:
      return True
    if not overwrite:
      shown = ", ".join(changed[:_KEYS_SHOWN]) + (
          " ..." if len(changed) > _KEYS_SHOWN else "")
      raise errors.ConfigError(f"{run_dir} holds {what} with other settings "
                               f"({shown} differ); {remedy}")
    logging.info("overwrite: removing %s", run_dir)
    tf.io.gfile.rmtree(run_dir)
  write_json(path, settings)
  return False


def _with_added(record, added_later):
  """`record` with each missing dotted path of `added_later` filled in
  (where its parent is there)."""
  record = normalised(record)
  for path, value in added_later.items():
    *parents, key = path.split(".")
    node = record
    for parent in parents:
      node = node.get(parent) if isinstance(node, dict) else None
    if isinstance(node, dict):
      node.setdefault(key, value)
  return record
