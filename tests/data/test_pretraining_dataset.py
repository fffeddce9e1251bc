"""End to end: corpus files -> shards + metadata, exact and parallel."""

import dataclasses

import pytest
import tensorflow as tf

from electra_tf import errors
from electra_tf.data import corpus
from electra_tf.data import pretrain_pipeline
from electra_tf.data import pretraining_dataset
from electra_tf.data import tfds_corpus
from electra_tf.data import tfrecords
from tests.conftest import folder_bytes


def _write_text(path, text):
  with tf.io.gfile.GFile(str(path), "w") as f:
    f.write(text)
  return str(path)


def _read_all(data_dir, max_seq_length):
  return [{k: v.numpy().tolist() for k, v in record.items()}
          for record in tfrecords.read_examples(
              tfrecords.finished_shards(data_dir), max_seq_length)]


def _shard_contents(data_dir):
  return {path.rsplit("/", 1)[1]: [r.numpy() for r in
                                   tf.data.TFRecordDataset(path)]
          for path in tfrecords.finished_shards(data_dir)}


@pytest.mark.parametrize("tokenizer", ["tensorflow", "python"])
@pytest.mark.parametrize("name", ["len128_seed3", "synthetic_len32_seed1"])
def test_exact_mode_writes_the_golden_examples(golden_example_sets, tmp_path,
                                               name, tokenizer):
  text, vocab_file, golden = golden_example_sets[name]
  corpus_file = _write_text(tmp_path / "corpus.txt", text)
  config = pretraining_dataset.BuildConfig(
      output_dir=str(tmp_path / "out"), vocab_file=vocab_file,
      max_seq_length=golden["max_seq_length"], seed=golden["seed"],
      num_output_files=1, tokenizer=tokenizer)
  metadata = pretraining_dataset.build_pretraining_dataset(
      config, corpus.FileCorpus.from_patterns([corpus_file]))
  assert _read_all(config.output_dir, golden["max_seq_length"]) == (
      golden["examples"])
  assert metadata["counts"]["examples"] == len(golden["examples"])
  stored = tfrecords.read_metadata(config.output_dir)
  assert stored["settings"]["vocab"]["size"] == len(
      open(vocab_file, encoding="utf-8").read().splitlines())
  assert stored["settings"]["seed"] == golden["seed"]
  assert len(stored["settings"]["vocab"]["sha256"]) == 64


@pytest.fixture()
def small_corpus(tmp_path, golden_example_sets):
  text = golden_example_sets["synthetic_len32_seed1"][0]
  documents = text.split("\n\n")
  (tmp_path / "corpus").mkdir()
  for index, document in enumerate(documents):
    _write_text(tmp_path / "corpus" / f"doc{index}.txt", document)
  return corpus.FileCorpus.from_patterns([str(tmp_path / "corpus")])


@pytest.fixture()
def small_config(tmp_path, golden_example_sets):
  return pretraining_dataset.BuildConfig(
      output_dir=str(tmp_path / "out"),
      vocab_file=golden_example_sets["synthetic_len32_seed1"][1],
      max_seq_length=32, num_output_files=4, seed=5)


def test_the_jobs_fix_the_data_not_the_processes(small_corpus, small_config,
                                                  tmp_path):
  # Three jobs on two spawned processes (forced: the corpus is small).
  spawned = dataclasses.replace(small_config, num_processes=2,
                                jobs_per_worker=3, spawn_min_mb=0)
  assert pretraining_dataset._spawns_processes(spawned, small_corpus)  # pylint: disable=protected-access
  metadata = pretraining_dataset.build_pretraining_dataset(spawned,
                                                           small_corpus)
  assert metadata["counts"]["files"] == 4
  assert len(_shard_contents(spawned.output_dir)) == 4
  # The same three jobs in one process, and three processes' jobs (run in
  # this one as the corpus is small): byte-identical shards and metadata.
  for name, changes in [("one", {"num_processes": 1}),
                        ("three", {"num_processes": 3, "jobs_per_worker": 0,
                                   "spawn_min_mb": 16})]:
    other = dataclasses.replace(spawned, output_dir=str(tmp_path / name),
                                **changes)
    assert other.worker_jobs == 3
    assert pretraining_dataset.build_pretraining_dataset(
        other, small_corpus) == metadata
    assert folder_bytes(other.output_dir) == folder_bytes(spawned.output_dir)
  assert metadata["settings"]["jobs_per_worker"] == 3
  # Another job count is other data.
  two_jobs = dataclasses.replace(spawned, output_dir=str(tmp_path / "two"),
                                 num_processes=1, jobs_per_worker=2)
  pretraining_dataset.build_pretraining_dataset(two_jobs, small_corpus)
  assert _shard_contents(two_jobs.output_dir) != _shard_contents(
      spawned.output_dir)


