"""Serialized `tf.train.Example`s of int64 features, written directly.

Building a `tf.train.Example` message per record costs more than tokenizing
and packing the record together. For the one shape the pretraining records
have (int64 lists), this module writes the protobuf wire format itself:
byte-for-byte what `tf.train.Example(...).SerializeToString(
deterministic=True)` gives (map entries sorted by feature name), which the
tests check on edge values and on real examples.

Wire format (field number, wire type 2 = length-delimited):
  Example.features (1) -> Features.feature map entry (1) -> key (1) and
  value Feature (2) -> Feature.int64_list (3) -> Int64List.value (1), packed
  varints.
"""

import functools

_TAG_1 = b"\x0a"
_TAG_2 = b"\x12"
_TAG_3 = b"\x1a"
_BITS_PER_GROUP = 7
_CONTINUATION = 0x80
_GROUP_MASK = 0x7F
_UINT64_MASK = (1 << 64) - 1
# Varints of 0 .. _CACHED_BELOW - 1 are kept once computed: every id of
# BERT's and multilingual BERT's vocabs, and every length a record has.
_CACHED_BELOW = 1 << 17


def varint(value):
  """The base-128 varint bytes of an int64 (negatives take 10 bytes)."""
  value &= _UINT64_MASK
  out = bytearray()
  while value > _GROUP_MASK:
    out.append((value & _GROUP_MASK) | _CONTINUATION)
    value >>= _BITS_PER_GROUP
  out.append(value)
  return bytes(out)


class _VarintCache(dict):
  """{value: varint bytes}, filled on first lookup of each value (a build
  meets a few tens of thousands of distinct ids, so filling the whole range
  up front costs more than the lookups)."""

  def __missing__(self, value):
    encoded = varint(value)
    if 0 <= value < _CACHED_BELOW:
      self[value] = encoded
    return encoded


_VARINTS = _VarintCache()


def _packed_varints(values):
  """The varints of `values` one after the other."""
  try:
    payload = bytes(values)  # ValueError unless every value is in [0, 256)
    if payload.isascii():  # every value < 128: its varint is its byte
      return payload
  except ValueError:
    pass
  return b"".join(map(_VARINTS.__getitem__, values))


def _delimited(tag, payload):
  return tag + varint(len(payload)) + payload


@functools.lru_cache(maxsize=4096)
def _entry_prefix(name, payload_length):
  """The bytes of a `Features.feature` map entry (name -> Feature with an
  int64_list) before its packed varints, which come last and take
  `payload_length` bytes (0: the list is empty)."""
  payload = b"\0" * payload_length  # a stand-in of the right length
  int64_list = _delimited(_TAG_1, payload) if payload_length else b""
  key = _delimited(_TAG_1, name.encode("utf-8"))
  entry = _delimited(_TAG_1, key + _delimited(_TAG_2, _delimited(
      _TAG_3, int64_list)))
  return entry[:len(entry) - payload_length]


def serialize_int64_example(features):
  """A serialized `tf.train.Example` of {name: list of ints}.

  >>> import tensorflow as tf
  >>> features = {"b": [1, 300], "a": [-1], "c": []}
  >>> proto = tf.train.Example(features=tf.train.Features(feature={
  ...     k: tf.train.Feature(int64_list=tf.train.Int64List(value=v))
  ...     for k, v in features.items()}))
  >>> serialize_int64_example(features) == proto.SerializeToString(
  ...     deterministic=True)
  True
  """
  entries = []
  # Python orders str by code point, which is the order of their UTF-8.
  for name in sorted(features):
    values = features[name]
    payload = _packed_varints(values) if len(values) else b""
    entries.append(_entry_prefix(name, len(payload)))
    entries.append(payload)
  body = b"".join(entries)
  return _TAG_1 + _VARINTS[len(body)] + body
