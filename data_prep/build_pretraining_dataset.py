"""Writes a text corpus as ELECTRA pretraining TFRecords.

Thin wrapper over `electra_tf.cli.build_data`; run with --help for flags.
"""

from electra_tf.cli import build_data

if __name__ == "__main__":
  raise SystemExit(build_data.main())
