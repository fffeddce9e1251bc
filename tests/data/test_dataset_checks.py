"""A run's vocab and data are checked against its config."""

import pytest

from electra_tf.data import corpus
from electra_tf.data import dataset_checks
from electra_tf.data import pretraining_dataset
from electra_tf.data import tfrecords
from electra_tf.tokenization import vocab_learning
import electra_tf


def _config(**hparams):
  return electra_tf.PretrainingConfig.from_hparams(hparams)


def test_sentencepiece_model_as_vocab_file(tmp_path):
  lines = [f"sentence number {i} about the {w} cat" for i, w in
           enumerate(["red", "blue", "green", "small", "big"] * 40)]
  model = str(tmp_path / "sp.model")
  with open(model, "wb") as f:
    f.write(vocab_learning.train_sentencepiece(lines, 60))
  ids = dataset_checks.special_token_ids(_config(vocab_file=model,
                                                 vocab_size=60))
  assert (ids.pad, ids.unk) == (0, 1)
  assert len({ids.cls, ids.sep, ids.mask}) == 3


def test_vocab_larger_than_vocab_size_is_named(tmp_path):
  vocab = tmp_path / "vocab.txt"
  vocab.write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]",
                              "a", "b"]) + "\n")
  with pytest.raises(electra_tf.ConfigError,
                     match=r"vocab.txt has 7 ids but vocab_size is 5"):
    dataset_checks.special_token_ids(_config(vocab_file=str(vocab),
                                             vocab_size=5))
  missing = tmp_path / "missing.txt"
  missing.write_text("[PAD]\n[CLS]\n[SEP]\n[MASK]\n")
  with pytest.raises(electra_tf.DataError, match=r"lacks the special token"
                                                 r"\(s\) \[UNK\]"):
    dataset_checks.special_token_ids(_config(vocab_file=str(missing)))


def test_dataset_metadata_must_fit_the_run(tmp_path):

  vocab = tmp_path / "vocab.txt"
  words = ["alpha", "beta", "gamma", "delta"]
  vocab.write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
                             + words) + "\n")
  text = tmp_path / "text.txt"
  text.write_text("\n".join(" ".join(words[i:] + words[:i]) for i in range(4))
                  * 20 + "\n")
  out = str(tmp_path / "data")
  pretraining_dataset.build_pretraining_dataset(
      pretraining_dataset.BuildConfig(output_dir=out, vocab_file=str(vocab),
                                      max_seq_length=16, num_output_files=1),
      corpus.FileCorpus((str(text),)))
  shards = tfrecords.finished_shards(out)
  dataset_checks.check_dataset_metadata(
      shards, _config(max_seq_length=16, vocab_size=9,
                      vocab_file=str(vocab)))
  with pytest.raises(electra_tf.DataError,
                     match=r"does not fit this run: max_seq_length 16 in the "
                           r"data, 32 in the config"):
    dataset_checks.check_dataset_metadata(shards, _config(max_seq_length=32))
  other = tmp_path / "other.txt"
  other.write_text(vocab.read_text() + "epsilon\n")
  with pytest.raises(electra_tf.DataError,
                     match="tokenized with another vocab"):
    dataset_checks.check_dataset_metadata(
        shards, _config(max_seq_length=16, vocab_file=str(other)))
