"""Weight tying, variable sets and parameter counts of every variant."""

import numpy as np
import pytest
import tensorflow as tf

import electra_tf
from electra_tf.checkpoints import tf1_names
from electra_tf.modeling import dropout
from electra_tf.modeling import sizes

TINY = {"vocab_size": 300, "embedding_size": 16, "max_seq_length": 16,
        "generator_hidden_size": 0.25,
        "model_hparam_overrides": {"hidden_size": 32, "num_hidden_layers": 2,
                                   "num_attention_heads": 2}}


def build(**hparams):
  model = electra_tf.ElectraPretrainer(
      electra_tf.PretrainingConfig.from_hparams({**TINY, **hparams}))
  model.build()
  return model


def count(variables):
  return sum(int(np.prod(v.shape)) for v in variables)


def test_default_shares_the_whole_embedding_block():
  model = build()
  gen, disc = model.generator.encoder, model.discriminator.encoder
  assert gen.embeddings is disc.embeddings
  assert gen is not disc and gen.embeddings_project is not None
  names = set(tf1_names.pretrainer_variables(model))
  assert not any(n.startswith("generator/embeddings/") for n in names)
  assert "generator/embeddings_project/kernel" in names
  # Every variable appears once in the model and once in the name table.
  assert len(model.trainable_variables) == len(names)
  assert len({id(v) for v in model.trainable_variables}) == len(names)


def test_fully_tied_generator_shares_the_transformer():
  model = build(untied_generator=False)
  assert model.generator.encoder is model.discriminator.encoder
  names = tf1_names.pretrainer_variables(model)
  assert not any(n.startswith("generator/") for n in names)
  assert "generator_predictions/output_bias" in names


def test_untied_embeddings_give_the_generator_its_own():
  model = build(untied_generator_embeddings=True)
  gen = model.generator.encoder
  assert gen.embeddings is not model.discriminator.encoder.embeddings
  assert gen.embeddings_project is None  # embeddings at generator width
  assert model.generator.encoder.embedding_table.shape == (300, 8)


def test_mlm_objective_and_uniform_generator_structures():
  bert = build(electra_objective=False)
  assert bert.discriminator is None
  assert bert.generator.encoder is bert.electra_encoder
  uniform = build(uniform_generator=True)
  assert uniform.generator is None
  names = tf1_names.pretrainer_variables(uniform)
  assert not any(n.startswith("generator") for n in names)


@pytest.mark.parametrize("hparams", [{}, {"untied_generator": False},
                                     {"untied_generator_embeddings": True}])
def test_closed_form_counts_match_built_models(hparams):
  model = build(**hparams)
  disc_config = model.config.discriminator_config
  disc = model.discriminator
  assert count(disc.trainable_variables) == (
      sizes.encoder_parameters(disc_config)
      + sizes.discriminator_head_parameters(disc_config))
  gen = model.generator
  head = sizes.mlm_head_parameters(gen.config,
                                   gen.encoder.embedding_table.shape[1])
  assert count(gen.mlm_head.trainable_variables) == head


# Discriminator encoder without a pooler (the original has none), and with
# the replaced-token head.
PAPER_SIZES = {
    "electra_small": (13_483_008, 13_549_057),
    "electra_base": (108_891_648, 109_483_009),
    "electra_large": (334_092_288, 335_142_913),
}


@pytest.mark.parametrize("preset", sorted(PAPER_SIZES))
def test_presets_have_the_papers_sizes(preset):
  disc = electra_tf.load_pretraining_config(preset).discriminator_config
  encoder = sizes.encoder_parameters(disc)
  with_head = encoder + sizes.discriminator_head_parameters(disc)
  assert (encoder, with_head) == PAPER_SIZES[preset]


def test_small_discriminator_built_for_real_has_the_pinned_size():
  config = electra_tf.load_pretraining_config("electra_small")
  disc = electra_tf.ElectraDiscriminator(config.discriminator_config)
  disc.build()
  assert count(disc.encoder.trainable_variables) == 13_483_008
  assert count(disc.trainable_variables) == 13_549_057


def test_dropout_masks_follow_global_examples_across_replicas():
  """Two replicas drop exactly what one device drops on the whole batch."""
  inputs = tf.ones([4, 3, 5])
  layer = dropout.HashDropout(0.5, seed=7)
  one = layer(inputs, training=True).numpy()
  strategy = tf.distribute.MirroredStrategy(
      ["/cpu:0", "/cpu:1"],
      cross_device_ops=tf.distribute.ReductionToOneDevice())
  with strategy.scope():
    layer = dropout.HashDropout(0.5, seed=7)
  halves = strategy.experimental_distribute_values_from_function(
      lambda context: inputs[2 * context.replica_id_in_sync_group:][:2])
  out = strategy.run(tf.function(lambda x: layer(x, training=True)),
                     args=(halves,))
  both = np.concatenate([v.numpy() for v in
                         strategy.experimental_local_results(out)])
  np.testing.assert_array_equal(both, one)
  assert 0 < np.mean(one == 0) < 1
