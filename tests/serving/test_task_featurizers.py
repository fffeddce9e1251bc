"""Raw-text signatures featurize and decode exactly as finetuning does.

On the basic inputs and the golden tokenization text (Python docs with
Unicode, punctuation and long lines), through the exports run in a fresh
process: the model inputs equal `FullTokenizer` + the task's `featurize`
(pair truncation, SQuAD windows, chunking's word truncation), SQuAD
answers and null odds equal `squad_postprocessing.decode_predictions`, and
chunking words are `str.split()`'s. In-memory modules cover the other SQuAD
decoding paths (1.1; 2.0 without joint prediction or answerable classifier).
"""

import re

import numpy as np
import pytest
import tensorflow as tf

from electra_tf import tokenization
from electra_tf.finetuning import checkpoints
from electra_tf.finetuning.qa import evaluation as qa_evaluation
from electra_tf.finetuning.qa import squad_features
from electra_tf.finetuning import tasks
from electra_tf.finetuning.qa import graph_features as span_features
from electra_tf.finetuning.qa import serving_module as span_module
from electra_tf.serving import text_features
from tests.serving import cases
from tests.serving import conftest

CALLS = ("text", "golden")


def _inputs(served, name, call):
  return [served.input(f"{name}.{call}", arg) for arg in cases.TEXT_ARGS[name]]


def _unpadded(ids, mask):
  return ids[:int(mask.sum())].tolist()


# sst uses the synthetic vocab and has no golden call; sts covers sentences.
@pytest.mark.parametrize("name,call", [
    ("sst", "text"), ("sts", "text"), ("sts", "golden"), ("chunk", "text"),
    ("chunk", "golden")])
def test_sentence_features_equal_finetuning(exports, served, name, call):
  export = exports[name]
  got = served.outputs(f"{name}.{call}")
  expected = cases.finetuning_features(
      export.task, export.settings, _inputs(served, name, call),
      export.vocab_file)
  refused = 0
  for b, rows in enumerate(expected):
    ids = _unpadded(got["input_ids"][b], got["input_mask"][b])
    if not rows:  # chunking: finetuning refuses, serving cuts at the end
      refused += 1
      assert len(ids) == export.config.max_seq_length and ids[-1] == 102
      continue
    row = rows[0]
    assert ids == _unpadded(row["input_ids"], row["input_mask"])
    if name != "chunk":
      assert got["segment_ids"][b][:len(ids)].tolist() == (
          row["segment_ids"][:len(ids)].tolist())
      assert [t.decode() for t in got["tokens"][b][:len(ids)]] == (
          tokenization.FullTokenizer(export.vocab_file)
          .convert_ids_to_tokens(ids))
    else:
      assert got["num_tagged"][b] == row["labels_mask"].sum()
  assert refused <= 1


@pytest.mark.parametrize("call", CALLS)
def test_chunking_words_are_whitespace_split(served, call):
  got = served.outputs(f"chunk.{call}")
  for b, text in enumerate(_inputs(served, "chunk", call)[0]):
    words = [w.decode() for w in got["words"][b][:got["num_words"][b]]]
    assert words == text.split()
    assert not any(got["words"][b][got["num_words"][b]:])


@pytest.mark.parametrize("call", CALLS)
def test_squad_windows_equal_finetuning(exports, served, call):
  export = exports["squad"]
  got = served.outputs(f"squad.{call}")
  expected = cases.finetuning_features(export.task, export.settings,
                                       _inputs(served, "squad", call))
  assert got["num_windows"].tolist() == [len(rows) for rows in expected]
  assert got["num_windows"].max() > 1  # long contexts use doc stride
  for b, rows in enumerate(expected):
    for n, row in enumerate(rows):
      assert _unpadded(got["input_ids"][b, n], got["input_mask"][b, n]) == (
          _unpadded(row["input_ids"], row["input_mask"]))
      length = int(row["input_mask"].sum())
      assert got["segment_ids"][b, n, :length].tolist() == (
          row["segment_ids"][:length].tolist())


def offline_decoding(export, questions, contexts):
  """`decode_predictions` over the Keras model's outputs on finetuning's
  windows: {question id: (text, null odds)}."""
  examples = cases.squad_examples(questions, contexts)
  per_example = cases.finetuning_features(export.task, export.settings,
                                          [questions, contexts])
  rows = [row for rows in per_example for row in rows]
  features = {k: np.stack([row[k] for row in rows])
              for k in conftest.ID_ARGS}
  outputs = export.model(features, training=False,
                         task_names=[export.task.name])[export.task.name]
  outputs = {k: v.numpy() for k, v in outputs.items()}
  outputs["eid"] = np.array([row["eid"] for row in rows])
  decoded = qa_evaluation.decode(
      export.config, export.task, examples,
      tokenization.FullTokenizer(cases.VOCAB), export.settings, outputs)
  return decoded


