"""A TensorFlow Datasets text corpus (e.g. `wikipedia/20230601.en`).

Each record's text field is one document; its "\\n"-separated lines are the
sentences (or paragraphs) fed to the example builder, exactly like the lines
of one input file. Jobs split the records round-robin. Pass `records` (an
iterable of dicts) to use the same code path without downloading anything.
"""

import dataclasses
import itertools

from electra_tf import errors
from electra_tf.data import build_stats
from electra_tf.data import corpus


@dataclasses.dataclass(frozen=True)
class TFDSCorpus:
  """Documents from `tfds.load(name, split)[text_key]`.

  Attributes:
    name: TFDS dataset name (with config/version if needed).
    split: TFDS split, e.g. "train" or "train[:1%]".
    text_key: the feature holding the document text.
    records: optional sequence of dicts to use instead of `tfds.load`.
    max_line_chars: longer lines are skipped and counted.
    data_dir: where TFDS keeps prepared datasets (None: its default).
  """
  name: str
  split: str = "train"
  text_key: str = "text"
  records: tuple = None
  max_line_chars: int = corpus.MAX_LINE_CHARS
  data_dir: str = None

  def describe(self):
    return f"tfds:{self.name}/{self.split}[{self.text_key}]"

  def units(self, shard_index, num_shards, rng):
    """The records of one job, lazily: every `num_shards`-th one."""
    del rng  # records keep their order
    if self.records is not None:
      return itertools.islice(self.records, shard_index, None, num_shards)
    import tensorflow_datasets as tfds  # pylint: disable=import-outside-toplevel
    try:
      dataset = tfds.load(self.name, split=self.split, data_dir=self.data_dir)
    except Exception as e:  # tfds raises many types for unknown names
      raise errors.DataError(
          f"cannot load TFDS dataset {self.name!r} split {self.split!r}: "
          f"{e}") from e
    return tfds.as_numpy(dataset.shard(num_shards, shard_index))

  def total_size(self, units):
    del units  # unknown before reading: no ETA
    return None

  def total_bytes(self):
    return None

  def lines(self, record, stats):
    """The lines of one record's text."""
    if self.text_key not in record:
      raise errors.DataError(
          f"TFDS record of {self.name!r} has no field {self.text_key!r} "
          f"(fields: {', '.join(sorted(record))})")
    text = record[self.text_key]
    if isinstance(text, bytes):
      stats.bytes_read += len(text)
      text = corpus.decode_text(text, self.describe(), stats)
    for line in str(text).split("\n"):
      if len(line) > self.max_line_chars:
        stats.skip_line(build_stats.LINE_TOO_LONG, self.describe())
        continue
      stats.lines += 1
      yield line
