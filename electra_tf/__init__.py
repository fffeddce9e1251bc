"""electra-tf: ELECTRA pretraining, finetuning and export in TF2 / Keras 3."""

from electra_tf.checkpoints.original_format import load_original_checkpoint
from electra_tf.checkpoints.original_format import save_original_checkpoint
from electra_tf.config import EncoderConfig
from electra_tf.config import PretrainingConfig
from electra_tf.config import load_pretraining_config
from electra_tf.data.special_tokens import SpecialTokenIds
from electra_tf.errors import CheckpointError
from electra_tf.errors import ConfigError
from electra_tf.errors import DataError
from electra_tf.errors import ElectraError
from electra_tf.modeling.encoder import ElectraEncoder
from electra_tf.pretraining.discriminator import ElectraDiscriminator
from electra_tf.pretraining.generator import ElectraGenerator
from electra_tf.pretraining.model import ElectraPretrainer

__version__ = "0.1.0"
