"""`electra-build-data --tfds_name` through a real TFDS builder prepared from
local text (no download): the shards equal those built from the same
documents as a text file."""

import tensorflow_datasets as tfds

from electra_tf.cli import build_data
from electra_tf.data import tfrecords
from tests.data.conftest import BERT_VOCAB
from tests.data.conftest import read_testdata

DOCUMENTS = 6


def _documents():
  lines = read_testdata("data_builder", "text.txt.gz").split("\n")[:60]
  size = len(lines) // DOCUMENTS
  return ["\n".join(lines[i * size:(i + 1) * size]) for i in range(DOCUMENTS)]


class LocalProse(tfds.core.GeneratorBasedBuilder):
  """Paragraphs of the data-builder golden text, one record per document."""
  VERSION = tfds.core.Version("1.0.0")

  def _info(self):
    return tfds.core.DatasetInfo(
        builder=self,
        features=tfds.features.FeaturesDict({"body": tfds.features.Text()}))

  def _split_generators(self, dl_manager):
    del dl_manager  # nothing to download
    return {"train": self._generate_examples()}

  def _generate_examples(self):
    for index, document in enumerate(_documents()):
      yield index, {"body": document}


def test_tfds_dataset_builds_the_shards_of_the_same_text(tmp_path):
  data_dir = str(tmp_path / "tfds")
  LocalProse(data_dir=data_dir).download_and_prepare()
  # TFDS stores records shuffled; the text file holds them in its order.
  stored = [record["body"].decode("utf-8") for record in tfds.as_numpy(
      tfds.load("local_prose", split="train", data_dir=data_dir))]
  assert sorted(stored) == sorted(_documents())
  text_file = tmp_path / "prose.txt"
  text_file.write_text("\n\n".join(stored) + "\n", encoding="utf-8")
  common = [f"--vocab_file={BERT_VOCAB}", "--max_seq_length=64",
            "--num_output_files=1", "--seed=3"]
  from_tfds, from_text = str(tmp_path / "tfds_out"), str(tmp_path / "text_out")
  assert build_data.main(
      ["build", "--tfds_name=local_prose", "--tfds_text_key=body",
       f"--tfds_data_dir={data_dir}", f"--output_dir={from_tfds}"]
      + common) == 0
  assert build_data.main(["build", f"--input={text_file}",
                          f"--output_dir={from_text}"] + common) == 0
  assert tfrecords.read_metadata(from_tfds)["counts"]["documents"] == DOCUMENTS
  shards = []
  for output_dir in (from_tfds, from_text):
    with open(tfrecords.finished_shards(output_dir)[0], "rb") as f:
      shards.append(f.read())
  assert len(shards[0]) > 1000 and shards[0] == shards[1]
