"""The ELECTRA pretraining step in Hugging Face transformers (PyTorch).

Only `benchmarks/pretrain_throughput.py` uses this, to time the same step as
`electra_tf.pretraining.train_step.PretrainStep` in another framework. It
follows the original recipe: dynamic masking (positions drawn with
replacement, 85% [MASK]), a generator (`ElectraForMaskedLM`) scored at the N
masked slots only, Gumbel-max sampling without gradient, an
`ElectraForPreTraining` discriminator over every token, loss = gen_weight x
MLM + disc_weight x RTD, global-norm clipping and an AdamW update. The whole
embedding block (word, position, token type, LayerNorm) is shared, as in the
original. `torch` and `transformers` are optional: import this module only
when both are installed.

Shape legend: B batch, L sequence length, N prediction slots, V vocab size,
E embedding size.
"""

import torch
import transformers

from electra_tf.pretraining import losses
from electra_tf.pretraining import masking
from electra_tf.pretraining import sampling
from electra_tf.training import optimization

ADAM_BETAS = (0.9, 0.999)
ADAM_EPSILON = 1e-6


def hf_electra_config(encoder_config):
  """An `ElectraConfig` with the fields of our `EncoderConfig`."""
  c = encoder_config
  return transformers.ElectraConfig(
      vocab_size=c.vocab_size, embedding_size=c.embedding_size,
      hidden_size=c.hidden_size, num_hidden_layers=c.num_hidden_layers,
      num_attention_heads=c.num_attention_heads,
      intermediate_size=c.intermediate_size, hidden_act=c.hidden_act,
      hidden_dropout_prob=c.hidden_dropout_prob,
      attention_probs_dropout_prob=c.attention_probs_dropout_prob,
      max_position_embeddings=c.max_position_embeddings,
      type_vocab_size=c.type_vocab_size,
      initializer_range=c.initializer_range)


def build_models(config):
  """Generator and discriminator sharing the whole embedding block."""
  discriminator = transformers.ElectraForPreTraining(
      hf_electra_config(config.discriminator_config))
  generator = transformers.ElectraForMaskedLM(
      hf_electra_config(config.generator_config))
  generator.electra.embeddings = discriminator.electra.embeddings
  # The MLM output layer is the (shared) word embedding table.
  generator.generator_lm_head.weight = (
      discriminator.electra.embeddings.word_embeddings.weight)
  return generator.train(), discriminator.train()


def unique_parameters(*modules):
  """Trainable parameters of all modules, each shared one once."""
  seen = {}
  for module in modules:
    for parameter in module.parameters():
      seen.setdefault(id(parameter), parameter)
  return list(seen.values())


def scatter_update(sequence, updates, positions):
  """The original's scatter: position 0 ignored, duplicates averaged.

  Returns the new int64 sequence [B, L] and the 0/1 written mask [B, L].
  """
  summed = torch.zeros_like(sequence).scatter_add_(1, positions, updates)
  counts = torch.zeros_like(sequence).scatter_add_(
      1, positions, torch.ones_like(positions))
  counts[:, 0] = 0
  written = counts.clamp(max=1)
  values = torch.div(summed, counts.clamp(min=1), rounding_mode="floor")
  return (1 - written) * sequence + written * values, written


