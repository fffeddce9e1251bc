"""Task exports in a fresh process: equal to the Keras model, listed by
saved_model_cli, laid out for TF Serving.

Every signature of every task type runs twice in a fresh process (see
conftest): through `tf.saved_model.load` and through
`electra-saved-model-cli run`; both must equal the in-memory Keras model
within 1e-5. SQuAD logits of positions that cannot be answers carry a
-1000 offset, so they are compared at float32 resolution of that size
(rtol 1e-6).
"""

import json
import os
import re

import numpy as np
import pytest

from tests.serving import conftest

ATOL = 1e-5
PENALIZED_RTOL = 1e-6
TASKS = ("sst", "sts", "squad", "chunk")


def _head(export, features):
  outputs = export.model({k: np.asarray(v) for k, v in features.items()},
                         training=False, task_names=[export.task.name])
  return {k: v.numpy() for k, v in outputs[export.task.name].items()}


def _check_sentence(export, got, features):
  expected = _head(export, features)
  if export.task.name == "sts":
    raw = expected["predictions"]
    np.testing.assert_allclose(got["raw_score"], raw, atol=ATOL)
    np.testing.assert_allclose(got["score"], np.clip(raw * 5.0, 0.0, 5.0),
                               atol=ATOL)
    return
  logits = expected["logits"]
  np.testing.assert_allclose(got["logits"], logits, atol=ATOL)
  probabilities = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
  np.testing.assert_allclose(got["probabilities"], probabilities, atol=ATOL)
  np.testing.assert_array_equal(got["label_id"], logits.argmax(-1))
  assert [label.decode() for label in got["label"]] == [
      export.task.labels[i] for i in logits.argmax(-1)]


def _check_span_head(export, got, features):
  expected = _head(export, features)
  for name, value in expected.items():
    if value.dtype.kind == "f":
      np.testing.assert_allclose(got[name], value, atol=ATOL,
                                 rtol=PENALIZED_RTOL, err_msg=name)
    else:
      np.testing.assert_array_equal(got[name], value, err_msg=name)


def _check_span_text(export, got):
  rows = [(b, n) for b, count in enumerate(got["num_windows"])
          for n in range(count)]
  windows = {name: np.stack([got[name][b, n] for b, n in rows])
             for name in conftest.ID_ARGS}
  expected = _head(export, windows)["start_logits"]
  np.testing.assert_allclose(
      np.stack([got["start_logits"][b, n] for b, n in rows]), expected,
      atol=ATOL, rtol=PENALIZED_RTOL)
  assert not got["end_logits"].any()  # joint prediction: zeros


def _check_tags(export, got, features, tagged):
  logits = _head(export, features)["logits"]
  for b, count in enumerate(tagged):
    np.testing.assert_allclose(got["logits"][b, :count], logits[b, :count],
                               atol=ATOL)
    ids = logits[b, :count].argmax(-1)
    np.testing.assert_array_equal(got["tag_ids"][b, :count], ids)
    assert [t.decode() for t in got["tags"][b, :count]] == [
        conftest.CHUNK_LABELS[i] for i in ids]
    assert (got["tag_ids"][b, count:] == -1).all()
    assert not any(got["tags"][b, count:])


def _check(export, served, case, got):
  """Asserts outputs `got` of the `case` call equal the Keras model's."""
  name = export.task.name
  if case == "text":
    if name == "squad":
      return _check_span_text(export, got)
    if name == "chunk":
      inputs = [np.array(c, dtype=object) for c in conftest.cases.BASIC[name]]
      rows = [r[0] for r in conftest.cases.finetuning_features(
          export.task, export.settings, inputs)]
      features = {k: np.stack([r[k] for r in rows])
                  for k in conftest.TAGGING_ID_ARGS[:4]}
      return _check_tags(export, got, features, got["num_tagged"])
    return _check_sentence(export, got, {k: got[k]
                                         for k in conftest.ID_ARGS})
  ids_call = f"{name}.ids"
  args = conftest.TAGGING_ID_ARGS if name == "chunk" else conftest.ID_ARGS
  features = {arg: served.input(ids_call, arg) for arg in args}
  if name == "squad":
    return _check_span_head(export, got, features)
  if name == "chunk":
    return _check_tags(export, got, features,
                       features["labels_mask"].sum(1).astype(int))
  return _check_sentence(export, got, features)


@pytest.mark.parametrize("name", TASKS)
@pytest.mark.parametrize("case", tuple(conftest.SIGNATURE_CASES))
def test_fresh_process_equals_keras_model(exports, served, name, case):
  export = exports[name]
  got = served.outputs(f"{name}.{case}")
  assert got, served.errors.get(f"{name}.{case}")
  _check(export, served, case, got)
  # The same signature through electra-saved-model-cli run (graph mode).
  cli = served.outputs(f"cli.{name}.{case}")
  assert sorted(cli) == sorted(got)
  for key, value in got.items():
    if value.dtype.kind == "f":
      np.testing.assert_allclose(cli[key], value, atol=ATOL, err_msg=key)
    else:
      np.testing.assert_array_equal(cli[key], value, err_msg=key)