class _CorpusOfSize:

  def __init__(self, size):
    self.size = size

  def total_bytes(self):
    return self.size


def test_a_small_corpus_runs_its_jobs_in_this_process(small_corpus,
                                                      small_config, tmp_path,
                                                      monkeypatch):
  parallel = dataclasses.replace(small_config, num_processes=2)
  spawns = pretraining_dataset._spawns_processes  # pylint: disable=protected-access
  assert parallel.spawn_min_mb == 16
  assert small_corpus.total_bytes() < 16 << 20
  assert not spawns(parallel, small_corpus)
  assert spawns(parallel, tfds_corpus.TFDSCorpus("fake_wiki", records=()))
  assert not spawns(small_config, small_corpus)  # one process: nothing to spawn
  # README: "a corpus under 16 MB runs those jobs ... in one process".
  assert not spawns(parallel, _CorpusOfSize((16 << 20) - 1))
  assert spawns(parallel, _CorpusOfSize(16 << 20))

  def no_pool(*args):
    raise AssertionError(f"spawned processes for a small corpus: {args}")

  monkeypatch.setattr(pretraining_dataset.multiprocessing, "get_context",
                      no_pool)
  metadata = pretraining_dataset.build_pretraining_dataset(parallel,
                                                           small_corpus)
  assert metadata["settings"]["jobs_per_worker"] == 2
  # The jobs of two processes: not the one job of exact mode.
  one_job = dataclasses.replace(small_config,
                                output_dir=str(tmp_path / "one_job"))
  pretraining_dataset.build_pretraining_dataset(one_job, small_corpus)
  assert _shard_contents(parallel.output_dir) != _shard_contents(
      one_job.output_dir)


def test_workers_split_files_and_shards(small_corpus, small_config):
  totals = []
  for worker in range(2):
    config = dataclasses.replace(small_config, num_workers=2,
                                 worker_index=worker)
    totals.append(pretraining_dataset.build_pretraining_dataset(
        config, small_corpus)["counts"])
  assert [t["files"] for t in totals] == [2, 2]
  metadata = tfrecords.read_metadata(small_config.output_dir)
  assert metadata["counts"]["examples"] == sum(t["examples"] for t in totals)
  assert len(_read_all(small_config.output_dir, 32)) == (
      metadata["counts"]["examples"])


def test_workers_and_processes_partition_the_shards(small_config):
  owned = []
  for worker in range(3):
    config = dataclasses.replace(small_config, num_workers=3,
                                 worker_index=worker, num_processes=2,
                                 num_output_files=13)
    owned += config.worker_shards()
    assert config.worker_shards() == sorted(
        config.job_shards(worker * 2) + config.job_shards(worker * 2 + 1))
  assert sorted(owned) == list(range(13))


def test_other_workers_files_do_not_block_a_worker(small_corpus,
                                                   small_config):
  worker_config = dataclasses.replace(small_config, num_workers=2,
                                      num_processes=1)
  pretraining_dataset.build_pretraining_dataset(
      dataclasses.replace(worker_config, worker_index=1), small_corpus)
  pretraining_dataset.build_pretraining_dataset(
      dataclasses.replace(worker_config, worker_index=0), small_corpus)
  with pytest.raises(errors.DataError, match="not empty"):
    pretraining_dataset.build_pretraining_dataset(
        dataclasses.replace(worker_config, worker_index=0), small_corpus)


