"""Command line: text corpus -> WordPiece vocab or SentencePiece model.

  python data_prep/build_vocab.py --input=corpus/ --output=vocab.txt \
      --vocab_size=30522
  python data_prep/build_vocab.py --input=corpus/ --kind=sentencepiece \
      --output=sp.model --vocab_size=32000

The WordPiece vocab uses BERT's special ids ([PAD]=0, [UNK]=100, [CLS]=101,
[SEP]=102, [MASK]=103) and works with `FullTokenizer`; the SentencePiece
model with `SentencePieceTokenizer` (--sp_model_file of the data builder).
"""

from absl import flags
from absl import logging

from electra_tf.cli import corpus_flags
from electra_tf.cli import entry_point
from electra_tf.data import vocab_from_corpus
from electra_tf.tokenization import vocab_learning

NAME = "build_vocab"
WORDPIECE = "wordpiece"
SENTENCEPIECE = "sentencepiece"


def define_flags(flag_values):
  corpus_flags.define_corpus_flags(flag_values)
  flags.DEFINE_string("output", None, "Vocab file (wordpiece) or .model "
                      "file (sentencepiece) to write.", flag_values=flag_values)
  flags.mark_flag_as_required("output", flag_values=flag_values)
  flags.DEFINE_enum("kind", WORDPIECE, [WORDPIECE, SENTENCEPIECE],
                    "What to learn.", flag_values=flag_values)
  flags.DEFINE_integer("vocab_size", 30522, "Largest vocab size, special "
                       "tokens included.", lower_bound=1,
                       flag_values=flag_values)
  flags.DEFINE_integer(
      "min_count", vocab_learning.DEFAULT_MIN_COUNT, "WordPiece: pieces seen "
      "fewer times are left out.", lower_bound=1, flag_values=flag_values)
  flags.DEFINE_enum("sp_model_type", vocab_learning.SP_MODEL_TYPES[0],
                    list(vocab_learning.SP_MODEL_TYPES),
                    "SentencePiece algorithm.", flag_values=flag_values)


def build(flag_values):
  """Learns and writes the vocab the flags describe."""
  source = corpus_flags.corpus_from_flags(flag_values)
  logging.info("learning a %s vocab from %s", flag_values.kind,
               source.describe())
  if flag_values.kind == WORDPIECE:
    stats = vocab_from_corpus.build_wordpiece_vocab(
        source, flag_values.output, flag_values.vocab_size,
        flag_values.do_lower_case, flag_values.min_count,
        flag_values.overwrite)
  else:
    stats = vocab_from_corpus.build_sentencepiece_model(
        source, flag_values.output, flag_values.vocab_size,
        flag_values.do_lower_case, flag_values.sp_model_type,
        flag_values.overwrite)
  logging.info("wrote %s from %s", flag_values.output, stats.summary())


def main(argv=None):
  """Runs the tool on `argv` (default `sys.argv`); returns the exit code."""
  return entry_point.run_tool(NAME, define_flags, build, argv)


def run():
  """Console-script entry point."""
  raise SystemExit(main())
