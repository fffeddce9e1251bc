"""Extractive span question answering (SQuAD 1.1 / 2.0, own SQuAD-format files)."""
