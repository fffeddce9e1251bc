"""PretrainingConfig: original hparam names, derivations, presets, errors."""

import json

from absl import flags
import pytest

import electra_tf
from electra_tf import errors
from electra_tf import hparams as hparams_lib
from electra_tf.cli import finetune as finetune_cli
from electra_tf.cli import pretrain as pretrain_cli
from electra_tf.finetuning.config import FinetuningConfig

ORIGINAL_KEYS_NOT_DERIVED_HERE = ()


def test_golden_hparams_load_unchanged_and_resolve_as_the_original(golden):
  passed = golden.info["pretraining_hparams_passed"]
  config = electra_tf.PretrainingConfig.from_hparams(
      passed, data_dir=".", model_name="oracle")
  resolved = config.to_dict()
  for key, value in golden.info["pretraining_config"].items():
    assert resolved[key] == value, key


def test_golden_encoder_configs_match_the_original_bert_configs(golden):
  config = golden.config
  for ours, theirs in ((config.discriminator_config,
                        golden.info["discriminator_bert_config"]),
                       (config.generator_config,
                        golden.info["generator_bert_config"])):
    mine = ours.to_dict()
    for key, value in theirs.items():
      assert mine[key] == value, key


@pytest.mark.parametrize("size,hidden,layers,heads,ffn", [
    ("small", 256, 12, 4, 1024),
    ("base", 768, 12, 12, 3072),
    ("large", 1024, 24, 16, 4096),
])
def test_model_sizes(size, hidden, layers, heads, ffn):
  disc = electra_tf.PretrainingConfig.from_hparams(
      {"model_size": size}).discriminator_config
  assert (disc.hidden_size, disc.num_hidden_layers, disc.num_attention_heads,
          disc.intermediate_size) == (hidden, layers, heads, ffn)


def test_derivations_follow_the_original_order():
  config = electra_tf.PretrainingConfig.from_hparams({})
  assert config.embedding_size == 128  # small defaults to 128
  assert config.max_predictions_per_seq == 19  # int(0.155 * 128)
  base = electra_tf.PretrainingConfig.from_hparams(
      {"model_size": "base", "generator_hidden_size": 0.33333,
       "mask_prob": 0.25, "max_seq_length": 512})
  assert base.embedding_size is None
  assert base.discriminator_config.embedding_size == 768
  assert base.max_predictions_per_seq == 130  # int(0.255 * 512)
  gen = base.generator_config
  assert (gen.hidden_size, gen.num_attention_heads, gen.intermediate_size,
          gen.embedding_size) == (256, 4, 1024, 768)
  explicit = electra_tf.PretrainingConfig.from_hparams(
      {"model_size": "small", "embedding_size": 256})
  assert explicit.embedding_size == 256
  overrides = electra_tf.PretrainingConfig.from_hparams(
      {"model_hparam_overrides": {"hidden_size": 512}})
  assert overrides.discriminator_config.num_attention_heads == 8
  assert overrides.discriminator_config.intermediate_size == 2048


def test_debug_mode_defaults_and_model():
  config = electra_tf.PretrainingConfig.from_hparams(
      {"debug": True, "num_train_steps": 7})
  assert (config.train_batch_size, config.num_train_steps,
          config.iterations_per_loop) == (8, 7, 1)
  disc = config.discriminator_config
  assert (disc.num_hidden_layers, disc.hidden_size,
          disc.num_attention_heads) == (3, 144, 4)


def test_untied_embeddings_and_shared_generator_configs():
  untied = electra_tf.PretrainingConfig.from_hparams(
      {"untied_generator_embeddings": True})
  assert untied.generator_config.embedding_size == 64
  shared = electra_tf.PretrainingConfig.from_hparams(
      {"untied_generator": False})
  assert shared.generator_config == shared.discriminator_config
  bert = electra_tf.PretrainingConfig.from_hparams(
      {"electra_objective": False})
  assert bert.objective == "mlm"


def test_override_rederives_from_intent():
  config = electra_tf.PretrainingConfig.from_hparams({"mask_prob": 0.15})
  assert config.override(mask_prob=0.25).max_predictions_per_seq == 32


@pytest.mark.parametrize("hparams,message", [
    ({"mask_probb": 0.1}, "unknown pretraining hparam 'mask_probb'; "
                          "did you mean 'mask_prob'?"),
    ({"model_hparam_overrides": {"hiden_size": 3}},
     "unknown model_hparam_overrides key 'hiden_size'; "
     "did you mean 'hidden_size'?"),
    ({"model_size": "medium"}, "model_size 'medium' is not one of"),
    ({"replacement_sampling": "gumbel"},
     "replacement_sampling 'gumbel' is not one of gumbel_max, inverse_cdf"),
    ({"learning_rate": "5e-4"}, "hparam 'learning_rate' must be float"),
    ({"debug": 1}, "hparam 'debug' must be bool"),
    ({"electric_objective": True}, "electric_objective=true"),
    ({"objective": "mlm", "electra_objective": True}, "contradicts"),
])
def test_bad_hparams_name_the_key(hparams, message):
  with pytest.raises(electra_tf.ConfigError, match=None) as info:
    electra_tf.PretrainingConfig.from_hparams(hparams)
  assert message in str(info.value)
  assert "\n" not in str(info.value)


