"""Learns a WordPiece vocab or a SentencePiece model from a text corpus.

Thin wrapper over `electra_tf.cli.build_vocab`; run with --help for flags.
"""

from electra_tf.cli import build_vocab

if __name__ == "__main__":
  raise SystemExit(build_vocab.main())
