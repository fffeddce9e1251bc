"""The demo's last word: does the exported model spot a replaced word?

Takes a held-out sentence, swaps one word for a random word of the vocab,
runs the exported SavedModel on the corrupted text and reports the
replaced-token probability the model gives the swapped word against the
average it gives the other words. A healthy discriminator puts the swapped
word far above the rest; a collapsed one gives every token the same
probability.
"""

import dataclasses
import random

import numpy as np
import tensorflow as tf

from electra_tf import tokenization

MIN_WORDS = 8
MAX_WORDS = 40
SPECIAL_TOKENS = ("[CLS]", "[SEP]", "[PAD]")


@dataclasses.dataclass(frozen=True)
class Probe:
  """A sentence with one word replaced, and what the model said."""
  original: str
  replaced: str
  original_word: str
  new_word: str
  new_word_probability: float
  other_words_probability: float  # mean over the other real tokens

  @property
  def flagged(self):
    """Whether the swapped word got the highest probability of all."""
    return self.new_word_probability > 0.5 and (
        self.new_word_probability > 2 * self.other_words_probability)

  def lines(self):
    verdict = ("flagged it" if self.flagged else "did not flag it")
    return [f"  replaced-word check: {self.replaced!r}",
            f"    ({self.original_word!r} -> {self.new_word!r}): the model "
            f"{verdict}: p(replaced) = {self.new_word_probability:.2f} for "
            f"{self.new_word!r}, {self.other_words_probability:.2f} on "
            "average for the other words"]


def pick_sentence(lines):
  """A held-out line of a reasonable length (None if there is none)."""
  for line in lines:
    words = line.split()
    if MIN_WORDS <= len(words) <= MAX_WORDS and all(
        w.isascii() for w in words):
      return line.strip()
  return None


def corrupt(sentence, vocab, seed=0):
  """(corrupted sentence, original word, new word): one middle word
  swapped for a random whole, alphabetic vocab word."""
  rng = random.Random(seed)
  words = sentence.split()
  candidates = [i for i, w in enumerate(words[1:-1], start=1)
                if w.isalpha() and len(w) > 2]
  index = rng.choice(candidates or [len(words) // 2])
  pool = sorted(w for w in vocab if w.isalpha() and len(w) > 3
                and w.lower() != words[index].lower())
  new_word = rng.choice(pool)
  original = words[index]
  words[index] = new_word
  return " ".join(words), original, new_word


def probe(export_dir, vocab_file, sentence, seed=0):
  """Runs the SavedModel at `export_dir` on `sentence` with a word swapped."""
  import tensorflow_text  # pylint: disable=g-import-not-at-top,unused-import
  vocab = tokenization.load_vocab(vocab_file)
  replaced, original_word, new_word = corrupt(sentence, vocab, seed)
  model = tf.saved_model.load(export_dir)
  out = model.signatures["serving_default"](text=tf.constant([replaced]))
  probs = out["rtd_probs"].numpy()[0]  # [L]
  tokens = [t.decode() if isinstance(t, bytes) else str(t)
            for t in out["tokens"].numpy()[0]]
  real = [i for i, t in enumerate(tokens) if t and t not in SPECIAL_TOKENS]
  target = next((i for i in real if tokens[i] == new_word.lower()
                 or tokens[i] == new_word), None)
  if target is None:  # the word was split: take its first piece
    pieces = tokenization.FullTokenizer(vocab_file).tokenize(new_word)
    target = next(i for i in real if tokens[i] == pieces[0])
  others = [probs[i] for i in real if i != target]
  return Probe(sentence, replaced, original_word, new_word,
               float(probs[target]), float(np.mean(others)))
