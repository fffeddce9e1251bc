"""Hparams: the checks and the mechanics every config of this project shares.

A config is a frozen dataclass built from original-style hparams (a dict, a
JSON string or a JSON file) by `from_hparams`; it remembers what was passed,
so `override` re-derives from intent rather than from derived values. Keys
are checked with a did-you-mean hint, values by type and range. Presets are
JSON files in `configs/<kind>/`, named or given as a path (`preset_hparams`).
"""

import dataclasses
import difflib
import importlib.resources
import json
import os
import pathlib
import typing
from typing import Any, Mapping

import tensorflow as tf

from electra_tf import errors


def did_you_mean(name, valid, cutoff=0.5):
  """"; did you mean 'x'?" for the closest of `valid`, or ""."""
  close = difflib.get_close_matches(name, list(valid), n=1, cutoff=cutoff)
  return f"; did you mean {close[0]!r}?" if close else ""


def check_key(key, valid, what):
  """`ConfigError` for a key not in `valid`, naming the closest valid one."""
  if key not in valid:
    hint = did_you_mean(key, valid)
    raise errors.ConfigError(f"unknown {what} {key!r}{hint}")


def check_type(key, value, annotation):
  """Rejects values of the wrong type (a string for a number, ...)."""
  optional = typing.get_origin(annotation) is typing.Union
  if optional:
    if value is None:
      return
    annotation = typing.get_args(annotation)[0]
  if annotation is float:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool)
  elif annotation is int:
    ok = isinstance(value, int) and not isinstance(value, bool)
  elif annotation in (bool, str):
    ok = isinstance(value, annotation)
  else:  # Mapping
    ok = isinstance(value, Mapping)
  if not ok:
    expected = getattr(annotation, "__name__", "mapping")
    raise errors.ConfigError(
        f"hparam {key!r} must be {expected}, got {value!r}")


def check_ranges(values, ranges):
  """`ConfigError` naming the first value outside its range.

  >>> check_ranges({"mask_prob": 1.5}, {"mask_prob": (0.0, 1.0, False)})
  Traceback (most recent call last):
  ...
  electra_tf.errors.ConfigError: mask_prob must be in (0.0, 1.0), got 1.5
  """
  for key, (low, high, inclusive) in ranges.items():
    value = values.get(key)
    if value is None or isinstance(value, bool):
      continue
    too_low = value < low if inclusive else value <= low
    too_high = high is not None and (value > high if inclusive
                                     else value >= high)
    if too_low or too_high:
      if high is None:
        bound = f">= {low}" if inclusive else f"> {low}"
      else:
        bound = (f"in [{low}, {high}]" if inclusive
                 else f"in ({low}, {high})")
      raise errors.ConfigError(f"{key} must be {bound}, got {value}")


def check_choice(values, key, choices):
  """`ConfigError` unless `values[key]` is one of `choices`."""
  if values[key] not in choices:
    raise errors.ConfigError(
        f"{key} {values[key]!r} is not one of {', '.join(choices)}")


def differing_keys(recorded, current, prefix=""):
  """Dotted paths of the keys whose values differ between two dicts.

  >>> differing_keys({"a": 1, "b": {"c": 2, "d": 3}}, {"a": 1, "b": {"c": 5}})
  ['b.c', 'b.d']
  """
  keys = []
  for key in sorted(set(recorded) | set(current)):
    path = f"{prefix}{key}"
    mine, theirs = recorded.get(key), current.get(key)
    if isinstance(mine, dict) and isinstance(theirs, dict):
      keys += differing_keys(mine, theirs, path + ".")
    elif mine != theirs:
      keys.append(path)
  return keys


def as_mapping(hparams, what):
  """Accepts None, a mapping, a JSON string or a path to a JSON file."""
  if hparams is None:
    return {}
  if isinstance(hparams, Mapping):
    return hparams
  text = str(hparams)
  source = what
  if not text.lstrip().startswith("{"):
    if not tf.io.gfile.exists(text):
      raise errors.ConfigError(f"{what} file not found: {text}")
    source = text
    with tf.io.gfile.GFile(text, "r") as f:
      text = f.read()
  try:
    parsed = json.loads(text)
  except json.JSONDecodeError as e:
    raise errors.ConfigError(f"{source} is not valid JSON: {e}") from None
  if not isinstance(parsed, dict):
    raise errors.ConfigError(f"{source} must hold a JSON object")
  return parsed


