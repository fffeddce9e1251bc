"""Text to token ids: everything that knows a vocabulary.

Owns the special tokens and their ids, the character classes of the original
BasicTokenizer, the Python tokenizers (WordPiece, token-exact to the original;
SentencePiece), the in-graph WordPiece tokenizer with the same output, the
batched line tokenizers of the dataset builder, vocab learning, and the one
way to read any vocab and check it against an embedding (`vocab_files`).

Dependencies point one way: each module imports only modules listed before
it in `char_classes`, `vocab_files`, `special_tokens`, `basic_tokenizer`,
`wordpiece`, `sentencepiece_tokenizer`, `from_files`, `tf_tokenizer`,
`line_tokenizers`, `vocab_learning`. Nothing here reads corpora; that is
`data/` (e.g. `data/vocab_from_corpus.py`).
"""

from electra_tf.tokenization.basic_tokenizer import BasicTokenizer
from electra_tf.tokenization.from_files import build_tokenizer
from electra_tf.tokenization.sentencepiece_tokenizer import (
    SentencePieceTokenizer)
from electra_tf.tokenization.special_tokens import SpecialTokenIds
from electra_tf.tokenization.vocab_files import load_any_vocab
from electra_tf.tokenization.vocab_files import load_vocab
from electra_tf.tokenization.wordpiece import CONTINUATION_PREFIX
from electra_tf.tokenization.wordpiece import FullTokenizer
from electra_tf.tokenization.wordpiece import MAX_CHARS_PER_WORD
