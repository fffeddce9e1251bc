"""What every entry point shares: flag spelling and one-line errors."""

import sys

from absl import app
from absl import flags
from absl import logging

from electra_tf import errors


def dashes_to_underscores(argv, flag_values=flags.FLAGS):
  """Accepts `--data-dir` for `--data_dir` (the original's spelling)."""
  known = set(flag_values)
  out = list(argv[:1])
  for arg in argv[1:]:
    if arg.startswith("--") and "-" in arg[2:].split("=", 1)[0]:
      name, sep, value = arg[2:].partition("=")
      fixed = name.replace("-", "_")
      if fixed.startswith("no_") and fixed[3:] in known:
        fixed = "no" + fixed[3:]
      if fixed in known or (fixed.startswith("no") and fixed[2:] in known):
        arg = f"--{fixed}{sep}{value}"
    out.append(arg)
  return out


def run(main):
  """`app.run(main)` with dashed flags accepted and user errors on one line."""

  def parse(argv):
    return flags.FLAGS(dashes_to_underscores(argv))

  def guarded(argv):
    try:
      return main(argv)
    except errors.ElectraError as e:
      logging.flush()
      print(f"error: {e}", file=sys.stderr)
      sys.exit(2)

  app.run(guarded, flags_parser=parse)
