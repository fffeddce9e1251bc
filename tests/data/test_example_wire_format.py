"""Directly written tf.train.Examples equal the protobuf library's bytes."""

import random

import pytest
import tensorflow as tf

from electra_tf.data import example_wire_format
from electra_tf.data import tfrecords
from electra_tf.data.pretraining_examples import PretrainingExample


def _proto_bytes(features):
  return tf.train.Example(features=tf.train.Features(feature={
      name: tf.train.Feature(int64_list=tf.train.Int64List(value=values))
      for name, values in features.items()})).SerializeToString(
          deterministic=True)


EDGE_VALUES = [0, 1, 127, 128, 255, 256, 16383, 16384, (1 << 17) - 1,
               1 << 17, (1 << 21) + 5, (1 << 31) - 1, (1 << 63) - 1, -1,
               -(1 << 63)]


@pytest.mark.parametrize("values", [[v] for v in EDGE_VALUES] + [
    EDGE_VALUES, [], [0] * 300, [1, 0] * 100, [200] * 3, list(range(1000))])
def test_edge_values_equal_protobuf(values):
  features = {"input_ids": values, "a": [5], "z\u00e9": values[::-1]}
  assert example_wire_format.serialize_int64_example(features) == (
      _proto_bytes(features))


def test_random_pretraining_examples_equal_protobuf_and_parse_back():
  rng = random.Random(0)
  for _ in range(200):
    length = rng.choice([5, 32, 128, 512])
    used = rng.randint(2, length)
    example = PretrainingExample(
        input_ids=[rng.randrange(250_000) for _ in range(used)] +
        [0] * (length - used),
        input_mask=[1] * used + [0] * (length - used),
        segment_ids=[0] * (used // 2) + [1] * (used - used // 2) +
        [0] * (length - used))
    serialized = example_wire_format.serialize_int64_example(
        example.as_features())
    assert serialized == _proto_bytes(example.as_features())
    parsed = tfrecords.parse_example(serialized, length)
    assert parsed["input_ids"].numpy().tolist() == example.input_ids


def test_only_varints_of_small_non_negative_values_are_kept():
  example_wire_format.serialize_int64_example({"x": [-3, 1 << 40, 7]})
  kept = example_wire_format._VARINTS  # pylint: disable=protected-access
  assert 7 in kept and -3 not in kept and (1 << 40) not in kept