def test_hparams_as_json_string_and_file(tmp_path):
  text = json.dumps({"mask_prob": 0.25})
  assert electra_tf.PretrainingConfig.from_hparams(text).mask_prob == 0.25
  path = tmp_path / "h.json"
  path.write_text(text)
  assert electra_tf.PretrainingConfig.from_hparams(
      str(path)).mask_prob == 0.25
  with pytest.raises(electra_tf.ConfigError, match="not found"):
    electra_tf.PretrainingConfig.from_hparams(str(tmp_path / "none.json"))
  path.write_text("{bad json")
  with pytest.raises(electra_tf.ConfigError, match="not valid JSON"):
    electra_tf.PretrainingConfig.from_hparams(str(path))


def _cli_flags(cli, *args):
  flag_values = flags.FlagValues()
  cli.define_flags(flag_values)
  flag_values(["prog", *args])
  return flag_values


def test_repeated_hparams_flags_merge_in_order(tmp_path):
  later = tmp_path / "later.json"
  later.write_text(json.dumps({"learning_rate": 3e-4, "max_seq_length": 64}))
  first = json.dumps({"learning_rate": 1e-4, "num_train_steps": 7})
  config = pretrain_cli.load_config(_cli_flags(
      pretrain_cli, "--preset", "tiny", "--hparams", first,
      "--hparams", str(later)))
  assert (config.learning_rate, config.num_train_steps,
          config.max_seq_length) == (3e-4, 7, 64)
  assert config.discriminator_config.hidden_size == 64  # from the preset
  config = finetune_cli.load_config(_cli_flags(
      finetune_cli, "--preset", "tiny",
      "--hparams", '{"task_names": ["sst"], "learning_rate": 1e-4}',
      "--hparams", '{"learning_rate": 3e-4}'))
  assert (config.task_names, config.learning_rate) == (("sst",), 3e-4)


def test_every_preset_loads_and_a_missing_one_is_named():
  names = hparams_lib.preset_names()
  assert {"electra_small", "electra_small_plus_plus", "electra_base",
          "electra_large", "tiny"} <= set(names)
  for name in names:
    electra_tf.load_pretraining_config(name)
  with pytest.raises(electra_tf.ConfigError,
                     match="no pretrain preset named 'electra_smal'; "
                           "did you mean 'electra_small'"):
    electra_tf.load_pretraining_config("electra_smal")


def test_released_small_uses_a_full_width_generator():
  config = electra_tf.load_pretraining_config("electra_small_plus_plus")
  assert config.generator_config.hidden_size == 256
  large = electra_tf.load_pretraining_config("electra_large")
  assert (large.mask_prob, large.train_batch_size,
          large.generator_config.hidden_size) == (0.25, 2048, 256)


@pytest.mark.parametrize("hparams, message", [
    ({"train_batch_size": 0}, "train_batch_size must be >= 1, got 0"),
    ({"keep_checkpoint_max": 0}, "keep_checkpoint_max must be >= 1"),
    ({"learning_rate": -1e-3}, "learning_rate must be >= 0.0"),
    ({"mask_prob": 1.5}, "mask_prob must be in (0.0, 1.0), got 1.5"),
    ({"temperature": 0.0}, "temperature must be > 0.0"),
    ({"generator_hidden_size": 2.0}, "generator_hidden_size must be in"),
])
def test_numeric_hparams_out_of_range_are_refused(hparams, message):
  with pytest.raises(errors.ConfigError) as error:
    electra_tf.PretrainingConfig.from_hparams(hparams)
  assert message in str(error.value)


@pytest.mark.parametrize("hparams, message", [
    ({"learning_rate": -1.0}, "learning_rate must be >= 0.0"),
    ({"num_train_epochs": 0.0}, "num_train_epochs must be > 0.0"),
    ({"warmup_proportion": 1.5}, "warmup_proportion must be in [0.0, 1.0]"),
    ({"layerwise_lr_decay": -0.5}, "layerwise_lr_decay must be in"),
])
def test_finetuning_numeric_hparams_out_of_range_are_refused(hparams,
                                                              message):
  with pytest.raises(errors.ConfigError) as error:
    FinetuningConfig.from_hparams(hparams)
  assert message in str(error.value)
