"""ExampleBuilder reproduces the original's examples exactly."""

import random

import pytest

from electra_tf import tokenization
from electra_tf.data import pretraining_examples
from electra_tf.tokenization.special_tokens import SpecialTokenIds


@pytest.mark.parametrize("name", ["len128_seed3", "synthetic_len32_seed1"])
def test_exact_golden_examples(golden_example_sets, name):
  text, vocab_file, golden = golden_example_sets[name]
  builder = pretraining_examples.ExampleBuilder(
      tokenization.FullTokenizer(vocab_file), golden["max_seq_length"],
      random.Random(golden["seed"]))
  examples = list(pretraining_examples.examples_from_lines(
      builder, text.split("\n")))
  assert len(examples) == len(golden["examples"])
  for index, (example, expected) in enumerate(zip(examples,
                                                  golden["examples"])):
    assert example.as_features() == expected, f"example {index}"


class CountingTokenizer:
  """Lines of integers are their own token ids; BERT special ids."""
  special_ids = SpecialTokenIds()

  @staticmethod
  def tokenize(line):
    return line.split()

  @staticmethod
  def convert_tokens_to_ids(tokens):
    return [int(token) for token in tokens]


class ScriptedRandom(random.Random):
  """Returns scripted `random()` values and records every draw."""

  def __init__(self, values):
    super().__init__(0)
    self.values = list(values)
    self.draws = []

  def random(self):
    self.draws.append("random")
    return self.values.pop(0)

  def randint(self, low, high):
    self.draws.append(("randint", low, high))
    return 7


def _line(start, length):
  return " ".join(str(start + i) for i in range(length))


def test_two_segments_and_random_draw_order():
  # Target 16: A's target is (16 - 3) // 2 = 6. Sentences of 4, 4, 8 tokens.
  rng = ScriptedRandom([0.5, 0.4, 0.9])
  builder = pretraining_examples.ExampleBuilder(CountingTokenizer(), 16, rng)
  assert builder.add_line(_line(1000, 4)) is None
  assert builder.add_line(_line(2000, 4)) is None
  example = builder.add_line(_line(3000, 8))
  # Draws: single segment? (0.5: no); 2nd sentence overflows A, coin 0.4 <
  # 0.5 -> A; 3rd goes to B without a draw (A is full); target length (0.9).
  assert rng.draws == ["random", "random", "random"]
  first, second = list(range(1000, 1004)) + list(range(2000, 2004)), list(
      range(3000, 3005))  # B is cut to 16 - 8 - 3 = 5 tokens
  assert example.input_ids == [101] + first + [102] + second + [102]
  assert example.segment_ids == [0] * 10 + [1] * 6
  assert example.input_mask == [1] * 16


def test_single_segment_and_random_next_target():
  rng = ScriptedRandom([0.05, 0.01])
  builder = pretraining_examples.ExampleBuilder(CountingTokenizer(), 10, rng)
  example = builder.add_line(_line(1000, 12))
  assert rng.draws == ["random", "random", ("randint", 5, 10)]
  assert example.input_ids == [101] + list(range(1000, 1008)) + [102]
  assert example.segment_ids == [0] * 10
  # The next example is built as soon as 7 (the drawn target) tokens pend.
  rng.values = [0.5, 0.9]
  assert builder.add_line(_line(1, 6)) is None
  assert builder.add_line(_line(7, 1)) is not None


def test_document_end_pads_and_resets():
  builder = pretraining_examples.ExampleBuilder(
      CountingTokenizer(), 8, ScriptedRandom([0.9, 0.9]))
  assert builder.end_document() is None  # nothing pending: no example
  assert builder.add_line("5 6") is None
  example = builder.end_document()
  assert example.input_ids == [101, 5, 6, 102, 0, 0, 0, 0]
  assert example.input_mask == [1, 1, 1, 1, 0, 0, 0, 0]
  assert example.num_tokens == 4
  assert builder.end_document() is None


def test_blank_lines_skipped_without_blanks_separate_docs():
  # One document: A's target is (8 - 3) // 2 = 2, so "6" overflows A and a
  # coin (0.1 < 0.5) keeps it in A.
  builder = pretraining_examples.ExampleBuilder(
      CountingTokenizer(), 8, ScriptedRandom([0.9, 0.1, 0.9]))
  examples = list(pretraining_examples.examples_from_lines(
      builder, ["5", "", "6"], blanks_separate_docs=False))
  assert [e.input_ids for e in examples] == [[101, 5, 6, 102, 0, 0, 0, 0]]


def test_same_seed_same_examples_other_seed_differs(golden_example_sets):
  text, vocab_file, _ = golden_example_sets["len128_seed3"]
  tokenizer = tokenization.FullTokenizer(vocab_file)

  def build(seed):
    builder = pretraining_examples.ExampleBuilder(
        tokenizer, 64, random.Random(seed))
    return list(pretraining_examples.examples_from_lines(
        builder, text.split("\n")[:200]))

  assert build(7) == build(7)
  assert build(7) != build(8)