def test_non_empty_output_dir_refused_unless_overwrite(small_corpus,
                                                       small_config):
  tf.io.gfile.makedirs(small_config.output_dir)
  _write_text(small_config.output_dir + "/notes.txt", "keep me")
  with pytest.raises(errors.DataError,
                     match=r"out is not empty \(1 entries, e.g. notes.txt\)"
                           r".*--overwrite"):
    pretraining_dataset.build_pretraining_dataset(small_config, small_corpus)
  overwrite = dataclasses.replace(small_config, overwrite=True)
  first = pretraining_dataset.build_pretraining_dataset(overwrite,
                                                        small_corpus)
  second = pretraining_dataset.build_pretraining_dataset(overwrite,
                                                         small_corpus)
  assert first == second
  assert tf.io.gfile.exists(small_config.output_dir + "/notes.txt")


def test_empty_corpus_is_a_clear_error(tmp_path, small_config):
  empty = _write_text(tmp_path / "empty.txt", "\n\n   \n")
  with pytest.raises(errors.DataError, match="empty corpus: .*empty.txt"):
    pretraining_dataset.build_pretraining_dataset(
        small_config, corpus.FileCorpus.from_patterns([empty]))


def test_ram_corpus_and_output(small_config):
  _write_text("ram://dataset_test/corpus/a.txt", "tok1001 tok1002\ntok1003\n")
  config = dataclasses.replace(small_config,
                               output_dir="ram://dataset_test/out")
  pretraining_dataset.build_pretraining_dataset(
      config, corpus.FileCorpus.from_patterns(["ram://dataset_test/corpus"]))
  records = _read_all(config.output_dir, 32)
  assert [r["input_ids"][:5] for r in records] == [[101, 1001, 1002, 1003,
                                                    102]]
  assert tfrecords.read_metadata(config.output_dir)["counts"]["documents"] == 1
  with pytest.raises(errors.DataError, match="ram:// files live in one"):
    pretraining_dataset.build_pretraining_dataset(
        dataclasses.replace(config, num_processes=2), None)


def test_tfds_records_build_without_download(small_config):
  records = ({"text": "tok1001 tok1002\ntok1003"}, {"text": b"tok1004"})
  source = tfds_corpus.TFDSCorpus("fake_wiki", records=records)
  metadata = pretraining_dataset.build_pretraining_dataset(small_config,
                                                           source)
  assert metadata["counts"]["documents"] == 2
  assert metadata["settings"]["source"] == "tfds:fake_wiki/train[text]"
  assert sorted(r["input_ids"][:4] for r in _read_all(
      small_config.output_dir, 32)) == [[101, 1001, 1002, 1003],
                                        [101, 1004, 102, 0]]


def test_bad_layouts_are_named(small_config):
  for changes, message in [({"worker_index": 2, "num_workers": 2},
                            "worker_index=2"),
                           ({"num_output_files": 1, "num_processes": 2},
                            "num_output_files=1"),
                           ({"num_output_files": 2, "jobs_per_worker": 3},
                            "num_output_files=2 is smaller than the 3 jobs"),
                           ({"jobs_per_worker": -1}, "jobs_per_worker=-1"),
                           ({"tokenizer": "rust"}, "tokenizer='rust'")]:
    with pytest.raises(errors.DataError, match=message):
      pretraining_dataset.build_pretraining_dataset(
          dataclasses.replace(small_config, **changes), None)


def test_shard_patterns_skip_metadata_and_take_literal_names(tmp_path):
  folder = tmp_path / "brk[1]"
  folder.mkdir()
  for name in ("pretrain_data.tfrecord-0-of-2", "pretrain_data.tfrecord-1-of-2",
               "pretrain_data.metadata-0-of-1.json",
               "pretrain_data.tfrecord-2-of-3.incomplete"):
    (folder / name).write_text("x")
  shards = [str(folder / f"pretrain_data.tfrecord-{i}-of-2") for i in (0, 1)]
  # The README's glob over a builder's output dir: shards only.
  glob = str(tmp_path / "*" / "*")
  assert pretrain_pipeline.match_shards(glob) == shards
  # A dir whose name is a glob pattern is still the dir it names.
  assert pretrain_pipeline.match_shards(str(folder)) == shards
  assert pretrain_pipeline.match_shards(shards[0]) == shards[:1]