class HfElectraStep:
  """One training step of ELECTRA in transformers; `step(batch)` -> loss.

  Args:
    config: a `PretrainingConfig` (sizes, masking and loss settings).
    special_ids: `SpecialTokenIds` of the vocabulary.
    autocast_dtype: None for float32, or `torch.bfloat16` for mixed precision.
    compile_model: wrap the forward and backward in `torch.compile`.
    seed: seeds the weights and the step's noise.
  """

  def __init__(self, config, special_ids, autocast_dtype=None,
               compile_model=False, seed=0):
    torch.manual_seed(seed)
    self.config = config
    self.special_ids = special_ids
    self.autocast_dtype = autocast_dtype
    self.generator, self.discriminator = build_models(config)
    self.parameters = unique_parameters(self.generator, self.discriminator)
    self.optimizer = self._optimizer(config)
    self.noise = torch.Generator().manual_seed(seed)
    self._loss = torch.compile(self.loss) if compile_model else self.loss

  def _optimizer(self, config):
    # Decay kernels and tables (rank >= 2), as electra_tf.training does.
    groups = [
        {"params": [p for p in self.parameters if p.dim() >= 2],
         "weight_decay": config.weight_decay_rate},
        {"params": [p for p in self.parameters if p.dim() < 2],
         "weight_decay": 0.0}]
    kwargs = dict(lr=config.learning_rate, betas=ADAM_BETAS, eps=ADAM_EPSILON)
    try:
      return torch.optim.AdamW(groups, fused=True, **kwargs)
    except (RuntimeError, TypeError):
      return torch.optim.AdamW(groups, foreach=True, **kwargs)

  def mask(self, input_ids, input_mask, position_uniform, mask_uniform):
    """Positions with replacement, 85% [MASK]: (positions, ids, weights, in)."""
    ids = self.special_ids
    candidates = input_mask.bool()
    for token in (ids.sep, ids.cls, ids.mask, ids.pad):
      candidates &= input_ids != token
    slots = self.config.max_predictions_per_seq
    count = torch.round(input_mask.sum(-1) * self.config.mask_prob).long()
    count = count.clamp(max=slots).clamp(min=1)
    weights = (torch.arange(slots)[None] < count[:, None]) & (
        candidates.any(-1, keepdim=True))  # [B, N]
    log_prob = torch.log(candidates.float() / candidates.sum(
        -1, keepdim=True).clamp(min=1))  # [B, L]
    scores = log_prob[:, None] + sampling_gumbel(position_uniform)  # [B,N,L]
    positions = scores.argmax(-1) * weights  # [B, N]
    masked_lm_ids = torch.gather(input_ids, 1, positions) * weights
    to_mask = positions * (mask_uniform < masking.MASK_TOKEN_RATE)
    masked_input, _ = scatter_update(
        input_ids, torch.full_like(to_mask, ids.mask), to_mask)
    return positions, masked_lm_ids, weights.float(), masked_input

  def loss(self, input_ids, input_mask, segment_ids, noise):
    """Total loss of one batch (masking, generator, sampling, RTD)."""
    config = self.config
    positions, masked_lm_ids, weights, masked_input = self.mask(
        input_ids, input_mask, noise["position"], noise["mask"])
    with torch.autocast("cpu", dtype=self.autocast_dtype or torch.float32,
                        enabled=self.autocast_dtype is not None):
      hidden = self.generator.electra(
          masked_input, attention_mask=input_mask,
          token_type_ids=segment_ids).last_hidden_state  # [B, L, H]
      hidden = torch.gather(hidden, 1, positions[..., None].expand(
          -1, -1, hidden.shape[-1]))  # [B, N, H]
      logits = self.generator.generator_lm_head(
          self.generator.generator_predictions(hidden)).float()  # [B, N, V]
    log_probs = torch.log_softmax(logits, -1)
    nll = -torch.gather(log_probs, 2, masked_lm_ids[..., None])[..., 0]
    mlm = (weights * nll).sum() / (weights.sum() + losses.DENOMINATOR_EPS)
    with torch.no_grad():
      sampled = (logits / config.temperature
                 + sampling_gumbel(noise["sample"])).argmax(-1)  # [B, N]
      fake, replaced = scatter_update(input_ids, sampled, positions)
      is_fake = (replaced * (fake != input_ids)).float()
    with torch.autocast("cpu", dtype=self.autocast_dtype or torch.float32,
                        enabled=self.autocast_dtype is not None):
      disc_logits = self.discriminator(
          fake, attention_mask=input_mask,
          token_type_ids=segment_ids).logits.float()  # [B, L]
    mask = input_mask.float()
    rtd = torch.nn.functional.binary_cross_entropy_with_logits(
        disc_logits, is_fake, reduction="none")
    rtd = (rtd * mask).sum() / (mask.sum() + losses.DENOMINATOR_EPS)
    return config.gen_weight * mlm + config.disc_weight * rtd

  def draw_noise(self, batch_size, seq_length):
    """U(0, 1) noise for masking and sampling, from the seeded generator."""
    slots = self.config.max_predictions_per_seq
    shapes = {"position": (batch_size, slots, seq_length),
              "mask": (batch_size, slots),
              "sample": (batch_size, slots, self.config.vocab_size)}
    return {name: torch.rand(*shape, generator=self.noise)
            for name, shape in shapes.items()}

  def __call__(self, batch):
    """One update; `batch` holds int64 tensors. Returns the loss (float)."""
    input_ids, input_mask, segment_ids = batch
    noise = self.draw_noise(*input_ids.shape)
    total = self._loss(input_ids, input_mask, segment_ids, noise)
    total.backward()
    torch.nn.utils.clip_grad_norm_(self.parameters, optimization.CLIP_NORM)
    self.optimizer.step()
    self.optimizer.zero_grad(set_to_none=True)
    return float(total.detach())


def sampling_gumbel(uniform):
  """U(0, 1) -> Gumbel noise, with the original's epsilons."""
  eps = sampling.GUMBEL_EPS
  return -torch.log(-torch.log(uniform + eps) + eps)