_WORD_BREAKS = re.compile(
    "[" + "".join(sorted(squad_features.WHITESPACE)) + "]+")


def check_answers(got, questions, contexts, decoded, v2):
  for b, context in enumerate(contexts):
    text = got["answer_text"][b].decode()
    assert text == decoded.predictions[str(b)]
    start, end = got["answer_start"][b], got["answer_end"][b]
    if text == "empty" and start < 0:
      continue
    # The text joins the context's words with single spaces; words split
    # where the original splits them (U+3000, for one, does not split).
    words = _WORD_BREAKS.split(str(context)[start:end])
    assert " ".join(word for word in words if word) == text
    if v2:
      np.testing.assert_allclose(got["null_odds"][b],
                                 decoded.null_odds[str(b)], atol=1e-5)


@pytest.mark.parametrize("call", CALLS)
def test_squad_answers_equal_offline_decoder(exports, served, call):
  export = exports["squad"]
  questions, contexts = _inputs(served, "squad", call)
  got = served.outputs(f"squad.{call}")
  decoded = offline_decoding(export, questions, contexts)
  check_answers(got, questions, contexts, decoded, v2=True)
  impossible = got["null_odds"] > export.config.qa_na_threshold
  np.testing.assert_array_equal(got["is_impossible"], impossible)
  assert [p.decode() for p in got["prediction"]] == [
      "" if i else t.decode() for i, t in zip(impossible,
                                              got["answer_text"])]
  if call == "golden":  # final_text restored the context's case somewhere
    assert any(t.decode() != t.decode().lower() for t in got["answer_text"])


@pytest.mark.parametrize("task_name,hparams", [
    ("squadv1", {}),
    ("squad", {"joint_prediction": False, "answerable_classifier": False}),
])
def test_other_squad_decodings_equal_offline_decoder(tmp_path, task_name,
                                                     hparams):
  trial = conftest.make_trial(str(tmp_path), task_name,
                              **conftest.TASK_HPARAMS["squad"], **hparams)
  model, config, task = checkpoints.load_finetuned_model(trial)
  export = conftest.Export(None, model, config, task, trial)
  module = span_module.SpanServingModule(model, task, config, cases.VOCAB)
  questions, contexts = cases.BASIC["squad"]
  questions = questions + cases.golden_inputs("squad")[0][:10]
  contexts = contexts + cases.golden_inputs("squad")[1][:10]
  got = {k: v.numpy() for k, v in module.serve_text(
      tf.constant(questions), tf.constant(contexts)).items()}
  assert ("null_odds" in got) == task.v2
  check_answers(got, questions, contexts,
                offline_decoding(export, questions, contexts), task.v2)


@pytest.mark.parametrize("max_seq_length,max_query_length,doc_stride", [
    (20, 4, 1), (32, 8, 5), (64, 16, 1000)])
def test_squad_windows_for_other_strides(max_seq_length, max_query_length,
                                         doc_stride):
  featurizer = span_features.QuestionContextFeaturizer(
      text_features.TextFeaturizer(cases.VOCAB, max_seq_length),
      max_seq_length, max_query_length, doc_stride)
  questions, contexts = cases.golden_inputs("squad")
  windows = featurizer(tf.constant(questions[:8]), tf.constant(contexts[:8]))
  settings = tasks.DataSettings(max_seq_length, max_query_length=
                                max_query_length, doc_stride=doc_stride)
  full = tokenization.FullTokenizer(cases.VOCAB)
  examples = cases.squad_examples(questions[:8], contexts[:8])
  spans = [span for example in examples for span in
           squad_features.featurize_spans(example, full, settings, False)]
  ids = windows.features["input_ids"].numpy()
  word = windows.context_word.numpy() - np.repeat(
      windows.context.words.row_starts().numpy(),
      windows.num_windows.numpy())[:, None]
  assert len(spans) == len(ids)
  for n, span in enumerate(spans):
    assert _unpadded(ids[n], windows.features["input_mask"][n].numpy()) == (
        full.convert_tokens_to_ids(span.tokens))
    positions = sorted(span.token_to_orig_map)
    assert np.flatnonzero(word[n] >= 0).tolist() == positions
    assert word[n][positions].tolist() == [span.token_to_orig_map[p]
                                           for p in positions]
    assert np.flatnonzero(windows.max_context[n]).tolist() == [
        p for p in positions if span.token_is_max_context[p]]
