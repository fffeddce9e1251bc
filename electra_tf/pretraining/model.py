"""ElectraPretrainer: masking -> generator -> sampling -> discriminator -> loss.

Shape legend: B batch, L sequence length, N prediction slots, V vocab size.
"""

import keras
import tensorflow as tf

from electra_tf import config as config_lib
from electra_tf.data import features as F
from electra_tf.modeling import encoder as encoder_lib
from electra_tf.modeling import heads
from electra_tf.pretraining import ablations
from electra_tf.pretraining import discriminator as discriminator_lib
from electra_tf.pretraining import generator as generator_lib
from electra_tf.pretraining import losses
from electra_tf.pretraining import masking
from electra_tf.pretraining import noise as noise_lib
from electra_tf.pretraining import sampling
from electra_tf.pretraining import sequence_ops
from electra_tf.tokenization import special_tokens


class ElectraPretrainer(keras.Model):
  """The replaced-token-detection model of ELECTRA (Clark et al., 2020).

  A generator (a small masked LM) fills masked positions with samples; the
  discriminator predicts for every token whether it was replaced. Weight
  sharing follows the config exactly as the original: by default the whole
  embedding block is shared, `untied_generator=False` shares the whole
  Transformer, `untied_generator_embeddings=True` shares nothing, and
  `uniform_generator=True` samples uniformly without a generator network.
  With `objective="mlm"` there is no discriminator: the full-size encoder is
  trained as a masked LM (the BERT baseline).

  Args:
    config: a `PretrainingConfig`.
    special_ids: `SpecialTokenIds` of the vocabulary (BERT's by default).

  Call with a dict of int32 [B, L] `input_ids`, `input_mask`, `segment_ids`.
  Randomness is either injected with `noise` (a dict of `position_gumbel`
  [B, N, L], `mask_uniform` [B, N], and `sample_uniform` [B, N, V] or
  `slot_uniform` [B, N], which picks the sampler) or drawn from
  (`seed`, `step`, example index) by `noise.pretraining_noise`; examples are
  numbered from `example_offset`, so replicas can use global indices. Returns
  a dict of masking, sampling, logits and losses (see `call`).

  >>> from electra_tf.config import PretrainingConfig
  >>> config = PretrainingConfig.from_hparams({
  ...     "vocab_size": 200, "embedding_size": 16, "max_seq_length": 16,
  ...     "model_hparam_overrides": {"hidden_size": 32, "num_hidden_layers": 1}})
  >>> model = ElectraPretrainer(config)
  >>> ids = keras.ops.convert_to_tensor([[101] + [150] * 14 + [102]])
  >>> out = model({"input_ids": ids, "input_mask": ids * 0 + 1,
  ...              "segment_ids": ids * 0})
  >>> out["masked_lm_positions"].shape, out["disc_logits"].shape
  (TensorShape([1, 2]), TensorShape([1, 16]))
  """

  def __init__(self, config, special_ids=None, **kwargs):
    kwargs.setdefault("name", "electra_pretrainer")
    super().__init__(**kwargs)
    self.config = config
    self.special_ids = special_ids or special_tokens.SpecialTokenIds()
    policy = self.dtype_policy
    disc_config = config.discriminator_config
    # The encoder kept after pretraining (the original's "electra" scope).
    self.electra_encoder = encoder_lib.ElectraEncoder(
        disc_config, name="electra", dtype=policy)
    self.discriminator = None
    self.generator = None
    self.main_mlm_head = None
    # Loss terms: name -> weight in the total loss.
    self.loss_weights = {"mlm": config.gen_weight}
    if config.objective == "mlm":
      self.generator = generator_lib.ElectraGenerator(
          disc_config, encoder=self.electra_encoder, dtype=policy)
      return
    if config.objective not in config_lib.OBJECTIVES_WITHOUT_DETECTOR:
      # The replaced-token detector, or All-Tokens MLM's copy gate.
      self.discriminator = discriminator_lib.ElectraDiscriminator(
          disc_config, encoder=self.electra_encoder, dtype=policy)
    if config.objective in ("replace_mlm", "all_tokens_mlm"):
      self.main_mlm_head = heads.MaskedLMHead(
          disc_config, disc_config.embedding_size,
          name="electra_mlm_predictions", dtype=policy)
      self.loss_weights[config.objective] = 1.0
    else:
      self.loss_weights["disc"] = config.disc_weight
    if not config.uniform_generator:
      self.generator = self._build_generator(config, disc_config, policy)

  def _build_generator(self, config, disc_config, policy):
    if not config.untied_generator:
      return generator_lib.ElectraGenerator(
          disc_config, encoder=self.electra_encoder, dtype=policy)
    if config.untied_generator_embeddings:
      return generator_lib.ElectraGenerator(config.generator_config,
                                            dtype=policy)
    return generator_lib.ElectraGenerator(
        config.generator_config, embeddings=self.electra_encoder.embeddings,
        dtype=policy)

  def build(self, input_shape=None):
    """Creates every variable without running the model."""
    self.electra_encoder.build()
    for network in (self.discriminator, self.generator, self.main_mlm_head):
      if network is not None:
        network.build()
    self.built = True

  def draw_noise(self, batch_size, seq_length, seed, step=0, example_offset=0):
    """The noise `call` would draw for these examples (see `noise.py`)."""
    example_ids = tf.range(batch_size) + example_offset
    return noise_lib.pretraining_noise(
        seed, step, example_ids, self.config.max_predictions_per_seq,
        seq_length, self.config.vocab_size,
        self.config.replacement_sampling)

  def call(self, features, training=False, noise=None, seed=None, step=0,
           example_offset=0):
    config = self.config
    input_ids = tf.cast(features[F.INPUT_IDS], tf.int32)
    input_mask = tf.cast(features[F.INPUT_MASK], tf.int32)
    segment_ids = tf.cast(features[F.SEGMENT_IDS], tf.int32)
    if noise is None:
      noise = self.draw_noise(
          tf.shape(input_ids)[0], input_ids.shape[1],
          config.seed if seed is None else seed, step, example_offset)

    masked = masking.mask_tokens(
        input_ids, input_mask, self.special_ids, config.mask_prob,
        config.max_predictions_per_seq, noise["position_gumbel"],
        noise["mask_uniform"])
    out = {
        "masked_input_ids": masked.masked_input_ids,
        "masked_lm_positions": masked.masked_lm_positions,
        "masked_lm_ids": masked.masked_lm_ids,
        "masked_lm_weights": masked.masked_lm_weights,
    }
    mlm_logits = self._generate(masked, input_mask, segment_ids, training, out)
    mlm = losses.masked_lm_loss(mlm_logits, masked.masked_lm_ids,
                                masked.masked_lm_weights)
    out.update({
        "mlm_logits": mlm_logits,
        "mlm_preds": sequence_ops.first_argmax(mlm_logits),
        "mlm_per_example_loss": mlm.per_example,
        "mlm_loss": mlm.value,
    })
    _add_terms(out, "mlm", mlm)
    if config.objective == "mlm":
      return self._total(out)
    sampled = sampling.sample_from_noise(
        mlm_logits, masked.masked_lm_ids, config.temperature,
        config.disallow_correct, noise)
    fake = sampling.replace_tokens(input_ids, masked.masked_lm_positions,
                                   sampled)
    fake_features = {F.INPUT_IDS: fake.fake_input_ids,
                     F.INPUT_MASK: input_mask, F.SEGMENT_IDS: segment_ids}
    out.update({"sampled_tokids": fake.sampled_tokids,
                "fake_input_ids": fake.fake_input_ids,
                "is_fake": fake.is_fake})
    if config.objective == "replace_mlm":
      self._replace_mlm(fake_features, masked, training, out)
    elif config.objective == "all_tokens_mlm":
      self._all_tokens_mlm(fake_features, input_ids, training, out)
    else:
      self._detect_replaced(fake_features, fake, training, out)
    return self._total(out)

  def _detect_replaced(self, features, fake, training, out):
    """The discriminator's replaced-token detection and its loss."""
    disc_out = self.discriminator(features, training=training)
    weights = features[F.INPUT_MASK]
    if self.config.objective == "electra_15":
      weights = weights * fake.replaced_mask
    disc = losses.discriminator_loss(disc_out["logits"], fake.is_fake,
                                     weights)
    out.update({
        "disc_weights": tf.cast(weights, tf.float32),
        "discriminator_sequence_output": disc_out["sequence_output"],
        "disc_logits": disc_out["logits"],
        "disc_probs": tf.sigmoid(disc_out["logits"]),
        "disc_preds": tf.cast(disc_out["logits"] > 0, tf.int32),
        "disc_per_example_loss": disc.per_example,
        "disc_loss": disc.value,
    })
    _add_terms(out, "disc", disc)

  def _replace_mlm(self, features, masked, training, out):
    """Replace MLM: predict the originals at the sampled positions."""
    encoded = self.electra_encoder(
        features[F.INPUT_IDS], features[F.INPUT_MASK],
        features[F.SEGMENT_IDS], training=training)
    hidden = sequence_ops.gather_positions(encoded["sequence_output"],
                                           masked.masked_lm_positions)
    logits = self.main_mlm_head(hidden, self.electra_encoder.embedding_table)
    main = losses.masked_lm_loss(logits, masked.masked_lm_ids,
                                 masked.masked_lm_weights)
    out["replace_mlm_loss"] = main.value
    _add_terms(out, "replace_mlm", main)

  def _all_tokens_mlm(self, features, input_ids, training, out):
    """All-Tokens MLM: predict every token, with a copy gate."""
    disc_out = self.discriminator(features, training=training)
    logits = self.main_mlm_head(disc_out["sequence_output"],
                                self.electra_encoder.embedding_table)
    main = ablations.all_tokens_loss(logits, disc_out["logits"],
                                     features[F.INPUT_IDS], input_ids,
                                     features[F.INPUT_MASK])
    out["all_tokens_mlm_loss"] = main.value
    _add_terms(out, "all_tokens_mlm", main)

  def _total(self, out):
    out["total_loss"] = losses.weighted_total(
        self.loss_weights,
        {name: (out[f"{name}_loss_numerator"], out[f"{name}_loss_denominator"])
         for name in self.loss_weights})
    return out

  def _generate(self, masked, input_mask, segment_ids, training, out):
    """MLM logits [B, N, V] at the masked positions (zeros if uniform)."""
    if self.generator is None:
      batch = tf.shape(masked.masked_lm_ids)[0]
      return tf.zeros([batch, self.config.max_predictions_per_seq,
                       self.config.vocab_size], tf.float32)
    gen_out = self.generator(
        {F.INPUT_IDS: masked.masked_input_ids, F.INPUT_MASK: input_mask,
         F.SEGMENT_IDS: segment_ids}, masked.masked_lm_positions,
        training=training)
    out["generator_sequence_output"] = gen_out["sequence_output"]
    return gen_out["mlm_logits"]

  def get_config(self):
    return {**super().get_config(), "config": self.config.to_dict()}


def _add_terms(out, name, weighted_loss):
  """A loss term's parts, which a distributed step re-normalises globally."""
  out[f"{name}_loss_numerator"] = weighted_loss.numerator
  out[f"{name}_loss_denominator"] = weighted_loss.denominator
