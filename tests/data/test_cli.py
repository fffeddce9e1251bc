"""The data-prep command lines, run in-process end to end."""

import json
import os

from electra_tf.cli import build_data
from electra_tf.cli import build_vocab
from electra_tf.data import tfrecords
from tests.conftest import folder_bytes
from tests.data.conftest import DATA_BUILDER
from tests.data.conftest import read_testdata

SYNTHETIC_TEXT = os.path.join(DATA_BUILDER, "synthetic_text.txt")
SYNTHETIC_VOCAB = os.path.join(DATA_BUILDER, "synthetic_vocab.txt")


def _golden_examples():
  return json.loads(read_testdata("data_builder",
                                  "synthetic_examples_len32_seed1.json"))


def _read_records(data_dir):
  return [{k: v.numpy().tolist() for k, v in record.items()}
          for record in tfrecords.read_examples(
              tfrecords.finished_shards(data_dir), 32)]


def test_original_flag_spellings_reproduce_the_golden_set(tmp_path, capsys):
  corpus_dir = tmp_path / "corpus"
  corpus_dir.mkdir()
  (corpus_dir / "text.txt").write_bytes(open(SYNTHETIC_TEXT, "rb").read())
  out = str(tmp_path / "out")
  argv = ["build", "--corpus-dir", str(corpus_dir), "--vocab-file",
          SYNTHETIC_VOCAB, "--output-dir", out, "--max-seq-length", "32",
          "--num-processes=1", "--blanks-separate-docs", "true",
          "--do-lower-case", "--seed=1", "--num_output_files=1",
          "--progress_seconds=0"]
  assert build_data.main(argv) == 0
  assert _read_records(out) == _golden_examples()["examples"]
  counts = tfrecords.read_metadata(out)["counts"]
  assert (counts["documents"], counts["examples"]) == (3, 33)
  # A second run into the same directory is refused, in one line.
  assert build_data.main(argv) == 2
  error = capsys.readouterr().err.strip().splitlines()[-1]
  assert error.startswith("build_pretraining_dataset: error: output dir ")
  assert "--overwrite" in error and "Traceback" not in capsys.readouterr().err
  assert build_data.main(argv + ["--overwrite"]) == 0
  assert _read_records(out) == _golden_examples()["examples"]


def test_jobs_per_worker_fixes_the_data_whatever_the_processes(tmp_path):
  built = []
  for processes in ("1", "2"):
    out = str(tmp_path / f"out{processes}")
    assert build_data.main(
        ["build", "--input", SYNTHETIC_TEXT, "--vocab_file", SYNTHETIC_VOCAB,
         "--output_dir", out, "--max_seq_length=32", "--num_output_files=2",
         "--jobs_per_worker=2", f"--num_processes={processes}"]) == 0
    built.append(folder_bytes(out))
  assert built[0] == built[1]
  assert json.loads(built[0]["pretrain_data.metadata-0-of-1.json"])[
      "settings"]["jobs_per_worker"] == 2


def test_translate_original_flags():
  assert build_data.translate_original_flags(
      ["prog", "--corpus-dir", "c", "--no-lower-case", "--vocab-file=v",
       "--blanks-separate-docs", "false", "--seed=3"]) == [
           "prog", "--input=c", "--nodo_lower_case", "--vocab_file=v",
           "--blanks_separate_docs=false", "--seed=3"]


def test_bad_input_is_one_line_exit_2(tmp_path, capsys):
  base = ["build", "--vocab_file", SYNTHETIC_VOCAB, "--output_dir",
          str(tmp_path / "out")]
  cases = [
      (["--input", str(tmp_path / "missing.txt")],
       "error: input file not found: "),
      (["--input", SYNTHETIC_TEXT, "--do_lower_case=maybe"],
       "Non-boolean argument"),
      ([], "give exactly one of --input"),
      (["--input", SYNTHETIC_TEXT, "--num_workers=2", "--worker_index=2"],
       "worker_index=2"),
  ]
  for extra, message in cases:
    assert build_data.main(base + extra) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_build_vocab_then_data(tmp_path, capsys):
  corpus_file = tmp_path / "prose.txt"
  corpus_file.write_text(
      "\n".join(read_testdata("data_builder", "text.txt.gz").split("\n")[:80]),
      encoding="utf-8")
  vocab = str(tmp_path / "vocab.txt")
  argv = ["vocab", f"--input={corpus_file}", f"--output={vocab}",
          "--vocab_size=400", "--min_count=3"]
  assert build_vocab.main(argv) == 0
  assert build_vocab.main(argv) == 2  # refuses to replace the vocab
  assert "exists; pass --overwrite" in capsys.readouterr().err
  sp_model = str(tmp_path / "sp.model")
  assert build_vocab.main(["vocab", f"--input={corpus_file}",
                           f"--output={sp_model}", "--kind=sentencepiece",
                           "--vocab_size=200"]) == 0
  for flag in (f"--vocab_file={vocab}", f"--sp_model_file={sp_model}"):
    out = str(tmp_path / flag[2:6])
    assert build_data.main(["build", f"--input={corpus_file}", flag,
                            f"--output_dir={out}", "--max_seq_length=64",
                            "--num_output_files=2"]) == 0
    metadata = tfrecords.read_metadata(out)
    assert metadata["counts"]["examples"] > 0
    assert metadata["settings"]["vocab"]["file"] in (vocab, sp_model)


def test_help_exits_0(capsys):
  assert build_vocab.main(["vocab", "--help"]) == 0
  assert "--vocab_size" in capsys.readouterr().out
