"""Finetune ELECTRA; `python finetune.py --help` lists the flags."""

from electra_tf.cli import finetune

if __name__ == "__main__":
  raise SystemExit(finetune.main())
