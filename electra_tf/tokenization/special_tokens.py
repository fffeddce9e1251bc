"""Ids of the special tokens the model and the data builders rely on."""

import dataclasses

from electra_tf import errors
from electra_tf.tokenization import vocab_files

PAD = "[PAD]"
UNK = "[UNK]"
CLS = "[CLS]"
SEP = "[SEP]"
MASK = "[MASK]"
REQUIRED_TOKENS = (PAD, UNK, CLS, SEP, MASK)


@dataclasses.dataclass(frozen=True)
class SpecialTokenIds:
  """Vocabulary ids of [PAD], [UNK], [CLS], [SEP] and [MASK].

  The defaults are those of BERT's uncased vocabulary, which all released
  ELECTRA models use.
  """
  pad: int = 0
  unk: int = 100
  cls: int = 101
  sep: int = 102
  mask: int = 103

  @classmethod
  def from_vocab(cls, vocab, source="vocabulary"):
    """Reads the ids from a token -> id mapping; names any token missing."""
    missing = [t for t in REQUIRED_TOKENS if t not in vocab]
    if missing:
      raise errors.DataError(
          f"{source} lacks the special token(s) {', '.join(missing)}; "
          f"ELECTRA needs all of {', '.join(REQUIRED_TOKENS)}")
    return cls(pad=vocab[PAD], unk=vocab[UNK], cls=vocab[CLS],
               sep=vocab[SEP], mask=vocab[MASK])

  @classmethod
  def from_vocab_file(cls, path):
    """Reads a WordPiece vocab file or a SentencePiece `.model`."""
    return cls.from_vocab(vocab_files.load_any_vocab(path), source=path)
