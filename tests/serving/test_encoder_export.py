"""The exported encoder: fresh-process equality, CLI, tokens, bad input."""

import gzip
import json
import os
import subprocess
import sys

import numpy as np
import pytest
import tensorflow as tf

import electra_tf
from electra_tf import tokenization
from electra_tf.serving import encoder_module
from tests.conftest import TESTDATA

VOCAB = os.path.join(TESTDATA, "bert_uncased_vocab.txt")
SEQ = 64

# Runs in a fresh process: loads the export, runs every signature, saves.
FRESH_PROCESS = """
import sys, numpy as np, tensorflow as tf
import tensorflow_text  # the raw-text signatures use its ops
loaded = tf.saved_model.load(sys.argv[1])
inputs = np.load(sys.argv[2], allow_pickle=True)
sig = loaded.signatures
out = {}
for k, v in sig["serving_default"](text=tf.constant(inputs["text"])).items():
  out["text/" + k] = v.numpy()
ids = {k: tf.constant(inputs[k]) for k in ("input_ids", "input_mask",
                                           "segment_ids")}
for k, v in sig["serve_token_ids"](**ids).items():
  out["ids/" + k] = v.numpy()
pair = sig["serve_text_pair"](text_a=tf.constant(inputs["text"]),
                              text_b=tf.constant(inputs["text"][::-1]))
for k, v in pair.items():
  out["pair/" + k] = v.numpy()
for k, v in sig["serve_examples"](examples=tf.constant(inputs["examples"])).items():
  out["examples/" + k] = v.numpy()
np.savez(sys.argv[3], **out)
"""

TEXTS = ["The quick brown fox jumps over the lazy dog.",
         "ELECTRA detects replaced tokens!", "", "naïve café, 東京 " * 40]


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
  config = electra_tf.PretrainingConfig.from_hparams({
      "vocab_size": 30522, "embedding_size": 16, "max_seq_length": SEQ,
      "model_hparam_overrides": {"hidden_size": 32, "num_hidden_layers": 1,
                                 "num_attention_heads": 2}})
  model = electra_tf.ElectraPretrainer(config)
  model.build()
  root = str(tmp_path_factory.mktemp("export"))
  path = encoder_module.export_encoder(model, VOCAB, root)
  return model, root, path


def _example(ids, mask, segments):
  feature = {name: tf.train.Feature(int64_list=tf.train.Int64List(value=v))
             for name, v in (("input_ids", ids), ("input_mask", mask),
                             ("segment_ids", segments))}
  return tf.train.Example(features=tf.train.Features(
      feature=feature)).SerializeToString()


