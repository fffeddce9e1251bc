"""Pretrain ELECTRA; see `python pretrain.py --help` and the README."""

from electra_tf.cli import pretrain

if __name__ == "__main__":
  pretrain.run()
