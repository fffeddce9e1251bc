"""A SentencePiece model behind the methods of `FullTokenizer`."""

from electra_tf.tokenization import basic_tokenizer
from electra_tf.tokenization import special_tokens
from electra_tf.tokenization import vocab_files


class SentencePieceTokenizer:
  """A SentencePiece model behind the `FullTokenizer` methods.

  The model's pieces are its vocab (piece -> id); it must define the
  special tokens [PAD], [UNK], [CLS], [SEP] and [MASK] (as `build_vocab`'s
  SentencePiece models do). The model file is read through gfile.

  Args:
    model_file: a serialized SentencePiece `ModelProto` (`*.model`).
  """

  def __init__(self, model_file):
    self.processor, self.vocab = vocab_files.load_sentencepiece(model_file)
    self.inv_vocab = {index: piece for piece, index in self.vocab.items()}
    self.special_ids = special_tokens.SpecialTokenIds.from_vocab(
        self.vocab, source=model_file)

  def tokenize(self, text):
    """Returns the pieces of `text`; text outside the vocab becomes [UNK]."""
    ids = self.processor.encode(basic_tokenizer.as_text(text), out_type=int)
    return [self.inv_vocab[index] for index in ids]

  def convert_tokens_to_ids(self, tokens):
    return vocab_files.lookup(self.vocab, tokens, "piece")

  def convert_ids_to_tokens(self, ids):
    return vocab_files.lookup(self.inv_vocab, ids, "id")
