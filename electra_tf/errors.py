"""Error types raised for bad user input.

Each carries a one-line message naming the offending file, key or value, so
the command-line entry points can print it without a traceback.
"""


class ElectraError(Exception):
  """Base class for errors caused by user input (configs, files, data)."""


class ConfigError(ElectraError, ValueError):
  """An unknown key, a bad value or a missing preset in a configuration."""


class CheckpointError(ElectraError, ValueError):
  """A checkpoint that does not match the model it is loaded into."""


class DataError(ElectraError, ValueError):
  """Input data that is missing, malformed or inconsistent."""
