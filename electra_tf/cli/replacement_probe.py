"""The demo's last word: does the exported model spot a replaced word?

Takes held-out sentences, swaps one word of each for a random, rarer word
of the vocab (the later half of its ids: for a learned WordPiece vocab, the
less frequent pieces), runs the exported SavedModel on the corrupted texts
and reports, for each, whether the swapped word got the highest
replaced-token probability of the sentence. A healthy discriminator finds
most swaps; a collapsed one gives every token the same probability.
"""

import dataclasses
import random

import tensorflow as tf

from electra_tf.tokenization import vocab_files

MIN_WORDS = 8
MAX_WORDS = 40
NUM_SENTENCES = 5
SPECIAL_TOKENS = ("[CLS]", "[SEP]", "[PAD]")


@dataclasses.dataclass(frozen=True)
class Probe:
  """One sentence with one word replaced, and what the model said."""
  replaced: str
  original_word: str
  new_word: str
  new_word_probability: float
  highest_other: str  # the other token with the highest probability
  highest_other_probability: float

  @property
  def flagged(self):
    """Whether the swapped word got the highest probability of all."""
    return self.new_word_probability > self.highest_other_probability


def report_lines(probes):
  """The demo report's lines for a list of `Probe`s."""
  if not probes:
    return []
  found = sum(p.flagged for p in probes)
  example = next((p for p in probes if p.flagged), probes[0])
  return [f"  replaced-word check: the model ranks the swapped word first in "
          f"{found} of {len(probes)} held-out sentences, e.g.",
          f"    {example.replaced!r} ({example.original_word!r} -> "
          f"{example.new_word!r}): p(replaced) {example.new_word_probability:.2f}"
          f" for {example.new_word!r}; next highest "
          f"{example.highest_other_probability:.2f} ({example.highest_other!r})"]


def pick_sentences(lines, count=NUM_SENTENCES):
  """Held-out lines of a reasonable length, plain ASCII."""
  picked = []
  for line in lines:
    words = line.split()
    if MIN_WORDS <= len(words) <= MAX_WORDS and line.isascii():
      picked.append(line.strip())
      if len(picked) == count:
        break
  return picked


def corrupt(sentence, vocab, rng):
  """(corrupted sentence, original word, new word): one middle word
  swapped for a random whole, alphabetic, rarer vocab word."""
  words = sentence.split()
  candidates = [i for i, w in enumerate(words[1:-1], start=1)
                if w.isalpha() and len(w) > 2]
  index = rng.choice(candidates or [len(words) // 2])
  rare = sorted(vocab, key=vocab.get)[len(vocab) // 2:]
  pool = [w for w in rare if w.isalpha() and len(w) > 3
          and w.lower() != words[index].lower()]
  new_word = rng.choice(pool)
  original = words[index]
  words[index] = new_word
  return " ".join(words), original, new_word


def probe(export_dir, vocab_file, sentences, seed=0):
  """Runs the SavedModel at `export_dir` on `sentences`, each with a word
  swapped; returns one `Probe` per sentence."""
  import tensorflow_text  # pylint: disable=g-import-not-at-top,unused-import
  vocab = vocab_files.load_vocab(vocab_file)
  rng = random.Random(seed)
  corrupted = [corrupt(s, vocab, rng) for s in sentences]
  if not corrupted:
    return []
  model = tf.saved_model.load(export_dir)
  out = model.signatures["serving_default"](
      text=tf.constant([text for text, _, _ in corrupted]))
  probes = []
  for row, (text, original, new_word) in enumerate(corrupted):
    probs = out["rtd_probs"].numpy()[row]  # [L]
    tokens = [t.decode() for t in out["tokens"].numpy()[row]]
    real = [i for i, t in enumerate(tokens) if t and t not in SPECIAL_TOKENS]
    target = next((i for i in real if tokens[i] == new_word), None)
    if target is None:
      continue  # not a single piece after lower-casing: no clean probe
    best = max((i for i in real if i != target), key=lambda i: probs[i])
    probes.append(Probe(text, original, new_word, float(probs[target]),
                        tokens[best], float(probs[best])))
  return probes