def merged_hparams(values, what="hparams"):
  """Hparams given several times (a repeated `--hparams` flag), merged in
  order: a later value's top-level keys replace an earlier one's. Each value
  is anything `as_mapping` takes; one value alone works too."""
  if values is None or isinstance(values, (str, Mapping)):
    values = [values]
  merged = {}
  for value in values:
    merged.update(as_mapping(value, what))
  return merged


def _presets_root():
  """`configs/` of a source checkout, else the copy installed with the wheel."""
  source = pathlib.Path(__file__).resolve().parent.parent / "configs"
  if source.is_dir():
    return source
  return importlib.resources.files("electra_tf.presets")


def preset_names(kind="pretrain"):
  """Names of the JSON presets shipped in `configs/<kind>/`."""
  folder = _presets_root() / kind
  return sorted(p.name[:-len(".json")] for p in folder.iterdir()
                if p.name.endswith(".json"))


def read_preset(name, kind="pretrain"):
  """The hparams of a shipped preset, e.g. `read_preset("electra_small")`."""
  path = _presets_root() / kind / f"{name}.json"
  if not path.is_file():
    hint = did_you_mean(name, preset_names(kind), cutoff=0.6)
    raise errors.ConfigError(
        f"no {kind} preset named {name!r}{hint} "
        f"(available: {', '.join(preset_names(kind))})")
  hparams = json.loads(path.read_text())
  hparams.pop("description", None)
  return hparams


def preset_hparams(preset, kind="pretrain"):
  """The hparams of a preset: a shipped name, or a path to a JSON file (any
  value with a path separator or ending in .json)."""
  if os.sep in preset or preset.endswith(".json"):
    return dict(as_mapping(preset, f"{kind} preset"))
  return read_preset(preset, kind)


class HparamsConfig:
  """Base of the frozen config dataclasses.

  A subclass has a field `hparams_passed` and implements `_resolve(passed)`:
  the passed hparams -> every field's value, checked.
  """
  hparams_passed: Mapping[str, Any]

  @classmethod
  def _resolve(cls, passed):
    raise NotImplementedError

  @classmethod
  def hparam_fields(cls):
    """Field name -> `dataclasses.Field`, without `hparams_passed`."""
    return {f.name: f for f in dataclasses.fields(cls)
            if f.name != "hparams_passed"}

  @classmethod
  def defaults(cls):
    """Field name -> default value."""
    return {name: (f.default if f.default is not dataclasses.MISSING
                   else f.default_factory())
            for name, f in cls.hparam_fields().items()}

  @classmethod
  def field_types(cls):
    return typing.get_type_hints(cls)

  @classmethod
  def from_hparams(cls, hparams=None, **kwargs):
    """Builds a config from original-style hparams (dict, JSON or file) and
    keyword hparams; unknown keys raise `ConfigError` naming the closest."""
    passed = dict(as_mapping(hparams, "hparams"))
    passed.update(kwargs)
    passed.pop("hparams_passed", None)
    return cls(**cls._resolve(passed), hparams_passed=passed)

  def override(self, hparams=None, **kwargs):
    """A new config with more hparams applied over those passed."""
    merged = dict(self.hparams_passed)
    merged.update(as_mapping(hparams, "hparams"))
    merged.update(kwargs)
    return type(self).from_hparams(merged)

  def to_dict(self):
    """Every resolved value (no `hparams_passed`), as JSON would hold it."""
    return {name: _plain(getattr(self, name)) for name in self.hparam_fields()}


def _plain(value):
  if isinstance(value, Mapping):
    return {key: _plain(item) for key, item in value.items()}
  if isinstance(value, (list, tuple)):
    return [_plain(item) for item in value]
  return value
