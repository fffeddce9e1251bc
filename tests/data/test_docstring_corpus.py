"""The demo's corpus: this Python's docstrings, written once."""

import os

from electra_tf.data import docstring_corpus

MAX_BYTES = 300_000


def _contents(paths):
  return [open(p, encoding="utf-8").read() for p in paths]


def test_written_once_in_the_pretraining_format(tmp_path):
  folder = str(tmp_path / "corpus")
  paths = docstring_corpus.docstring_corpus_files(folder, MAX_BYTES)
  text = "".join(_contents(paths))
  assert MAX_BYTES <= len(text.encode("utf-8")) < MAX_BYTES + 100_000
  documents = [d for d in text.split("\n\n") if d.strip()]
  assert len(documents) > 100
  # One sentence per line, at least two per document.
  assert all(len(d.strip().splitlines()) >= 2 for d in documents)
  mtimes = [os.stat(p).st_mtime_ns for p in paths]
  assert docstring_corpus.docstring_corpus_files(folder, MAX_BYTES) == paths
  assert [os.stat(p).st_mtime_ns for p in paths] == mtimes


def test_a_half_written_folder_is_written_again(tmp_path):
  whole = docstring_corpus.docstring_corpus_files(str(tmp_path / "a"),
                                                  MAX_BYTES)
  folder = tmp_path / "b"
  folder.mkdir()
  (folder / "corpus-999.txt").write_text("cut off in the mid")
  paths = docstring_corpus.docstring_corpus_files(str(folder), MAX_BYTES)
  assert _contents(paths) == _contents(whole)
  assert (folder / docstring_corpus.DONE_MARKER).exists()
