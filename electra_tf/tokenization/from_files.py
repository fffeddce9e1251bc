"""The Python tokenizer for a WordPiece vocab or a SentencePiece model."""

from electra_tf import errors
from electra_tf.tokenization import sentencepiece_tokenizer
from electra_tf.tokenization import wordpiece


def build_tokenizer(vocab_file=None, sp_model_file=None, do_lower_case=True):
  """A `FullTokenizer` for `vocab_file` or a `SentencePieceTokenizer`.

  Raises:
    DataError: unless exactly one of the two files is given.
  """
  if (vocab_file is None) == (sp_model_file is None):
    raise errors.DataError(
        "give exactly one of vocab_file (WordPiece) and sp_model_file "
        f"(SentencePiece); got vocab_file={vocab_file!r}, "
        f"sp_model_file={sp_model_file!r}")
  if sp_model_file is not None:
    return sentencepiece_tokenizer.SentencePieceTokenizer(sp_model_file)
  return wordpiece.FullTokenizer(vocab_file, do_lower_case=do_lower_case)
