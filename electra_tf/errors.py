"""Error types raised for bad user input.

Each carries a one-line message naming the offending file, key or value, so
the command-line entry points can print it without a traceback.
"""

import re


class ElectraError(Exception):
  """Base class for errors caused by user input (configs, files, data)."""


class ConfigError(ElectraError, ValueError):
  """An unknown key, a bad value or a missing preset in a configuration."""


class CheckpointError(ElectraError, ValueError):
  """A checkpoint that does not match the model it is loaded into."""


class DataError(ElectraError, ValueError):
  """Input data that is missing, malformed or inconsistent."""


# TensorFlow wraps an op's message in `{{function_node ...}}` and `[Op:...]`.
_TF_WRAPPING = re.compile(r"\{\{function_node [^}]*\}\}\s*|\s*\[Op:[^\]]*\].*$")


def first_line(error):
  """An exception's message as one readable line (TensorFlow's wrapping and
  everything after the first line removed)."""
  text = getattr(error, "message", None) or str(error)
  lines = [line for line in text.strip().splitlines() if line.strip()]
  if not lines:
    return type(error).__name__
  return _TF_WRAPPING.sub("", lines[0]).strip() or type(error).__name__
