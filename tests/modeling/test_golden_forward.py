"""The discriminator and generator compute what the original computes."""

import numpy as np
import tensorflow as tf

FORWARD_ATOL = 1e-5
MLM_ATOL = 1e-4


def test_discriminator_matches_every_golden_tensor(golden):
  model = golden.loaded_pretrainer()
  features = golden.features()
  out = model.discriminator(features, training=False)
  embeddings = model.discriminator.encoder.embeddings
  expected = {
      "word_embeddings_lookup": tf.gather(embeddings.word_embeddings,
                                          features["input_ids"]),
      "embeddings_layernorm_output": embeddings(
          features["input_ids"], features["segment_ids"]),
      "embedding_output": out["embedding_output"],
      "all_layer_outputs": tf.stack(out["all_layer_outputs"]),
      "attention_probs": tf.stack(out["attention_probs"]),
      "sequence_output": out["sequence_output"],
      "pooled_output_cls": out["pooled_output"],
      "disc_logits": out["logits"],
      "disc_probs": tf.sigmoid(out["logits"]),
  }
  for name, ours in expected.items():
    theirs = golden.arrays[f"disc_only/{name}"]
    np.testing.assert_allclose(np.asarray(ours), theirs, rtol=0,
                               atol=FORWARD_ATOL, err_msg=name)


def test_generator_mlm_logits_on_golden_masked_inputs(golden):
  model = golden.loaded_pretrainer()
  features = dict(golden.features())
  features["input_ids"] = golden.arrays["pretrain/masked_input_ids"]
  positions = golden.arrays["pretrain/masked_lm_positions"]
  out = model.generator(features, positions, training=False)
  np.testing.assert_allclose(out["mlm_logits"].numpy(),
                             golden.arrays["pretrain/mlm_logits"],
                             rtol=0, atol=MLM_ATOL)
  np.testing.assert_allclose(out["sequence_output"].numpy(),
                             golden.arrays["pretrain/generator_sequence_output"],
                             rtol=0, atol=FORWARD_ATOL)


def test_outputs_at_real_tokens_ignore_appended_padding(golden):
  model = golden.loaded_pretrainer()
  features = golden.features()
  padded = {k: np.pad(v, [[0, 0], [0, 7]]) for k, v in features.items()}
  short = model.discriminator(features)["sequence_output"].numpy()
  long = model.discriminator(padded)["sequence_output"].numpy()
  real = features["input_mask"].astype(bool)
  np.testing.assert_allclose(long[:, :short.shape[1]][real], short[real],
                             atol=1e-5)
