"""Runs a command-line tool: strict flag parsing, one-line errors, exit codes.

Each tool defines its flags on a private `absl.flags.FlagValues`, so several
tools can live in one process (and in tests) without clashing flag names.
Bad input (`ElectraError`) and bad flags are printed as one line to stderr
with exit code 2, never as a traceback.
"""

import logging as std_logging
import os
import sys

from absl import flags
from absl import logging

from electra_tf import errors

EXIT_OK = 0
EXIT_BAD_INPUT = 2
HELP_FLAGS = ("-h", "--help", "-help", "--helpfull")


def original_flag_translator(value_flags, switches=None):
  """A `translate_argv` accepting an original tool's argparse spellings.

  Args:
    value_flags: {original flag: ours} for flags taking a value, which the
      original also accepted as "--flag value".
    switches: {original flag: ours} for value-less switches.
  """
  switches = switches or {}

  def translate(argv):
    translated = [argv[0]]
    args = iter(argv[1:])
    for arg in args:
      name, has_value, value = arg.partition("=")
      if name in switches and not has_value:
        translated.append(switches[name])
      elif name in value_flags:
        value = value if has_value else next(args, "")
        translated.append(f"{value_flags[name]}={value}")
      else:
        translated.append(arg)
    return translated

  return translate


class _QuietTensorFlow(std_logging.Filter):
  """Drops TensorFlow's own INFO chatter (saver sharding, asset notes)."""

  def filter(self, record):
    inside_tf = f"{os.sep}tensorflow{os.sep}" in record.pathname
    return not inside_tf or record.levelno >= std_logging.WARNING


def _start_logging():
  """INFO and above from absl logging go to stderr."""
  if not flags.FLAGS.is_parsed():
    flags.FLAGS.mark_as_parsed()  # no "logging before flag parsing" notice
  logging.use_absl_handler()
  logging.set_verbosity(logging.INFO)
  handler = logging.get_absl_handler()
  if not any(isinstance(f, _QuietTensorFlow) for f in handler.filters):
    handler.addFilter(_QuietTensorFlow())


def signal_exit_code(signum):
  """128 + the signal that stopped a run (143 for SIGTERM, 130 for Ctrl-C),
  so a scheduler sees a pre-empted run as interrupted; None otherwise."""
  return None if signum is None else 128 + signum


def run_tool(name, define_flags, run, argv=None, translate_argv=None):
  """Parses `argv` into fresh flags, calls `run(flag_values)`.

  Args:
    name: program name for messages.
    define_flags: function(flag_values) defining the tool's flags.
    run: function(flag_values) doing the work; may raise `ElectraError`
      and may return an exit code (e.g. 143 after a SIGTERM stop).
    argv: full argument list (program name first); defaults to `sys.argv`.
    translate_argv: optional function rewriting argv before parsing.

  Returns:
    The exit code: 0, or 2 for bad flags or bad input.
  """
  argv = list(sys.argv if argv is None else argv)
  if translate_argv is not None:
    argv = translate_argv(argv)
  flag_values = flags.FlagValues()
  define_flags(flag_values)
  if any(arg in HELP_FLAGS for arg in argv[1:]):
    print(f"usage: {name} [flags]\n\n{flag_values.get_help()}")
    return EXIT_OK
  try:
    extra = flag_values(argv)
    if len(extra) > 1:
      raise flags.Error(f"unexpected arguments: {' '.join(extra[1:])}")
    flag_values.validate_all_flags()
  except flags.Error as e:
    print(f"{name}: {e}", file=sys.stderr)
    return EXIT_BAD_INPUT
  _start_logging()
  try:
    code = run(flag_values)
  except errors.ElectraError as e:
    one_line = " ".join(str(e).split())  # wrapped library messages too
    print(f"{name}: error: {one_line}", file=sys.stderr)
    return EXIT_BAD_INPUT
  return code or EXIT_OK
