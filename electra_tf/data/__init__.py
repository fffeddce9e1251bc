"""Tokenization, example building, TFRecord IO and input pipelines."""
