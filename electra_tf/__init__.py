"""electra-tf: ELECTRA pretraining, finetuning and export in TF2 / Keras 3.

The public names below load on first use, so `import electra_tf.cli...`
can configure TensorFlow's logging before TensorFlow is imported.
"""

import importlib

_EXPORTS = {
    "load_original_checkpoint": "electra_tf.checkpoints.original_format",
    "save_original_checkpoint": "electra_tf.checkpoints.original_format",
    "EncoderConfig": "electra_tf.config",
    "PretrainingConfig": "electra_tf.config",
    "load_pretraining_config": "electra_tf.config",
    "SpecialTokenIds": "electra_tf.tokenization.special_tokens",
    "CheckpointError": "electra_tf.errors",
    "ConfigError": "electra_tf.errors",
    "DataError": "electra_tf.errors",
    "ElectraError": "electra_tf.errors",
    "ElectraEncoder": "electra_tf.modeling.encoder",
    "ElectraDiscriminator": "electra_tf.pretraining.discriminator",
    "ElectraGenerator": "electra_tf.pretraining.generator",
    "ElectraPretrainer": "electra_tf.pretraining.model",
    "FinetuningConfig": "electra_tf.finetuning.config",
    "run_finetuning": "electra_tf.finetuning.runner",
    "load_finetuned_model": "electra_tf.finetuning.checkpoints",
}

__all__ = sorted(_EXPORTS)
__version__ = "0.1.0"


def __getattr__(name):
  if name not in _EXPORTS:
    raise AttributeError(f"module 'electra_tf' has no attribute {name!r}")
  return getattr(importlib.import_module(_EXPORTS[name]), name)


def __dir__():
  return sorted(list(globals()) + __all__)
