"""Flags naming a text corpus, shared by the data and vocab tools."""

from absl import flags

from electra_tf import errors
from electra_tf.data import corpus
from electra_tf.data import tfds_corpus


def define_corpus_flags(flag_values):
  """--input / --tfds_* (exactly one source), --max_line_chars."""
  flags.DEFINE_multi_string(
      "input", [], "Text files, directories or globs (gfile paths); one "
      "sentence per line, blank line between documents. Repeatable.",
      flag_values=flag_values)
  flags.DEFINE_string(
      "tfds_name", None, "Instead of --input: a TensorFlow Datasets name "
      "(e.g. wikipedia/20230601.en); each record is a document.",
      flag_values=flag_values)
  flags.DEFINE_string("tfds_split", "train", "TFDS split.",
                      flag_values=flag_values)
  flags.DEFINE_string("tfds_text_key", "text", "TFDS feature with the text.",
                      flag_values=flag_values)
  flags.DEFINE_string(
      "tfds_data_dir", None, "Where TFDS keeps prepared datasets (local or "
      "gs://; default: TFDS's own, ~/tensorflow_datasets).",
      flag_values=flag_values)
  flags.DEFINE_integer(
      "max_line_chars", corpus.MAX_LINE_CHARS, "Longer lines are skipped "
      "and counted.", lower_bound=1, flag_values=flag_values)
  flags.DEFINE_boolean(
      "do_lower_case", True, "Lower-case and strip accents (uncased "
      "vocab); --nodo_lower_case for cased.", flag_values=flag_values)
  flags.DEFINE_boolean(
      "overwrite", False, "Replace existing outputs instead of refusing.",
      flag_values=flag_values)


def corpus_from_flags(flag_values):
  """The `FileCorpus` or `TFDSCorpus` the flags name."""
  if bool(flag_values.input) == bool(flag_values.tfds_name):
    raise errors.DataError("give exactly one of --input (files) and "
                           "--tfds_name (TensorFlow Datasets)")
  if flag_values.tfds_name:
    return tfds_corpus.TFDSCorpus(
        flag_values.tfds_name, flag_values.tfds_split,
        flag_values.tfds_text_key, max_line_chars=flag_values.max_line_chars,
        data_dir=flag_values.tfds_data_dir)
  return corpus.FileCorpus.from_patterns(flag_values.input,
                                         flag_values.max_line_chars)
