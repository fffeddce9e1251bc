"""Finding and reading corpus files: bad input is counted or named."""

import random

import pytest
import tensorflow as tf

from electra_tf import errors
from electra_tf.data import build_stats
from electra_tf.data import corpus
from electra_tf.data import tfds_corpus


def _write(path, content):
  with tf.io.gfile.GFile(str(path), "wb") as f:
    f.write(content)
  return str(path)


def test_lines_split_on_newline_only_and_lose_carriage_returns(tmp_path):
  path = _write(tmp_path / "a.txt",
                b"one\r\ntwo\x0bstill two\xe2\x80\xa8also\n\nla\rst\r")
  stats = build_stats.BuildStats()
  lines = list(corpus.read_lines(path, stats))
  assert lines == ["one", "two\x0bstill two\u2028also", "", "last"]
  assert stats.lines == 4 and stats.bytes_read == 33
  # Exactly the lines of TensorFlow's reader, which the original used.
  with tf.io.gfile.GFile(path, "r") as f:
    assert [line.rstrip("\n") for line in f] == lines


def test_invalid_utf8_is_replaced_and_counted(tmp_path):
  path = _write(tmp_path / "bad.txt", b"ok\nbad \xff\xfe here\nfine\n\xc3\n")
  stats = build_stats.BuildStats()
  lines = list(corpus.read_lines(path, stats))
  assert lines == ["ok", "bad \ufffd\ufffd here", "fine", "\ufffd"]
  assert stats.invalid_utf8_lines == 2
  assert "2 lines with invalid UTF-8" in stats.summary()
  assert path in stats.summary()


@pytest.mark.parametrize("chunk_bytes", [3, 1 << 20])
def test_huge_line_is_skipped_and_counted(tmp_path, monkeypatch, chunk_bytes):
  monkeypatch.setattr(corpus, "READ_CHUNK_BYTES", chunk_bytes)
  huge = b"x" * 200
  path = _write(tmp_path / "huge.txt", b"a\n" + huge + b"\nb\n" + huge)
  stats = build_stats.BuildStats()
  assert list(corpus.read_lines(path, stats, max_line_chars=30)) == ["a", "b"]
  assert stats.skipped_lines == {build_stats.LINE_TOO_LONG: 2}
  assert "2 longer_than_max_line_chars" in stats.summary()


def test_limit_counts_characters_not_bytes(tmp_path):
  path = _write(tmp_path / "wide.txt", "é" * 10 + "\n" + "é" * 11)
  stats = build_stats.BuildStats()
  assert list(corpus.read_lines(path, stats, max_line_chars=10)) == ["é" * 10]
  assert stats.skipped_lines[build_stats.LINE_TOO_LONG] == 1


def test_files_from_paths_dirs_and_globs(tmp_path):
  for name in ("b.txt", "a.txt", "c.md"):
    _write(tmp_path / name, b"x")
  (tmp_path / "sub").mkdir()
  found = corpus.list_input_files([str(tmp_path)])
  assert found == [str(tmp_path / n) for n in ("a.txt", "b.txt", "c.md")]
  assert corpus.list_input_files(
      [str(tmp_path / "*.txt"), str(tmp_path / "a.txt")]) == found[:2]


def test_missing_file_and_empty_glob_are_named(tmp_path):
  with pytest.raises(errors.DataError, match="not found: .*nope.txt"):
    corpus.list_input_files([str(tmp_path / "nope.txt")])
  with pytest.raises(errors.DataError, match=r"no input files match .*\*.txt"):
    corpus.list_input_files([str(tmp_path / "*.txt")])
  with pytest.raises(errors.DataError, match="gone.txt"):
    list(corpus.read_lines(str(tmp_path / "gone.txt"),
                           build_stats.BuildStats()))


def test_ram_paths(tmp_path):
  del tmp_path
  _write("ram://corpus_test/x.txt", b"hello\nworld\n")
  files = corpus.list_input_files(["ram://corpus_test"])
  assert files == ["ram://corpus_test/x.txt"]
  assert list(corpus.read_lines(files[0], build_stats.BuildStats())) == [
      "hello", "world"]


def test_worker_split_covers_every_file_once():
  files = tuple(f"f{i}" for i in range(10))
  file_corpus = corpus.FileCorpus(files)
  shares = [file_corpus.units(j, 3, random.Random(0)) for j in range(3)]
  assert sorted(sum(shares, [])) == sorted(files)
  assert sorted(shares[1]) == ["f1", "f4", "f7"]


def test_tfds_records_are_documents_without_download():
  records = [{"text": b"First line.\nSecond line."},
             {"text": "Other doc."}, {"title": "no text"}]
  source = tfds_corpus.TFDSCorpus("wiki", records=records)
  stats = build_stats.BuildStats()
  units = list(source.units(0, 2, random.Random(0)))
  assert units == [records[0], records[2]]
  assert list(source.lines(units[0], stats)) == ["First line.", "Second line."]
  with pytest.raises(errors.DataError, match="no field 'text'.*title"):
    list(source.lines(units[1], stats))


def _held_out_documents(path, held_out_per_mille=300):
  split = corpus.DocumentSplit(corpus.FileCorpus((path,)), held_out_per_mille,
                               True)
  return [line for line in split.lines(path, build_stats.BuildStats())
          if line]


def test_held_out_documents_follow_the_file_path_not_only_its_content():
  # README's study section: the draw is fixed by the files' paths, so the same
  # text at the same path gives the same split, and elsewhere another one.
  text = "".join(f"doc {i}\n\n" for i in range(200))
  paths = ["ram://split_a/corpus/c.txt", "ram://split_b/corpus/c.txt"]
  for path in paths:
    with tf.io.gfile.GFile(path, "w") as f:
      f.write(text)
  first = _held_out_documents(paths[0])
  assert first == _held_out_documents(paths[0])
  other = _held_out_documents(paths[1])
  assert 40 < len(first) < 80 and 40 < len(other) < 80
  assert first != other


def test_split_sizes_are_its_share_or_unknown(tmp_path):
  path = _write(tmp_path / "c.txt", b"x" * 1000)
  files = corpus.FileCorpus((path,))
  assert files.total_bytes() == 1000
  assert corpus.DocumentSplit(files, 300, True).total_bytes() == 300
  assert corpus.DocumentSplit(files, 300, False).total_size([path]) == 700
  # A TFDS corpus has no size before it is read, nor has its split.
  records = corpus.DocumentSplit(
      tfds_corpus.TFDSCorpus("wiki", records=({"text": "a"},)), 300, False)
  assert records.total_bytes() is None and records.total_size([]) is None