def parse_show(text):
  """`saved_model_cli show --all` -> {signature: {"inputs"/"outputs":
  {name: (dtype, shape)}}}."""
  signatures, current, side, name = {}, None, None, None
  for line in text.splitlines():
    line = line.strip()
    if match := re.match(r"signature_def\['(\w+)'\]:", line):
      current = signatures.setdefault(match[1], {"inputs": {},
                                                 "outputs": {}})
    elif match := re.match(r"(inputs|outputs)\['(\w+)'\] tensor_info:",
                           line):
      side, name = match[1], match[2]
    elif line.startswith("dtype:"):
      dtype = line.split()[1]
    elif line.startswith("shape:") and current is not None and name:
      current[side][name] = (dtype, line.split(":", 1)[1].strip())
      name = None
  signatures.pop("__saved_model_init_op", None)
  return signatures


TEXT, IDS = ("DT_STRING", "(-1)"), ("DT_INT32", "(-1, -1)")
EXPECTED_INPUTS = {
    "sst": {"serving_default": {"text": TEXT}},
    "sts": {"serving_default": {"text_a": TEXT, "text_b": TEXT}},
    "squad": {"serving_default": {"question": TEXT, "context": TEXT}},
    "chunk": {"serving_default": {"text": TEXT}, "serve_token_ids": {
        "input_ids": IDS, "input_mask": IDS, "segment_ids": IDS,
        "labeled_positions": IDS, "labels_mask": ("DT_FLOAT", "(-1, -1)")}},
}
EXPECTED_OUTPUTS = {  # a selection: name -> (dtype, shape)
    "sst": {"probabilities": ("DT_FLOAT", "(-1, 2)"),
            "label": TEXT, "label_id": ("DT_INT32", "(-1)")},
    "sts": {"score": ("DT_FLOAT", "(-1)"), "raw_score": ("DT_FLOAT", "(-1)")},
    "squad": {"start_logits": ("DT_FLOAT", "(-1, -1)"),
              "answerable_logit": ("DT_FLOAT", "(-1)"),
              "end_top_index": ("DT_INT32", "(-1, 5, 5)")},
    "chunk": {"logits": ("DT_FLOAT", "(-1, -1, 7)"), "tags": ("DT_STRING",
                                                              "(-1, -1)")},
}
EXPECTED_TEXT_OUTPUTS = {
    "squad": {"answer_text": TEXT, "answer_start": ("DT_INT32", "(-1)"),
              "null_odds": ("DT_FLOAT", "(-1)"),
              "is_impossible": ("DT_BOOL", "(-1)"),
              "start_logits": ("DT_FLOAT", "(-1, -1, -1)")},
    "chunk": {"words": ("DT_STRING", "(-1, -1)"),
              "tags": ("DT_STRING", "(-1, -1)")},
}


@pytest.mark.parametrize("name", TASKS)
def test_saved_model_cli_shows_signatures(served, name):
  shown = parse_show(served.stdout[f"show.{name}"])
  assert sorted(shown) == ["serve_examples", "serve_token_ids",
                           "serving_default"]
  assert shown["serve_examples"]["inputs"] == {"examples": TEXT}
  expected = {"serve_token_ids": dict(zip(conftest.ID_ARGS, [IDS] * 3))}
  expected.update(EXPECTED_INPUTS[name])
  for signature, inputs in expected.items():
    assert shown[signature]["inputs"] == inputs
  outputs = shown["serve_token_ids"]["outputs"]
  assert outputs == {**outputs, **EXPECTED_OUTPUTS[name]}
  # Parsed tf.Examples have max_seq_length columns.
  assert {k: v[0] for k, v in shown["serve_examples"]["outputs"].items()} == {
      k: v[0] for k, v in outputs.items()}
  outputs = shown["serving_default"]["outputs"]
  assert outputs == {**outputs, **EXPECTED_TEXT_OUTPUTS.get(name, {})}


@pytest.mark.parametrize("name", TASKS)
def test_tf_serving_layout_with_assets(exports, name):
  export = exports[name]
  root, version = os.path.split(export.path)
  assert version == "1" and sorted(os.listdir(root)) == ["1"]
  extra = os.path.join(export.path, "assets.extra")
  with open(os.path.join(extra, "config.json")) as f:
    config = json.load(f)
  assert config["kind"] == "electra_finetuned" and config["task"] == name
  assert config["finetuning_config"]["max_seq_length"] == (
      export.config.max_seq_length)
  if name == "chunk":
    assert config["labels"] == list(conftest.CHUNK_LABELS)
  with open(os.path.join(extra, "vocab.txt")) as f, open(
      export.vocab_file) as original:
    assert f.read() == original.read()