def test_fresh_process_equals_the_keras_model(exported, tmp_path):
  model, root, path = exported
  assert path == os.path.join(root, "1")
  assert sorted(os.listdir(root)) == ["1"]  # no staging dir left behind
  assert os.path.exists(os.path.join(path, "assets.extra", "vocab.txt"))
  module = encoder_module.EncoderServingModule(model.discriminator, VOCAB,
                                               SEQ)
  features = {k: v.numpy() for k, v in module.featurizer(
      tf.constant(TEXTS)).items()}
  fixed = {k: np.pad(v, [[0, 0], [0, SEQ - v.shape[1]]])
           for k, v in features.items()}
  examples = [_example(*(fixed[k][i] for k in ("input_ids", "input_mask",
                                                "segment_ids")))
              for i in range(len(TEXTS))]
  inputs = str(tmp_path / "in.npz")
  np.savez(inputs, text=np.array(TEXTS, dtype=object), examples=np.array(
      examples, dtype=object), **features)
  outputs = str(tmp_path / "out.npz")
  subprocess.run([sys.executable, "-c", FRESH_PROCESS, path, inputs, outputs],
                 check=True, env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"})
  got = dict(np.load(outputs, allow_pickle=True))
  expected = model.discriminator(features, training=False)
  expected_fixed = model.discriminator(fixed, training=False)
  for prefix, reference in (("text", expected), ("ids", expected),
                            ("examples", expected_fixed)):
    np.testing.assert_allclose(got[f"{prefix}/sequence_output"],
                               reference["sequence_output"], atol=1e-5)
    np.testing.assert_allclose(got[f"{prefix}/rtd_logits"],
                               reference["logits"], atol=1e-5)
    np.testing.assert_allclose(got[f"{prefix}/pooled_output"],
                               reference["pooled_output"], atol=1e-5)
  np.testing.assert_array_equal(got["text/input_ids"], features["input_ids"])
  # The empty text is [CLS] [SEP]; the long one is cut to SEQ tokens.
  assert got["text/input_mask"][2].sum() == 2
  assert got["text/input_mask"][3].sum() == SEQ
  assert got["pair/input_ids"].shape[1] == SEQ


def _cli(name):
  return os.path.join(os.path.dirname(sys.executable), name)


def test_saved_model_cli_shows_and_runs(exported):
  model, _, path = exported
  shown = subprocess.run([_cli("saved_model_cli"), "show", "--all", "--dir",
                          path], check=True, capture_output=True,
                         text=True).stdout
  for name in ("serving_default", "serve_text_pair", "serve_token_ids",
               "serve_examples", "sequence_output", "rtd_logits"):
    assert name in shown
  assert "dtype: DT_STRING" in shown and "dtype: DT_INT32" in shown
  ids = [[101, 7592, 2088, 102]]
  expected = model.discriminator(
      {"input_ids": np.array(ids), "input_mask": np.ones([1, 4], np.int32),
       "segment_ids": np.zeros([1, 4], np.int32)})["logits"].numpy()
  for signature, inputs in (
      ("serve_token_ids", f"input_ids={ids};input_mask=[[1,1,1,1]];"
                          "segment_ids=[[0,0,0,0]]"),
      ("serving_default", "text=['hello world']")):
    out_dir = os.path.join(path, "..", f"cli-{signature}")
    subprocess.run(
        [_cli("electra-saved-model-cli"), "run", "--dir", path, "--tag_set",
         "serve", "--signature_def", signature, "--input_exprs", inputs,
         "--outdir", out_dir], check=True, capture_output=True, text=True)
    logits = np.load(os.path.join(out_dir, "rtd_logits.npy"))
    np.testing.assert_allclose(logits, expected, atol=1e-5)


def test_raw_text_tokens_equal_full_tokenizer(exported):
  _, _, path = exported
  loaded = tf.saved_model.load(path)
  full = tokenization.FullTokenizer(VOCAB)
  with gzip.open(os.path.join(TESTDATA, "tokenization", "tokens.jsonl.gz"),
                 "rt") as f:
    lines = [json.loads(line) for line in f][:300]
  out = loaded.signatures["serving_default"](
      text=tf.constant([line["text"] for line in lines]))
  ids, mask = out["input_ids"].numpy(), out["input_mask"].numpy()
  for i, line in enumerate(lines):
    expected = full.convert_tokens_to_ids(full.tokenize(line["text"]))
    assert expected == line["ids"]
    got = ids[i][:mask[i].sum()].tolist()
    assert got == [101] + expected[:SEQ - 2] + [102]


def test_bad_serving_inputs_give_results(exported):
  _, _, path = exported
  serve = tf.saved_model.load(path).signatures["serving_default"]
  texts = tf.constant([b"", b"\xff\xfe invalid \xc3", b"x" * 100000,
                       b"a b", b"\x00\x01 control"])
  out = serve(text=texts)
  assert out["rtd_probs"].shape[0] == 5
  assert np.isfinite(out["sequence_output"].numpy()).all()
  assert serve(text=tf.constant([], tf.string))["input_ids"].shape[0] == 0


BAD_REQUESTS = """
import sys
import tensorflow as tf, tensorflow_text
model = tf.saved_model.load(sys.argv[1])
pair = model.signatures["serve_text_pair"]
ids = model.signatures["serve_token_ids"]
good = tf.constant([[101, 2000, 102]], tf.int32)
requests = [
    lambda: pair(text_a=tf.constant(["a", "b"]), text_b=tf.constant(["c"])),
    lambda: ids(input_ids=-good, input_mask=tf.ones_like(good),
                segment_ids=tf.zeros_like(good)),
    lambda: ids(input_ids=good + 40000, input_mask=tf.ones_like(good),
                segment_ids=tf.zeros_like(good)),
    lambda: ids(input_ids=good, input_mask=tf.ones([1, 2], tf.int32),
                segment_ids=tf.zeros_like(good)),
]
for request in requests:
  try:
    request()
    print("ACCEPTED")
  except tf.errors.InvalidArgumentError as e:
    print("REFUSED", " ".join(e.message.split()))
out = pair(text_a=tf.constant(["a", "b"]), text_b=tf.constant(["c", "d"]))
print("STILL SERVING", out["input_ids"].shape[0])
"""


def test_bad_requests_are_refused_and_the_process_survives(exported):
  _, _, path = exported
  result = subprocess.run([sys.executable, "-c", BAD_REQUESTS, path],
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"})
  assert result.returncode == 0, result.stderr[-2000:]
  lines = result.stdout.strip().splitlines()
  assert [l.split()[0] for l in lines[:4]] == ["REFUSED"] * 4, lines
  assert "same batch size" in lines[0]
  assert "token ids must be in [0, 30522); got] [-101 -2000 -102]" in lines[1]
  assert "token ids must be in [0, 30522); got] [40101 42000 40102]" in (
      lines[2])
  assert "input_mask" in lines[3]
  assert lines[-1] == "STILL SERVING 2"
