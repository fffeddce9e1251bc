"""Pretrain ELECTRA; `python pretrain.py --help` lists the flags."""

from electra_tf.cli import pretrain

if __name__ == "__main__":
  raise SystemExit(pretrain.main())
